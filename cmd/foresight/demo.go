package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/poll"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/sandbox/sportsbook"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Ids of the demo's partners on the platform.
const (
	demoOperatorID   = "demo-operator"
	demoAggregatorID = "demo-casino"
	// demoCasinoID is the sandbox casino's casino_id, the one its
	// aggregator launches the game for.
	demoCasinoID = casino.DefaultCasinoID
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
	o, creds, err := loadDemoSettings(args, getenv, stderr)
	if err != nil {
		return err
	}
	cfg := o.cfg
	fresh := !strings.HasPrefix(cfg.DatabaseURL, "sqlite:") || !fileExists(strings.TrimPrefix(cfg.DatabaseURL, "sqlite:"))

	fmt.Fprintf(stdout, "Starting the platform on %s, the sandbox operator on %s, the sandbox casino on %s and the sportsbook on %s …\n",
		cfg.Addr, o.operatorAddr, o.casinoAddr, o.sportsbookAddr)
	ls, err := listenAll(o.flags, "addr", "operator-addr", "casino-addr", "sportsbook-addr")
	if err != nil {
		return err
	}
	defer closeAll(ls) // a listener a server took is closed again, harmlessly
	platformL, operatorL, casinoL, sportsbookL := ls[0], ls[1], ls[2], ls[3]
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + platformL.Addr().String()
	}
	b := newDemoBanner(cfg, o.dir, operatorL, casinoL, sportsbookL)

	opSite, casinoSite, err := openDemoSites(ctx, cfg.PublicURL, o.dir)
	if err != nil {
		return err
	}
	defer opSite.Close()
	defer casinoSite.Close()
	logger := newLogger(o.logFormat, stderr)
	srv, err := server.New(ctx, *cfg, logger)
	if err != nil {
		return err
	}
	defer srv.Close()

	g := newServerGroup(ctx)
	defer g.stop()
	g.start(func(ctx context.Context) error { return srv.Run(ctx, platformL) })
	g.start(func(ctx context.Context) error { return opSite.Serve(ctx, operatorL) })
	g.start(func(ctx context.Context) error { return casinoSite.Serve(ctx, casinoL) })

	client := &http.Client{Timeout: 10 * time.Second}
	d := &demoWorld{platform: cfg.PublicURL, client: client, admin: &admin.Client{BaseURL: cfg.PublicURL, Token: cfg.AdminToken, HTTP: client},
		creds: creds, progress: stdout, logger: logger}
	book, err := d.setUpAll(g.ctx, srv, opSite, casinoSite, b, fresh, o.dir)
	if err != nil {
		return g.wait(fmt.Errorf("demo set-up: %w", err))
	}
	g.start(func(ctx context.Context) error { return sandboxweb.Serve(ctx, sportsbookL, book.Handler(), func() {}) })

	b.addSecrets(opSite, casinoSite, d.creds)
	if err := demoBannerTemplate.Execute(stdout, b); err != nil {
		return g.wait(err)
	}
	return g.wait(g.first(ctx))
}

// loadDemoSettings reads the demo's flags and its saved credentials. The
// server's admin token is the flags' or the environment's, else the saved
// one, else a new one that the credentials keep. Errors are the flags',
// the credentials file's and the configuration's (server.Config.Check).
func loadDemoSettings(args []string, getenv func(string) string, stderr io.Writer) (demoOptions, demoCredentials, error) {
	o, err := parseDemoFlags(args, getenv, stderr)
	if err != nil {
		return o, demoCredentials{}, err
	}
	creds, err := loadDemoCredentials(o.dir)
	if err != nil {
		return o, creds, err
	}
	if o.cfg.AdminToken == "" {
		if creds.AdminToken == "" {
			creds.AdminToken = admin.NewToken()
		}
		o.cfg.AdminToken = creds.AdminToken
	}
	if err := o.cfg.Check(); err != nil {
		return o, creds, err
	}
	return o, creds, nil
}

// openDemoSites opens the sandbox operator and the sandbox casino of the
// platform at platformURL, with their databases in dir; after a failure
// it closes what it opened.
func openDemoSites(ctx context.Context, platformURL, dir string) (*operator.Site, *casino.Site, error) {
	opSite, err := operator.OpenSite(ctx, operator.SiteConfig{
		ID:           demoOperatorID,
		SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: filepath.Join(dir, "sandbox-operator.db")},
	})
	if err != nil {
		return nil, nil, err
	}
	casinoSite, err := casino.OpenSite(ctx, casino.SiteConfig{
		AggregatorID: demoAggregatorID, CasinoID: demoCasinoID,
		SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: filepath.Join(dir, "sandbox-casino.db")},
	})
	if err != nil {
		opSite.Close()
		return nil, nil, err
	}
	return opSite, casinoSite, nil
}

// demoOptions are the demo's flags: the server's, and where the demo keeps
// its databases and listens for its partners.
type demoOptions struct {
	cfg                                      *server.Config
	flags                                    *envFlags // parsed, to name a flag in an error
	logFormat                                string
	dir                                      string
	operatorAddr, casinoAddr, sportsbookAddr string
}

// parseDemoFlags reads the demo's flags and environment, with the demo's
// own defaults where neither sets a value (a SQLite database in the
// directory, the simulator feed at a demo's pace), and creates the
// directory.
func parseDemoFlags(args []string, getenv func(string) string, stderr io.Writer) (demoOptions, error) {
	fs := newFlagSet("demo", stderr)
	cfg, logFormat, e := serverFlags(fs, getenv)
	o := demoOptions{cfg: cfg, flags: e}
	e.String(&o.dir, "dir", "FORESIGHT_DEMO_DIR", ".", "directory of the demo's databases (foresight-demo.db, sandbox-operator.db, sandbox-casino.db)")
	e.String(&o.operatorAddr, "operator-addr", "FORESIGHT_DEMO_OPERATOR_ADDR", "127.0.0.1:8081", "listen address of the sandbox operator")
	e.String(&o.casinoAddr, "casino-addr", "FORESIGHT_DEMO_CASINO_ADDR", "127.0.0.1:8082", "listen address of the sandbox casino")
	e.String(&o.sportsbookAddr, "sportsbook-addr", "FORESIGHT_DEMO_SPORTSBOOK_ADDR", "127.0.0.1:8083", "listen address of the demo sportsbook (the bundled operator)")
	demoFlagDefaults(e)
	if err := e.parse(args); err != nil {
		return o, err
	}
	o.logFormat = *logFormat
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return o, fmt.Errorf("demo directory: %w", err)
	}
	explicit := func(flagName, envName string) bool { return isFlagSet(fs, flagName) || getenv(envName) != "" }
	if !explicit("database-url", "FORESIGHT_DATABASE_URL") {
		cfg.DatabaseURL = "sqlite:" + filepath.Join(o.dir, "foresight-demo.db")
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
	return o, nil
}

// listenAll listens on the address of every flag named, or on none: after
// a failure it closes the listeners it opened. Its error names the flag
// (envFlags.listen).
func listenAll(e *envFlags, flagNames ...string) ([]net.Listener, error) {
	var ls []net.Listener
	for _, name := range flagNames {
		l, err := e.listen(name)
		if err != nil {
			closeAll(ls)
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		l.Close()
	}
}

// serverGroup runs the demo's servers until the first one ends or the
// group is stopped; each gets the group's context.
type serverGroup struct {
	ctx     context.Context
	stop    context.CancelFunc
	done    chan error
	running int
}

func newServerGroup(ctx context.Context) *serverGroup {
	ctx, stop := context.WithCancel(ctx)
	return &serverGroup{ctx: ctx, stop: stop, done: make(chan error, 8)}
}

func (g *serverGroup) start(serve func(ctx context.Context) error) {
	g.running++
	go func() { g.done <- serve(g.ctx) }()
}

// first waits until ctx ends (nil) or a server ends (its error).
func (g *serverGroup) first(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-g.done:
		g.running--
		return err
	}
}

// wait stops the servers and returns their errors with first's.
func (g *serverGroup) wait(first error) error {
	g.stop()
	errs := []error{first}
	for ; g.running > 0; g.running-- {
		errs = append(errs, <-g.done)
	}
	return errors.Join(errs...)
}

// demoBanner is what the demo prints once it runs.
type demoBanner struct {
	Platform, Database, AdminToken, Self, CredentialsFile string
	Operator, Casino, Sportsbook                          string
	OperatorID, AggregatorID, CasinoID                    string
	OperatorSecret, CasinoSecret, OperatorKey             string
	TicketClientID, TicketWebhookSecret, TicketKey        string
	TicketJob                                             string // the JSON body of the printed ticket job
}

// newDemoBanner is the banner of the platform of cfg, the demo's
// credentials file in dir and the partners listening on operatorL,
// casinoL and sportsbookL, before the set-up issues their secrets.
func newDemoBanner(cfg *server.Config, dir string, operatorL, casinoL, sportsbookL net.Listener) demoBanner {
	return demoBanner{Platform: cfg.PublicURL, Database: cfg.DatabaseURL, AdminToken: cfg.AdminToken, Self: selfCommand(),
		Operator: "http://" + operatorL.Addr().String(), Casino: "http://" + casinoL.Addr().String(),
		Sportsbook: "http://" + sportsbookL.Addr().String(), CredentialsFile: filepath.Join(dir, demoCredentialsFile),
		OperatorID: demoOperatorID, AggregatorID: demoAggregatorID, CasinoID: demoCasinoID, TicketJob: demoTicketJob()}
}

// addSecrets completes b with the sandboxes' signing secrets and the
// credentials the set-up issued.
func (b *demoBanner) addSecrets(opSite *operator.Site, casinoSite *casino.Site, creds demoCredentials) {
	b.OperatorSecret, b.CasinoSecret = opSite.Operator().SigningSecret(), casinoSite.Casino().SigningSecret()
	b.OperatorKey, b.TicketClientID, b.TicketWebhookSecret, b.TicketKey = creds.OperatorKey, creds.TicketClientID, creds.TicketWebhookSecret, creds.TicketKey
}

var demoBannerTemplate = template.Must(template.New("banner").Parse(`Foresight demo is running.

  Operator host page  {{.Operator}}/sandbox/host     (a bettor in the widget, standalone path)
  Casino lobby        {{.Casino}}/sandbox/lobby    (the game through an aggregator)
  Sportsbook          {{.Sportsbook}}/sandbox/host     (a bundled operator: balances in the platform's ledger)
  Sandbox ledgers     {{.Operator}}/sandbox/ledger  {{.Casino}}/sandbox/ledger
  Backoffice          {{.Platform}}/backoffice/   (sign in with the admin token, or the operator key)
  API base URL        {{.Platform}}
  API documents       {{.Platform}}/openapi/bettor.yaml  {{.Platform}}/openapi/admin.yaml  {{.Platform}}/openapi/aggregator.yaml  {{.Platform}}/openapi/tickets.yaml
  Admin token         {{.AdminToken}}   (Authorization: Bearer … on {{.Platform}}/admin/v1)
  Operator key        {{.OperatorKey}}   (the demo operator's staff: its bets, exposure and settings only)
  Ticket client       {{.TicketClientID}}   webhook secret {{.TicketWebhookSecret}}
  Ticket API key      {{.TicketKey}}   (scopes tickets:submit tickets:read tickets:cancel)
  Database            {{.Database}}
  Health, metrics     {{.Platform}}/healthz  {{.Platform}}/metrics   (metrics: Authorization: Bearer <admin token>)

The sandbox partners, as registered on the platform:

  Standalone operator  id {{.OperatorID}}   signing secret {{.OperatorSecret}}
                       (X-Payload-Signature of the platform's calls to {{.Operator}}/v1/…)
  Aggregator           id {{.AggregatorID}}   casino_id {{.CasinoID}}   shared secret {{.CasinoSecret}}
                       (X-REQUEST-SIGN of launches at {{.Platform}}/v2/agg_provider.Launcher/Real and of the wallet calls)

The catalog comes from the simulator: new events every minute, markets that resolve and pay out
on their own. Conformance checks of the sandbox partners' wallets:

  {{.Self}} conformance operator-wallet --url {{.Operator}} --secret {{.OperatorSecret}} --bettor conformance-bettor
  {{.Self}} conformance aggregator-wallet --url {{.Casino}} --secret {{.CasinoSecret}} --account conformance-account

Submit a spec to the ticket service (a small product spec in Markdown, in the body's "spec"),
then read the tickets at the result_url of its answer once the job is completed:

  curl -s -X POST {{.Platform}}/tickets/v1/jobs \
    -H 'Authorization: Bearer {{.TicketKey}}' -H 'Content-Type: application/json' \
    -d '{{.TicketJob}}'
  curl -s -H 'Authorization: Bearer {{.TicketKey}}' {{.Platform}}/tickets/v1/jobs/<job_id>/result

The credentials are kept in {{.CredentialsFile}}, the sandboxes' signing secrets in their
databases, and stay the same when the demo starts again in this directory; delete that file to
have new keys and tokens.

Press Ctrl-C to stop.
`))

// demoSpec is the spec of the ticket job the demo prints: small, with
// user stories, requirements, an acceptance criterion and an open
// question, so that one job shows several kinds of tickets (stories,
// tasks, a spike, a risk). It holds no single quote (demoTicketJob).
const demoSpec = `# Password reset

Users who forgot their password reset it themselves by email, without calling support.

## User stories
1. As a user who forgot my password, I want a reset link by email so that I can sign in again.
2. As a security officer, I want a reset to sign the user out everywhere else so that a stolen session stops working.

## Requirements
- Users must request a reset link with the email address of their account.
- The link must expire after 30 minutes and work only once.
- The new password must be at least 12 characters long.
- The system must send no email to an address without an account, and answer the same way.

## Acceptance criteria
- The system must offer a new link when an expired or used link is opened.

## Open questions
- Is a locked account unlocked by a reset?
`

// demoTicketJob is the JSON body of the ticket job the demo prints, on one
// line and without a single quote (it is printed inside '…').
func demoTicketJob() string {
	b, _ := json.Marshal(struct {
		SchemaVersion  string `json:"schema_version"`
		IdempotencyKey string `json:"idempotency_key"`
		Title          string `json:"title"`
		Spec           string `json:"spec"`
	}{"tickets.input.v1", "demo-password-reset", "Password reset", demoSpec})
	return string(b)
}

// setUpAll sets the demo up through the platform's APIs (setUp), keeps
// the credentials in dir, and returns the sportsbook's site, which calls
// the platform with the credential setUp issued for it.
func (d *demoWorld) setUpAll(ctx context.Context, srv *server.Server, opSite *operator.Site, casinoSite *casino.Site, b demoBanner, fresh bool, dir string) (*sportsbook.Site, error) {
	if err := d.setUp(ctx, srv, opSite, casinoSite, b.Operator, b.Casino, fresh); err != nil {
		return nil, err
	}
	if err := saveDemoCredentials(dir, d.creds); err != nil {
		return nil, err
	}
	return sportsbook.New(sportsbook.Config{OperatorID: demoSportsbookID, PlatformURL: d.platform,
		Credential: d.creds.SportsbookKey, Currency: "USD", HTTP: d.client, Logger: d.logger})
}

// demoWorld sets up the demo through the platform's own APIs.
type demoWorld struct {
	platform string
	client   *http.Client
	admin    *admin.Client
	creds    demoCredentials // read at start, completed by setUp
	progress io.Writer       // where setUp says what it is doing
	logger   *slog.Logger    // the sportsbook's log, the platform's
}

func (d *demoWorld) setUp(ctx context.Context, srv *server.Server, opSite *operator.Site, casinoSite *casino.Site, operatorURL, casinoURL string, fresh bool) error {
	if err := poll.Until(ctx, 10*time.Second, func() bool { return d.admin.Do(ctx, "GET", "/healthz", nil, nil) == nil }); err != nil {
		return errors.New("the platform did not become healthy")
	}
	fmt.Fprintln(d.progress, "Registering the sandbox operator, the sandbox casino and the sportsbook, and the demo's credentials …")
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
	err := poll.Until(ctx, 30*time.Second, func() bool {
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
