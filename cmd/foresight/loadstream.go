package main

import (
	"context"
	"io"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest/streamload"
)

// runLoadtestStream measures the odds stream: it connects many bettors to
// GET /api/v1/odds/stream of an in-process server (or of --target), changes a market's
// prices through the admin API at an interval, and reports how long each
// change took to reach each stream, from the moment the admin request was
// sent to the moment the stream delivered the change's line. With --http2
// the streams share HTTP/2 connections without TLS, as behind a proxy
// that speaks HTTP/2 to the node; the report counts the connections.
func runLoadtestStream(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest stream", stderr)
	var (
		world betWorldFlags
		o     streamload.Options
	)
	world.register(fs)
	fs.IntVar(&o.Streams, "streams", 5000, "connected streams")
	fs.IntVar(&o.Changes, "changes", 20, "price changes")
	fs.DurationVar(&o.Interval, "interval", 500*time.Millisecond, "time between price changes")
	fs.BoolVar(&o.HTTP2, "http2", false, "open the streams over HTTP/2 without TLS (prior knowledge), many on a connection, instead of one HTTP/1.1 connection each")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	w, done, err := world.start(ctx, 8)
	if err != nil {
		return err
	}
	defer done()
	return streamload.Run(ctx, w, o, stdout)
}
