package betting_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sqlite"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// scriptedWallet answers withdrawals from a script; a nil answer stops the
// run after the debit was sent (the worker was cancelled).
type scriptedWallet struct {
	mu        sync.Mutex
	answers   []*betting.WalletAnswer
	withdrawn int
	stop      context.CancelFunc
	// deposits counts the deposits sent per bet; refuse names bets whose
	// next deposit gets a 5xx.
	deposits map[string]int
	refuse   map[string]bool
}

func (w *scriptedWallet) Withdraw(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.withdrawn++
	a := w.answers[0]
	w.answers = w.answers[1:]
	if a == nil {
		w.stop()
		return betting.WalletAnswer{}, context.Canceled
	}
	return *a, nil
}

func (w *scriptedWallet) Rollback(context.Context, betting.Operator, betting.Bet) (betting.WalletCredit, error) {
	return betting.WalletCredit{Done: true}, nil
}
func (w *scriptedWallet) Deposit(_ context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.deposits == nil {
		w.deposits = map[string]int{}
	}
	w.deposits[b.ID]++
	if w.refuse[b.ID] {
		delete(w.refuse, b.ID)
		return betting.WalletCredit{}, nil
	}
	bal := money.MustParse("123.00")
	return betting.WalletCredit{Done: true, Balance: &bal}, nil
}

type placementWorld struct {
	svc    *betting.Service
	place  *betting.Placement
	bets   betting.BetStore
	wallet *scriptedWallet
	op     betting.Operator
	event  betting.Event
	bettor betting.Bettor
}

func newPlacementWorld(t *testing.T, answers ...*betting.WalletAnswer) *placementWorld {
	t.Helper()
	return newPlacementWorldOn(t, sqlitetest.Open(t), answers...)
}

// newPlacementWorldOn is newPlacementWorld on an open database.
func newPlacementWorldOn(t *testing.T, db *sqlite.DB, answers ...*betting.WalletAnswer) *placementWorld {
	t.Helper()
	return newPlacementWorldOf(t, db.BettingStore(), db.BetStore(), answers...)
}

// newPlacementWorldOf is newPlacementWorld on stores (a test's wrappers of
// a database's).
func newPlacementWorldOf(t *testing.T, store betting.Store, bets betting.BetStore, answers ...*betting.WalletAnswer) *placementWorld {
	t.Helper()
	var err error
	w := &placementWorld{svc: betting.NewService(store, false), bets: bets, wallet: &scriptedWallet{answers: answers}}
	w.place = betting.NewPlacement(w.svc, w.bets, w.wallet)
	ctx := context.Background()
	if w.op, err = w.svc.CreateOperator(ctx, bettingtest.NewOperator("acme")); err != nil {
		t.Fatal(err)
	}
	if w.event, err = w.svc.CreateEvent(ctx, bettingtest.NewEvent(w.op.CreatedAt)); err != nil {
		t.Fatal(err)
	}
	if w.bettor, err = w.place.Bettor(ctx, "acme", "alice", "USD"); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *placementWorld) bet(t *testing.T) betting.Bet {
	t.Helper()
	return w.betWithKey(t, "11111111-1111-4111-8111-111111111111")
}

// betStoppedAfterDebit places a bet whose processing stops once its
// withdrawal is sent: the wallet ends the processing's context.
func (w *placementWorld) betStoppedAfterDebit(t *testing.T) betting.Bet {
	t.Helper()
	b := w.bet(t)
	ctx, cancel := context.WithCancel(context.Background())
	w.wallet.stop = cancel
	if err := w.place.Process(ctx, b.ID, false); err == nil {
		t.Fatal("a stopped placement reported success")
	}
	return b
}

func (w *placementWorld) betWithKey(t *testing.T, key string) betting.Bet {
	t.Helper()
	m := w.event.Markets[0]
	b, err := w.place.Place(context.Background(), w.bettor, w.op, key,
		betting.PlaceRequest{MarketID: m.ID, OutcomeID: m.Outcomes[0].ID, Stake: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// settledWinners places and confirms a bet for each idempotency key, on
// the first outcome of the world's market, resolves the market for that
// outcome and settles it; it returns the bets' ids, their deposits to send.
func (w *placementWorld) settledWinners(t *testing.T, keys ...string) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for _, key := range keys {
		b := w.betWithKey(t, key)
		if err := w.place.Process(ctx, b.ID, false); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
	}
	m := w.event.Markets[0]
	if _, err := w.svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := w.place.Settle(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	return ids
}

func done() *betting.WalletAnswer {
	bal := money.MustParse("90.00")
	return &betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: "op-1", Balance: &bal}
}

// A placement stopped after its withdrawal was sent resumes by resending
// it, without checking again: the stake was debited at the entry price.
func TestPlacementResumesAfterTheDebit(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, nil, done())
	b := w.betStoppedAfterDebit(t)
	// The price moves beyond the tolerance meanwhile: no longer a reason to refuse.
	m := w.event.Markets[0]
	if _, err := w.svc.SetPrices(context.Background(), m.ID, map[string]decimal.Decimal{
		m.Outcomes[0].ID: decimal.RequireFromString("0.9"), m.Outcomes[1].ID: decimal.RequireFromString("0.1")}); err != nil {
		t.Fatal(err)
	}
	if err := w.place.Process(context.Background(), b.ID, false); err != nil {
		t.Fatal(err)
	}
	got, _ := w.bets.GetBet(context.Background(), "", "", b.ID)
	if got.Status != betting.BetConfirmed || w.wallet.withdrawn != 2 {
		t.Errorf("bet %s after %d withdrawals, want confirmed after the resent one", got.Status, w.wallet.withdrawn)
	}
}

// A market that closed while the stake was being debited rolls the debit
// back instead of keeping the stake.
func TestDebitOfAClosedMarketIsRolledBack(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, nil, done())
	b := w.betStoppedAfterDebit(t)
	if _, err := w.svc.SetMarketStatus(context.Background(), w.event.Markets[0].ID, betting.StatusSuspended); err != nil {
		t.Fatal(err)
	}
	if err := w.place.Process(context.Background(), b.ID, false); err != nil {
		t.Fatal(err)
	}
	got, _ := w.bets.GetBet(context.Background(), "", "", b.ID)
	if got.Status != betting.BetRejected || got.RejectionCode == nil || *got.RejectionCode != betting.RejectWalletRolledBack {
		t.Errorf("bet = %s %v, want rejected wallet_rolled_back", got.Status, got.RejectionCode)
	}
	if x, _ := w.bets.Exposure(context.Background(), "acme", b.OutcomeID, "USD"); !x.IsZero() {
		t.Errorf("exposure %s still reserved", x)
	}
}

// A wallet that cannot be called at all rejects the bet at once, with its
// exposure given back.
func TestUncallableWalletRejects(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t)
	b := w.bet(t)
	w.place = betting.NewPlacement(w.svc, w.bets, &failingWallet{})
	if err := w.place.Process(context.Background(), b.ID, false); err != nil {
		t.Fatal(err)
	}
	got, _ := w.bets.GetBet(context.Background(), "", "", b.ID)
	if got.Status != betting.BetRejected || got.RejectionCode == nil || *got.RejectionCode != betting.RejectOther {
		t.Errorf("bet = %s %v", got.Status, got.RejectionCode)
	}
}

type failingWallet struct{ scriptedWallet }

func (*failingWallet) Withdraw(context.Context, betting.Operator, betting.Bet) (betting.WalletAnswer, error) {
	return betting.WalletAnswer{}, context.DeadlineExceeded // not the caller's context: a configuration failure
}

// TestPlacementChecks: each situation gives the rejection code the spec
// names for it, and nothing is debited.
func TestPlacementChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stake  string
		before func(t *testing.T, w *placementWorld)
		code   betting.RejectionCode
	}{
		{"price moved beyond the tolerance", "10.00", func(t *testing.T, w *placementWorld) {
			m := w.event.Markets[0]
			w.svc.SetPrices(context.Background(), m.ID, map[string]decimal.Decimal{
				m.Outcomes[0].ID: decimal.RequireFromString("0.8"), m.Outcomes[1].ID: decimal.RequireFromString("0.2")})
		}, betting.RejectValidationFailed},
		{"closes_at passed", "10.00", func(t *testing.T, w *placementWorld) {
			later := w.place.Now().Add(48 * time.Hour)
			w.place.Now = func() time.Time { return later }
		}, betting.RejectValidationFailed},
		{"market suspended", "10.00", func(t *testing.T, w *placementWorld) {
			w.svc.SetMarketStatus(context.Background(), w.event.Markets[0].ID, betting.StatusSuspended)
		}, betting.RejectValidationFailed},
		{"stake below min_stake", "0.50", nil, betting.RejectBetLimitReached},
		{"stake above max_stake", "1000.01", nil, betting.RejectBetLimitReached},
		{"payout above max_payout", "900.00", func(t *testing.T, w *placementWorld) {
			w.svc.UpdateOperator(context.Background(), "acme", func(o *betting.Operator) error {
				l := o.Limits["USD"]
				l.MaxPayout = money.MustParse("1000")
				o.Limits["USD"] = l
				return nil
			})
		}, betting.RejectBetLimitReached},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newPlacementWorld(t, done())
			closes := w.place.Now().Add(24 * time.Hour)
			w.event.Markets[0].ClosesAt = &closes
			m := w.event.Markets[0]
			ev, err := w.svc.CreateEvent(context.Background(), betting.Event{Category: "sports", Title: betting.Texts{"en": "x"},
				Markets: []betting.Market{{Question: betting.Texts{"en": "q"}, ClosesAt: &closes, Outcomes: m.Outcomes}}})
			if err != nil {
				t.Fatal(err)
			}
			w.event = ev
			b, err := w.place.Place(context.Background(), w.bettor, w.op, "22222222-2222-4222-8222-222222222222",
				betting.PlaceRequest{MarketID: ev.Markets[0].ID, OutcomeID: ev.Markets[0].Outcomes[0].ID, Stake: tt.stake})
			if err != nil {
				t.Fatal(err)
			}
			if tt.before != nil {
				tt.before(t, w)
			}
			if err := w.place.Process(context.Background(), b.ID, false); err != nil {
				t.Fatal(err)
			}
			got, _ := w.bets.GetBet(context.Background(), "", "", b.ID)
			if got.Status != betting.BetRejected || got.RejectionCode == nil || *got.RejectionCode != tt.code || w.wallet.withdrawn != 0 {
				t.Errorf("bet = %s %v after %d withdrawals; want rejected %s and no debit", got.Status, got.RejectionCode, w.wallet.withdrawn, tt.code)
			}
		})
	}
}

// A bet still pending when its market resolves holds the settlement back
// (ErrBetsPending, retried by the worker) until it is decided; deciding it
// now rejects it without a debit, and the settlement then finishes.
func TestPendingBetAtResolution(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, done())
	ctx := context.Background()
	b := w.bet(t)
	m := w.event.Markets[0]
	if _, err := w.svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := w.place.Settle(ctx, m.ID); !errors.Is(err, betting.ErrBetsPending) {
		t.Fatalf("Settle with a pending bet = %v, want ErrBetsPending", err)
	}
	if err := w.place.Process(ctx, b.ID, false); err != nil {
		t.Fatal(err)
	}
	got, _ := w.bets.GetBet(ctx, "", "", b.ID)
	if got.Status != betting.BetRejected || got.RejectionCode == nil || *got.RejectionCode != betting.RejectValidationFailed || w.wallet.withdrawn != 0 {
		t.Errorf("bet = %s %v after %d withdrawals, want rejected validation_failed without a debit", got.Status, got.RejectionCode, w.wallet.withdrawn)
	}
	if err := w.place.Settle(ctx, m.ID); err != nil {
		t.Errorf("Settle once the bet is decided = %v", err)
	}
	if x, _ := w.bets.Exposure(ctx, "acme", b.OutcomeID, "USD"); !x.IsZero() {
		t.Errorf("exposure %s still reserved", x)
	}
}

// A batch of deposits of which one is not confirmed fails, records the
// others' confirmations, and on its retry sends only the unconfirmed one.
func TestDepositRetrySendsOnlyTheUnconfirmed(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, done(), done(), done())
	ctx := context.Background()
	ids := w.settledWinners(t, "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333")
	w.wallet.refuse = map[string]bool{ids[1]: true}
	if err := w.place.Deposit(ctx, ids); err == nil {
		t.Fatal("Deposit with an unconfirmed deposit reported success")
	}
	confirmed := func() (n int) {
		bets, err := w.bets.BetsByID(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bets {
			if b.DepositConfirmedAt != nil {
				n++
			}
		}
		return n
	}
	if n := confirmed(); n != 2 {
		t.Errorf("%d deposits recorded as confirmed after the first run, want 2", n)
	}
	if err := w.place.Deposit(ctx, ids); err != nil {
		t.Fatal(err)
	}
	if err := w.place.Deposit(ctx, ids); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{ids[0]: 1, ids[1]: 2, ids[2]: 1}
	for id, n := range want {
		if w.wallet.deposits[id] != n {
			t.Errorf("bet %s: %d deposits sent, want %d", id, w.wallet.deposits[id], n)
		}
	}
	if n := confirmed(); n != 3 {
		t.Errorf("%d deposits recorded as confirmed, want 3", n)
	}
	if b, _ := w.bets.GetBettor(ctx, "acme", "alice"); b.Balance == nil || b.Balance.String() != "123" {
		t.Errorf("bettor balance = %v, want the deposit answer's 123", b.Balance)
	}
}

// sequencedWallet answers each deposit with the bettor's balance after it
// (100 plus the number of deposits before it, so the last one applied
// reports the highest), and counts the deposits of one bettor in flight at
// once: a deposit waits a little for another to arrive, as answers on a
// network overlap.
type sequencedWallet struct {
	scriptedWallet
	mu       sync.Mutex
	applied  int
	inflight map[string]int
	overlap  int
	arrived  chan struct{}
}

func (w *sequencedWallet) Deposit(_ context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	w.mu.Lock()
	w.inflight[b.BettorID]++
	if w.inflight[b.BettorID] > 1 {
		w.overlap++
	}
	w.mu.Unlock()
	select {
	case w.arrived <- struct{}{}:
	case <-w.arrived:
	case <-time.After(50 * time.Millisecond): // no other deposit of the bettor came
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inflight[b.BettorID]--
	w.applied++
	bal := money.MustParse(fmt.Sprint(100 + w.applied))
	return betting.WalletCredit{Done: true, Balance: &bal}, nil
}

// One bettor's deposits are sent one after another, within a batch and
// across two batches at once, and the balance recorded is the last
// answer's: sent at once, an earlier answer recorded after a later one
// left an old balance (seen as a widget showing 80.00 after a payout and a
// refund had brought it to 124.21).
func TestDepositsOfOneBettorInOrder(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, done(), done(), done(), done())
	wallet := &sequencedWallet{inflight: map[string]int{}, arrived: make(chan struct{})}
	place := betting.NewPlacement(w.svc, w.bets, wallet)
	ctx := context.Background()
	ids := w.settledWinners(t, "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444")
	// Two batches at once, as when two markets settle together.
	var wg sync.WaitGroup
	for _, batch := range [][]string{ids[:2], ids[2:]} {
		wg.Go(func() {
			if err := place.Deposit(ctx, batch); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wallet.overlap > 0 {
		t.Errorf("%d deposits sent while another of the same bettor was in flight", wallet.overlap)
	}
	if b, _ := w.bets.GetBettor(ctx, "acme", "alice"); b.Balance == nil || b.Balance.String() != "104" {
		t.Errorf("bettor balance = %v, want the last answer's 104", b.Balance)
	}
}

// heldWallet debits every withdrawal and holds the deposits of the
// operator hold names until release is closed, counting those in flight
// and the most ever in flight at once.
type heldWallet struct {
	scriptedWallet
	hold           string
	release        chan struct{}
	released       sync.Once
	mu             sync.Mutex
	inflight, most int
}

func (w *heldWallet) Withdraw(context.Context, betting.Operator, betting.Bet) (betting.WalletAnswer, error) {
	return *done(), nil
}

func (w *heldWallet) Deposit(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	if op.ID == w.hold {
		w.mu.Lock()
		w.inflight++
		w.most = max(w.most, w.inflight)
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			w.inflight--
			w.mu.Unlock()
		}()
		<-w.release
	}
	return betting.WalletCredit{Done: true}, nil
}

// open lets the held deposits and every later one through.
func (w *heldWallet) open() { w.released.Do(func() { close(w.release) }) }

func (w *heldWallet) counts() (inflight, most int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inflight, w.most
}

// One operator's deposits are sent DepositCallsPerOperator at once, across
// Deposits running together, not more; while its wallet holds them all,
// another operator's deposits go through.
func TestDepositCallsPerOperator(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t)
	wallet := &heldWallet{hold: "acme", release: make(chan struct{})}
	t.Cleanup(wallet.open)
	place := betting.NewPlacement(w.svc, w.bets, wallet)
	ctx := context.Background()
	other, err := w.svc.CreateOperator(ctx, bettingtest.NewOperator("other"))
	if err != nil {
		t.Fatal(err)
	}
	m := w.event.Markets[0]
	bets := map[string][]string{}
	for i := range betting.DepositCallsPerOperator + 20 {
		op := w.op
		if i%10 == 9 {
			op = other
		}
		bettor, err := place.Bettor(ctx, op.ID, fmt.Sprint("bettor-", i), "USD")
		if err != nil {
			t.Fatal(err)
		}
		b, err := place.Place(ctx, bettor, op, fmt.Sprint("key-", i), betting.PlaceRequest{MarketID: m.ID, OutcomeID: m.Outcomes[0].ID, Stake: "10.00"})
		if err != nil {
			t.Fatal(err)
		}
		if err := place.Process(ctx, b.ID, false); err != nil {
			t.Fatal(err)
		}
		bets[op.ID] = append(bets[op.ID], b.ID)
	}
	if _, err := w.svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := place.Settle(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if len(bets["acme"]) <= betting.DepositCallsPerOperator {
		t.Fatalf("%d bets of acme, want more than %d", len(bets["acme"]), betting.DepositCallsPerOperator)
	}
	// acme's deposits in two Deposits at once, as two jobs run.
	half := len(bets["acme"]) / 2
	var wg sync.WaitGroup
	for _, batch := range [][]string{bets["acme"][:half], bets["acme"][half:]} {
		wg.Go(func() {
			if err := place.Deposit(ctx, batch); err != nil {
				t.Error(err)
			}
		})
	}
	waitfor.True(t, "acme's wallet holding DepositCallsPerOperator deposits", func() bool {
		inflight, _ := wallet.counts()
		return inflight == betting.DepositCallsPerOperator
	})
	if err := place.Deposit(ctx, bets["other"]); err != nil {
		t.Fatalf("another operator's deposits while acme's wallet holds its own: %v", err)
	}
	wallet.open()
	wg.Wait()
	if _, most := wallet.counts(); most != betting.DepositCallsPerOperator {
		t.Errorf("at most %d of acme's deposits in flight at once, want %d", most, betting.DepositCallsPerOperator)
	}
	all, err := w.bets.BetsByID(ctx, append(bets["acme"], bets["other"]...))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range all {
		if b.DepositConfirmedAt == nil {
			t.Errorf("bet %s of %s: deposit not recorded", b.ID, b.OperatorID)
		}
	}
}

// bettorReads counts the store's bettor reads.
type bettorReads struct {
	betting.BetStore
	mu    sync.Mutex
	reads int
}

func (s *bettorReads) GetBettor(ctx context.Context, operatorID, bettorID string) (betting.Bettor, error) {
	s.mu.Lock()
	s.reads++
	s.mu.Unlock()
	return s.BetStore.GetBettor(ctx, operatorID, bettorID)
}

// An authenticated request's bettor is read from the store once per
// process: the bettor, its currency and its creation never change.
func TestKnownBettorIsReadOnce(t *testing.T) {
	w := newPlacementWorld(t)
	store := &bettorReads{BetStore: w.bets}
	place := betting.NewPlacement(w.svc, store, w.wallet)
	ctx := context.Background()
	for range 3 {
		b, err := place.KnownBettor(ctx, "acme", "alice", "USD")
		if err != nil {
			t.Fatal(err)
		}
		if b.ID != "alice" || b.OperatorID != "acme" || b.Currency != "USD" || !b.CreatedAt.Equal(w.bettor.CreatedAt) || b.Balance != nil {
			t.Fatalf("got %+v, want alice of acme in USD created %v, without a balance", b, w.bettor.CreatedAt)
		}
	}
	if store.reads != 1 {
		t.Fatalf("%d bettor reads for three requests, want 1", store.reads)
	}
	if _, err := place.KnownBettor(ctx, "acme", "bob", "EUR"); err != nil {
		t.Fatal(err)
	}
	if b, err := place.KnownBettor(ctx, "acme", "bob", "USD"); err != nil || b.Currency != "EUR" {
		t.Fatalf("bob seen first in EUR: got %+v, %v", b, err)
	}
}

// The last attempt of a placement rejects its bet with a rollback also when
// the run's context ends after the withdrawal was sent (its time limit, a
// stop): nothing runs the placement again, and the bet was left pending
// with its exposure reserved (found by a review).
func TestPlacementLastAttemptCutShortRejects(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, nil)
	b := w.bet(t)
	ctx, cancel := context.WithCancel(context.Background())
	w.wallet.stop = cancel // the withdrawal is sent, then the run's context ends
	if err := w.place.Process(ctx, b.ID, true); err != nil {
		t.Fatalf("last attempt = %v, want the bet decided", err)
	}
	got, err := w.bets.GetBet(context.Background(), "", "", b.ID)
	if err != nil || got.Status != betting.BetRejected || !got.RollbackOwed {
		t.Errorf("bet after the last attempt = %s (rollback owed %v), %v; want rejected with a rollback", got.Status, got.RollbackOwed, err)
	}
}
