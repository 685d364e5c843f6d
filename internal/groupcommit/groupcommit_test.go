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

func TestLoneCallIsWrittenAloneInTheCaller(t *testing.T) {
	t.Parallel()
	var flushes, alone atomic.Int32
	b := NewWith(func(ctx context.Context, items []int) ([]int, error) {
		flushes.Add(1)
		return items, nil
	}, Options[int, int]{Max: 10, Timeout: time.Second, Alone: func(ctx context.Context, item int) (int, error) {
		alone.Add(1)
		return item * 3, nil
	}})
	defer b.Close()
	for i := range 3 {
		if got, err := b.Do(context.Background(), i); err != nil || got != i*3 {
			t.Fatalf("Do(%d) = %d, %v; want %d", i, got, err, i*3)
		}
	}
	if flushes.Load() != 0 || alone.Load() != 3 {
		t.Errorf("three calls one after the other: %d flushes, %d written alone; want 0 and 3", flushes.Load(), alone.Load())
	}
}

func TestCallsWhileBusyAreBatched(t *testing.T) {
	t.Parallel()
	release, holding := make(chan struct{}), make(chan struct{})
	var biggest atomic.Int32
	b := NewWith(func(ctx context.Context, items []int) ([]int, error) {
		if n := int32(len(items)); n > biggest.Load() {
			biggest.Store(n)
		}
		return items, nil
	}, Options[int, int]{Max: 100, Timeout: time.Second, Alone: func(ctx context.Context, item int) (int, error) {
		close(holding)
		<-release // the only lone write: the others find it in flight
		return item, nil
	}})
	defer b.Close()
	first := make(chan error, 1)
	go func() {
		_, err := b.Do(context.Background(), -1)
		first <- err
	}()
	<-holding
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if got, err := b.Do(context.Background(), i); err != nil || got != i {
				t.Errorf("Do(%d) = %d, %v", i, got, err)
			}
		})
	}
	waitQueued(b, 20)
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if biggest.Load() < 2 {
		t.Errorf("20 calls queued behind a write: biggest batch %d, want batching", biggest.Load())
	}
}

func TestSeveralFlushesAtOnce(t *testing.T) {
	t.Parallel()
	release, second := make(chan struct{}), make(chan struct{})
	var flushes atomic.Int32
	b := NewWith(func(ctx context.Context, items []int) ([]int, error) {
		if flushes.Add(1) == 1 {
			<-release
		} else {
			close(second)
		}
		return items, nil
	}, Options[int, int]{Max: 10, Timeout: time.Second, Flushes: 2})
	defer b.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Do(context.Background(), 1)
	}()
	for flushes.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	go b.Do(context.Background(), 2)
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Error("a second batch waited for the first with two flushes allowed")
	}
	close(release)
	<-done
}

func TestCloseWritesQueuedCalls(t *testing.T) {
	t.Parallel()
	release, holding := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	b := New(func(ctx context.Context, items []int) ([]int, error) {
		if first.CompareAndSwap(false, true) {
			close(holding)
			<-release
		}
		return items, nil
	}, 10, time.Second)
	results := make(chan error, 5)
	do := func(i int) {
		got, err := b.Do(context.Background(), i)
		if err == nil && got != i {
			err = errors.New("wrong result")
		}
		results <- err
	}
	go do(0)
	<-holding
	for i := 1; i < 5; i++ {
		go do(i)
	}
	waitQueued(b, 4)
	closed := make(chan struct{})
	go func() {
		b.Close()
		close(closed)
	}()
	close(release)
	<-closed
	for range 5 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
}

// waitQueued waits until n calls are queued in b.
func waitQueued[T, R any](b *Batcher[T, R], n int) {
	for {
		b.mu.Lock()
		queued := len(b.queue)
		b.mu.Unlock()
		if queued >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
