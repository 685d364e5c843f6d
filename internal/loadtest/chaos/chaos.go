// Package chaos runs the platform as real processes under bet load, kills
// them with SIGKILL at random moments during placement and settlement,
// injects faults into the sandbox partners' wallets, and reconciles every
// bet against the wallets' ledgers. It backs `foresight loadtest chaos`.
//
// A run:
//  1. starts the sandbox operator (and, on the aggregator path, the
//     sandbox casino) in this process on loopback, each with its SQLite
//     journal, and the platform's nodes as child processes (`foresight
//     serve`): one on SQLite, or several on one PostgreSQL database;
//  2. registers the partners and creates an event with one market through
//     the admin API;
//  3. places bets at a fixed rate from many bettors, each with its own
//     Idempotency-Key, on a random living node; a bet whose node died under
//     it is sent again with the same key to another node (or the same one
//     once restarted), and then once more to check that the key names the
//     same bet. Meanwhile a share of the wallet requests get a fault, and
//     random nodes are killed and restarted after a short random delay;
//  4. waits until no bet is pending, resolves the market and keeps killing
//     nodes while the payouts flow;
//  5. waits until every bet is final and every payout confirmed, and
//     reconciles (see Reconcile): every bet of the admin API against the
//     ledgers, every ledger entry against the bets.
//
// On the bundled path the bettors' balances are in the platform's own
// ledger: no wallet is called, so no fault is injected; the operator's
// cashier deposits and withdraws at random during placement, and the
// reconciliation reads every bettor's statement (ReconcileCashier, and
// Reconcile over the statements' bet movements) and the ledger's Verify.
//
// While bets are placed, the pending bets are listed every 250 ms, to
// measure how long a bet stays pending after a node's restart.
package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
)

// Paths a run can take.
const (
	PathStandalone = "standalone"
	PathAggregator = "aggregator"
	PathBoth       = "both"
	PathBundled    = "bundled"
)

// Config describes a run.
type Config struct {
	// Serve is the command line that runs one node (`foresight serve`);
	// the run adds --addr, --public-url, --dev-allow-insecure,
	// --market-feed manual, --launcher-rate-limit 0 and --bet-rate-limit
	// 0, and passes the admin token and the database URL in the
	// environment.
	Serve []string
	// DatabaseURL is the nodes' PostgreSQL database (postgres://…), empty
	// for a new SQLite file in Dir.
	DatabaseURL string
	// Nodes is the number of nodes; SQLite has one.
	Nodes int
	// Path is PathStandalone, PathAggregator, PathBoth or PathBundled.
	Path string
	// Rate is bets per second, for Duration.
	Rate     float64
	Duration time.Duration
	// Bettors is the bettors of each path.
	Bettors int
	// FaultRatio is the share of wallet requests that get a fault.
	FaultRatio float64
	// Kills is the kills during placement; SettlementKills those after the
	// resolution, while payouts remain.
	Kills, SettlementKills int
	// MaxRestartDelay bounds the random wait between a kill and the
	// restart (at least 100 ms).
	MaxRestartDelay time.Duration
	// PendingLimit is the longest a bet may stay pending after a restart.
	PendingLimit time.Duration
	// FinalLimit bounds each wait for the platform to finish: every bet
	// final before the resolution, every payout delivered and confirmed
	// after it.
	FinalLimit time.Duration
	// Dir receives the run's files: the SQLite database, the sandboxes'
	// journals, a log per node.
	Dir string
	// Progress receives a line per step; nil discards them.
	Progress io.Writer
}

// Run runs the chaos described by cfg and returns its report. An error
// means the run could not be carried out (a node would not start, the
// admin API refused the set-up); discrepancies are in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	rn := newRun(cfg)
	defer rn.close()
	if err := rn.start(ctx); err != nil {
		return nil, err
	}
	bettors, err := rn.setUp(ctx)
	if err != nil {
		return nil, err
	}
	stopWatch := rn.watchPending(ctx)
	defer stopWatch()
	if err := rn.place(ctx, bettors); err != nil {
		return nil, err
	}
	if err := rn.resolve(ctx); err != nil {
		return nil, err
	}
	after, err := rn.settle(ctx)
	if err != nil {
		return nil, err
	}
	stopWatch()
	return rn.reconcile(ctx, after)
}

// run is the state of one run, which its steps fill in turn: start,
// setUp, place, resolve, settle and reconcile.
type run struct {
	cfg Config
	// databaseURL is the nodes' database: cfg.DatabaseURL, or a SQLite
	// file in cfg.Dir.
	databaseURL string
	report      *Report
	faults      *faultInjector

	// Set by start.
	partners *partners
	cluster  *cluster
	platform *platform
	// Set by setUp: the market bet on, the operators of the path, and
	// what each bundled bettor is funded with.
	market    market
	operators []string
	funds     money.Amount
	// Set by watchPending and place.
	watch  *pendingWatch
	sender *sender
	cash   *cashierLoad
	// Set by resolve: the confirmed bets to pay, and when the market was
	// resolved.
	confirmed int
	resolveAt time.Time
}

// newRun returns the state of a run of cfg, with the report's
// description of the run and the fault injector (off).
func newRun(cfg Config) *run {
	rn := &run{cfg: cfg, databaseURL: cfg.DatabaseURL,
		report: &Report{Path: cfg.Path, Rate: cfg.Rate, Duration: cfg.Duration, PendingLimit: cfg.PendingLimit, Dir: cfg.Dir,
			Statuses: map[string]int{}},
		faults: &faultInjector{ratio: cfg.FaultRatio, counts: map[string]int{}, seen: map[string]bool{}}}
	if rn.databaseURL == "" {
		rn.databaseURL = "sqlite:" + filepath.Join(cfg.Dir, "platform.db")
		rn.report.Database = "SQLite, 1 node"
	} else {
		rn.report.Database = fmt.Sprintf("PostgreSQL, %d nodes", cfg.Nodes)
	}
	return rn
}

// progress writes a line, prefixed with the time, to cfg.Progress.
func (rn *run) progress(format string, args ...any) {
	if rn.cfg.Progress != nil {
		fmt.Fprintf(rn.cfg.Progress, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
	}
}

// close stops the nodes, then the partners, of those started.
func (rn *run) close() {
	if rn.cluster != nil {
		rn.cluster.stop()
	}
	if rn.partners != nil {
		rn.partners.close()
	}
}

// start starts the sandbox partners (the casino only on a path through
// the aggregator) and the platform's nodes, one after the other; close
// stops them. It returns the first that would not start.
func (rn *run) start(ctx context.Context) error {
	cfg := rn.cfg
	pt, err := startPartners(ctx, cfg.Dir, cfg.Path == PathAggregator || cfg.Path == PathBoth, rn.faults)
	if err != nil {
		return err
	}
	rn.partners = pt
	adminToken := randomSecret()
	cl, err := newCluster(cfg.Serve, []string{"FORESIGHT_ADMIN_TOKEN=" + adminToken, "FORESIGHT_DATABASE_URL=" + rn.databaseURL}, cfg.Nodes, cfg.Dir)
	if err != nil {
		return err
	}
	rn.cluster = cl
	// The first node migrates the database; the others start after it.
	for _, n := range cl.nodes {
		if err := cl.start(ctx, n); err != nil {
			return err
		}
	}
	rn.progress("%s: %d node(s) up, logs in %s", rn.report.Database, len(cl.nodes), cfg.Dir)
	rn.platform = &platform{cl: cl, adminToken: adminToken, client: newHTTPClient()}
	return nil
}

// pathOperators returns the operators whose bettors bet on path.
func pathOperators(path string) []string {
	switch path {
	case PathStandalone:
		return []string{operatorID}
	case PathAggregator:
		return []string{aggregatorID}
	case PathBoth:
		return []string{operatorID, aggregatorID}
	case PathBundled:
		return []string{bundledID}
	}
	return nil
}

// setUp registers the partners, creates the market (and the bundled
// operator on its path) through the admin API, and creates cfg.Bettors
// bettors of each operator of the path, funded on the bundled path. It
// returns the bettors once the nodes show each operator's first bettor
// the market.
func (rn *run) setUp(ctx context.Context) ([]bettor, error) {
	cfg, p := rn.cfg, rn.platform
	m, err := p.setUp(ctx, rn.partners)
	if err != nil {
		return nil, fmt.Errorf("set-up: %w", err)
	}
	rn.market = m
	rn.operators = pathOperators(cfg.Path)
	if cfg.Path == PathBundled {
		if err := p.setUpBundled(ctx); err != nil {
			return nil, fmt.Errorf("set-up: %w", err)
		}
	}
	rn.funds = BundledFunds(cfg.Rate, cfg.Duration, cfg.Bettors)
	var bettors []bettor
	for _, op := range rn.operators {
		var b []bettor
		var err error
		if op == bundledID {
			rn.progress("funding %d bettors with %s each", cfg.Bettors, rn.funds)
			b, err = p.bundledBettors(ctx, cfg.Bettors, rn.funds)
		} else {
			b, err = p.bettors(ctx, rn.partners, op, cfg.Bettors)
		}
		if err != nil {
			return nil, fmt.Errorf("bettors of %s: %w", op, err)
		}
		if err := p.waitMarketSeen(ctx, m, b[0]); err != nil {
			return nil, err
		}
		bettors = append(bettors, b...)
	}
	return bettors, nil
}

// watchPending lists the pending bets every 250 ms until the returned
// stop is called; stop waits for the watch to end, and may be called
// more than once.
func (rn *run) watchPending(ctx context.Context) (stop func()) {
	rn.watch = &pendingWatch{p: rn.platform, operators: rn.operators, seen: map[string]*pendingSeen{}}
	watchCtx, stopWatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	watching.Go(func() { rn.watch.run(watchCtx, 250*time.Millisecond) })
	return func() { stopWatch(); watching.Wait() }
}

// cashierRate is the bundled path's cashier movements per second: a
// tenth of the bet rate, at least one.
func (rn *run) cashierRate() float64 { return max(rn.cfg.Rate/10, 1) }

// place turns the wallet faults on and places cfg.Rate bets a second for
// cfg.Duration from bettors, while cfg.Kills nodes are killed (and, on the
// bundled path, the cashier moves money). It returns the error of a kill
// that failed, or ctx's.
func (rn *run) place(ctx context.Context, bettors []bettor) error {
	cfg := rn.cfg
	rn.faults.on.Store(true)
	if cfg.Path == PathBundled {
		rn.progress("placing %.0f bets/s for %v with %d kills, the cashier moving money %.0f times a second", cfg.Rate, cfg.Duration, cfg.Kills, rn.cashierRate())
	} else {
		rn.progress("placing %.0f bets/s for %v with %d kills and %.0f%% wallet faults", cfg.Rate, cfg.Duration, cfg.Kills, 100*cfg.FaultRatio)
	}
	rn.sender = newSender(rn.platform, rn.market, bettors)
	rn.cash = newCashierLoad(rn.platform, cfg.Bettors)
	var killErr error
	var killing sync.WaitGroup
	killing.Go(func() {
		rn.report.PlacementKills, killErr = killDuring(ctx, rn.cluster, cfg, cfg.Duration, cfg.Kills, rn.cash.atKill, rn.progress)
	})
	var cashing sync.WaitGroup
	if cfg.Path == PathBundled {
		cashing.Go(func() { rn.cash.run(ctx, rn.cashierRate(), cfg.Duration) })
	}
	rn.sender.run(ctx, cfg.Rate, cfg.Duration, 512)
	cashing.Wait()
	killing.Wait()
	if killErr != nil {
		return killErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rn.progress("placement done: %d bets sent, %d accepted; waiting for every bet to be final", rn.sender.sent, len(rn.sender.accepted))
	return nil
}

// totals returns the totals of the path's bets. The waits read them (one
// request per operator), not the bets: a list of 100,000 bets is a
// thousand pages.
func (rn *run) totals(ctx context.Context) (BetTotals, error) {
	return rn.platform.betTotals(ctx, rn.operators)
}

// resolve waits (at most cfg.FinalLimit) until no bet is pending, counts
// the confirmed bets, and resolves the market on its first outcome.
func (rn *run) resolve(ctx context.Context) error {
	if err := waitFor(ctx, rn.cfg.FinalLimit, func() (bool, error) {
		t, err := rn.totals(ctx)
		return err == nil && t.Count("pending") == 0, err
	}); err != nil {
		rn.progress("not every bet is final: %v (resolving anyway)", err)
	}
	before, err := rn.totals(ctx)
	if err != nil {
		return err
	}
	rn.confirmed = before.Count("confirmed")

	rn.progress("resolving the market (%d confirmed bets to pay) with %d kills", rn.confirmed, rn.cfg.SettlementKills)
	rn.resolveAt = time.Now()
	if err := rn.platform.admin(ctx, "POST", "/admin/v1/markets/"+rn.market.ID+"/resolve", fmt.Sprintf(`{"winning_outcome_id":%q}`, rn.market.Outcomes[0]), nil); err != nil {
		return fmt.Errorf("resolve: %w", err)
	}
	return nil
}

// paid returns the bets paid since the resolution and the time of the
// last payout: on the bundled path from the bets' totals, otherwise from
// the payouts and closes in the sandbox wallets' ledgers.
func (rn *run) paid(ctx context.Context) (int, time.Time, error) {
	if rn.cfg.Path == PathBundled {
		t, err := rn.totals(ctx)
		if err != nil {
			return 0, time.Time{}, err
		}
		n, last := t.Paid()
		return n, last, nil
	}
	moves, err := rn.partners.movements()
	if err != nil {
		return 0, time.Time{}, err
	}
	bets := map[string]bool{}
	var last time.Time
	for _, mv := range moves {
		if mv.Kind == Payout || mv.Kind == Close {
			bets[mv.BetID] = true
			if mv.Time.After(last) {
				last = mv.Time
			}
		}
	}
	return len(bets), last, nil
}

// settle kills up to cfg.SettlementKills nodes while payouts are left
// (on the bundled path with the cashier moving money), waits (at most
// cfg.FinalLimit) for every payout, turns the wallet faults off and
// records the payouts in the report. It returns the bets' totals once
// the platform has confirmed every payout, nil if it gave up waiting.
func (rn *run) settle(ctx context.Context) (BetTotals, error) {
	cfg, r := rn.cfg, rn.report
	left := func() (int, error) {
		n, _, err := rn.paid(ctx)
		return max(rn.confirmed-n, 0), err
	}
	// On the bundled path the cashier goes on during the settlement, so
	// that its kills also cut deposits and withdrawals short, and the
	// payouts credit bettors whose balances the cashier moves.
	cashCtx, stopCash := context.WithCancel(ctx)
	defer stopCash()
	var cashing sync.WaitGroup
	if cfg.Path == PathBundled {
		cashing.Go(func() {
			paced(cashCtx, rn.cashierRate(), cfg.FinalLimit, 32, func(context.Context) { rn.cash.move(ctx) })
		})
	}
	var err error
	r.SettlementKills, r.PayoutsLeftAtKills, err = killWhile(ctx, rn.cluster, cfg, cfg.SettlementKills, left, rn.cash.atKill, rn.progress)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, cfg.FinalLimit, func() (bool, error) {
		n, err := left()
		return n == 0, err
	}); err != nil {
		n, _, _ := rn.paid(ctx)
		rn.progress("%d of %d payouts delivered: %v", n, rn.confirmed, err)
	}
	stopCash()
	cashing.Wait()
	rn.faults.on.Store(false)
	n, last, err := rn.paid(ctx)
	if err != nil {
		return nil, err
	}
	r.Payouts = n
	if n > 0 {
		r.ResolveToLastPayout = last.Sub(rn.resolveAt)
	}
	rn.progress("%d payouts delivered %v after the resolution; waiting for the platform to confirm them", n, r.ResolveToLastPayout.Round(time.Millisecond))
	return rn.waitDone(ctx), nil
}

// waitDone waits (at most cfg.FinalLimit) until the platform has
// confirmed every payout, and returns the bets' totals then; nil if it
// gave up waiting, as the bets may still change.
func (rn *run) waitDone(ctx context.Context) BetTotals {
	var after BetTotals
	if err := waitFor(ctx, rn.cfg.FinalLimit, func() (bool, error) {
		t, err := rn.totals(ctx)
		after = t
		return err == nil && t.Done(), err
	}); err != nil {
		rn.progress("not every payout is confirmed: %v (reconciling anyway)", err)
		return nil
	}
	return after
}

// reconcile reads the books and fills the report: the discrepancies
// Reconcile finds, those of the bundled cashier, of the sender and of the
// totals after against the bets listed, the bets by status, and the
// counts of the bets, faults, pending bets and cashier kills.
func (rn *run) reconcile(ctx context.Context, after BetTotals) (*Report, error) {
	books, cashierFound, err := rn.readBooks(ctx)
	if err != nil {
		return nil, err
	}
	r, s := rn.report, rn.sender
	r.Discrepancies = Reconcile(books)
	r.Discrepancies = append(r.Discrepancies, cashierFound...)
	r.Discrepancies = append(r.Discrepancies, s.problems...)
	r.Discrepancies = append(r.Discrepancies, CheckTotals(after, books.Bets)...)
	rn.checkAnswers(books.Bets)
	r.Sent, r.Accepted, r.Retried, r.Abandoned, r.Refused = s.sent, len(s.accepted), s.retries, s.abandoned, s.refused
	r.Faults, r.FaultKinds = rn.faults.total()
	r.PendingAfterRestart = rn.watch.afterRestarts(rn.cluster.windows(), rn.cluster.allKills())
	r.KillsWithCashierInFlight, r.CashierInFlightAtKills = rn.cash.kills()
	return r, nil
}

// readBooks lists the path's bets and reads the wallets' side: on the
// bundled path every bettor's statement (and returns what the cashier's
// reconciliation and the ledger's Verify found), otherwise every bet's
// wallet transactions and the sandbox wallets' ledgers.
func (rn *run) readBooks(ctx context.Context) (Books, []Discrepancy, error) {
	rn.progress("reconciling: listing the bets")
	books := Books{Transactions: map[string][]WalletTransaction{}, Resolved: true,
		Wallets: map[string]WalletKind{operatorID: StandaloneWallet, aggregatorID: AggregatorWallet, bundledID: BundledWallet}}
	for _, op := range rn.operators {
		bets, err := rn.platform.bets(ctx, op, "")
		if err != nil {
			return Books{}, nil, err
		}
		books.Bets = append(books.Bets, bets...)
	}
	var cashierFound []Discrepancy
	var err error
	if rn.cfg.Path == PathBundled {
		// The ledger is the bundled operator's wallet: the statements
		// hold every movement of a bet, so its wallet transactions (one
		// request per bet) would add nothing to check.
		rn.progress("reading %d bettors' statements", rn.cfg.Bettors)
		if books.Movements, cashierFound, err = rn.platform.reconcileBundled(ctx, rn.cfg.Bettors, rn.funds, rn.cash, rn.report); err != nil {
			return Books{}, nil, err
		}
	} else {
		rn.progress("reading %d bets' wallet transactions", len(books.Bets))
		if err := fetchTransactions(ctx, rn.platform, books.Bets, books.Transactions); err != nil {
			return Books{}, nil, err
		}
		if books.Movements, err = rn.partners.movements(); err != nil {
			return Books{}, nil, err
		}
	}
	return books, cashierFound, nil
}

// checkAnswers counts the bets listed by status, records the last
// payout the platform confirmed, and reports a bet listed that no answer
// named (unless some bets were abandoned) and a bet accepted that is not
// listed.
func (rn *run) checkAnswers(bets []Bet) {
	r, s := rn.report, rn.sender
	listed := map[string]bool{}
	for _, b := range bets {
		listed[b.ID] = true
		r.Statuses[b.Status]++
		if b.DepositConfirmedAt != nil {
			r.ResolveToLastConfirmed = max(r.ResolveToLastConfirmed, b.DepositConfirmedAt.Sub(rn.resolveAt))
		}
		if _, ok := s.accepted[b.ID]; !ok && s.abandoned == 0 {
			r.Discrepancies = append(r.Discrepancies, Discrepancy{BetID: b.ID, What: "the platform holds it but no answer named it (a bet placed twice?)"})
		}
	}
	for id := range s.accepted {
		if !listed[id] {
			r.Discrepancies = append(r.Discrepancies, Discrepancy{BetID: id, What: "accepted (202) but the platform does not list it"})
		}
	}
}

// check checks cfg and fills its defaults.
func (cfg *Config) check() error {
	var errs []error
	if len(cfg.Serve) == 0 {
		errs = append(errs, errors.New("no command to run a node"))
	}
	if cfg.DatabaseURL == "" {
		if cfg.Nodes > 1 {
			errs = append(errs, errors.New("SQLite runs one node: several need --database-url postgres://…"))
		}
		cfg.Nodes = 1
	} else if !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		errs = append(errs, errors.New("the database URL must be postgres://… (empty for SQLite)"))
	}
	if cfg.Nodes < 1 {
		errs = append(errs, errors.New("at least one node"))
	}
	switch cfg.Path {
	case PathStandalone, PathAggregator, PathBoth, PathBundled:
	default:
		errs = append(errs, fmt.Errorf("path %q: want standalone, aggregator, both or bundled", cfg.Path))
	}
	if cfg.Rate <= 0 || cfg.Duration <= 0 || cfg.Bettors < 1 {
		errs = append(errs, errors.New("rate, duration and bettors must be positive"))
	}
	if cfg.FaultRatio < 0 || cfg.FaultRatio > 1 {
		errs = append(errs, errors.New("the fault ratio is between 0 and 1"))
	}
	if cfg.Kills < 0 || cfg.SettlementKills < 0 {
		errs = append(errs, errors.New("kills cannot be negative"))
	}
	cfg.MaxRestartDelay = max(cfg.MaxRestartDelay, minRestartDelay)
	if cfg.FinalLimit <= 0 {
		cfg.FinalLimit = 10 * time.Minute
	}
	if cfg.Dir == "" {
		errs = append(errs, errors.New("no directory for the run's files"))
	} else if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// minRestartDelay is the shortest wait between a kill and the restart.
const minRestartDelay = 100 * time.Millisecond

// restartDelay is a random wait between a kill and the restart.
func restartDelay(cfg Config) time.Duration {
	return minRestartDelay + rand.N(cfg.MaxRestartDelay-minRestartDelay+1)
}

// killDuring kills a random node n times in d, once at a random moment of
// each of n equal slots, each restarted after a random delay; it calls
// atKill just before each kill and returns the kills made.
func killDuring(ctx context.Context, cl *cluster, cfg Config, d time.Duration, n int, atKill func(), progress func(string, ...any)) (int, error) {
	start := time.Now()
	for k := range n {
		slot := d / time.Duration(n)
		at := start.Add(time.Duration(k)*slot + slot/5 + rand.N(slot*3/5+1))
		select {
		case <-ctx.Done():
			return k, nil
		case <-time.After(time.Until(at)):
		}
		atKill()
		what, err := cl.crash(ctx, cl.pick(nil), restartDelay(cfg))
		if err != nil {
			return k, err
		}
		progress("kill %d: %s", k+1, what)
	}
	return n, nil
}

// killWhile kills a random node up to n times, each 0 to 2 s after the
// last restart, while left reports payouts left; it calls atKill just
// before each kill and returns the kills made and the payouts left at
// each.
func killWhile(ctx context.Context, cl *cluster, cfg Config, n int, left func() (int, error), atKill func(), progress func(string, ...any)) (int, []int, error) {
	var leftAt []int
	for k := range n {
		select {
		case <-ctx.Done():
			return k, leftAt, ctx.Err()
		case <-time.After(rand.N(2 * time.Second)):
		}
		remaining, err := left()
		if remaining == 0 || err != nil {
			return k, leftAt, err
		}
		atKill()
		what, err := cl.crash(ctx, cl.pick(nil), restartDelay(cfg))
		if err != nil {
			return k, leftAt, err
		}
		leftAt = append(leftAt, remaining)
		progress("settlement kill %d (%d payouts left): %s", k+1, remaining, what)
	}
	return n, leftAt, nil
}

// waitFor polls ok every 500 ms until it is true, for at most limit.
func waitFor(ctx context.Context, limit time.Duration, ok func() (bool, error)) error {
	deadline := time.Now().Add(limit)
	for {
		done, err := ok()
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("still waiting after %v: %w", limit, err)
			}
			return fmt.Errorf("still waiting after %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// fetchTransactions reads every bet's wallet transactions into into,
// eight at a time.
func fetchTransactions(ctx context.Context, p *platform, bets []Bet, into map[string][]WalletTransaction) error {
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, b := range bets {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			txs, err := p.walletTransactions(ctx, b.ID)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			into[b.ID] = txs
		})
	}
	wg.Wait()
	return firstErr
}
