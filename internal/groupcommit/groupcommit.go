// Package groupcommit batches concurrent writes into shared transactions.
// A Batcher queues each call and flushes whatever calls are waiting
// together: when the writer is idle a call is flushed alone at once, and
// under load the calls that arrive during a flush make up the next batch.
// A transaction's fixed costs (a commit's fsync, statement preparation, a
// queue notification) are then paid once per batch instead of once per
// call.
package groupcommit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrClosed is returned by Do after Close.
var ErrClosed = errors.New("groupcommit: batcher closed")

// FlushFunc writes a batch in one transaction and returns one result per
// item, in order. It is all or nothing: when it returns an error, nothing
// of the batch was written.
type FlushFunc[T, R any] func(ctx context.Context, items []T) ([]R, error)

// Options tune a Batcher made by NewWith.
type Options[T, R any] struct {
	// Max is the most items one flush writes.
	Max int
	// Timeout bounds each flush.
	Timeout time.Duration
	// Flushes is how many batches may be written at once (1 when not
	// set): a batch waiting for its commit does not hold up the next one
	// while fewer than Flushes are in flight.
	Flushes int
	// Alone, when set, writes a single item as a transaction of its own.
	// A call that finds no call waiting and fewer than Flushes batches in
	// flight is written with it at once, in the caller's goroutine: a
	// lone write pays neither a hand-over to another goroutine nor a
	// batch's statements. It is all or nothing like FlushFunc.
	Alone func(ctx context.Context, item T) (R, error)
}

type call[T, R any] struct {
	item  T
	reply chan result[R]
}

type result[R any] struct {
	r   R
	err error
}

// Batcher batches calls of Do into calls of its FlushFunc.
type Batcher[T, R any] struct {
	flush FlushFunc[T, R]
	opts  Options[T, R]

	mu       sync.Mutex
	queue    []call[T, R]
	inFlight int  // flushes and lone writes running
	closed   bool // no call is accepted
	flushing sync.WaitGroup

	wake    chan struct{} // a call was queued or a flush ended
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// New starts a Batcher that flushes at most max items at a time, one
// flush at a time, each bounded by timeout. Close stops it.
func New[T, R any](flush FlushFunc[T, R], max int, timeout time.Duration) *Batcher[T, R] {
	return NewWith(flush, Options[T, R]{Max: max, Timeout: timeout})
}

// NewWith starts a Batcher tuned by opts. Close stops it.
func NewWith[T, R any](flush FlushFunc[T, R], opts Options[T, R]) *Batcher[T, R] {
	opts.Flushes = max(opts.Flushes, 1)
	opts.Max = max(opts.Max, 1)
	b := &Batcher[T, R]{
		flush: flush, opts: opts,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go b.loop()
	return b
}

// Do writes item within some batch (or alone, see Options.Alone) and
// returns its result. When a batch fails, each of its items is retried
// alone, so one bad item does not fail the others. If ctx ends first, Do
// returns ctx.Err() and the item may still be written; a lone write in
// the caller's goroutine is not interrupted by ctx (it is bounded by the
// timeout).
func (b *Batcher[T, R]) Do(ctx context.Context, item T) (R, error) {
	var zero R
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return zero, ErrClosed
	}
	if b.opts.Alone != nil && len(b.queue) == 0 && b.inFlight < b.opts.Flushes {
		b.inFlight++
		b.flushing.Add(1)
		b.mu.Unlock()
		defer b.flushing.Done()
		defer b.ended()
		tctx, cancel := context.WithTimeout(context.Background(), b.opts.Timeout)
		defer cancel()
		return b.opts.Alone(tctx, item)
	}
	c := call[T, R]{item: item, reply: make(chan result[R], 1)}
	b.queue = append(b.queue, c)
	b.mu.Unlock()
	b.signal()
	select {
	case res := <-c.reply:
		return res.r, res.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Close stops accepting calls, writes the calls already queued, and
// returns once every flush has ended.
func (b *Batcher[T, R]) Close() {
	b.once.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		close(b.done)
	})
	<-b.stopped
}

// signal wakes the loop unless a wake-up is already pending.
func (b *Batcher[T, R]) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// ended records the end of a flush or a lone write and wakes the loop,
// which may start a batch that was waiting for a free flush.
func (b *Batcher[T, R]) ended() {
	b.mu.Lock()
	b.inFlight--
	b.mu.Unlock()
	b.signal()
}

// loop owns the flushes of queued calls: it starts one for each batch of
// waiting calls while fewer than Flushes are in flight.
func (b *Batcher[T, R]) loop() {
	defer close(b.stopped)
	for {
		select {
		case <-b.wake:
			b.start()
		case <-b.done:
			for b.start() {
				<-b.wake
			}
			b.flushing.Wait()
			return
		}
	}
}

// start starts flushes of the queued calls while flushes are free, and
// reports whether calls are still queued.
func (b *Batcher[T, R]) start() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.queue) > 0 && b.inFlight < b.opts.Flushes {
		n := min(len(b.queue), b.opts.Max)
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		if len(b.queue) == 0 {
			b.queue = nil
		}
		b.inFlight++
		b.flushing.Add(1)
		go func() {
			defer b.flushing.Done()
			defer b.ended()
			b.run(batch)
		}()
	}
	return len(b.queue) > 0
}

func (b *Batcher[T, R]) run(batch []call[T, R]) {
	items := make([]T, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	rs, err := b.flushOnce(items)
	if err == nil {
		for i, c := range batch {
			c.reply <- result[R]{r: rs[i]}
		}
		return
	}
	if len(batch) == 1 {
		batch[0].reply <- result[R]{err: err}
		return
	}
	for _, c := range batch {
		rs, err := b.flushOnce([]T{c.item})
		if err != nil {
			c.reply <- result[R]{err: err}
			continue
		}
		c.reply <- result[R]{r: rs[0]}
	}
}

func (b *Batcher[T, R]) flushOnce(items []T) ([]R, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.Timeout)
	defer cancel()
	rs, err := b.flush(ctx, items)
	if err == nil && len(rs) != len(items) {
		err = errors.New("groupcommit: flush returned a wrong number of results")
	}
	return rs, err
}
