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
	// --market-feed manual and --launcher-rate-limit 0, and passes the
	// admin token and the database URL in the environment.
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
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
		}
	}
	r := &Report{Path: cfg.Path, Rate: cfg.Rate, Duration: cfg.Duration, PendingLimit: cfg.PendingLimit, Dir: cfg.Dir,
		Statuses: map[string]int{}}
	db := cfg.DatabaseURL
	if db == "" {
		db = "sqlite:" + filepath.Join(cfg.Dir, "platform.db")
		r.Database = "SQLite, 1 node"
	} else {
		r.Database = fmt.Sprintf("PostgreSQL, %d nodes", cfg.Nodes)
	}

	fi := &faultInjector{ratio: cfg.FaultRatio, counts: map[string]int{}, seen: map[string]bool{}}
	pt, err := startPartners(ctx, cfg.Dir, cfg.Path == PathAggregator || cfg.Path == PathBoth, fi)
	if err != nil {
		return nil, err
	}
	defer pt.close()
	adminToken := randomSecret()
	cl, err := newCluster(cfg.Serve, []string{"FORESIGHT_ADMIN_TOKEN=" + adminToken, "FORESIGHT_DATABASE_URL=" + db}, cfg.Nodes, cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer cl.stop()
	// The first node migrates the database; the others start after it.
	for _, n := range cl.nodes {
		if err := cl.start(ctx, n); err != nil {
			return nil, err
		}
	}
	progress("%s: %d node(s) up, logs in %s", r.Database, len(cl.nodes), cfg.Dir)
	p := &platform{cl: cl, adminToken: adminToken, client: newHTTPClient()}
	m, err := p.setUp(ctx, pt)
	if err != nil {
		return nil, fmt.Errorf("set-up: %w", err)
	}
	var operators []string
	var bettors []bettor
	switch cfg.Path {
	case PathStandalone:
		operators = []string{operatorID}
	case PathAggregator:
		operators = []string{aggregatorID}
	case PathBoth:
		operators = []string{operatorID, aggregatorID}
	case PathBundled:
		operators = []string{bundledID}
		if err := p.setUpBundled(ctx); err != nil {
			return nil, fmt.Errorf("set-up: %w", err)
		}
	}
	funds := BundledFunds(cfg.Rate, cfg.Duration, cfg.Bettors)
	for _, op := range operators {
		var b []bettor
		var err error
		if op == bundledID {
			progress("funding %d bettors with %s each", cfg.Bettors, funds)
			b, err = p.bundledBettors(ctx, cfg.Bettors, funds)
		} else {
			b, err = p.bettors(ctx, pt, op, cfg.Bettors)
		}
		if err != nil {
			return nil, fmt.Errorf("bettors of %s: %w", op, err)
		}
		if err := p.waitMarketSeen(ctx, m, b[0]); err != nil {
			return nil, err
		}
		bettors = append(bettors, b...)
	}

	watch := &pendingWatch{p: p, operators: operators, seen: map[string]*pendingSeen{}}
	watchCtx, stopWatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	watching.Go(func() { watch.run(watchCtx, 250*time.Millisecond) })
	defer func() { stopWatch(); watching.Wait() }()

	fi.on.Store(true)
	if cfg.Path == PathBundled {
		progress("placing %.0f bets/s for %v with %d kills, the cashier moving money %.0f times a second", cfg.Rate, cfg.Duration, cfg.Kills, max(cfg.Rate/10, 1))
	} else {
		progress("placing %.0f bets/s for %v with %d kills and %.0f%% wallet faults", cfg.Rate, cfg.Duration, cfg.Kills, 100*cfg.FaultRatio)
	}
	s := newSender(p, m, bettors)
	cash := newCashierLoad(p, cfg.Bettors)
	killCtx, stopKills := context.WithCancel(ctx)
	defer stopKills()
	var killErr error
	var killing sync.WaitGroup
	killing.Go(func() {
		r.PlacementKills, killErr = killDuring(killCtx, cl, cfg, cfg.Duration, cfg.Kills, cash.atKill, progress)
	})
	var cashing sync.WaitGroup
	if cfg.Path == PathBundled {
		cashing.Go(func() { cash.run(ctx, max(cfg.Rate/10, 1), cfg.Duration) })
	}
	s.run(ctx, cfg.Rate, cfg.Duration, 512)
	cashing.Wait()
	killing.Wait()
	if killErr != nil {
		return nil, killErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	progress("placement done: %d bets sent, %d accepted; waiting for every bet to be final", s.sent, len(s.accepted))

	// The waits read the bets' totals (one request per operator), not
	// the bets: a list of 100,000 bets is a thousand pages.
	totals := func() (BetTotals, error) { return p.betTotals(ctx, operators) }
	if err := waitFor(ctx, cfg.FinalLimit, func() (bool, error) {
		t, err := totals()
		return err == nil && t.Count("pending") == 0, err
	}); err != nil {
		progress("not every bet is final: %v (resolving anyway)", err)
	}
	before, err := totals()
	if err != nil {
		return nil, err
	}
	confirmed := before.Count("confirmed")

	progress("resolving the market (%d confirmed bets to pay) with %d kills", confirmed, cfg.SettlementKills)
	resolveAt := time.Now()
	if err := p.admin(ctx, "POST", "/admin/v1/markets/"+m.ID+"/resolve", fmt.Sprintf(`{"winning_outcome_id":%q}`, m.Outcomes[0]), nil); err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	paid := func() (int, time.Time, error) {
		if cfg.Path == PathBundled {
			t, err := totals()
			if err != nil {
				return 0, time.Time{}, err
			}
			n, last := t.Paid()
			return n, last, nil
		}
		moves, err := pt.movements()
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
	left := func() (int, error) {
		n, _, err := paid()
		return max(confirmed-n, 0), err
	}
	allPaid := func() (bool, error) {
		n, err := left()
		return n == 0, err
	}
	// On the bundled path the cashier goes on during the settlement, so
	// that its kills also cut deposits and withdrawals short, and the
	// payouts credit bettors whose balances the cashier moves.
	cashCtx, stopCash := context.WithCancel(ctx)
	defer stopCash()
	if cfg.Path == PathBundled {
		cashing.Go(func() {
			paced(cashCtx, max(cfg.Rate/10, 1), cfg.FinalLimit, 32, func(context.Context) { cash.move(ctx) })
		})
	}
	r.SettlementKills, r.PayoutsLeftAtKills, err = killWhile(ctx, cl, cfg, cfg.SettlementKills, left, cash.atKill, progress)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, cfg.FinalLimit, allPaid); err != nil {
		n, _, _ := paid()
		progress("%d of %d payouts delivered: %v", n, confirmed, err)
	}
	stopCash()
	cashing.Wait()
	fi.on.Store(false)
	n, last, err := paid()
	if err != nil {
		return nil, err
	}
	r.Payouts = n
	if n > 0 {
		r.ResolveToLastPayout = last.Sub(resolveAt)
	}
	progress("%d payouts delivered %v after the resolution; waiting for the platform to confirm them", n, r.ResolveToLastPayout.Round(time.Millisecond))
	var after BetTotals
	if err := waitFor(ctx, cfg.FinalLimit, func() (bool, error) {
		t, err := totals()
		after = t
		return err == nil && t.Done(), err
	}); err != nil {
		after = nil // bets may still change: the totals are not the list's
		progress("not every payout is confirmed: %v (reconciling anyway)", err)
	}
	stopWatch()
	watching.Wait()

	progress("reconciling: listing the bets")
	books := Books{Transactions: map[string][]WalletTransaction{}, Resolved: true,
		Wallets: map[string]WalletKind{operatorID: StandaloneWallet, aggregatorID: AggregatorWallet, bundledID: BundledWallet}}
	for _, op := range operators {
		bets, err := p.bets(ctx, op, "")
		if err != nil {
			return nil, err
		}
		books.Bets = append(books.Bets, bets...)
	}
	var cashierFound []Discrepancy
	if cfg.Path == PathBundled {
		// The ledger is the bundled operator's wallet: the statements
		// hold every movement of a bet, so its wallet transactions (one
		// request per bet) would add nothing to check.
		progress("reading %d bettors' statements", cfg.Bettors)
		if books.Movements, cashierFound, err = p.reconcileBundled(ctx, cfg.Bettors, funds, cash, r); err != nil {
			return nil, err
		}
	} else {
		progress("reading %d bets' wallet transactions", len(books.Bets))
		if err := fetchTransactions(ctx, p, books.Bets, books.Transactions); err != nil {
			return nil, err
		}
		if books.Movements, err = pt.movements(); err != nil {
			return nil, err
		}
	}
	r.Discrepancies = Reconcile(books)
	r.Discrepancies = append(r.Discrepancies, cashierFound...)
	r.Discrepancies = append(r.Discrepancies, s.problems...)
	r.Discrepancies = append(r.Discrepancies, CheckTotals(after, books.Bets)...)
	listed := map[string]bool{}
	for _, b := range books.Bets {
		listed[b.ID] = true
		r.Statuses[b.Status]++
		if b.DepositConfirmedAt != nil {
			r.ResolveToLastConfirmed = max(r.ResolveToLastConfirmed, b.DepositConfirmedAt.Sub(resolveAt))
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
	r.Sent, r.Accepted, r.Retried, r.Abandoned, r.Refused = s.sent, len(s.accepted), s.retries, s.abandoned, s.refused
	r.Faults, r.FaultKinds = fi.total()
	r.PendingAfterRestart = watch.afterRestarts(cl.windows(), cl.allKills())
	r.KillsWithCashierInFlight, r.CashierInFlightAtKills = cash.kills()
	return r, nil
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
