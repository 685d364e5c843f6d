package groupcommit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBatchesConcurrentCalls(t *testing.T) {
	t.Parallel()
	var flushes, biggest atomic.Int32
	release := make(chan struct{})
	b := New(func(ctx context.Context, items []int) ([]int, error) {
		if flushes.Add(1) == 1 {
			<-release // hold the first flush so the others queue up
		}
		if n := int32(len(items)); n > biggest.Load() {
			biggest.Store(n)
		}
		out := make([]int, len(items))
		for i, v := range items {
			out[i] = v * 2
		}
		return out, nil
	}, 100, time.Second)
	defer b.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := b.Do(context.Background(), i)
			if err != nil || got != i*2 {
				errs <- errors.New("wrong result")
			}
		}()
	}
	// The callers block on an unbuffered channel behind the held flush,
	// which nothing can observe: give them a moment to get there. The
	// results are checked whatever the timing; only the batching needs
	// two of them queued.
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if flushes.Load() >= 50 || biggest.Load() < 2 {
		t.Errorf("50 calls took %d flushes, biggest batch %d; want batching", flushes.Load(), biggest.Load())
	}
}

func TestFailedBatchRetriesItemsAlone(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var first atomic.Bool
	b := New(func(ctx context.Context, items []int) ([]int, error) {
		if first.CompareAndSwap(false, true) {
			<-release
		}
		for _, v := range items {
			if v == 3 {
				return nil, errors.New("bad item")
			}
		}
		return items, nil
	}, 100, time.Second)
	defer b.Close()
	results := make(chan error, 6)
	for i := range 6 {
		go func() {
			_, err := b.Do(context.Background(), i)
			if i == 3 {
				if err == nil {
					err = errors.New("the bad item succeeded")
				} else {
					err = nil
				}
			}
			results <- err
		}()
	}
	// As above: a moment for the callers to queue behind the held flush,
	// so the bad item shares a batch with good ones.
	time.Sleep(50 * time.Millisecond)
	close(release)
	for range 6 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	b := New(func(ctx context.Context, items []int) ([]int, error) { return items, nil }, 10, time.Second)
	b.Close()
	if _, err := b.Do(context.Background(), 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close = %v, want ErrClosed", err)
	}
}
