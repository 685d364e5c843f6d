package feed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
)

// DefaultInterval is the time between two polls of a Runner.
const DefaultInterval = 15 * time.Second

// Runner polls a Source and syncs what it reports into a Catalog. It keeps
// the set of tracked events (fed events with a market not yet resolved or
// cancelled) and passes it to every Poll, so the source keeps reporting an
// event until its markets are final. Create it with NewRunner.
type Runner struct {
	source   Source
	catalog  Catalog
	interval time.Duration
	log      *slog.Logger

	tracked map[string]bool // keys; nil until loaded from the catalog
}

// NewRunner returns a Runner that polls source every interval
// (DefaultInterval when zero) and logs to log (nothing when nil).
func NewRunner(source Source, catalog Catalog, interval time.Duration, log *slog.Logger) *Runner {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{source: source, catalog: catalog, interval: interval, log: log}
}

// Run polls at once, then every interval, until ctx is done; a failed round
// is logged and the next one runs on schedule. It returns ctx's error.
func (r *Runner) Run(ctx context.Context) error {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		ch, err := r.Step(ctx)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			r.log.Warn("market feed round failed", "feed", r.source.Name(), "err", err)
		case ch != Changes{}:
			r.log.Info("market feed round", "feed", r.source.Name(), "imported", ch.Imported, "priced", ch.Priced,
				"suspended", ch.Suspended, "opened", ch.Opened, "resolved", ch.Resolved, "cancelled", ch.Cancelled)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Step runs one round: it polls the source with the tracked events and
// syncs every event of the answer. Events that Sync could not apply in
// full are reported in the joined error; the others are applied.
func (r *Runner) Step(ctx context.Context) (Changes, error) {
	var total Changes
	if r.tracked == nil {
		tracked, err := r.load(ctx)
		if err != nil {
			return total, err
		}
		r.tracked = tracked
	}
	events, err := r.source.Poll(ctx, r.Tracked())
	if err != nil {
		return total, fmt.Errorf("feed: poll %s: %w", r.source.Name(), err)
	}
	var errs []error
	for _, ev := range events {
		stored, ch, err := Sync(ctx, r.catalog, r.source.Name(), ev)
		total.add(ch)
		if err != nil {
			errs = append(errs, err)
		}
		switch {
		case stored.ID == "":
		case live(stored):
			r.tracked[ev.Key] = true
		default:
			delete(r.tracked, ev.Key)
		}
	}
	return total, errors.Join(errs...)
}

// Tracked returns the keys of the tracked events, sorted.
func (r *Runner) Tracked() []string {
	return slices.Sorted(maps.Keys(r.tracked))
}

// load reads the catalog's live events of the source.
func (r *Runner) load(ctx context.Context) (map[string]bool, error) {
	tracked := map[string]bool{}
	f := betting.EventFilter{Limit: 200}
	for {
		page, err := r.catalog.ListEvents(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("feed: list the catalog's events: %w", err)
		}
		for _, e := range page {
			if e.Source == r.source.Name() && live(e) {
				tracked[e.SourceKey] = true
			}
		}
		if len(page) < f.Limit {
			return tracked, nil
		}
		last := page[len(page)-1]
		f.BeforeCreatedAt, f.BeforeID = last.CreatedAt, last.ID
	}
}

// live reports whether e has a market that is not resolved or cancelled.
func live(e betting.Event) bool {
	return slices.ContainsFunc(e.Markets, func(m betting.Market) bool { return !final(m.Status) })
}
