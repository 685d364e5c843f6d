package llm

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// charsPerToken is a conservative estimate of text per token (English
// prose averages about four characters; code and tables fewer).
const charsPerToken = 3

// promptTokens estimates the tokens of a prompt around spec: the spec, the
// system prompt, the options and the schema.
func promptTokens(spec string) int {
	return (len(spec) + len(systemPrompt) + 6_000) / charsPerToken
}

// fits reports whether a spec and its answer fit the model's context.
func (e *Engine) fits(spec string) bool {
	return promptTokens(spec)+e.opts.AnswerTokens <= e.opts.ContextTokens
}

// generateInParts splits the spec at its headings into parts that fit the
// context, generates each part with a share of the ticket budget (shares
// sum to ticket_count when it is set, and never exceed max_ticket_count),
// and merges the parts into one result: ids are renumbered in order and
// every dependency, parent and related id follows. A spec that cannot be
// split small enough, or has more parts than tickets allowed, is refused
// with engine_unavailable; a spec is never truncated.
func (e *Engine) generateInParts(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	budget := (e.opts.ContextTokens-e.opts.AnswerTokens)*charsPerToken - len(systemPrompt) - 6_000
	parts, ok := splitSpec(req.Spec, budget)
	limit := req.Options.MaxTicketCount
	if req.Options.TicketCount > 0 {
		limit = req.Options.TicketCount
	}
	if !ok || len(parts) > limit {
		return nil, &tickets.Error{Code: tickets.CodeEngineUnavailable, Message: fmt.Sprintf(
			"The spec (about %d tokens) is larger than the model's context (%d tokens) and cannot be split into at most %d parts at its headings.",
			promptTokens(req.Spec), e.opts.ContextTokens, limit)}
	}
	shares := shareOut(limit, parts)
	merged := &tickets.Result{SchemaVersion: tickets.ResultSchemaVersion, JobID: req.JobID,
		Source: tickets.Source{Title: truncateRunes(req.Title, 160)}, Tickets: []tickets.Ticket{}, Risks: []tickets.Risk{}, OpenQuestions: []tickets.OpenQuestion{}}
	var summaries []string
	firstLine := 0 // lines of the spec before the part
	for i, part := range parts {
		preq := req
		preq.Spec = part
		preq.Title = fmt.Sprintf("%s (part %d of %d)", req.Title, i+1, len(parts))
		preq.Options.MaxTicketCount = shares[i]
		if req.Options.TicketCount > 0 {
			preq.Options.TicketCount = shares[i]
		}
		res, err := e.generateOne(ctx, preq)
		if err != nil {
			return nil, err
		}
		shiftSource(res, firstLine)
		firstLine += strings.Count(part, "\n")
		appendPart(merged, res)
		summaries = append(summaries, res.Source.Summary)
		merged.Generation = mergeGeneration(merged.Generation, res.Generation)
	}
	merged.Source.Summary = strings.Join(summaries, " ")
	return merged, nil
}

// splitSpec cuts spec at headings (then at blank lines) into parts of at
// most budget characters; false when a paragraph alone is larger. It never
// cuts inside a fenced code block: a "# comment" line or a blank line
// there is code, not a heading or a paragraph break.
func splitSpec(spec string, budget int) ([]string, bool) {
	var blocks []string
	var cur strings.Builder
	fence := ""
	for line := range strings.SplitAfterSeq(spec, "\n") {
		if fence == "" && strings.HasPrefix(line, "#") && cur.Len() > 0 {
			blocks = append(blocks, cur.String())
			cur.Reset()
		}
		fence = nextFence(fence, line)
		cur.WriteString(line)
	}
	blocks = append(blocks, cur.String())
	var small []string
	for _, b := range blocks {
		if len(b) <= budget {
			small = append(small, b)
			continue
		}
		for _, p := range paragraphs(b) {
			if len(p) > budget {
				return nil, false
			}
			small = append(small, p)
		}
	}
	var parts []string
	cur.Reset()
	for _, b := range small {
		if cur.Len()+len(b) > budget && cur.Len() > 0 {
			parts = append(parts, cur.String())
			cur.Reset()
		}
		cur.WriteString(b)
	}
	if strings.TrimSpace(cur.String()) != "" {
		parts = append(parts, cur.String())
	}
	return parts, true
}

// nextFence is the fence open after line, given the one open before it
// ("" for none): a line of three or more backticks or tildes opens a fence,
// and a line of the same character, at least as long, closes it.
func nextFence(open, line string) string {
	t := strings.TrimSpace(line)
	if open == "" {
		for _, c := range []string{"```", "~~~"} {
			if strings.HasPrefix(t, c) {
				return t[:len(t)-len(strings.TrimLeft(t, c[:1]))]
			}
		}
		return ""
	}
	if strings.HasPrefix(t, open) && strings.Trim(t, open[:1]) == "" {
		return ""
	}
	return open
}

// paragraphs cuts b after its blank lines outside fenced code blocks; the
// parts joined are b.
func paragraphs(b string) []string {
	var out []string
	var cur strings.Builder
	fence := ""
	for line := range strings.SplitAfterSeq(b, "\n") {
		fence = nextFence(fence, line)
		cur.WriteString(line)
		if fence == "" && strings.TrimSpace(line) == "" && cur.Len() > len(line) {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// shareOut divides n tickets among parts in proportion to their length
// (largest remainders get the leftovers), each part getting at least one,
// the shares summing to n. It needs n >= len(parts).
func shareOut(n int, parts []string) []int {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	shares := make([]int, len(parts))
	rest := make([]int, len(parts)) // remainders, in units of 1/total
	given := 0
	for i, p := range parts {
		shares[i], rest[i] = n*len(p)/max(1, total), n*len(p)%max(1, total)
		if shares[i] == 0 {
			shares[i], rest[i] = 1, 0
		}
		given += shares[i]
	}
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rest[b] - rest[a] })
	for k := 0; given < n; k = (k + 1) % len(parts) {
		shares[order[k]]++
		given++
	}
	for k := len(parts) - 1; given > n; k = (k - 1 + len(parts)) % len(parts) {
		if shares[order[k]] > 1 {
			shares[order[k]]--
			given--
		}
	}
	return shares
}

// appendPart adds a part's tickets, risks and questions to merged,
// renumbering ids after those already there.
// shiftSource moves the source lines a part's tickets cite by the lines
// of the spec before the part.
func shiftSource(res *tickets.Result, before int) {
	for _, t := range res.Tickets {
		if src, ok := t.Metadata["source"].(map[string]any); ok {
			for _, k := range []string{"first_line", "last_line"} {
				if n, ok := src[k].(int); ok {
					src[k] = n + before
				}
			}
		}
	}
}

func appendPart(merged, part *tickets.Result) {
	offset := len(merged.Tickets)
	rename := func(id string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(id, "SPEC-"))
		if err != nil {
			return id
		}
		return "SPEC-" + strconv.Itoa(n+offset)
	}
	renameAll := func(ids []string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = rename(id)
		}
		return out
	}
	for _, t := range part.Tickets {
		t.ExternalID = rename(t.ExternalID)
		t.Dependencies = renameAll(t.Dependencies)
		if t.ParentExternalID != nil {
			p := rename(*t.ParentExternalID)
			t.ParentExternalID = &p
		}
		merged.Tickets = append(merged.Tickets, t)
	}
	for _, r := range part.Risks {
		r.ID = "RISK-" + strconv.Itoa(len(merged.Risks)+1)
		r.RelatedTicketIDs = renameAll(r.RelatedTicketIDs)
		merged.Risks = append(merged.Risks, r)
	}
	for _, q := range part.OpenQuestions {
		q.ID = "Q-" + strconv.Itoa(len(merged.OpenQuestions)+1)
		q.RelatedTicketIDs = renameAll(q.RelatedTicketIDs)
		merged.OpenQuestions = append(merged.OpenQuestions, q)
	}
}

func mergeGeneration(a, b tickets.Generation) tickets.Generation {
	a.Model, a.FinishReason = b.Model, b.FinishReason
	a.DurationMS += b.DurationMS
	a.PromptTokens = addTokens(a.PromptTokens, b.PromptTokens)
	a.CompletionTokens = addTokens(a.CompletionTokens, b.CompletionTokens)
	return a
}
