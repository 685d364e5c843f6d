package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/cputime"
	"github.com/foresight-dev/foresight/internal/cputime/cputimetest"
	"github.com/foresight-dev/foresight/internal/enginetest"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// TestOperatorBetListReadsAnIndex checks ListBetsReadsAnIndex on
// PostgreSQL, whose plan has a Sort step where it sorts and an Index step
// where it reads an index.
func TestOperatorBetListReadsAnIndex(t *testing.T) {
	t.Parallel()
	db := openDB(t, pgtest.NewDatabase(t))
	t.Cleanup(func() { db.Close() })
	enginetest.ListBetsReadsAnIndex(t, db.ExplainListBets, "Sort", "Index")
}

// TestReservationsOfTwoNodesDoNotDeadlock runs batches of exposure
// reservations on two nodes of one database at once, each batch holding
// bets of the same two outcomes in the opposite order of the other
// node's: a batch locks each outcome's exposure row in turn, so two
// batches that took them in opposite orders waited for each other until
// PostgreSQL broke the deadlock by failing one (28 times in a
// 100,000-bet run on two nodes).
func TestReservationsOfTwoNodesDoNotDeadlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	nodes := [2]*postgres.DB{openDB(t, url), openDB(t, url)}
	for _, n := range nodes {
		t.Cleanup(func() { n.Close() })
	}
	store := nodes[0].BetStore()
	if _, err := store.EnsureBettor(ctx, betting.Bettor{OperatorID: "acme", ID: "b1", Currency: "USD", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	outcomes := [2]string{uuid.NewString(), uuid.NewString()}
	newBet := func(outcome string) betting.Bet {
		b := bettingtest.NewBet("b1", uuid.NewString(), outcome, time.Now())
		if _, _, err := store.CreateBet(ctx, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	const rounds, perOutcome = 20, 5
	limit := money.MustParse("1000000")
	for r := range rounds {
		var batches [2][]betting.Bet
		for i := range batches {
			for _, o := range []string{outcomes[i], outcomes[1-i]} {
				for range perOutcome {
					batches[i] = append(batches[i], newBet(o))
				}
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, n := range nodes {
			wg.Go(func() { errs[i] = n.ReserveBatch(ctx, batches[i], limit) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, node %d: %v", r, i, err)
			}
		}
	}
	payout, want := bettingtest.NewBet("b1", "", "", time.Now()).PotentialPayout, money.Zero()
	for range rounds * 2 * perOutcome {
		want = want.Add(payout)
	}
	for _, o := range outcomes {
		got, err := store.Exposure(ctx, "acme", o, "USD")
		if err != nil || !got.Equal(want) {
			t.Errorf("exposure of %s = %v, %v; want %v", o, got, err, want)
		}
	}
}

// BenchmarkBetWrites measures the two writes of a bet that its bettor or
// its placement waits for, its creation and its confirmation, from one
// caller at a time ("alone": each write finds the store idle) and from 32
// at once ("burst"). The database's own CPU is not in cpu-ns/op.
func BenchmarkBetWrites(b *testing.B) {
	for _, callers := range []int{1, 32} {
		name := map[bool]string{true: "alone", false: "burst"}[callers == 1]
		b.Run(name, func(b *testing.B) { benchBetWrites(b, callers) })
	}
}

func benchBetWrites(b *testing.B, callers int) {
	ctx := context.Background()
	db := openDB(b, pgtest.NewDatabase(b))
	defer db.Close()
	store := db.BetStore()
	const bettors = 200
	for i := range bettors {
		if _, err := store.EnsureBettor(ctx, betting.Bettor{OperatorID: "acme", ID: fmt.Sprint("b", i), Currency: "USD", CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	outcome := uuid.NewString()
	var next sync.Mutex
	left := b.N
	b.ResetTimer()
	cpu := cputime.Process()
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for {
				next.Lock()
				if left == 0 {
					next.Unlock()
					return
				}
				left--
				next.Unlock()
				bet := bettingtest.NewBet(fmt.Sprint("b", c%bettors), uuid.NewString(), outcome, time.Now())
				if _, _, err := store.CreateBet(ctx, bet); err != nil {
					b.Error(err)
					return
				}
				confirm := betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, At: time.Now()}
				if err := store.UpdateBet(ctx, bet.ID, confirm); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	cputimetest.ReportPerOp(b, cpu)
}
