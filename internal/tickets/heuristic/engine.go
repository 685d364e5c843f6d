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
// between phases and returns ctx.Err() once ctx is done. The result honours
// req.Options: exactly TicketCount tickets when it is set, otherwise as many
// as the spec needs up to MaxTicketCount.
func (e *Engine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Progress != nil {
		req.Progress(tickets.StageGeneratingTickets) // no prompt: generation starts at once
	}
	opts := normalizeOptions(req.Options)
	doc := parseDocument(req.Spec)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := newBuilder(req, opts, doc)
	b.build()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.fit()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := b.assemble()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
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
