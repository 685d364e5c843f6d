package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest/chaos"
)

// errChaosFailed is returned when a chaos run found discrepancies or bets
// pending too long after a restart; the report says which.
var errChaosFailed = errors.New("the chaos run failed")

// runLoadtestChaos runs the platform as child processes of this binary
// (`foresight serve`) under bet load, kills them at random moments during
// placement and settlement, injects wallet faults, and reconciles every
// bet against the sandbox wallets' ledgers.
func runLoadtestChaos(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest chaos", stderr)
	cfg := chaos.Config{}
	var keep string
	fs.StringVar(&cfg.DatabaseURL, "database-url", "", "PostgreSQL database of the nodes, postgres://… (default: a new SQLite file, one node)")
	fs.IntVar(&cfg.Nodes, "nodes", 2, "nodes on PostgreSQL (SQLite runs one)")
	fs.StringVar(&cfg.Path, "path", chaos.PathStandalone, "integration path: standalone (sandbox operator), aggregator (sandbox casino), both, or bundled (balances in the platform's ledger; with concurrent cashier deposits and withdrawals, and the ledger's Verify)")
	fs.Float64Var(&cfg.Rate, "rate", 100, "bets per second")
	fs.DurationVar(&cfg.Duration, "duration", time.Minute, "length of the placement phase")
	fs.IntVar(&cfg.Bettors, "bettors", 200, "bettors of each path")
	fs.Float64Var(&cfg.FaultRatio, "faults", 0.1, "share of wallet requests that get a fault (time-out, slow answer, 5xx, lost answer, malformed answer, rejection, retry refused afresh; no round_id on the aggregator path)")
	fs.IntVar(&cfg.Kills, "kills", 10, "kill -9 of a random node during placement")
	fs.IntVar(&cfg.SettlementKills, "settlement-kills", 5, "kill -9 of a random node after the resolution, while payouts remain")
	fs.DurationVar(&cfg.MaxRestartDelay, "max-restart-delay", time.Second, "longest wait between a kill and the restart (at least 100ms)")
	fs.DurationVar(&cfg.PendingLimit, "pending-limit", 10*time.Second, "longest a bet may stay pending after a restart (on several nodes, after any node's restart while it was pending: an upper bound)")
	fs.DurationVar(&cfg.FinalLimit, "final-limit", 10*time.Minute, "longest wait for every bet to be final, and for every payout")
	fs.StringVar(&keep, "dir", "", "keep the run's files (node logs, sandbox journals, SQLite database) in this directory (default: a temporary one, removed after a passing run)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if cfg.DatabaseURL == "" && !isFlagSet(fs, "nodes") {
		cfg.Nodes = 1
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.Serve = []string{exe, "serve"}
	cfg.Dir = keep
	if keep == "" {
		if cfg.Dir, err = os.MkdirTemp("", "foresight-chaos-"); err != nil {
			return err
		}
	}
	cfg.Progress = stderr
	report, err := chaos.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%w (the run's files are in %s)", err, cfg.Dir)
	}
	if cfg.DatabaseURL != "" {
		report.Database = strings.Replace(report.Database, "PostgreSQL", "PostgreSQL ("+redactURL(cfg.DatabaseURL)+")", 1)
	}
	report.Write(stdout)
	if len(report.Failures()) > 0 {
		return errChaosFailed
	}
	if keep == "" {
		os.RemoveAll(cfg.Dir)
	}
	return nil
}
