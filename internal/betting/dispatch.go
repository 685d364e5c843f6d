package betting

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"
)

// DispatchConfig tunes a Dispatcher. Zero fields take the defaults.
type DispatchConfig struct {
	// Workers is the number of placements run at once (default 128: a
	// placement mostly waits for the wallet and for its writes).
	Workers int
	// SweepInterval is how often the pending bets that no worker holds
	// are looked for (default 1 s).
	SweepInterval time.Duration
	// MaxAttempts is the number of runs a placement gets; the last one
	// rejects a bet it cannot finish (default 10, as a queued placement).
	MaxAttempts int
	// AttemptTimeout bounds one run of a placement (default 30 s, room
	// for the wallet's three withdrawal attempts).
	AttemptTimeout time.Duration
	// Log receives failed attempts; nil discards them.
	Log *slog.Logger
}

// dispatchBuffer is how many handed-off bets wait for a worker before
// Dispatch leaves the others to the sweep.
const dispatchBuffer = 4096

// Dispatcher places bets in this process, for a store that keeps no
// placement queue of its own (SQLite, whose database one process owns).
// The pending bets are the queue: Place hands each new bet to the
// dispatcher, and a sweep finds the pending bets no worker holds — all of
// them after a restart, those a full hand-off left behind, and those whose
// failed attempt has waited its back-off. A bet is held by at most one
// worker at a time, and Process leaves a bet that is no longer pending
// alone, so a bet found twice is placed once.
type Dispatcher struct {
	p       *Placement
	cfg     DispatchConfig
	handoff chan string

	mu       sync.Mutex
	held     map[string]bool       // in the hand-off channel or with a worker
	failures map[string]retryState // bets whose last attempt failed
	paused   bool
	resumed  chan struct{} // closed on Resume; replaced on Pause
}

type retryState struct {
	attempts int
	next     time.Time
}

// NewDispatcher returns a Dispatcher of p's bets and has p hand it every
// bet it creates. Run starts it.
func NewDispatcher(p *Placement, cfg DispatchConfig) *Dispatcher {
	if cfg.Workers <= 0 {
		cfg.Workers = 128
	}
	if cfg.SweepInterval <= 0 {
		cfg.SweepInterval = time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 10
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = 30 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	resumed := make(chan struct{})
	close(resumed)
	d := &Dispatcher{p: p, cfg: cfg, handoff: make(chan string, dispatchBuffer),
		held: map[string]bool{}, failures: map[string]retryState{}, resumed: resumed}
	p.dispatcher = d
	return d
}

// Dispatch hands a pending bet to a worker without waiting: when every
// worker is busy and the hand-off is full, the next sweep finds the bet.
func (d *Dispatcher) Dispatch(betID string) {
	if !d.hold(betID) {
		return
	}
	select {
	case d.handoff <- betID:
	default:
		d.release(betID)
	}
}

// Pause stops workers from starting placements until Resume; placements
// under way finish. Bets keep being accepted and stay pending.
func (d *Dispatcher) Pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.paused {
		d.paused, d.resumed = true, make(chan struct{})
	}
}

// Resume undoes Pause.
func (d *Dispatcher) Resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.paused {
		d.paused = false
		close(d.resumed)
	}
}

// Run places bets until ctx ends, then waits for the placements under way,
// which ctx's end cancels: a placement cut short runs again after the
// restart, resending the same withdrawal.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range d.cfg.Workers {
		wg.Go(func() { d.work(ctx) })
	}
	wg.Go(func() { d.sweep(ctx) })
	wg.Wait()
}

func (d *Dispatcher) work(ctx context.Context) {
	for {
		var id string
		select {
		case <-ctx.Done():
			return
		case id = <-d.handoff:
		}
		if !d.waitResumed(ctx) {
			return
		}
		d.place(ctx, id)
	}
}

func (d *Dispatcher) waitResumed(ctx context.Context) bool {
	d.mu.Lock()
	resumed := d.resumed
	d.mu.Unlock()
	select {
	case <-resumed:
		return true
	case <-ctx.Done():
		return false
	}
}

func (d *Dispatcher) place(ctx context.Context, id string) {
	d.mu.Lock()
	attempt := d.failures[id].attempts + 1
	d.mu.Unlock()
	actx, cancel := context.WithTimeout(ctx, d.cfg.AttemptTimeout)
	err := d.p.Process(actx, id, attempt >= d.cfg.MaxAttempts)
	cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.held, id)
	if err == nil || ctx.Err() != nil {
		delete(d.failures, id)
		return
	}
	d.failures[id] = retryState{attempts: attempt, next: d.p.Now().Add(retryDelay(attempt))}
	d.cfg.Log.Warn("bet placement failed; it will be retried", "bet_id", id, "attempt", attempt, "error", err)
}

// retryDelay is the wait after a failed attempt: attempt⁴ seconds, River's
// default, so that a placement retries as a queued one would.
func retryDelay(attempt int) time.Duration {
	return time.Duration(math.Pow(float64(attempt), 4)) * time.Second
}

// sweep hands the pending bets that no worker holds to the workers, at
// start and every SweepInterval, waiting for room in the hand-off.
func (d *Dispatcher) sweep(ctx context.Context) {
	t := time.NewTicker(d.cfg.SweepInterval)
	defer t.Stop()
	for {
		if err := d.sweepOnce(ctx); err != nil && ctx.Err() == nil {
			d.cfg.Log.Warn("pending bets sweep failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweepPage is how many pending bets one read of the sweep returns.
const sweepPage = 1000

func (d *Dispatcher) sweepOnce(ctx context.Context) error {
	var after BetRef
	for {
		page, err := d.p.bets.PendingBets(ctx, after, sweepPage)
		if err != nil {
			return err
		}
		now := d.p.Now()
		for _, b := range page {
			if !d.holdDue(b.ID, now) {
				continue
			}
			select {
			case d.handoff <- b.ID:
			case <-ctx.Done():
				d.release(b.ID)
				return ctx.Err()
			}
		}
		if len(page) < sweepPage {
			return nil
		}
		last := page[len(page)-1]
		after = last
	}
}

// holdDue marks a bet as handed off when no worker holds it and its
// back-off, if any, is over; false otherwise.
func (d *Dispatcher) holdDue(id string, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, failed := d.failures[id]; d.held[id] || failed && now.Before(f.next) {
		return false
	}
	d.held[id] = true
	return true
}

// hold marks a bet as handed off; false when it already is.
func (d *Dispatcher) hold(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held[id] {
		return false
	}
	d.held[id] = true
	return true
}

func (d *Dispatcher) release(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.held, id)
}
