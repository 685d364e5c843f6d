package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest/betload"
)

// runLoadtestBets measures bet placement over HTTP against an in-process
// server whose operator wallet is the sandbox operator on loopback: the
// latency of POST /api/v1/bettor/bets at a fixed rate, then how many bets
// per second reach CONFIRMED when submitted as fast as possible.
func runLoadtestBets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest bets", stderr)
	var (
		f    betLoadFlags
		o    betload.BetsOptions
		path string
	)
	f.register(fs, 500, "rate of the fixed-rate phase, per second")
	fs.IntVar(&o.Bettors, "bettors", 200, "bettors the bets are spread over")
	fs.BoolVar(&o.Backlog, "backlog", true, "then queue bets for a phase with placement paused, resume it, and time the backlog's placement")
	fs.BoolVar(&o.Settle, "settle", false, "then resolve the market and time until every bet's deposit reached the wallet "+
		"(bundled path: until the platform recorded every payout of the ledger as confirmed)")
	fs.StringVar(&o.SettleCPUProfile, "settle-cpuprofile", "", "with --settle: write a CPU profile of the settlement phase alone (from the resolve to the last deposit) to this file")
	fs.StringVar(&path, "path", "standalone", "the operator the bets go to: standalone (its wallet is the sandbox operator, over HTTP) "+
		"or bundled (Foresight's ledger keeps the balances: no wallet call)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if path != "standalone" && path != "bundled" {
		return fmt.Errorf("--path %q: want standalone or bundled", path)
	}
	if o.SettleCPUProfile != "" && (!o.Settle || f.cpuProfile != "") {
		return errors.New("--settle-cpuprofile needs --settle and no --cpuprofile (one CPU profile at a time)")
	}
	o.Bundled, o.Phases = path == "bundled", f.phases
	w, done, err := f.start(ctx)
	if err != nil {
		return err
	}
	defer done()
	return betload.RunBets(ctx, w, o, stdout)
}

// betWorldFlags are the flags of every betting load command: the server
// the betload.World runs against (--target, or one in this process on
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
func (f *betWorldFlags) start(ctx context.Context, conns int) (_ *betload.World, done func(), err error) {
	if err := f.target.check(); err != nil {
		return nil, nil, err
	}
	dbURL, stop, err := loadSetup(f.cpuProfile, f.dbURL)
	if err != nil {
		return nil, nil, err
	}
	w, err := betload.Start(ctx, betload.Config{DatabaseURL: dbURL, DatabaseName: redactURL(dbURL), Conns: conns,
		Target: betload.Target{URL: f.target.url, AdminToken: f.target.adminToken, WalletListen: f.target.walletListen}})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return w, func() { w.Close(); stop() }, nil
}

// betLoadFlags are the flags the commands that send bets share: the
// world's, and the length, concurrency and rate of each phase.
type betLoadFlags struct {
	betWorldFlags
	phases betload.Phases
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
	fs.DurationVar(&f.phases.Duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&f.phases.Concurrency, "concurrency", 32, "requests in flight")
	fs.Float64Var(&f.phases.Rate, "rate", rate, rateHelp)
}

// start starts the world the flags name, with two connections to the
// server per request in flight; done stops it.
func (f *betLoadFlags) start(ctx context.Context) (_ *betload.World, done func(), err error) {
	return f.betWorldFlags.start(ctx, f.phases.Concurrency*2)
}
