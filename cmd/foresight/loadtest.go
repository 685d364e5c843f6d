package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/loadtest/jobload"
)

const loadtestUsage = `Usage:
  foresight loadtest [flags]      measure job submission over HTTP beside a bare handler
  foresight loadtest bets         measure bet placement against the sandbox operator's wallet
  foresight loadtest stream       measure how fast a price change reaches many odds streams
  foresight loadtest aggregator   measure the launcher, round details and aggregator bets against the sandbox casino
  foresight loadtest chaos        kill -9 the platform's nodes under bet load and wallet faults, then reconcile every bet

Run "foresight loadtest [<load>] -h" for the flags.
`

// runLoadtests runs the load args[0] names through dispatch; with no
// name, or flags first, it is the job submission load (runLoadtest).
func runLoadtests(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return runLoadtest(ctx, args, getenv, stdout, stderr)
	}
	return dispatch(args, loadtestUsage, "load", stdout, stderr, map[string]command{
		"bets":       func(args []string) error { return runLoadtestBets(ctx, args, stdout, stderr) },
		"stream":     func(args []string) error { return runLoadtestStream(ctx, args, stdout, stderr) },
		"aggregator": func(args []string) error { return runLoadtestAggregator(ctx, args, stdout, stderr) },
		"chaos":      func(args []string) error { return runLoadtestChaos(ctx, args, stdout, stderr) },
	})
}

// runLoadtest measures job submission over real HTTP on loopback against
// an in-process server, or against a server in another process or node
// (--target), beside a bare net/http handler in the generator's process
// measured in the same run.
func runLoadtest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest", stderr)
	var (
		o          jobload.Options
		cpuProfile string
		target     loadTarget
	)
	fs.StringVar(&o.DatabaseURL, "database-url", "", "database (default: a new SQLite file in a temporary directory)")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&o.Concurrency, "concurrency", 32, "requests in flight")
	fs.Float64Var(&o.Rate, "rate", 1000, "rate of the fixed-rate phase, per second")
	fs.IntVar(&o.Clients, "clients", 1000, "ticket clients the submissions are spread over (each may have 100 unfinished jobs)")
	fs.BoolVar(&o.Workers, "workers", false, "run the generation workers during the load")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.StringVar(&target.url, "target", "", "base URL of a running foresight server to load instead of one in this process "+
		"(it runs its generation workers; start it with FORESIGHT_TICKETS_RATE_LIMIT=0)")
	fs.StringVar(&target.adminToken, "admin-token", "", "the target's admin token (with --target): the run creates its ticket clients and keys through the admin API")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := target.check(); err != nil {
		return err
	}
	if target.url != "" && o.DatabaseURL != "" {
		return errors.New("--database-url names the database of a server in this process: not with --target")
	}
	dbURL, done, err := loadSetup(cpuProfile, o.DatabaseURL)
	if err != nil {
		return err
	}
	defer done()
	o.DatabaseURL, o.DatabaseName = dbURL, redactURL(dbURL)
	o.TargetURL, o.AdminToken = target.url, target.adminToken
	return jobload.Run(ctx, o, stdout, stderr)
}

// loadSetup prepares a load test: it starts profiling the CPU into
// cpuProfile when it is set, and returns dbURL, or without one a new SQLite
// file in a temporary directory. done stops the profile and removes the
// directory.
func loadSetup(cpuProfile, dbURL string) (url string, done func(), err error) {
	var undo []func()
	done = func() {
		for _, f := range slices.Backward(undo) {
			f()
		}
	}
	if cpuProfile != "" {
		stop, err := loadtest.StartCPUProfile(cpuProfile)
		if err != nil {
			return "", nil, err
		}
		undo = append(undo, stop)
	}
	if dbURL == "" {
		dir, err := os.MkdirTemp("", "foresight-load-")
		if err != nil {
			done()
			return "", nil, err
		}
		undo = append(undo, func() { os.RemoveAll(dir) })
		dbURL = "sqlite:" + filepath.Join(dir, "load.db")
	}
	return dbURL, done, nil
}
