package betting_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// waitStatus waits until the bet has status, failing the test after a
// generous deadline.
func (w *placementWorld) waitStatus(t *testing.T, id string, status betting.BetStatus) betting.Bet {
	t.Helper()
	var b betting.Bet
	waitfor.Check(t, func() error {
		var err error
		if b, err = w.bets.GetBet(context.Background(), "", "", id); err != nil {
			t.Fatal(err)
		}
		if b.Status != status {
			return fmt.Errorf("bet %s is %s, want %s", id, b.Status, status)
		}
		return nil
	})
	return b
}

// A bet placed while a dispatcher runs is handed to it at once.
func TestDispatcherPlacesNewBets(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, done(), done())
	d := betting.NewDispatcher(w.place, betting.DispatchConfig{SweepInterval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); d.Run(ctx) }()
	defer func() { cancel(); <-ran }()

	first := w.bet(t)
	second := w.betWithKey(t, "22222222-2222-4222-8222-222222222222")
	w.waitStatus(t, first.ID, betting.BetConfirmed)
	w.waitStatus(t, second.ID, betting.BetConfirmed)
	if w.wallet.withdrawn != 2 {
		t.Errorf("%d withdrawals, want 2", w.wallet.withdrawn)
	}
}

// A placement cut short by a stop after its withdrawal was sent is found
// pending by the next dispatcher's sweep, which resends the withdrawal:
// the bet is confirmed once, as after a crash.
func TestDispatcherResumesPendingBetsAfterARestart(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, nil, done())
	ctx, stop := context.WithCancel(context.Background())
	w.wallet.stop = stop
	d := betting.NewDispatcher(w.place, betting.DispatchConfig{SweepInterval: time.Hour})
	ran := make(chan struct{})
	go func() { defer close(ran); d.Run(ctx) }()
	b := w.bet(t)
	<-ran // the wallet stopped the dispatcher during the withdrawal
	if got := w.waitStatus(t, b.ID, betting.BetPending); !got.Reserved {
		t.Fatal("the stopped placement had not reserved the exposure")
	}

	restarted := betting.NewDispatcher(w.place, betting.DispatchConfig{SweepInterval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	ran = make(chan struct{})
	go func() { defer close(ran); restarted.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	w.waitStatus(t, b.ID, betting.BetConfirmed)
	if w.wallet.withdrawn != 2 {
		t.Errorf("%d withdrawals, want the first and its resend", w.wallet.withdrawn)
	}
}

// While paused, a dispatcher places nothing; bets stay pending until
// Resume.
func TestDispatcherPause(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, done())
	d := betting.NewDispatcher(w.place, betting.DispatchConfig{SweepInterval: 10 * time.Millisecond})
	d.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); d.Run(ctx) }()
	defer func() { cancel(); <-ran }()

	b := w.bet(t)
	// Ten sweeps, none of which may place the bet: nothing signals a
	// sweep that did nothing, so this waits a fixed window.
	time.Sleep(100 * time.Millisecond)
	w.waitStatus(t, b.ID, betting.BetPending)
	d.Resume()
	w.waitStatus(t, b.ID, betting.BetConfirmed)
}
