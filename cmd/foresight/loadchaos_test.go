package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// runMainEnv makes this test binary run its command line as the foresight
// binary would, instead of the tests: `foresight loadtest chaos` re-executes
// its own binary as `foresight serve` for each node.
const runMainEnv = "FORESIGHT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m))
}

// TestLoadtestChaos runs a small chaos run on SQLite and on two PostgreSQL
// nodes, on both integration paths: bets under wallet faults, nodes killed
// during placement and settlement, and every bet reconciled against the
// sandbox ledgers with no discrepancy. The pending limit is left out (the
// machine may be loaded); the waits for the platform are bounded.
func TestLoadtestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the platform as child processes and kills them")
	}
	postgres := func(t *testing.T) []string { return []string{"--database-url", pgtest.NewDatabase(t), "--nodes", "2"} }
	for _, tc := range []struct {
		name, path string
		args       func(t *testing.T) []string
		want       []string
	}{
		{"sqlite", "both", func(t *testing.T) []string { return nil }, nil},
		{"postgres", "both", postgres, nil},
		// The bundled path: the cashier's deposits and withdrawals run
		// with the bets, and the ledger's Verify must pass after the kills.
		{"sqlite-bundled", "bundled", func(t *testing.T) []string { return nil }, []string{"ledger verify                      ok"}},
		{"postgres-bundled", "bundled", postgres, []string{"ledger verify                      ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(runMainEnv, "1")
			args := append([]string{"loadtest", "chaos", "--path", tc.path, "--rate", "10", "--duration", "6s", "--bettors", "10",
				"--faults", "0.2", "--kills", "2", "--settlement-kills", "2", "--pending-limit", "1h", "--final-limit", "90s",
				"--dir", t.TempDir()}, tc.args(t)...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			err := run(ctx, args, os.Getenv, &stdout, &stderr)
			t.Logf("report:\n%s", stdout.String())
			if err != nil {
				t.Fatalf("%v\nprogress:\n%s", err, stderr.String())
			}
			for _, want := range append([]string{"discrepancies                      0", "placement 2", "PASSED"}, tc.want...) {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the report lacks %q", want)
				}
			}
		})
	}
}
