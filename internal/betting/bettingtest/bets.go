package bettingtest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

// RunBets runs the BetStore suite; newStore returns an empty store for one
// test.
func RunBets(t *testing.T, newStore func(t *testing.T) betting.BetStore) {
	t.Run("Bettors", func(t *testing.T) { t.Parallel(); testBettors(t, newStore(t)) })
	t.Run("Bets", func(t *testing.T) { t.Parallel(); testBets(t, newStore(t)) })
	t.Run("Exposure", func(t *testing.T) { t.Parallel(); testExposure(t, newStore(t)) })
	t.Run("Settlement", func(t *testing.T) { t.Parallel(); testSettlement(t, newStore(t)) })
	t.Run("WalletAttempts", func(t *testing.T) { t.Parallel(); testWalletAttempts(t, newStore(t)) })
	t.Run("PendingBets", func(t *testing.T) { t.Parallel(); testPendingBets(t, newStore(t)) })
	t.Run("BetTotals", func(t *testing.T) { t.Parallel(); testBetTotals(t, newStore(t)) })
	t.Run("BettorPortfolio", func(t *testing.T) { t.Parallel(); testBettorPortfolio(t, newStore(t)) })
	t.Run("ConcurrentCredits", func(t *testing.T) { t.Parallel(); testConcurrentCredits(t, newStore(t)) })
	t.Run("ListBettors", func(t *testing.T) { t.Parallel(); testListBettors(t, newStore(t)) })
	t.Run("MarketBets", func(t *testing.T) { t.Parallel(); testMarketBets(t, newStore(t)) })
}

// testConcurrentCredits confirms batches of credits of the same many
// bettors at once, each batch in its own order (the deposit jobs of a
// large market's settlement): none may fail (on PostgreSQL they
// deadlocked on the bettors' balance rows), and each bettor keeps the
// latest balance.
func testConcurrentCredits(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	const bettors, perBatch, batches, rounds = 200, 50, 8, 25
	outcome := uuid.NewString()
	// Each batch credits its own bet of every bettor, as each deposit job
	// holds its own bets.
	bets := make([][]betting.Bet, batches)
	for g := range bets {
		for i := range bettors {
			id := fmt.Sprint("cc", i)
			if _, err := s.EnsureBettor(ctx, betting.Bettor{OperatorID: "acme", ID: id, Currency: "USD", CreatedAt: t0}); err != nil {
				t.Fatal(err)
			}
			b := NewBet(id, fmt.Sprint("k", g), outcome, t0)
			createBet(t, s, b)
			bets[g] = append(bets[g], b)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	latest := map[string]int{} // bettor → the balance of its latest answer
	errs := make(chan error, batches*rounds)
	for g := range batches {
		wg.Go(func() {
			for r := range rounds {
				at := t0.Add(time.Duration(r*batches+g) * time.Millisecond)
				balance := money.MustParse(fmt.Sprint(r*batches + g))
				var credits []betting.CreditConfirmation
				mu.Lock()
				for _, i := range rand.Perm(bettors)[:perBatch] {
					credits = append(credits, betting.CreditConfirmation{BetID: bets[g][i].ID, Kind: betting.CreditDeposit, Balance: &balance, At: at})
					latest[bets[g][i].BettorID] = max(latest[bets[g][i].BettorID], r*batches+g)
				}
				mu.Unlock()
				if err := s.ConfirmCredits(ctx, credits, nil); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("ConfirmCredits of a batch beside others: %v", err)
	}
	for id, want := range latest {
		if got, err := s.GetBettor(ctx, "acme", id); err != nil || got.Balance == nil || got.Balance.String() != fmt.Sprint(want) {
			t.Errorf("bettor %s's balance = %v, %v; want the latest answer's %d", id, got.Balance, err, want)
		}
	}
}

// testBettorPortfolio: a bettor's bets counted in every status, the
// stakes of the confirmed ones summed exactly (whatever their scale, never
// in floating point);
// another bettor's and another operator's bettor of the same id left out;
// the same answer as a fold of the bettor's listed bets.
func testBettorPortfolio(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	check := func(name, wantStake string, wantBets int) {
		t.Helper()
		stake, bets, err := s.BettorPortfolio(ctx, "acme", "b1")
		if err != nil || stake.String() != wantStake || bets != wantBets {
			t.Errorf("%s: BettorPortfolio = %s, %d, %v; want %s, %d", name, stake, bets, err, wantStake, wantBets)
		}
	}
	check("no bets", "0", 0)
	outcome := uuid.NewString()
	mk := func(bettor, key, stake string, to ...betting.BetStatus) betting.Bet {
		b := NewBet(bettor, key, outcome, t0)
		b.Stake = money.MustParse(stake)
		createBet(t, s, b)
		from := betting.BetPending
		for _, status := range to {
			if status == betting.BetSettled || status == betting.BetVoided {
				if _, err := s.SettleBets(ctx, []betting.Settlement{{BetID: b.ID, Status: status, Payout: b.Stake}}, t0); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: from, Status: status, At: t0}); err != nil {
				t.Fatal(err)
			}
			from = status
		}
		return b
	}
	mk("b1", "pending", "4.75")
	check("a pending bet", "0", 1)
	mk("b1", "confirmed", "10.25", betting.BetConfirmed)
	mk("b1", "confirmed2", "2.5", betting.BetConfirmed)
	mk("b1", "confirmed3", "0.1", betting.BetConfirmed)
	mk("b1", "confirmed4", "0.2", betting.BetConfirmed) // 0.1 + 0.2 in floating point is 0.30000000000000004
	mk("b1", "rejected", "7", betting.BetRejected)
	mk("b1", "settled", "3", betting.BetConfirmed, betting.BetSettled)
	mk("b1", "voided", "1.10", betting.BetConfirmed, betting.BetVoided)
	mk("b2", "other bettor", "100", betting.BetConfirmed)
	other := NewBet("b1", "other operator", outcome, t0)
	other.OperatorID = "other"
	createBet(t, s, other)
	if err := s.UpdateBet(ctx, other.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, At: t0}); err != nil {
		t.Fatal(err)
	}
	check("every status", "13.05", 8)

	listed, count := money.Zero(), 0
	all, err := s.ListBets(ctx, betting.BetFilter{OperatorID: "acme", BettorID: "b1", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range all {
		count++
		if b.Status == betting.BetConfirmed {
			listed = listed.Add(b.Stake)
		}
	}
	check("as the listed bets fold", listed.String(), count)
}

// testBetTotals: an operator's bets counted and summed by status and
// currency, of one market when asked; payouts and their confirmations
// counted on settled and voided bets; another operator's bets left out.
func testBetTotals(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	if got, err := s.BetTotals(ctx, "acme", ""); err != nil || len(got) != 0 {
		t.Fatalf("BetTotals of no bets = %+v, %v", got, err)
	}
	outcome := uuid.NewString()
	market := uuid.NewString()
	mk := func(key, currency, stake string, at time.Time) betting.Bet {
		b := NewBet("b1", key, outcome, at)
		b.MarketID, b.Currency, b.Stake = market, currency, money.MustParse(stake)
		createBet(t, s, b)
		return b
	}
	won, lost, voided := mk("won", "USD", "10.25", t0), mk("lost", "USD", "2.50", t0.Add(time.Second)), mk("void", "USD", "1.10", t0.Add(2*time.Second))
	unpaid := mk("unpaid", "USD", "3", t0.Add(3*time.Second))
	rejected := mk("rej", "USD", "7", t0.Add(4*time.Second))
	mk("pending", "USD", "4.75", t0.Add(5*time.Second))
	mk("euro", "EUR", "5", t0.Add(6*time.Second))
	elsewhere := NewBet("b1", "elsewhere", outcome, t0)
	createBet(t, s, elsewhere) // another market
	other := NewBet("b1", "other", outcome, t0)
	other.OperatorID = "other"
	createBet(t, s, other)
	for _, b := range []betting.Bet{won, lost, voided, unpaid} {
		if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.UpdateBet(ctx, rejected.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, At: t0}); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	if _, err := s.SettleBets(ctx, []betting.Settlement{
		{BetID: won.ID, Status: betting.BetSettled, Payout: money.MustParse("19.7155")},
		{BetID: lost.ID, Status: betting.BetSettled, Payout: money.Zero()},
		{BetID: voided.ID, Status: betting.BetVoided, Payout: money.MustParse("1.10")},
		{BetID: unpaid.ID, Status: betting.BetSettled, Payout: money.MustParse("5.77")},
	}, at); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmCredits(ctx, []betting.CreditConfirmation{
		{BetID: won.ID, Kind: betting.CreditDeposit, At: at.Add(2 * time.Second)},
		{BetID: lost.ID, Kind: betting.CreditDeposit, At: at.Add(time.Second)},
		{BetID: voided.ID, Kind: betting.CreditDeposit, At: at.Add(3 * time.Second)},
	}, nil); err != nil {
		t.Fatal(err)
	}
	type row struct {
		status        betting.BetStatus
		currency      string
		bets          int
		stake, payout string
		confirmed     int
		lastConfirmed time.Time
	}
	check := func(name, marketID string, want []row) {
		t.Helper()
		got, err := s.BetTotals(ctx, "acme", marketID)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var gotRows []row
		for _, g := range got {
			r := row{g.Status, g.Currency, g.Bets, g.Stake.String(), g.Payout.String(), g.PayoutsConfirmed, time.Time{}}
			if g.LastPayoutConfirmedAt != nil {
				r.lastConfirmed = g.LastPayoutConfirmedAt.UTC()
			}
			gotRows = append(gotRows, r)
		}
		if fmt.Sprint(gotRows) != fmt.Sprint(want) {
			t.Errorf("%s: BetTotals =\n%v\nwant\n%v", name, gotRows, want)
		}
	}
	check("the market", market, []row{
		{betting.BetPending, "EUR", 1, "5", "0", 0, time.Time{}},
		{betting.BetPending, "USD", 1, "4.75", "0", 0, time.Time{}},
		{betting.BetRejected, "USD", 1, "7", "0", 0, time.Time{}},
		{betting.BetSettled, "USD", 3, "15.75", "25.4855", 2, at.Add(2 * time.Second)},
		{betting.BetVoided, "USD", 1, "1.1", "1.1", 1, at.Add(3 * time.Second)},
	})
	check("every market", "", []row{
		{betting.BetPending, "EUR", 1, "5", "0", 0, time.Time{}},
		{betting.BetPending, "USD", 2, "15.25", "0", 0, time.Time{}},
		{betting.BetRejected, "USD", 1, "7", "0", 0, time.Time{}},
		{betting.BetSettled, "USD", 3, "15.75", "25.4855", 2, at.Add(2 * time.Second)},
		{betting.BetVoided, "USD", 1, "1.1", "1.1", 1, at.Add(3 * time.Second)},
	})
}

// testPendingBets: the pending bets in the order of their creation, ties
// broken by id, paged by the last one read; decided bets leave the list.
func testPendingBets(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	ensureBettor(t, s, "b1")
	outcome := uuid.NewString()
	var want []betting.BetRef
	for i, at := range []time.Time{t0.Add(2 * time.Second), t0, t0.Add(time.Second), t0.Add(time.Second), t0.Add(3 * time.Second)} {
		b := NewBet("b1", fmt.Sprintf("k%d", i), outcome, at)
		createBet(t, s, b)
		if i == 4 {
			if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, At: at}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want = append(want, betting.BetRef{ID: b.ID, CreatedAt: at})
	}
	slices.SortFunc(want, func(a, b betting.BetRef) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	var got []betting.BetRef
	var after betting.BetRef
	for range 10 {
		page, err := s.PendingBets(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if len(page) < 3 {
			break
		}
		after = page[len(page)-1]
	}
	if !slices.EqualFunc(got, want, func(a, b betting.BetRef) bool { return a.ID == b.ID && a.CreatedAt.Equal(b.CreatedAt) }) {
		t.Errorf("PendingBets = %v, want %v", got, want)
	}
}

// ensureBettor creates bettor id of operator acme in USD, as of t0.
func ensureBettor(t *testing.T, s betting.BetStore, id string) {
	t.Helper()
	if _, err := s.EnsureBettor(context.Background(), betting.Bettor{OperatorID: "acme", ID: id, Currency: "USD", CreatedAt: t0}); err != nil {
		t.Fatalf("EnsureBettor(%s): %v", id, err)
	}
}

// createBet stores b, failing the test (with b's idempotency key) when
// the store refuses it.
func createBet(t *testing.T, s betting.BetStore, b betting.Bet) {
	t.Helper()
	if _, _, err := s.CreateBet(context.Background(), b); err != nil {
		t.Fatalf("CreateBet(%s): %v", b.IdempotencyKey, err)
	}
}

// createBets stores n bets of bettor b1 on outcome (see NewBet), with
// idempotency keys prefix0, prefix1, …, created a second apart from t0,
// and returns them in that order.
func createBets(t *testing.T, s betting.BetStore, n int, prefix, outcome string) []betting.Bet {
	t.Helper()
	bets := make([]betting.Bet, n)
	for i := range bets {
		bets[i] = NewBet("b1", fmt.Sprint(prefix, i), outcome, t0.Add(time.Duration(i)*time.Second))
		createBet(t, s, bets[i])
	}
	return bets
}

// NewBet returns a pending bet of operator acme's bettor on outcome, with
// idempotency key key, a stake of 10.50 USD at odds 1.9234, created at at,
// for a store's tests to create.
func NewBet(bettor, key, outcome string, at time.Time) betting.Bet {
	id := uuid.NewString()
	return betting.Bet{ID: id, OperatorID: "acme", BettorID: bettor, IdempotencyKey: key,
		EventID: uuid.NewString(), MarketID: uuid.NewString(), OutcomeID: outcome, OutcomeIndex: 1,
		Stake: money.MustParse("10.50"), Currency: "USD", EntryOdds: odds.MustParse("1.9234"),
		PotentialPayout: money.MustParse("10.50").MulOdds(odds.MustParse("1.9234")), DisplayProbability: decimal.RequireFromString("52.08"),
		Status: betting.BetPending, WithdrawalTxID: "wd-" + id, Accepted: []byte(`{"id":"` + id + `"}`), CreatedAt: at, UpdatedAt: at}
}

func testBettors(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	b, err := s.EnsureBettor(ctx, betting.Bettor{OperatorID: "acme", ID: "b1", Currency: "USD", CreatedAt: t0})
	if err != nil || b.Currency != "USD" || b.Balance != nil || !b.CreatedAt.Equal(t0) {
		t.Fatalf("EnsureBettor = %+v, %v", b, err)
	}
	b, err = s.EnsureBettor(ctx, betting.Bettor{OperatorID: "acme", ID: "b1", Currency: "EUR", CreatedAt: t0.Add(time.Hour)})
	if err != nil || b.Currency != "USD" || !b.CreatedAt.Equal(t0) {
		t.Errorf("EnsureBettor of an existing bettor changed it: %+v, %v", b, err)
	}
	if _, err := s.GetBettor(ctx, "other", "b1"); code(err) != betting.ErrNotFound {
		t.Errorf("bettor of another operator: %v", err)
	}
}

func testBets(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	ensureBettor(t, s, "b1")
	outcome := uuid.NewString()
	first := NewBet("b1", "k1", outcome, t0)
	first.SessionID = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
	got, created, err := s.CreateBet(ctx, first)
	if err != nil || !created {
		t.Fatalf("CreateBet = %v, %v", created, err)
	}
	again := NewBet("b1", "k1", outcome, t0.Add(time.Second))
	got, created, err = s.CreateBet(ctx, again)
	if err != nil || created || got.ID != first.ID || string(got.Accepted) != string(first.Accepted) {
		t.Fatalf("CreateBet(same key) = %s %v, %v", got.ID, created, err)
	}
	stored, err := s.GetBet(ctx, "acme", "b1", first.ID)
	if err != nil || !stored.Stake.Equal(first.Stake) || !stored.EntryOdds.Equal(first.EntryOdds) ||
		!stored.PotentialPayout.Equal(first.PotentialPayout) || !stored.DisplayProbability.Equal(first.DisplayProbability) ||
		stored.RejectionCode != nil || stored.Status != betting.BetPending || stored.WithdrawalTxID != first.WithdrawalTxID ||
		stored.SessionID != first.SessionID {
		t.Fatalf("GetBet = %+v, %v", stored, err)
	}
	if byKey, err := s.GetBetByKey(ctx, "acme", "b1", "k1"); err != nil || byKey.ID != first.ID {
		t.Errorf("GetBetByKey = %s, %v", byKey.ID, err)
	}
	for _, who := range [][2]string{{"acme", "b2"}, {"other", "b1"}} {
		if _, err := s.GetBet(ctx, who[0], who[1], first.ID); code(err) != betting.ErrNotFound {
			t.Errorf("bet seen by %v: %v", who, err)
		}
	}
	if _, err := s.GetBet(ctx, "", "", uuid.NewString()); code(err) != betting.ErrNotFound {
		t.Errorf("missing bet: %v", err)
	}

	balance := money.MustParse("89.50")
	if err := s.UpdateBet(ctx, first.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, OperatorTxID: "op-1", Balance: &balance, At: t0.Add(time.Minute)}); err != nil {
		t.Fatalf("UpdateBet(confirm) = %v", err)
	}
	if confirmed, err := s.GetBet(ctx, "", "", first.ID); err != nil || confirmed.Status != betting.BetConfirmed || confirmed.OperatorTxID != "op-1" ||
		!confirmed.UpdatedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("bet after UpdateBet(confirm) = %+v, %v", confirmed, err)
	}
	if err := s.UpdateBet(ctx, uuid.NewString(), betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, At: t0}); code(err) != betting.ErrNotFound {
		t.Errorf("UpdateBet of a missing bet: %v", err)
	}
	if err := s.UpdateBet(ctx, first.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, At: t0}); code(err) != betting.ErrConflict {
		t.Errorf("UpdateBet from a stale status: %v", err)
	}
	if b, _ := s.GetBettor(ctx, "acme", "b1"); b.Balance == nil || !b.Balance.Equal(balance) {
		t.Errorf("balance = %v", b.Balance)
	}
	rejected := NewBet("b1", "k2", outcome, t0.Add(time.Minute))
	createBet(t, s, rejected)
	code := betting.RejectInsufficientFund
	if err := s.UpdateBet(ctx, rejected.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, RejectionCode: &code, RejectionReason: "409", At: t0}); err != nil {
		t.Fatal(err)
	}
	unknown := NewBet("b1", "k3", outcome, t0.Add(2*time.Minute))
	createBet(t, s, unknown)
	if err := s.UpdateBet(ctx, unknown.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, Rollback: true, At: t0}); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.GetBet(ctx, "", "", unknown.ID); b.RejectionCode != nil || b.Status != betting.BetRejected || !b.RollbackOwed {
		t.Errorf("null-code rejection with its rollback queued = %+v", b)
	}
	if b, _ := s.GetBet(ctx, "", "", rejected.ID); b.RollbackOwed {
		t.Errorf("a refusal without a rollback owes one: %+v", b)
	}
	if b, _ := s.GetBet(ctx, "", "", first.ID); b.RollbackOwed {
		t.Errorf("a confirmed bet owes a rollback: %+v", b)
	}

	all, err := s.ListBets(ctx, betting.BetFilter{OperatorID: "acme", BettorID: "b1", Limit: 10})
	if err != nil || len(all) != 3 || all[0].ID != unknown.ID {
		t.Fatalf("ListBets = %d, %v", len(all), err)
	}
	rej, _ := s.ListBets(ctx, betting.BetFilter{OperatorID: "acme", BettorID: "b1", Statuses: []betting.BetStatus{betting.BetRejected}, Limit: 10})
	page, _ := s.ListBets(ctx, betting.BetFilter{OperatorID: "acme", BettorID: "b1", Limit: 10, BeforeCreatedAt: all[0].CreatedAt, BeforeID: all[0].ID})
	others, _ := s.ListBets(ctx, betting.BetFilter{OperatorID: "acme", BettorID: "b2", Limit: 10})
	if len(rej) != 2 || len(page) != 2 || len(others) != 0 {
		t.Errorf("filters: rejected %d, page %d, other bettor %d", len(rej), len(page), len(others))
	}
}

func testExposure(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	outcome := uuid.NewString()
	limit := money.MustParse("100")
	bets := createBets(t, s, 12, "e", outcome)
	// Each bet's payout is 10.50 × 1.9234 = 20.1957: four fit in 100.
	var wg sync.WaitGroup
	results := make([]error, len(bets))
	for i, b := range bets {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = s.ReserveExposure(ctx, b, limit) }()
	}
	wg.Wait()
	ok := 0
	for _, err := range results {
		switch {
		case err == nil:
			ok++
		case code(err) != betting.ErrLimit:
			t.Errorf("ReserveExposure: %v", err)
		}
	}
	if ok != 4 {
		t.Errorf("%d reservations fit a limit of 100, want 4 (4 × 20.1957 = 80.78; a fifth would be 100.98)", ok)
	}
	var held betting.Bet
	for i, err := range results {
		if err == nil {
			held = bets[i]
			break
		}
	}
	if err := s.ReserveExposure(ctx, held, limit); err != nil {
		t.Errorf("a second reservation of the same bet: %v", err)
	}
	before, _ := s.Exposure(ctx, "acme", outcome, "USD")
	if err := s.UpdateBet(ctx, held.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, Release: true, At: t0}); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Exposure(ctx, "acme", outcome, "USD")
	if !before.Sub(after).Equal(held.PotentialPayout) {
		t.Errorf("release: exposure %s → %s, want a drop of %s", before, after, held.PotentialPayout)
	}
	// A bet decided before its reservation gets none.
	if err := s.ReserveExposure(ctx, held, limit); code(err) != betting.ErrConflict {
		t.Errorf("reserving a rejected bet = %v, want ErrConflict", err)
	}
	if again, _ := s.Exposure(ctx, "acme", outcome, "USD"); !again.Equal(after) {
		t.Errorf("reserving a rejected bet changed the exposure %s → %s", after, again)
	}
	if b, err := s.GetBet(ctx, "", "", held.ID); err != nil || b.Reserved {
		t.Errorf("rejected bet after a refused reservation: reserved %t, %v", b.Reserved, err)
	}
}

func testSettlement(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	ensureBettor(t, s, "b1")
	outcome := uuid.NewString()
	limit := money.MustParse("1000")
	bets := createBets(t, s, 3, "s", outcome)
	for _, b := range bets {
		if err := s.ReserveExposure(ctx, b, limit); err != nil {
			t.Fatal(err)
		}
	}
	won, lost, pending := bets[0], bets[1], bets[2]
	for _, b := range []betting.Bet{won, lost} {
		if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	settlements := []betting.Settlement{
		{BetID: won.ID, Status: betting.BetSettled, Payout: money.MustParse("20.20")},
		{BetID: lost.ID, Status: betting.BetSettled, Payout: money.Zero()},
		{BetID: pending.ID, Status: betting.BetSettled, Payout: money.Zero()},
		{BetID: uuid.NewString(), Status: betting.BetVoided, Payout: money.Zero()},
	}
	at := t0.Add(time.Hour)
	n, err := s.SettleBets(ctx, settlements, at)
	if err != nil || n != 2 {
		t.Fatalf("SettleBets = %d, %v; want the 2 confirmed bets", n, err)
	}
	if n, err := s.SettleBets(ctx, settlements, at.Add(time.Minute)); err != nil || n != 0 {
		t.Errorf("SettleBets again = %d, %v; want 0", n, err)
	}
	if x, _ := s.Exposure(ctx, "acme", outcome, "USD"); !x.Equal(pending.PotentialPayout) {
		t.Errorf("exposure after settlement = %s, want the pending bet's %s", x, pending.PotentialPayout)
	}
	got, err := s.BetsByID(ctx, []string{won.ID, lost.ID, pending.ID, uuid.NewString()})
	if err != nil || len(got) != 3 {
		t.Fatalf("BetsByID = %d bets, %v; want 3", len(got), err)
	}
	byID := map[string]betting.Bet{}
	for _, b := range got {
		byID[b.ID] = b
	}
	if b := byID[won.ID]; b.Status != betting.BetSettled || b.PayoutAmount == nil || b.PayoutAmount.String() != "20.2" ||
		b.SettledAt == nil || !b.SettledAt.Equal(at) || b.Reserved || b.DepositConfirmedAt != nil {
		t.Errorf("won bet = %+v", b)
	}
	if b := byID[lost.ID]; b.Status != betting.BetSettled || b.PayoutAmount == nil || !b.PayoutAmount.IsZero() {
		t.Errorf("lost bet = %+v", b)
	}
	if b := byID[pending.ID]; b.Status != betting.BetPending || b.PayoutAmount != nil {
		t.Errorf("pending bet settled: %+v", b)
	}
	if got, err := s.BetsByID(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("BetsByID(nil) = %v, %v", got, err)
	}

	first, second := money.MustParse("50"), money.MustParse("60")
	err = s.ConfirmCredits(ctx, []betting.CreditConfirmation{
		{BetID: won.ID, Kind: betting.CreditDeposit, Balance: &first, At: at.Add(time.Second)},
		{BetID: lost.ID, Kind: betting.CreditDeposit, Balance: &second, At: at.Add(2 * time.Second)},
		{BetID: pending.ID, Kind: betting.CreditRollback, At: at.Add(3 * time.Second)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmCredits(ctx, []betting.CreditConfirmation{{BetID: won.ID, Kind: betting.CreditDeposit, At: at.Add(time.Hour)}}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.GetBet(ctx, "", "", won.ID); b.DepositConfirmedAt == nil || !b.DepositConfirmedAt.Equal(at.Add(time.Second)) || b.RollbackConfirmedAt != nil {
		t.Errorf("deposit confirmed at %v, rollback at %v; want the first confirmation's %v and none", b.DepositConfirmedAt, b.RollbackConfirmedAt, at.Add(time.Second))
	}
	if b, _ := s.GetBet(ctx, "", "", pending.ID); b.RollbackConfirmedAt == nil || !b.RollbackConfirmedAt.Equal(at.Add(3*time.Second)) || b.DepositConfirmedAt != nil {
		t.Errorf("rollback confirmed at %v, deposit at %v", b.RollbackConfirmedAt, b.DepositConfirmedAt)
	}
	if b, _ := s.GetBettor(ctx, "acme", "b1"); b.Balance == nil || !b.Balance.Equal(second) {
		t.Errorf("balance = %v, want the last confirmation's %s", b.Balance, second)
	}
	// An answer that came before the recorded one, confirmed after it (two
	// markets settled at once), leaves the later answer's balance.
	stale, insufficient := money.MustParse("40"), betting.RejectInsufficientFund
	if err := s.ConfirmCredits(ctx, []betting.CreditConfirmation{{BetID: lost.ID, Kind: betting.CreditRollback, Balance: &stale, At: at.Add(1500 * time.Millisecond)}}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.GetBettor(ctx, "acme", "b1"); b.Balance == nil || !b.Balance.Equal(second) {
		t.Errorf("balance = %v after an older answer's confirmation, want the later answer's %s", b.Balance, second)
	}
	if err := s.UpdateBet(ctx, pending.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, RejectionCode: &insufficient,
		Release: true, Balance: &stale, At: at.Add(1500 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.GetBettor(ctx, "acme", "b1"); b.Balance == nil || !b.Balance.Equal(second) {
		t.Errorf("balance = %v after an older answer's update, want the later answer's %s", b.Balance, second)
	}
	newer := money.MustParse("70")
	if err := s.ConfirmCredits(ctx, []betting.CreditConfirmation{{BetID: lost.ID, Kind: betting.CreditRollback, Balance: &newer, At: at.Add(3 * time.Second)}}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.GetBettor(ctx, "acme", "b1"); b.Balance == nil || !b.Balance.Equal(newer) {
		t.Errorf("balance = %v, want the newer answer's %s", b.Balance, newer)
	}
}

// RunRollbackOwedMigration checks that the migration adding
// Bet.RollbackOwed marks the bets rejected before it by the rule placement
// applied then, read from their recorded wallet attempts. open opens the
// store, applying the migrations, and returns a function that closes it;
// forget undoes that migration (drops the column and its record) while the
// store is closed.
func RunRollbackOwedMigration(t *testing.T, open func(t *testing.T) (betting.BetStore, func()), forget func(t *testing.T)) {
	ctx := context.Background()
	s, closeStore := open(t)
	code := func(c betting.RejectionCode) *betting.RejectionCode { return &c }
	cases := []struct {
		name     string
		code     *betting.RejectionCode
		attempts []betting.AttemptResult // withdrawal attempts, then a rollback when rolledBack
		rollback bool                    // placement queued a rollback
	}{
		{"placement gave up", nil, nil, true},
		{"no definite answer", code(betting.RejectWalletUnavailable), []betting.AttemptResult{betting.AttemptUnknown}, true},
		{"debit stood, market closed", code(betting.RejectWalletRolledBack), []betting.AttemptResult{betting.AttemptDone}, true},
		{"insufficient funds", code(betting.RejectInsufficientFund), []betting.AttemptResult{betting.AttemptRefused}, false},
		{"insufficient funds after an unanswered attempt", code(betting.RejectInsufficientFund),
			[]betting.AttemptResult{betting.AttemptUnknown, betting.AttemptRefused}, true},
		{"other refusal of a sent debit", code(betting.RejectOther), []betting.AttemptResult{betting.AttemptRefused}, true},
		{"wallet that cannot be called", code(betting.RejectOther), nil, false},
		{"check before the debit", code(betting.RejectValidationFailed), nil, false},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		b := NewBet("m1", fmt.Sprint("migration-", i), uuid.NewString(), t0.Add(time.Duration(i)*time.Second))
		createBet(t, s, b)
		var attempts []betting.WalletAttempt
		for j, r := range c.attempts {
			attempts = append(attempts, attempt(b, betting.TxWithdrawal, r, time.Duration(j)*time.Second))
		}
		if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, RejectionCode: c.code,
			Release: true, Rollback: c.rollback, Attempts: attempts, At: t0}); err != nil {
			t.Fatal(err)
		}
		ids[i] = b.ID
	}
	closeStore()
	forget(t)

	s, closeStore = open(t)
	defer closeStore()
	for i, c := range cases {
		b, err := s.GetBet(ctx, "", "", ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if b.RollbackOwed != c.rollback {
			t.Errorf("%s: rollback owed %v after the migration, want %v", c.name, b.RollbackOwed, c.rollback)
		}
	}
}
