package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/demo"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/server"
)

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
	operatorURL, casinoURL, sportsbookURL := "http://"+operatorL.Addr().String(), "http://"+casinoL.Addr().String(), "http://"+sportsbookL.Addr().String()
	b := demo.NewBanner(cfg.PublicURL, cfg.DatabaseURL, cfg.AdminToken, selfCommand(), o.dir, operatorURL, casinoURL, sportsbookURL)

	opSite, casinoSite, err := demo.OpenSites(ctx, cfg.PublicURL, o.dir)
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

	world := demo.NewWorld(cfg.PublicURL, cfg.AdminToken, &http.Client{Timeout: 10 * time.Second}, creds, stdout, logger)
	partners := demo.Partners{Operator: opSite, OperatorURL: operatorURL, Casino: casinoSite, CasinoURL: casinoURL}
	book, err := world.SetUp(g.ctx, srv, partners, fresh, o.dir)
	if err != nil {
		return g.wait(fmt.Errorf("demo set-up: %w", err))
	}
	g.start(func(ctx context.Context) error { return sandboxweb.Serve(ctx, sportsbookL, book.Handler(), func() {}) })

	b.AddSecrets(opSite, casinoSite, world.Credentials())
	if err := b.Write(stdout); err != nil {
		return g.wait(err)
	}
	return g.wait(g.first(ctx))
}

// loadDemoSettings reads the demo's flags and its saved credentials. The
// server's admin token is the flags' or the environment's, else the saved
// one, else a new one that the credentials keep. Errors are the flags',
// the credentials file's and the configuration's (server.Config.Check).
func loadDemoSettings(args []string, getenv func(string) string, stderr io.Writer) (demoOptions, demo.Credentials, error) {
	o, err := parseDemoFlags(args, getenv, stderr)
	if err != nil {
		return o, demo.Credentials{}, err
	}
	creds, err := demo.LoadCredentials(o.dir)
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// demoFlagDefaults makes `foresight demo -h` tell the demo's own defaults
// of the server flags it shares with serve. Their usage keeps naming their
// variables, which the demo reads as serve does; only --dev-allow-insecure
// names none, since the demo always turns it on.
func demoFlagDefaults(e *envFlags) {
	for name, def := range map[string]string{
		"database-url":     "sqlite:DIR/foresight-demo.db",
		"market-feed":      "simulator",
		"feed-interval":    "5s",
		"simulator-period": "1m0s",
	} {
		e.fs.Lookup(name).DefValue = def
	}
	e.fs.Lookup("admin-token").Usage = "bearer token of /admin/v1 (default: generated on the first run and kept in DIR/" + demo.CredentialsFile + ") ($" + e.envs["admin-token"] + ")"
	insecure := e.fs.Lookup("dev-allow-insecure")
	insecure.DefValue, insecure.Usage = "true", "always on in the demo: the sandboxes and images are on http://127.0.0.1"
}

// selfCommand is how to run this program again from the directory it was
// started in, for the commands the demo prints: "foresight" when that
// name on PATH is this program, "go run ./cmd/foresight" when go run
// built it, and otherwise the program's own path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "foresight"
	}
	if p, err := exec.LookPath("foresight"); err == nil && sameFile(p, exe) {
		return "foresight"
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/foresight"
	}
	return exe
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
