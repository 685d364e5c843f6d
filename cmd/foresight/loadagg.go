package main

import (
	"context"
	"io"

	"github.com/foresight-dev/foresight/internal/loadtest/betload"
)

// runLoadtestAggregator measures the aggregator path over HTTP against an
// in-process server whose aggregator's wallet is the sandbox casino on
// loopback: Launcher/Real and Round/Details at a fixed rate (the launcher's
// rate limit off), then aggregator bets as fast as possible until every
// round is open, then a backlog placed with placement paused.
func runLoadtestAggregator(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest aggregator", stderr)
	var (
		f betLoadFlags
		o betload.AggregatorOptions
	)
	f.register(fs, 200, "rate of the Launcher/Real and Round/Details phases, per second")
	fs.IntVar(&o.Players, "players", 200, "players the bets are spread over")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.Phases = f.phases
	w, done, err := f.start(ctx)
	if err != nil {
		return err
	}
	defer done()
	return betload.RunAggregator(ctx, w, o, stdout)
}
