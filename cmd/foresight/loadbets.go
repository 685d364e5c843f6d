package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
)

// runLoadtestBets measures bet placement over HTTP against an in-process
// server whose operator wallet is the sandbox operator on loopback: the
// latency of POST /api/v1/bettor/bets at a fixed rate, then how many bets
// per second reach CONFIRMED when submitted as fast as possible.
func runLoadtestBets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest bets", stderr)
	var (
		f       betLoadFlags
		bettors int
		settle  bool
		backlog bool
		path    string
		// settleProfile is the file of a CPU profile of the settlement
		// phase alone.
		settleProfile string
	)
	f.register(fs, 500, "rate of the fixed-rate phase, per second")
	fs.IntVar(&bettors, "bettors", 200, "bettors the bets are spread over")
	fs.BoolVar(&backlog, "backlog", true, "then queue bets for a phase with placement paused, resume it, and time the backlog's placement")
	fs.BoolVar(&settle, "settle", false, "then resolve the market and time until every bet's deposit reached the wallet "+
		"(bundled path: until the platform recorded every payout of the ledger as confirmed)")
	fs.StringVar(&settleProfile, "settle-cpuprofile", "", "with --settle: write a CPU profile of the settlement phase alone (from the resolve to the last deposit) to this file")
	fs.StringVar(&path, "path", "standalone", "the operator the bets go to: standalone (its wallet is the sandbox operator, over HTTP) "+
		"or bundled (Foresight's ledger keeps the balances: no wallet call)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if path != "standalone" && path != "bundled" {
		return fmt.Errorf("--path %q: want standalone or bundled", path)
	}
	if settleProfile != "" && (!settle || f.cpuProfile != "") {
		return errors.New("--settle-cpuprofile needs --settle and no --cpuprofile (one CPU profile at a time)")
	}
	w, done, err := f.start(ctx)
	if err != nil {
		return err
	}
	defer done()
	duration, concurrency, rate := f.duration, f.concurrency, f.rate
	op, admin, market, client := w.op, w.admin, w.market, w.client
	operatorID, walletOf := w.operatorID, "sandbox wallet at "+w.walletURL
	tokens := make([]string, bettors)
	if path == "bundled" {
		if operatorID, tokens, err = bundledBettors(ctx, w, bettors); err != nil {
			return err
		}
		walletOf = "bundled operator (balances in the ledger)"
	} else {
		for i := range tokens {
			if tokens[i], err = op.MintToken(fmt.Sprint("bettor-", i), "USD"); err != nil {
				return err
			}
		}
	}
	newBet := w.betRequests(tokens)
	fmt.Fprintf(stdout, "%s, concurrency %d, %v per phase, %d bettors, %s\n", w.describe(), concurrency, duration, bettors, walletOf)

	// Warm every bettor's first sight (JWKS, bettor row) outside the measurement.
	loadtest.Run(ctx, client, loadtest.Options{Concurrency: concurrency, Duration: time.Duration(bettors) * 5 * time.Millisecond, NewRequest: newBet, OK: accepted})
	if err := waitConfirmed(ctx, admin, operatorID, time.Minute); err != nil {
		return err
	}

	r := loadtest.Run(ctx, client, loadtest.Options{Rate: rate, Concurrency: concurrency, Duration: duration, NewRequest: newBet, OK: accepted})
	fmt.Fprintf(stdout, "%-40s %s\n", fmt.Sprintf("POST /api/v1/bettor/bets, %.0f/s", rate), r)
	if err := waitConfirmed(ctx, admin, operatorID, time.Minute); err != nil {
		return err
	}

	start := time.Now()
	r = loadtest.Run(ctx, client, loadtest.Options{Concurrency: concurrency, Duration: duration, NewRequest: newBet, OK: accepted})
	fmt.Fprintf(stdout, "%-40s %s\n", "POST /api/v1/bettor/bets, max", r)
	if err := waitConfirmed(ctx, admin, operatorID, 5*time.Minute); err != nil {
		return err
	}
	took := time.Since(start)
	var rejected struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := admin("GET", "/admin/v1/bets?operator_id="+operatorID+"&status=rejected&limit=1", "", &rejected); err != nil {
		return err
	}
	if len(rejected.Items) > 0 {
		return fmt.Errorf("bets were rejected (the first: %s): the run would time rejections, not placements", rejected.Items[0])
	}
	fmt.Fprintf(stdout, "%-40s %d bets confirmed %v after the first was sent: %.0f/s\n", "placement to CONFIRMED", r.Succeeded,
		took.Round(time.Millisecond), float64(r.Succeeded)/took.Seconds())
	if backlog {
		if err := placeBacklog(ctx, stdout, w, operatorID, loadtest.Options{Concurrency: concurrency, Duration: duration, NewRequest: newBet, OK: accepted}); err != nil {
			return err
		}
	}
	if !settle {
		return nil
	}
	if settleProfile != "" {
		stop, err := startCPUProfile(settleProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if path == "bundled" {
		return settleBundled(ctx, stdout, admin, operatorID, market.ID, market.Outcomes[0].ID)
	}
	debited := count(op.Ledger(), operator.EntryWithdrawal) - count(op.Ledger(), operator.EntryRollback)
	start = time.Now()
	if err := admin("POST", "/admin/v1/markets/"+market.ID+"/resolve", fmt.Sprintf(`{"winning_outcome_id":%q}`, market.Outcomes[0].ID), nil); err != nil {
		return err
	}
	// The ledger is read from where the previous look stopped: a copy of
	// it all, 50 ms apart, would hold the wallet's lock for milliseconds
	// at 100,000 entries.
	var settled time.Duration
	seen := len(op.Ledger())
	for deposits := 0; deposits < debited; {
		if err := pollPause(ctx, start, 10*time.Minute, fmt.Errorf("%d of %d deposits after 10 minutes", deposits, debited)); err != nil {
			return err
		}
		news := op.LedgerFrom(seen)
		seen += len(news)
		deposits += count(news, operator.EntryDeposit)
		if settled == 0 {
			var confirmed struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := admin("GET", "/admin/v1/bets?operator_id="+operatorID+"&status=confirmed&limit=1", "", &confirmed); err != nil {
				return err
			}
			if len(confirmed.Items) == 0 {
				settled = time.Since(start)
			}
		}
	}
	took = time.Since(start)
	fmt.Fprintf(stdout, "%-40s %d bets settled %v after the resolve\n", "resolve to every bet settled", debited, settled.Round(time.Millisecond))
	fmt.Fprintf(stdout, "%-40s %d deposits delivered %v after the resolve: %.0f/s\n", "resolve to every deposit delivered", debited,
		took.Round(time.Millisecond), float64(debited)/took.Seconds())
	return nil
}

// bundledBettors creates this run's bundled operator (USD, the standalone
// operator's limits), credits each of n bettors through the cashier with
// more than the load can stake, and opens a session of each as the
// operator's server does. It returns the operator's id and the session
// tokens.
func bundledBettors(ctx context.Context, w *betLoad, n int) (string, []string, error) {
	id := "loadbun-" + strings.TrimPrefix(w.operatorID, "load-")
	if err := w.admin("POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Load bundled","integration":"bundled",
		"currencies":[{"code":"USD","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":{"USD":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},"odds_tolerance":"0.05"}`, id), nil); err != nil {
		return "", nil, err
	}
	tokens := make([]string, n)
	for i := range tokens {
		bettor := fmt.Sprint("bettor-", i)
		if err := w.adminWith("POST", "/admin/v1/operators/"+id+"/bettors/"+bettor+"/deposits", `{"currency":"USD","amount":"1000000000"}`,
			http.Header{"Idempotency-Key": {"load-funds-" + bettor}}, nil); err != nil {
			return "", nil, err
		}
		var s struct {
			AuthToken string `json:"auth_token"`
		}
		if err := w.admin("POST", "/admin/v1/operators/"+id+"/sessions", `{"bettor_id":"`+bettor+`","currency":"USD"}`, &s); err != nil {
			return "", nil, err
		}
		tokens[i] = s.AuthToken
	}
	return id, tokens, nil
}

// placeBacklog measures placement alone, without POSTs competing for the
// CPU: it pauses placement, sends bets for one phase, resumes placement
// and times until no bet is pending. It needs the server in this process
// (to pause it): against a target it says so and does nothing.
func placeBacklog(ctx context.Context, stdout io.Writer, w *betLoad, operatorID string, send loadtest.Options) error {
	if w.srv == nil {
		fmt.Fprintf(stdout, "%-40s skipped: it pauses placement, which needs the server in this process (no --target)\n", "placement of a paused backlog")
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
	r := loadtest.Run(ctx, w.client, send)
	fmt.Fprintf(stdout, "%-40s %s\n", "POST /api/v1/bettor/bets, max, paused", r)
	pending, err := db.BetStore().MarketBets(ctx, w.market.ID, betting.BetPending, 10*r.Succeeded)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := w.srv.ResumePlacement(ctx); err != nil {
		return err
	}
	if err := waitConfirmed(ctx, w.admin, operatorID, 5*time.Minute); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(stdout, "%-40s %d pending bets decided %v after the resume: %.0f/s\n", "placement of a paused backlog", len(pending),
		took.Round(time.Millisecond), float64(len(pending))/took.Seconds())
	return nil
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

// settleBundled resolves the market and times until the platform has
// recorded the payout of every settled bet of the bundled operator as
// confirmed (the ledger paid the winners; a lost bet is confirmed with
// nothing moved), reading GET /admin/v1/bets/totals every 50 ms.
func settleBundled(ctx context.Context, stdout io.Writer, admin func(method, path, body string, out any) error, operatorID, marketID, winner string) error {
	var totals struct {
		Items []struct {
			Status           string `json:"status"`
			Bets             int    `json:"bets"`
			PayoutsConfirmed int    `json:"payouts_confirmed"`
		} `json:"items"`
	}
	read := func() (settled, confirmed, paid int, err error) {
		if err := admin("GET", "/admin/v1/bets/totals?operator_id="+operatorID, "", &totals); err != nil {
			return 0, 0, 0, err
		}
		for _, t := range totals.Items {
			switch t.Status {
			case "confirmed":
				confirmed += t.Bets
			case "settled":
				settled += t.Bets
				paid += t.PayoutsConfirmed
			}
		}
		return settled, confirmed, paid, nil
	}
	_, toPay, _, err := read()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := admin("POST", "/admin/v1/markets/"+marketID+"/resolve", fmt.Sprintf(`{"winning_outcome_id":%q}`, winner), nil); err != nil {
		return err
	}
	var settledIn time.Duration
	for {
		settled, confirmed, paid, err := read()
		if err != nil {
			return err
		}
		if confirmed == 0 && settledIn == 0 {
			settledIn = time.Since(start)
		}
		if confirmed == 0 && paid == settled {
			break
		}
		if err := pollPause(ctx, start, 10*time.Minute, fmt.Errorf("%d of %d payouts confirmed after 10 minutes", paid, toPay)); err != nil {
			return err
		}
	}
	took := time.Since(start)
	fmt.Fprintf(stdout, "%-40s %d bets settled %v and every payout confirmed %v after the resolve: %.0f/s\n", "resolve to every payout confirmed",
		toPay, settledIn.Round(time.Millisecond), took.Round(time.Millisecond), float64(toPay)/took.Seconds())
	return nil
}

// waitConfirmed waits until no bet of the operator is pending.
func waitConfirmed(ctx context.Context, admin func(method, path, body string, out any) error, operatorID string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		var page struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := admin("GET", "/admin/v1/bets?operator_id="+operatorID+"&status=pending&limit=1", "", &page); err != nil {
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

// betLoad is what the betting load commands run against: a server (in
// this process on loopback, or the --target one) with one open
// two-outcome market, a standalone operator whose wallet is the sandbox
// operator in this process (signed requests), and an aggregator whose
// wallet is the sandbox casino in this process.
type betLoad struct {
	op *operator.Operator
	// casino is the wallet of the aggregator (casino id casinoID, currency
	// EUR).
	casino *casino.Casino
	// base is the server's URL.
	base string
	// srv and dbURL are the server in this process and its database; nil
	// and "" against a target.
	srv   *server.Server
	dbURL string
	// walletURL is where the sandbox wallets listen, as the server calls
	// them.
	walletURL string
	// operatorID, aggregatorID and casinoID are this run's own, so that
	// runs against one target do not share bets.
	operatorID, aggregatorID, casinoID string
	client                             *http.Client
	// admin calls the admin API and decodes the answer into out;
	// adminWith also sends header.
	admin     func(method, path, body string, out any) error
	adminWith func(method, path, body string, header http.Header, out any) error
	market    loadMarket
	close     func()
}

// betRequests returns the i-th bet of a load: 1.00 on the market's first
// or second outcome in turn, by the bettors of tokens in turn, each with a
// fresh Idempotency-Key.
func (w *betLoad) betRequests(tokens []string) func(i int) (*http.Request, error) {
	return func(i int) (*http.Request, error) {
		body := fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":"1.00"}`, w.market.ID, w.market.Outcomes[i%2].ID)
		req, err := http.NewRequest("POST", w.base+"/api/v1/bettor/bets", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tokens[i%len(tokens)])
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
		return req, nil
	}
}

// accepted says whether a bet's placement was accepted (202).
func accepted(status int) bool { return status == http.StatusAccepted }

// describe names what the load runs against, for the first line of a
// report.
func (w *betLoad) describe() string {
	if w.srv == nil {
		return "target " + w.base
	}
	return "database " + redactURL(w.dbURL)
}

type loadMarket struct {
	ID       string `json:"id"`
	Version  int64  `json:"version"`
	Outcomes []struct {
		ID string `json:"id"`
	} `json:"outcomes"`
}

// betWorldFlags are the flags of every betting load command: the server
// the betLoad runs against (--target, or one in this process on
// --database-url) and the CPU profile of the run.
type betWorldFlags struct {
	dbURL, cpuProfile string
	target            loadTarget
}

// register defines the flags on fs.
func (f *betWorldFlags) register(fs *flag.FlagSet) {
	f.target.register(fs)
	fs.StringVar(&f.dbURL, "database-url", "", "database of the server in this process (default: a new SQLite file in a temporary directory)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
}

// start starts the profile, the database and the world the flags name,
// whose client keeps at most conns connections to the server; done stops
// them.
func (f *betWorldFlags) start(ctx context.Context, conns int) (_ *betLoad, done func(), err error) {
	if err := f.target.check(); err != nil {
		return nil, nil, err
	}
	dbURL, stop, err := loadSetup(f.cpuProfile, f.dbURL)
	if err != nil {
		return nil, nil, err
	}
	w, err := startBetLoad(ctx, dbURL, f.target, conns)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return w, func() { w.close(); stop() }, nil
}

// betLoadFlags are the flags the commands that send bets share: the
// world's, and the length, concurrency and rate of each phase.
type betLoadFlags struct {
	betWorldFlags
	duration    time.Duration
	concurrency int
	rate        float64
}

// loadTarget names a server in another process or node for a load
// command, instead of one in the command's own process.
type loadTarget struct {
	// url is the server's base URL; "" runs a server in this process.
	url string
	// adminToken is the server's admin token.
	adminToken string
	// walletListen is the address the sandbox wallets listen on; the
	// server calls them at http://walletListen (or the address the
	// listener got, for port 0).
	walletListen string
}

func (t *loadTarget) register(fs *flag.FlagSet) {
	fs.StringVar(&t.url, "target", "", "base URL of a running foresight server to load, instead of one in this process "+
		"(it must accept plain-http wallets: FORESIGHT_DEV_ALLOW_INSECURE=true)")
	fs.StringVar(&t.adminToken, "admin-token", "", "the target's admin token (with --target)")
	fs.StringVar(&t.walletListen, "wallet-listen", "127.0.0.1:0", "address the sandbox wallets listen on; the target must reach it")
}

// check refuses a target without its admin token.
func (t loadTarget) check() error {
	if t.url != "" && t.adminToken == "" {
		return errors.New("--target needs --admin-token")
	}
	return nil
}

// register defines the flags on fs; rate is the default of -rate.
func (f *betLoadFlags) register(fs *flag.FlagSet, rate float64, rateHelp string) {
	f.betWorldFlags.register(fs)
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&f.concurrency, "concurrency", 32, "requests in flight")
	fs.Float64Var(&f.rate, "rate", rate, rateHelp)
}

// start starts the world the flags name, with two connections to the
// server per request in flight; done stops it.
func (f *betLoadFlags) start(ctx context.Context) (_ *betLoad, done func(), err error) {
	return f.betWorldFlags.start(ctx, f.concurrency*2)
}

// loadCasinoSecret is the secret the load's aggregator shares with the
// platform.
const loadCasinoSecret = "load-test-casino-secret"

// startBetLoad starts the sandbox wallets and, without a target, the
// server on dbURL; then it creates this run's operator, aggregator and
// market through the admin API. conns bounds the client's connections to
// the server.
func startBetLoad(ctx context.Context, dbURL string, target loadTarget, conns int) (_ *betLoad, err error) {
	suffix := randomToken()[:8]
	w := &betLoad{operatorID: "load-" + suffix, aggregatorID: "loadagg-" + suffix, casinoID: "casino-load-" + suffix}
	var undo []func()
	w.close = func() {
		for _, f := range slices.Backward(undo) {
			f()
		}
	}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.op, err = operator.New(operator.Config{ID: w.operatorID, SigningSecret: "load-test-signing-secret", StartingBalance: "1000000000.00"}); err != nil {
		return nil, err
	}
	if w.casino, err = casino.New(casino.Config{SigningSecret: loadCasinoSecret, StartingBalance: "1000000000.00"}); err != nil {
		return nil, err
	}
	// One listener for both wallets: the operator's under /, the casino's
	// under /casino/.
	walletL, err := net.Listen("tcp", target.walletListen)
	if err != nil {
		return nil, fmt.Errorf("wallet listener: %w", err)
	}
	wallets := http.NewServeMux()
	wallets.Handle("/", w.op.Handler())
	wallets.Handle("/casino/", http.StripPrefix("/casino", w.casino.Handler()))
	walletSrv := &http.Server{Handler: wallets}
	go walletSrv.Serve(walletL)
	undo = append(undo, func() { walletSrv.Close() })
	w.walletURL = "http://" + walletL.Addr().String()

	adminToken := target.adminToken
	if target.url == "" {
		cfg := server.DefaultConfig()
		cfg.DatabaseURL, cfg.AdminToken, cfg.DevAllowInsecure = dbURL, randomToken(), true
		cfg.LauncherRateLimit = 0 // the load comes from one address
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		cfg.PublicURL = "http://" + l.Addr().String()
		srv, err := server.New(ctx, cfg, nil)
		if err != nil {
			l.Close()
			return nil, err
		}
		undo = append(undo, func() { srv.Close() })
		w.srv, w.dbURL, w.base, adminToken = srv, dbURL, cfg.PublicURL, cfg.AdminToken
		runCtx, stopRun := context.WithCancel(ctx)
		ran := make(chan error, 1)
		go func() { ran <- srv.Run(runCtx, l) }()
		undo = append(undo, func() { stopRun(); <-ran })
	} else {
		w.base = strings.TrimSuffix(target.url, "/")
	}

	w.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	w.adminWith = func(method, path, body string, header http.Header, out any) error {
		req, _ := http.NewRequestWithContext(ctx, method, w.base+path, strings.NewReader(body))
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := w.client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			b, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		if out != nil {
			return json.NewDecoder(resp.Body).Decode(out)
		}
		return nil
	}
	w.admin = func(method, path, body string, out any) error { return w.adminWith(method, path, body, nil, out) }
	if err := w.admin("POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Load","integration":"standalone",
		"wallet_url":%q,"signing_secret":"load-test-signing-secret","jwks_url":%q,"currencies":[{"code":"USD","decimals":2}],
		"margin":{"method":"odds_ratio","value":"0.05"},"limits":{"USD":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},
		"odds_tolerance":"0.05"}`, w.operatorID, w.walletURL, w.walletURL+"/.well-known/jwks.json"), nil); err != nil {
		return nil, fmt.Errorf("create the load's operator (a target must run with FORESIGHT_DEV_ALLOW_INSECURE=true): %w", err)
	}
	if err := w.admin("POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Load aggregator","integration":"aggregator",
		"wallet_url":%q,"signing_secret":%q,"casino_ids":[%q],"currencies":[{"code":"EUR","decimals":2}],
		"margin":{"method":"odds_ratio","value":"0.05"},"limits":{"EUR":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},
		"odds_tolerance":"0.05"}`, w.aggregatorID, w.walletURL+"/casino", loadCasinoSecret, w.casinoID), nil); err != nil {
		return nil, err
	}
	var ev struct {
		Markets []loadMarket `json:"markets"`
	}
	if err := w.admin("POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Load"},"markets":[{"question":{"en":"Who wins?"},
		"outcomes":[{"name":{"en":"A"},"probability":"0.5"},{"name":{"en":"B"},"probability":"0.5"}]}]}`, &ev); err != nil {
		return nil, err
	}
	w.market = ev.Markets[0]
	return w, nil
}
