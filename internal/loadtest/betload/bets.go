package betload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/poll"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
)

// Phases are the length, concurrency and rate of a load's phases.
type Phases struct {
	// Duration is the length of each phase.
	Duration time.Duration
	// Concurrency is the number of requests in flight at most.
	Concurrency int
	// Rate is the rate of the fixed-rate phases, per second.
	Rate float64
}

// BetsOptions describe a RunBets.
type BetsOptions struct {
	Phases
	// Bettors is the number of bettors the bets are spread over.
	Bettors int
	// Bundled sends the bets to a bundled operator of this run (the
	// platform's ledger keeps the balances: no wallet call) instead of the
	// World's standalone operator.
	Bundled bool
	// Backlog adds the phase of placeBacklog.
	Backlog bool
	// Settle then resolves the market and times the settlement.
	Settle bool
	// SettleCPUProfile, with Settle, is the file of a CPU profile of the
	// settlement alone (from the resolve to the last deposit); "" for none.
	SettleCPUProfile string
}

// betPhase is a phase of bets: what sends them, and the operator whose
// bets a phase waits for.
type betPhase struct {
	w          *World
	operatorID string
	newBet     func(i int) (*http.Request, error)
	Phases
}

// options are the loadtest options of a phase at rate (0: as fast as
// possible) for d.
func (p betPhase) options(rate float64, d time.Duration) loadtest.Options {
	return loadtest.Options{Rate: rate, Concurrency: p.Concurrency, Duration: d, NewRequest: p.newBet, OK: accepted}
}

// notRateLimited fails a phase whose bets the server refused for the
// bettors' rate (429): the run would time refusals, not placements. A
// server this process starts has the limit off; a target must too.
func notRateLimited(r loadtest.Result) error {
	if n := r.Statuses[http.StatusTooManyRequests]; n > 0 {
		return fmt.Errorf("the server refused %d bets with 429 for the bettors' rate: the run would time refusals, not placements "+
			"(run the target with FORESIGHT_BET_RATE_LIMIT=0)", n)
	}
	return nil
}

// RunBets measures bet placement over HTTP and writes the report's lines
// to report: the latency of POST /api/v1/bettor/bets at o.Rate, then how
// many bets per second reach CONFIRMED when submitted as fast as possible,
// then, as o asks, the placement of a paused backlog and the settlement.
// It fails when a bet is rejected or refused for the bettors' rate, when
// bets stay pending too long, or on the first failed call of the admin API.
func RunBets(ctx context.Context, w *World, o BetsOptions, report io.Writer) error {
	b, err := w.newBettors(ctx, o.Bundled, o.Bettors)
	if err != nil {
		return err
	}
	p := betPhase{w: w, operatorID: b.operatorID, newBet: w.betRequests(b.tokens), Phases: o.Phases}
	fmt.Fprintf(report, "%s, concurrency %d, %v per phase, %d bettors, %s\n", w.Describe(), o.Concurrency, o.Duration, o.Bettors, b.wallet)

	// Warm every bettor's first sight (JWKS, bettor row) outside the measurement.
	loadtest.Run(ctx, w.Client, p.options(0, time.Duration(o.Bettors)*5*time.Millisecond))
	if err := w.waitConfirmed(ctx, p.operatorID, time.Minute); err != nil {
		return err
	}
	r := loadtest.Run(ctx, w.Client, p.options(o.Rate, o.Duration))
	fmt.Fprintf(report, "%-40s %s\n", fmt.Sprintf("POST /api/v1/bettor/bets, %.0f/s", o.Rate), r)
	if err := notRateLimited(r); err != nil {
		return err
	}
	if err := w.waitConfirmed(ctx, p.operatorID, time.Minute); err != nil {
		return err
	}
	if err := placeToConfirmed(ctx, report, p); err != nil {
		return err
	}
	if o.Backlog {
		if err := placeBacklog(ctx, report, w, p.operatorID, p.options(0, o.Duration)); err != nil {
			return err
		}
	}
	if !o.Settle {
		return nil
	}
	if o.SettleCPUProfile != "" {
		stop, err := loadtest.StartCPUProfile(o.SettleCPUProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.Bundled {
		return settleBundled(ctx, report, w, p.operatorID)
	}
	return settleStandalone(ctx, report, w)
}

// bettors are the bettors of a load.
type bettors struct {
	// operatorID is their operator's id.
	operatorID string
	// tokens are their session tokens.
	tokens []string
	// wallet names their wallet in the report.
	wallet string
}

// newBettors returns n bettors with a session token each. With bundled
// they are a new bundled operator's; otherwise the World's sandbox
// operator mints their tokens.
func (w *World) newBettors(ctx context.Context, bundled bool, n int) (bettors, error) {
	if bundled {
		id, tokens, err := w.bundledBettors(ctx, n)
		return bettors{operatorID: id, tokens: tokens, wallet: "bundled operator (balances in the ledger)"}, err
	}
	b := bettors{operatorID: w.operatorID, tokens: make([]string, n), wallet: "sandbox wallet at " + w.walletURL}
	for i := range b.tokens {
		var err error
		if b.tokens[i], err = w.Operator.MintToken(fmt.Sprint("bettor-", i), "USD"); err != nil {
			return bettors{}, err
		}
	}
	return b, nil
}

// placeToConfirmed sends bets as fast as possible for a phase and times
// until none is pending, from the first sent. It fails when a bet of the
// operator was rejected: the run would time rejections, not placements.
func placeToConfirmed(ctx context.Context, report io.Writer, p betPhase) error {
	start := time.Now()
	r := loadtest.Run(ctx, p.w.Client, p.options(0, p.Duration))
	fmt.Fprintf(report, "%-40s %s\n", "POST /api/v1/bettor/bets, max", r)
	if err := notRateLimited(r); err != nil {
		return err
	}
	if err := p.w.waitConfirmed(ctx, p.operatorID, 5*time.Minute); err != nil {
		return err
	}
	took := time.Since(start)
	var rejected struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := p.w.Admin(ctx, "GET", "/admin/v1/bets?operator_id="+p.operatorID+"&status=rejected&limit=1", "", &rejected); err != nil {
		return err
	}
	if len(rejected.Items) > 0 {
		return fmt.Errorf("bets were rejected (the first: %s): the run would time rejections, not placements", rejected.Items[0])
	}
	fmt.Fprintf(report, "%-40s %d bets confirmed %v after the first was sent: %.0f/s\n", "placement to CONFIRMED", r.Succeeded,
		took.Round(time.Millisecond), float64(r.Succeeded)/took.Seconds())
	return nil
}

// bundledBettors creates this run's bundled operator (USD, the standalone
// operator's limits), credits each of n bettors through the cashier with
// more than the load can stake, and opens a session of each as the
// operator's server does. It returns the operator's id and the session
// tokens.
func (w *World) bundledBettors(ctx context.Context, n int) (string, []string, error) {
	id := "loadbun-" + strings.TrimPrefix(w.operatorID, "load-")
	if err := w.Admin(ctx, "POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Load bundled","integration":"bundled",
		"currencies":[{"code":"USD","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":{"USD":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},"odds_tolerance":"0.05"}`, id), nil); err != nil {
		return "", nil, err
	}
	tokens := make([]string, n)
	for i := range tokens {
		bettor := fmt.Sprint("bettor-", i)
		if err := w.adminWith(ctx, "POST", "/admin/v1/operators/"+id+"/bettors/"+bettor+"/deposits", `{"currency":"USD","amount":"1000000000"}`,
			http.Header{"Idempotency-Key": {"load-funds-" + bettor}}, nil); err != nil {
			return "", nil, err
		}
		var s struct {
			AuthToken string `json:"auth_token"`
		}
		if err := w.Admin(ctx, "POST", "/admin/v1/operators/"+id+"/sessions", `{"bettor_id":"`+bettor+`","currency":"USD"}`, &s); err != nil {
			return "", nil, err
		}
		tokens[i] = s.AuthToken
	}
	return id, tokens, nil
}

// placeBacklog measures placement alone, without POSTs competing for the
// CPU: it pauses placement, sends bets for one phase, resumes placement
// and times until no bet of the operator is pending. It needs the server
// in this process (to pause it): against a target it says so and does
// nothing.
func placeBacklog(ctx context.Context, report io.Writer, w *World, operatorID string, send loadtest.Options) error {
	if w.srv == nil {
		fmt.Fprintf(report, "%-40s skipped: it pauses placement, which needs the server in this process (no --target)\n", "placement of a paused backlog")
		return nil
	}
	db, err := server.OpenDatabase(ctx, w.dbURL, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := w.srv.PausePlacement(ctx); err != nil {
		return err
	}
	// River reads queue settings every 2 s on SQLite (for jobs enqueued
	// before bets were placed in-process); on PostgreSQL it is told at once.
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(3 * time.Second):
	}
	r := loadtest.Run(ctx, w.Client, send)
	fmt.Fprintf(report, "%-40s %s\n", "POST /api/v1/bettor/bets, max, paused", r)
	pending, err := db.BetStore().MarketBets(ctx, w.Market.ID, betting.BetPending, 10*r.Succeeded)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := w.srv.ResumePlacement(ctx); err != nil {
		return err
	}
	if err := w.waitConfirmed(ctx, operatorID, 5*time.Minute); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(report, "%-40s %d pending bets decided %v after the resume: %.0f/s\n", "placement of a paused backlog", len(pending),
		took.Round(time.Millisecond), float64(len(pending))/took.Seconds())
	return nil
}

// settleStandalone resolves the market and times until every bet of the
// standalone operator is settled and until the sandbox wallet received a
// deposit for each bet it debited.
func settleStandalone(ctx context.Context, report io.Writer, w *World) error {
	op := w.Operator
	debited := count(op.Ledger(), operator.EntryWithdrawal) - count(op.Ledger(), operator.EntryRollback)
	start := time.Now()
	if err := w.resolve(ctx); err != nil {
		return err
	}
	// The ledger is read from where the previous look stopped: a copy of
	// it all, 50 ms apart, would hold the wallet's lock for milliseconds
	// at 100,000 entries.
	var settled time.Duration
	seen := len(op.Ledger())
	for deposits := 0; deposits < debited; {
		if err := poll.Pause(ctx, start, 10*time.Minute, fmt.Errorf("%d of %d deposits after 10 minutes", deposits, debited)); err != nil {
			return err
		}
		news := op.LedgerFrom(seen)
		seen += len(news)
		deposits += count(news, operator.EntryDeposit)
		if settled == 0 {
			var confirmed struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := w.Admin(ctx, "GET", "/admin/v1/bets?operator_id="+w.operatorID+"&status=confirmed&limit=1", "", &confirmed); err != nil {
				return err
			}
			if len(confirmed.Items) == 0 {
				settled = time.Since(start)
			}
		}
	}
	took := time.Since(start)
	fmt.Fprintf(report, "%-40s %d bets settled %v after the resolve\n", "resolve to every bet settled", debited, settled.Round(time.Millisecond))
	fmt.Fprintf(report, "%-40s %d deposits delivered %v after the resolve: %.0f/s\n", "resolve to every deposit delivered", debited,
		took.Round(time.Millisecond), float64(debited)/took.Seconds())
	return nil
}

// resolve resolves the market on its first outcome.
func (w *World) resolve(ctx context.Context) error {
	return w.Admin(ctx, "POST", "/admin/v1/markets/"+w.Market.ID+"/resolve", fmt.Sprintf(`{"winning_outcome_id":%q}`, w.Market.Outcomes[0].ID), nil)
}

// count counts the ledger entries of type t.
func count(ledger []operator.Entry, t operator.EntryType) int {
	n := 0
	for _, e := range ledger {
		if e.Type == t {
			n++
		}
	}
	return n
}

// betTotals are the bundled operator's bets as GET /admin/v1/bets/totals
// counts them.
type betTotals struct {
	// settled and confirmed count the bets in either status; paid counts
	// the settled bets whose payout is confirmed.
	settled, confirmed, paid int
}

// readTotals reads the totals of operatorID's bets.
func (w *World) readTotals(ctx context.Context, operatorID string) (betTotals, error) {
	var totals struct {
		Items []struct {
			Status           string `json:"status"`
			Bets             int    `json:"bets"`
			PayoutsConfirmed int    `json:"payouts_confirmed"`
		} `json:"items"`
	}
	if err := w.Admin(ctx, "GET", "/admin/v1/bets/totals?operator_id="+operatorID, "", &totals); err != nil {
		return betTotals{}, err
	}
	var t betTotals
	for _, item := range totals.Items {
		switch item.Status {
		case "confirmed":
			t.confirmed += item.Bets
		case "settled":
			t.settled += item.Bets
			t.paid += item.PayoutsConfirmed
		}
	}
	return t, nil
}

// settleBundled resolves the market and times until the platform has
// recorded the payout of every settled bet of the bundled operator as
// confirmed (the ledger paid the winners; a lost bet is confirmed with
// nothing moved), reading GET /admin/v1/bets/totals every 50 ms.
func settleBundled(ctx context.Context, report io.Writer, w *World, operatorID string) error {
	before, err := w.readTotals(ctx, operatorID)
	if err != nil {
		return err
	}
	toPay := before.confirmed
	start := time.Now()
	if err := w.resolve(ctx); err != nil {
		return err
	}
	var settledIn time.Duration
	for {
		t, err := w.readTotals(ctx, operatorID)
		if err != nil {
			return err
		}
		if t.confirmed == 0 && settledIn == 0 {
			settledIn = time.Since(start)
		}
		if t.confirmed == 0 && t.paid == t.settled {
			break
		}
		if err := poll.Pause(ctx, start, 10*time.Minute, fmt.Errorf("%d of %d payouts confirmed after 10 minutes", t.paid, toPay)); err != nil {
			return err
		}
	}
	took := time.Since(start)
	fmt.Fprintf(report, "%-40s %d bets settled %v and every payout confirmed %v after the resolve: %.0f/s\n", "resolve to every payout confirmed",
		toPay, settledIn.Round(time.Millisecond), took.Round(time.Millisecond), float64(toPay)/took.Seconds())
	return nil
}

// waitConfirmed waits until no bet of the operator is pending, looking
// every 20 ms; it fails after limit.
func (w *World) waitConfirmed(ctx context.Context, operatorID string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		var page struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := w.Admin(ctx, "GET", "/admin/v1/bets?operator_id="+operatorID+"&status=pending&limit=1", "", &page); err != nil {
			return err
		}
		if len(page.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return errors.New("bets still pending after " + limit.String())
}
