// Package groupcommit batches concurrent writes into shared transactions.
// A Batcher hands each call to one goroutine, which flushes whatever calls
// are waiting together: when the writer is idle a call is flushed alone at
// once, and under load the calls that arrive during a flush make up the
// next batch. A transaction's fixed costs (a commit's fsync, statement
// preparation, a queue notification) are then paid once per batch instead
// of once per call.
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
	flush   FlushFunc[T, R]
	max     int
	timeout time.Duration
	calls   chan call[T, R]
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// New starts a Batcher that flushes at most max items at a time, each flush
// bounded by timeout. Close stops it.
func New[T, R any](flush FlushFunc[T, R], max int, timeout time.Duration) *Batcher[T, R] {
	b := &Batcher[T, R]{
		flush: flush, max: max, timeout: timeout,
		calls:   make(chan call[T, R]),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go b.loop()
	return b
}

// Do writes item within some batch and returns its result. When the batch
// fails, each of its items is retried alone, so one bad item does not fail
// the others. If ctx ends first, Do returns ctx.Err() and the item may
// still be written.
func (b *Batcher[T, R]) Do(ctx context.Context, item T) (R, error) {
	c := call[T, R]{item: item, reply: make(chan result[R], 1)}
	var zero R
	select {
	case b.calls <- c:
	case <-b.done:
		return zero, ErrClosed
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	select {
	case res := <-c.reply:
		return res.r, res.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Close stops the batcher after the flush in progress.
func (b *Batcher[T, R]) Close() {
	b.once.Do(func() { close(b.done) })
	<-b.stopped
}

func (b *Batcher[T, R]) loop() {
	defer close(b.stopped)
	for {
		var batch []call[T, R]
		select {
		case c := <-b.calls:
			batch = append(batch, c)
		case <-b.done:
			return
		}
	drain:
		for len(batch) < b.max {
			select {
			case c := <-b.calls:
				batch = append(batch, c)
			default:
				break drain
			}
		}
		b.run(batch)
	}
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
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	rs, err := b.flush(ctx, items)
	if err == nil && len(rs) != len(items) {
		err = errors.New("groupcommit: flush returned a wrong number of results")
	}
	return rs, err
}
