// Package llm is the provider-neutral part of the LLM ticket engines: the
// prompt built from the spec and every option, the JSON Schema the model
// must follow, the parsing and the always-safe repairs of its answer,
// validation with the service's own rules, and one repair round-trip that
// shows the model its exact validation errors. Provider adapters (openai,
// anthropic) implement Model.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/quality"
)

// Role of a message in a conversation.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string
	Content string
}

// Conversation is what a Model answers: a system prompt, the turns so far,
// and the JSON Schema the answer must follow.
type Conversation struct {
	System     string
	Messages   []Message
	SchemaName string
	Schema     map[string]any
}

// Answer is a model's reply.
type Answer struct {
	Text string
	// Model is the model that answered, as the provider names it.
	Model string
	// FinishReason is the provider's reason ("stop", "length",
	// "end_turn", "max_tokens", …); Truncated is true when it means the
	// token limit cut the answer off.
	FinishReason     string
	Truncated        bool
	PromptTokens     *int64
	CompletionTokens *int64
}

// Model is a chat model behind a provider's API.
//
// Complete returns the model's answer. Errors: a *tickets.Error with
// engine_unavailable for a provider that cannot be reached, refuses the
// key, fails (after the SDK's own retries) or answers beyond ResponseLimit;
// the context's error when ctx ends. A Model never puts its API key in an
// error.
type Model interface {
	Complete(ctx context.Context, c Conversation) (Answer, error)
}

// Engine generates tickets with a Model. It implements tickets.Engine.
type Engine struct {
	name  string
	model Model
	opts  Options
}

// Options tune an Engine.
type Options struct {
	// Timeout bounds one model call (model_timeout beyond).
	Timeout time.Duration
	// ContextTokens is the model's context window; 0 means 128,000.
	ContextTokens int
	// AnswerTokens is the room kept for the answer; 0 means
	// DefaultAnswerTokens.
	AnswerTokens int
}

// DefaultAnswerTokens is the longest answer, in tokens, that the engine
// keeps room for and the adapters ask for when no limit is configured.
const DefaultAnswerTokens = 16_000

// NewEngine returns an engine named name ("openai", "anthropic") that
// asks model.
func NewEngine(name string, model Model, opts Options) *Engine {
	if opts.ContextTokens == 0 {
		opts.ContextTokens = 128_000
	}
	if opts.AnswerTokens == 0 {
		opts.AnswerTokens = DefaultAnswerTokens
	}
	return &Engine{name: name, model: model, opts: opts}
}

// Name is the engine's configuration name.
func (e *Engine) Name() string { return e.name }

// Generate asks the model for tickets, repairs what is always safe to
// repair, validates the result, and when it is invalid asks once more with
// the validation errors; a second invalid answer, or a truncated one, is
// model_output_invalid. A spec too large for the model's context is split
// by its sections, each part generated alone, and the parts merged into one
// result (see generateInParts).
func (e *Engine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	if e.fits(req.Spec) {
		return e.generateOne(ctx, req)
	}
	return e.generateInParts(ctx, req)
}

// generateOne generates the tickets of req with one conversation.
func (e *Engine) generateOne(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	progress := req.Progress
	if progress == nil {
		progress = func(tickets.Stage) {}
	}
	conv := Conversation{System: systemPrompt, Messages: []Message{{Role: RoleUser, Content: userPrompt(req)}},
		SchemaName: "tickets_result", Schema: OutputSchema()}
	var usage usageTotals
	start := time.Now()
	var problems []string
	for round := 0; round < 2; round++ {
		progress(tickets.StageGeneratingTickets)
		ans, err := e.complete(ctx, conv)
		if err != nil {
			return nil, err
		}
		usage.add(ans)
		progress(tickets.StageValidatingOutput)
		var res *tickets.Result
		res, problems = Interpret(ans, req)
		if len(problems) == 0 {
			res.Generation = usage.generation(ans, time.Since(start))
			setConfidence(res, req.Spec)
			return res, nil
		}
		conv.Messages = append(conv.Messages,
			Message{Role: RoleAssistant, Content: ans.Text},
			Message{Role: RoleUser, Content: repairPrompt(problems, ans.Truncated)})
	}
	return nil, &tickets.Error{Code: tickets.CodeModelOutputInvalid,
		Message: "The model's answer was not a valid result after one repair round: " + strings.Join(first(problems, 5), "; ")}
}

// complete runs one model call within the engine's time limit.
func (e *Engine) complete(ctx context.Context, c Conversation) (Answer, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, e.opts.Timeout, errModelTimeout)
	defer cancel()
	ans, err := e.model.Complete(cctx, c)
	if err != nil && errors.Is(context.Cause(cctx), errModelTimeout) && ctx.Err() == nil {
		return Answer{}, &tickets.Error{Code: tickets.CodeModelTimeout,
			Message: fmt.Sprintf("The model did not answer within %v.", e.opts.Timeout), Err: err}
	}
	if err != nil && ctx.Err() != nil {
		return Answer{}, ctx.Err()
	}
	return ans, err
}

var errModelTimeout = errors.New("model call timed out")

type usageTotals struct {
	prompt, completion *int64
}

func (u *usageTotals) add(a Answer) {
	u.prompt = addTokens(u.prompt, a.PromptTokens)
	u.completion = addTokens(u.completion, a.CompletionTokens)
}

func addTokens(total, n *int64) *int64 {
	if n == nil {
		return total
	}
	if total == nil {
		v := *n
		return &v
	}
	v := *total + *n
	return &v
}

func (u *usageTotals) generation(last Answer, d time.Duration) tickets.Generation {
	var finish *string
	if last.FinishReason != "" {
		f := last.FinishReason
		finish = &f
	}
	return tickets.Generation{Model: last.Model, DurationMS: max(1, d.Milliseconds()),
		PromptTokens: u.prompt, CompletionTokens: u.completion, FinishReason: finish}
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// setConfidence sets each ticket's metadata.confidence to its quality
// score (two decimals).
func setConfidence(res *tickets.Result, spec string) {
	raw, err := json.Marshal(res)
	if err != nil {
		return
	}
	rep, err := quality.Score(raw, spec)
	if err != nil {
		return
	}
	for i, t := range res.Tickets {
		if s, ok := rep.Tickets[t.ExternalID]; ok {
			res.Tickets[i].Metadata["confidence"] = tickets.RoundConfidence(s)
		}
	}
}
