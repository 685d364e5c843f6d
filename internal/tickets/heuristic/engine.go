// Package heuristic is the offline ticket engine: it reads a markdown or
// plain-text spec and derives ticket drafts, risks and open questions from
// its structure (headings, lists, tables and requirement sentences) with
// deterministic rules. It needs no model and no network, and the same
// request always gives byte-identical output.
package heuristic

import (
	"context"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// ModelName is the generation.model value of results made by this engine.
const ModelName = "heuristic-v1"

// Engine is the heuristic tickets.Engine. Its zero value is ready to use;
// it holds no state between calls and is safe for concurrent use.
type Engine struct{}

// New returns the heuristic engine.
func New() *Engine { return &Engine{} }

// Name returns "heuristic", the engine's configuration name.
func (e *Engine) Name() string { return "heuristic" }

// Generate turns req.Spec into a tickets.result.v1 result. It checks ctx
// inside its loops, every few thousand steps of work, and returns ctx.Err()
// once ctx is done. The result honours req.Options: exactly TicketCount
// tickets when it is set, otherwise as many as the spec needs up to
// MaxTicketCount. Its work grows about linearly with the size of the spec.
func (e *Engine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	res, _, err := generate(ctx, req)
	return res, err
}

// generate is Generate that also returns the steps of work it counted.
func generate(ctx context.Context, req tickets.GenerationRequest) (res *tickets.Result, steps int64, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if req.Progress != nil {
		req.Progress(tickets.StageGeneratingTickets) // no prompt: generation starts at once
	}
	m := newMeter(ctx)
	defer func() {
		steps = m.steps
		if r := recover(); r != nil {
			a, ok := r.(aborted)
			if !ok {
				panic(r)
			}
			res, err = nil, a.err
		}
	}()
	opts := normalizeOptions(req.Options)
	doc := parseDocument(m, req.Spec)
	m.tick(checkEvery) // a look at ctx between phases
	b := newBuilder(m, req, opts, doc)
	b.build()
	m.tick(checkEvery)
	b.fit()
	m.tick(checkEvery)
	res = b.assemble()
	if err := ctx.Err(); err != nil {
		return nil, m.steps, err
	}
	return res, m.steps, nil
}

// normalizeOptions fills defaults and clamps options into their ranges.
func normalizeOptions(o tickets.Options) tickets.Options {
	if o.MaxTicketCount <= 0 {
		o.MaxTicketCount = tickets.DefaultMaxTicketCount
	}
	o.MaxTicketCount = min(o.MaxTicketCount, tickets.MaxTickets)
	if o.TicketCount < 0 {
		o.TicketCount = 0
	}
	o.TicketCount = min(o.TicketCount, tickets.MaxTickets)
	switch o.OutputDetail {
	case tickets.DetailCompact, tickets.DetailStandard, tickets.DetailDetailed:
	default:
		o.OutputDetail = tickets.DetailStandard
	}
	if strings.TrimSpace(o.DependencyMode) == "" {
		o.DependencyMode = tickets.DependencyExplicit
	}
	return o
}
