package betload

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/server/servertest"
)

// startWorld starts a World with its server in this process on a SQLite
// file of the test's own.
func startWorld(t *testing.T) *World {
	t.Helper()
	url := "sqlite:" + filepath.Join(t.TempDir(), "load.db")
	w, err := Start(context.Background(), Config{DatabaseURL: url, DatabaseName: url, Target: Target{WalletListen: "127.0.0.1:0"}, Conns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// TestRunInProcess runs each load, briefly, against a server in this
// process: the paths a run against a target skips (the paused backlog)
// and the standalone settlement.
func TestRunInProcess(t *testing.T) {
	t.Parallel()
	phases := Phases{Duration: 200 * time.Millisecond, Concurrency: 4, Rate: 20}
	tests := []struct {
		name string
		run  func(w *World, report *bytes.Buffer) error
		want []string
	}{
		{"bets", func(w *World, report *bytes.Buffer) error {
			return RunBets(context.Background(), w, BetsOptions{Phases: phases, Bettors: 5, Backlog: true, Settle: true}, report)
		}, []string{"database sqlite:", "5 bettors, sandbox wallet at http://127.0.0.1:", "POST /api/v1/bettor/bets, 20/s",
			"placement to CONFIRMED", "placement of a paused backlog", "pending bets decided", "resolve to every deposit delivered"}},
		{"aggregator", func(w *World, report *bytes.Buffer) error {
			return RunAggregator(context.Background(), w, AggregatorOptions{Phases: phases, Players: 3}, report)
		}, []string{"3 players, sandbox casino wallet at", "Launcher/Real, 20/s", "Round/Details, 20/s", "bets to round pending", "placement of a paused backlog"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var report bytes.Buffer
			if err := tc.run(startWorld(t), &report); err != nil {
				t.Fatalf("%v\n%s", err, report.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(report.String(), want) {
					t.Errorf("report\n%s\nwithout %q", report.String(), want)
				}
			}
		})
	}
}

// TestRunAgainstALimitedTarget: a target that limits each bettor's rate
// refuses most of the load's bets; the run fails saying how to run the
// target instead of timing the refusals.
func TestRunAgainstALimitedTarget(t *testing.T) {
	t.Parallel()
	const token = "betload-target-admin-token-0123456789"
	cfg, l := servertest.Loopback(t, "target.db", token)
	cfg.BetRateLimit, cfg.BetRateBurst = 1, 1
	servertest.Run(t, cfg, l)
	w, err := Start(context.Background(), Config{Target: Target{URL: cfg.PublicURL, AdminToken: token, WalletListen: "127.0.0.1:0"}, Conns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	var report bytes.Buffer
	err = RunBets(context.Background(), w, BetsOptions{Phases: Phases{Duration: 200 * time.Millisecond, Concurrency: 4, Rate: 50}, Bettors: 2}, &report)
	if err == nil || !strings.Contains(err.Error(), "FORESIGHT_BET_RATE_LIMIT=0") {
		t.Errorf("a run against a limited target: %v, want the refusals named\n%s", err, report.String())
	}
}
