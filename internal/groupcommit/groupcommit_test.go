package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/waitfor"
)

func TestBatchesConcurrentCalls(t *testing.T) {
	t.Parallel()
	var flushes, biggest atomic.Int32
	g := newGate(t)
	b := New(func(ctx context.Context, items []int) ([]int, error) {
		flushes.Add(1)
		g.holdFirst() // the first flush, so the others queue up
		if n := int32(len(items)); n > biggest.Load() {
			biggest.Store(n)
		}
		out := make([]int, len(items))
		for i, v := range items {
			out[i] = v * 2
		}
		return out, nil
	}, 100, time.Second)
	t.Cleanup(b.Close)

	var wg sync.WaitGroup
	errs := make(chan error, 50)
	do := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := b.Do(context.Background(), i)
			if err != nil || got != i*2 {
				errs <- errors.New("wrong result")
			}
		}()
	}
	// The first call holds the first flush; the other 49 queue behind it.
	queueBehind(t, g, b, 50, do)
	g.open()
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
	g := newGate(t)
	b := New(func(ctx context.Context, items []int) ([]int, error) {
		g.holdFirst()
		for _, v := range items {
			if v == 3 {
				return nil, errors.New("bad item")
			}
		}
		return items, nil
	}, 100, time.Second)
	t.Cleanup(b.Close)
	results := make(chan error, 6)
	do := func(i int) {
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
	// A good item holds the first flush; the others, the bad one among
	// them, queue behind it and are flushed as one batch.
	queueBehind(t, g, b, 6, do)
	g.open()
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
	g := newGate(t)
	var biggest, alone atomic.Int32
	b := NewWith(func(ctx context.Context, items []int) ([]int, error) {
		if n := int32(len(items)); n > biggest.Load() {
			biggest.Store(n)
		}
		return items, nil
	}, Options[int, int]{Max: 100, Timeout: time.Second, Alone: func(ctx context.Context, item int) (int, error) {
		alone.Add(1)
		g.holdFirst() // the only lone write: the others find it in flight
		return item, nil
	}})
	t.Cleanup(b.Close)
	first := make(chan error, 1)
	go func() {
		_, err := b.Do(context.Background(), -1)
		first <- err
	}()
	<-g.held
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if got, err := b.Do(context.Background(), i); err != nil || got != i {
				t.Errorf("Do(%d) = %d, %v", i, got, err)
			}
		})
	}
	waitQueued(t, b, 20)
	g.open()
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if alone.Load() != 1 {
		t.Errorf("%d lone writes, want only the first call's", alone.Load())
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
	waitfor.True(t, "the first flush", func() bool { return flushes.Load() > 0 })
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
	g := newGate(t)
	b := New(func(ctx context.Context, items []int) ([]int, error) {
		g.holdFirst()
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
	queueBehind(t, g, b, 5, func(i int) { go do(i) })
	closed := make(chan struct{})
	go func() {
		b.Close()
		close(closed)
	}()
	g.open()
	<-closed
	for range 5 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
}

// gate holds a test's first write (a flush or a lone write) until it is
// opened, so that the calls made meanwhile queue up behind it.
type gate struct {
	t       *testing.T
	first   atomic.Bool
	held    chan struct{} // closed once the first write is held
	release chan struct{}
}

func newGate(t *testing.T) *gate {
	return &gate{t: t, held: make(chan struct{}), release: make(chan struct{})}
}

// holdFirst holds its first caller until the gate opens or the test ends,
// so that a test that fails while holding one can still close its Batcher
// (a cleanup that runs after the test's context ends); later callers pass.
func (g *gate) holdFirst() {
	if !g.first.CompareAndSwap(false, true) {
		return
	}
	close(g.held)
	select {
	case <-g.release:
	case <-g.t.Context().Done():
	}
}

// open lets the held write go on.
func (g *gate) open() { close(g.release) }

// queueBehind starts call 0 with start and, once g holds its write, calls
// 1 to n-1, and returns when b has those queued. start must not wait for
// the call to end.
func queueBehind[T, R any](t *testing.T, g *gate, b *Batcher[T, R], n int, start func(i int)) {
	t.Helper()
	start(0)
	<-g.held
	for i := 1; i < n; i++ {
		start(i)
	}
	waitQueued(t, b, n-1)
}

// waitQueued waits until n calls are queued in b.
func waitQueued[T, R any](t *testing.T, b *Batcher[T, R], n int) {
	t.Helper()
	waitfor.Check(t, func() error {
		b.mu.Lock()
		queued := len(b.queue)
		b.mu.Unlock()
		if queued < n {
			return fmt.Errorf("%d calls queued, want %d", queued, n)
		}
		return nil
	})
}
