package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sportsbook"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Ids of the demo's partners on the platform.
const (
	demoOperatorID   = "demo-operator"
	demoAggregatorID = "demo-casino"
	// demoSportsbookID is the bundled operator: its balances are in the
	// platform's ledger.
	demoSportsbookID = "demo-sportsbook"
)

// demoStaffName names the operator credential each start of the demo
// issues for the demo operator's staff (and revokes the previous one's);
// demoSportsbookServer the one of the sportsbook's server.
const (
	demoStaffName        = "demo operator staff"
	demoSportsbookServer = "sportsbook server"
)

// demoBettors get a few bets when the demo starts on a new database.
var demoBettors = []string{"alice", "bob", "carol"}

// runDemo serves a local world in one process: the platform on SQLite with
// the simulator feed, a sandbox operator (standalone path) and a sandbox
// casino (aggregator path) on their own loopback listeners, registered
// through the admin API, a ticket client with a key of every scope, and,
// on a new database, a few bets already placed. It prints every URL and
// credential and runs until ctx ends.
func runDemo(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg, logFormat, e := serverFlags(fs, getenv)
	var dir, operatorAddr, casinoAddr, sportsbookAddr string
	e.String(&dir, "dir", "FORESIGHT_DEMO_DIR", ".", "directory of the demo's databases (foresight-demo.db, sandbox-operator.db, sandbox-casino.db)")
	e.String(&operatorAddr, "operator-addr", "FORESIGHT_DEMO_OPERATOR_ADDR", "127.0.0.1:8081", "listen address of the sandbox operator")
	e.String(&casinoAddr, "casino-addr", "FORESIGHT_DEMO_CASINO_ADDR", "127.0.0.1:8082", "listen address of the sandbox casino")
	e.String(&sportsbookAddr, "sportsbook-addr", "FORESIGHT_DEMO_SPORTSBOOK_ADDR", "127.0.0.1:8083", "listen address of the demo sportsbook (the bundled operator)")
	demoFlagDefaults(fs)
	if err := e.parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo directory: %w", err)
	}
	explicit := func(flagName, envName string) bool { return flagSet(fs, flagName) || getenv(envName) != "" }
	if !explicit("database-url", "FORESIGHT_DATABASE_URL") {
		cfg.DatabaseURL = "sqlite:" + filepath.Join(dir, "foresight-demo.db")
	}
	if !explicit("market-feed", "FORESIGHT_MARKET_FEED") {
		cfg.MarketFeed = "simulator"
	}
	if !explicit("feed-interval", "FORESIGHT_FEED_INTERVAL") {
		cfg.FeedInterval = 5 * time.Second
	}
	if !explicit("simulator-period", "FORESIGHT_SIMULATOR_PERIOD") {
		cfg.Simulator.Period = time.Minute // markets close and settle within minutes
	}
	cfg.DevAllowInsecure = true // the sandboxes and images are on http://127.0.0.1
	creds, err := loadDemoCredentials(dir)
	if err != nil {
		return err
	}
	if cfg.AdminToken == "" {
		if creds.AdminToken == "" {
			creds.AdminToken = randomToken()
		}
		cfg.AdminToken = creds.AdminToken
	}
	if err := cfg.CheckTokens(); err != nil {
		return err
	}
	fresh := !strings.HasPrefix(cfg.DatabaseURL, "sqlite:") || !fileExists(strings.TrimPrefix(cfg.DatabaseURL, "sqlite:"))

	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	listen := func(addr string) (net.Listener, error) {
		l, err := net.Listen("tcp", addr)
		if err == nil {
			listeners = append(listeners, l)
		}
		return l, err
	}
	fmt.Fprintf(stdout, "Starting the platform on %s, the sandbox operator on %s, the sandbox casino on %s and the sportsbook on %s …\n",
		cfg.Addr, operatorAddr, casinoAddr, sportsbookAddr)
	platformL, err := listen(cfg.Addr)
	if err != nil {
		return err
	}
	operatorL, err := listen(operatorAddr)
	if err != nil {
		return err
	}
	casinoL, err := listen(casinoAddr)
	if err != nil {
		return err
	}
	sportsbookL, err := listen(sportsbookAddr)
	if err != nil {
		return err
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + platformL.Addr().String()
	}
	operatorURL, casinoURL := "http://"+operatorL.Addr().String(), "http://"+casinoL.Addr().String()
	sportsbookURL := "http://" + sportsbookL.Addr().String()

	opSite, err := operator.OpenSite(ctx, operator.SiteConfig{ID: demoOperatorID, PlatformURL: cfg.PublicURL,
		DatabasePath: filepath.Join(dir, "sandbox-operator.db")})
	if err != nil {
		return err
	}
	defer opSite.Close()
	casinoSite, err := casino.OpenSite(ctx, casino.SiteConfig{AggregatorID: demoAggregatorID, PlatformURL: cfg.PublicURL,
		DatabasePath: filepath.Join(dir, "sandbox-casino.db")})
	if err != nil {
		return err
	}
	defer casinoSite.Close()
	srv, err := server.New(ctx, *cfg, newLogger(*logFormat, stderr))
	if err != nil {
		return err
	}
	defer srv.Close()

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 4)
	go func() { done <- srv.Run(runCtx, platformL) }()
	go func() { done <- opSite.Serve(runCtx, operatorL) }()
	go func() { done <- casinoSite.Serve(runCtx, casinoL) }()
	listeners = []net.Listener{sportsbookL} // the servers own the others now; the sportsbook's is served after set-up
	running := 3
	// wait stops the servers and returns their errors with first.
	wait := func(first error) error {
		stop()
		errs := []error{first}
		for ; running > 0; running-- {
			errs = append(errs, <-done)
		}
		return errors.Join(errs...)
	}

	client := &http.Client{Timeout: 10 * time.Second}
	d := &demoWorld{platform: cfg.PublicURL, client: client, admin: &admin.Client{BaseURL: cfg.PublicURL, Token: cfg.AdminToken, HTTP: client},
		creds: creds, progress: stdout}
	setupErr := d.setUp(runCtx, srv, opSite, casinoSite, operatorURL, casinoURL, fresh)
	if setupErr == nil {
		setupErr = saveDemoCredentials(dir, d.creds)
	}
	var book *sportsbook.Site
	if setupErr == nil {
		book, setupErr = sportsbook.New(sportsbook.Config{OperatorID: demoSportsbookID, PlatformURL: cfg.PublicURL,
			Credential: d.creds.SportsbookKey, Currency: "USD", HTTP: client})
	}
	if setupErr != nil {
		return wait(fmt.Errorf("demo set-up: %w", setupErr))
	}
	bookSrv := &http.Server{Handler: book.Handler(), ReadHeaderTimeout: 10 * time.Second}
	listeners = nil
	running++
	go func() {
		err := bookSrv.Serve(sportsbookL)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() { <-runCtx.Done(); bookSrv.Close() }()
	self := selfCommand()
	fmt.Fprintf(stdout, `Foresight demo is running.

  Operator host page  %[7]s/sandbox/host     (a bettor in the widget, standalone path)
  Casino lobby        %[8]s/sandbox/lobby    (the game through an aggregator)
  Sportsbook          %[14]s/sandbox/host     (a bundled operator: balances in the platform's ledger)
  Sandbox ledgers     %[7]s/sandbox/ledger  %[8]s/sandbox/ledger
  Backoffice          %[1]s/backoffice/   (sign in with the admin token, or the operator key)
  API base URL        %[1]s
  API documents       %[1]s/openapi/bettor.yaml  %[1]s/openapi/admin.yaml  %[1]s/openapi/aggregator.yaml  %[1]s/openapi/tickets.yaml
  Admin token         %[3]s   (Authorization: Bearer … on %[1]s/admin/v1)
  Operator key        %[11]s   (the demo operator's staff: its bets, exposure and settings only)
  Ticket client       %[4]s   webhook secret %[5]s
  Ticket API key      %[6]s   (scopes tickets:submit tickets:read tickets:cancel)
  Database            %[2]s
  Health, metrics     %[1]s/healthz  %[1]s/metrics   (metrics: Authorization: Bearer <admin token>)

The catalog comes from the simulator: new events every minute, markets that resolve and pay out
on their own. Conformance checks of the sandbox partners' wallets:

  %[12]s conformance operator-wallet --url %[7]s --secret %[9]s --bettor conformance-bettor
  %[12]s conformance aggregator-wallet --url %[8]s --secret %[10]s --account conformance-account

Submit a spec to the ticket service:

  curl -s -X POST %[1]s/tickets/v1/jobs \
    -H 'Authorization: Bearer %[6]s' -H 'Content-Type: application/json' \
    -d '{"schema_version":"tickets.input.v1","idempotency_key":"demo-1","title":"Login","spec":"# Login\n- Users must sign in with email and password.\n- Lock the account after 5 failed attempts?"}'

The credentials are kept in %[13]s and stay the same when the demo starts again in
this directory; delete that file to have new ones.

Press Ctrl-C to stop.
`, cfg.PublicURL, cfg.DatabaseURL, cfg.AdminToken, d.creds.TicketClientID, d.creds.TicketWebhookSecret, d.creds.TicketKey,
		operatorURL, casinoURL, opSite.Operator().SigningSecret(), casinoSite.Casino().SigningSecret(), d.creds.OperatorKey,
		self, filepath.Join(dir, demoCredentialsFile), sportsbookURL)
	select {
	case <-ctx.Done():
		return wait(nil)
	case err := <-done:
		running--
		return wait(err)
	}
}

// demoWorld sets up the demo through the platform's own APIs.
type demoWorld struct {
	platform string
	client   *http.Client
	admin    *admin.Client
	creds    demoCredentials // read at start, completed by setUp
	progress io.Writer       // where setUp says what it is doing
}

func (d *demoWorld) setUp(ctx context.Context, srv *server.Server, opSite *operator.Site, casinoSite *casino.Site, operatorURL, casinoURL string, fresh bool) error {
	if err := waitFor(ctx, 10*time.Second, func() bool { return d.admin.Do(ctx, "GET", "/healthz", nil, nil) == nil }); err != nil {
		return errors.New("the platform did not become healthy")
	}
	fmt.Fprintln(d.progress, "Registering the sandbox operator and the sandbox casino, and the demo's credentials …")
	if err := d.register(ctx, demoOperatorID, opSite.Registration(operatorURL)); err != nil {
		return err
	}
	if err := d.register(ctx, demoAggregatorID, casinoSite.Registration(casinoURL)); err != nil {
		return err
	}
	if err := d.register(ctx, demoSportsbookID, sportsbook.Registration(demoSportsbookID, "Demo sportsbook", "USD")); err != nil {
		return err
	}
	if err := d.staffKey(ctx, demoOperatorID, demoStaffName, &d.creds.OperatorKey); err != nil {
		return err
	}
	if err := d.staffKey(ctx, demoSportsbookID, demoSportsbookServer, &d.creds.SportsbookKey); err != nil {
		return err
	}
	if err := d.ticketCredentials(ctx, srv.Tickets()); err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	fmt.Fprintln(d.progress, "Waiting for the simulator's first markets, then placing a bet for alice, bob and carol …")
	return d.placeBets(ctx, srv.Betting(), opSite.Operator())
}

// ticketCredentials keeps the earlier run's ticket client and key when the
// key still authenticates, and creates a client and a key of every scope
// otherwise (a new database, or a revoked key).
func (d *demoWorld) ticketCredentials(ctx context.Context, svc *tickets.Service) error {
	if d.creds.TicketKey != "" {
		if p, err := svc.Authenticate(ctx, d.creds.TicketKey); err == nil && p.ClientID == d.creds.TicketClientID {
			return nil
		}
	}
	c, err := svc.CreateClient(ctx, "demo team")
	if err != nil {
		return err
	}
	_, key, err := svc.CreateKey(ctx, c.ID, []tickets.Scope{tickets.ScopeSubmit, tickets.ScopeRead, tickets.ScopeCancel}, nil)
	if err != nil {
		return err
	}
	d.creds.TicketClientID, d.creds.TicketWebhookSecret, d.creds.TicketKey = c.ID, c.WebhookSecret, key
	return nil
}

// register creates the partner on the platform, or, when it exists from an
// earlier run, updates it to this run's URLs and secret.
func (d *demoWorld) register(ctx context.Context, id string, body []byte) error {
	var conflict *admin.Problem
	err := d.admin.Do(ctx, "POST", "/admin/v1/operators", json.RawMessage(body), nil)
	if errors.As(err, &conflict) && conflict.Code == admin.CodeConflict {
		err = d.admin.Do(ctx, "PATCH", "/admin/v1/operators/"+id, json.RawMessage(body), nil)
	}
	if err != nil {
		return fmt.Errorf("register %s: %w", id, err)
	}
	return nil
}

// staffKey keeps the earlier run's credential named name of operatorID
// (in *key) when it still signs in; otherwise it revokes any earlier
// credential of that name (only its hash is on the platform: it cannot be
// shown again) and issues a new one into *key.
func (d *demoWorld) staffKey(ctx context.Context, operatorID, name string, key *string) error {
	if *key != "" {
		staff := &admin.Client{BaseURL: d.admin.BaseURL, Token: *key, HTTP: d.admin.HTTP}
		var who struct {
			OperatorID string `json:"operator_id"`
		}
		if staff.Do(ctx, "GET", "/admin/v1/whoami", nil, &who) == nil && who.OperatorID == operatorID {
			return nil
		}
	}
	creds, err := d.admin.ListOperatorCredentials(ctx, operatorID)
	if err != nil {
		return fmt.Errorf("credentials of %s: %w", operatorID, err)
	}
	for _, c := range creds {
		if c.Name == name && c.RevokedAt == nil {
			if err := d.admin.RevokeOperatorCredential(ctx, operatorID, c.ID); err != nil {
				return fmt.Errorf("revoke the earlier %s key: %w", name, err)
			}
		}
	}
	c, err := d.admin.IssueOperatorCredential(ctx, operatorID, name, nil)
	if err != nil {
		return fmt.Errorf("issue the %s key: %w", name, err)
	}
	*key = c.Key
	return nil
}

// placeBets waits for the simulator's first events and places one bet per
// demo bettor through the bettor API, as the widget would.
func (d *demoWorld) placeBets(ctx context.Context, catalog *betting.Service, op *operator.Operator) error {
	var open []betting.Event
	err := waitFor(ctx, 30*time.Second, func() bool {
		events, err := catalog.ListEvents(ctx, betting.EventFilter{Status: betting.StatusOpen, Limit: 50})
		open = nil
		for _, e := range events {
			if err == nil && len(e.Markets) > 0 && e.Markets[0].Status == betting.StatusOpen {
				open = append(open, e)
			}
		}
		return len(open) > 0
	})
	if err != nil {
		return errors.New("the simulator fed no open market within 30 s")
	}
	for i, bettor := range demoBettors {
		token, err := op.MintToken(bettor, "USD")
		if err != nil {
			return err
		}
		m := open[i%len(open)].Markets[0]
		o := m.Outcomes[i%len(m.Outcomes)]
		body, _ := json.Marshal(map[string]string{"market_id": m.ID, "outcome_id": o.ID, "stake": fmt.Sprintf("%d.00", 5*(i+1))})
		req, _ := http.NewRequestWithContext(ctx, "POST", d.platform+"/api/v1/bettor/bets", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
		resp, err := d.client.Do(req)
		if err != nil {
			return fmt.Errorf("place a bet for %s: %w", bettor, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("place a bet for %s: %s", bettor, resp.Status)
		}
	}
	return nil
}

// waitFor calls ok every 50 ms until it is true, ctx ends or limit passes.
func waitFor(ctx context.Context, limit time.Duration, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func randomToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "adm_" + hex.EncodeToString(b)
}
