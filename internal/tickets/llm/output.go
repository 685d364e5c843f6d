package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// OutputSchema is the JSON Schema the model's answer must follow: the parts
// of tickets.result.v1 a model writes (the service adds schema_version,
// job_id, source.title and generation). It keeps to the subset every
// structured-output implementation accepts (strict OpenAI, Anthropic,
// Ollama, vLLM, llama.cpp): every property required, nullable instead of
// optional, no additional properties, and no length or numeric bounds,
// which are stated in descriptions and enforced by validation instead.
func OutputSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	strs := func(desc string) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
	}
	object := func(props map[string]any) map[string]any {
		required := make([]string, 0, len(props))
		for k := range props {
			required = append(required, k)
		}
		slices.Sort(required)
		return map[string]any{"type": "object", "additionalProperties": false, "required": required, "properties": props}
	}
	severity := map[string]any{"type": "string", "enum": []any{"low", "medium", "high", "critical"}}
	return object(map[string]any{
		"summary": str("One to three sentences on what the spec asks for."),
		"tickets": map[string]any{"type": "array", "description": "1 to 50 tickets.", "items": object(map[string]any{
			"external_id":         str("SPEC-<n>, numbered from 1 in order."),
			"ticket_type":         map[string]any{"type": "string", "enum": []any{"epic", "story", "task", "bug", "spike"}},
			"title":               str("At most 120 characters."),
			"description":         str("What and why; stories start with As a …, I want …, so that …."),
			"acceptance_criteria": strs("1 to 8 testable statements."),
			"labels":              strs("Lowercase kebab-case, at most 40 characters each."),
			"dependencies":        strs("Ids of lower-numbered tickets that must be done first."),
			"story_points":        map[string]any{"type": []any{"integer", "null"}, "description": "1, 2, 3, 5, 8 or 13; null for epics."},
			"priority":            map[string]any{"type": []any{"string", "null"}, "enum": []any{"low", "medium", "high", "critical", nil}},
			"parent_external_id":  map[string]any{"type": []any{"string", "null"}, "description": "Id of the epic this ticket belongs to, or null."},
			"component":           map[string]any{"type": []any{"string", "null"}, "description": "The part of the system or spec section."},
			"source_lines": map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "integer"},
				"description": "[first, last]: the lines of the spec the ticket comes from (the line after BEGIN SPEC is line 1), or null."},
		})},
		"risks": map[string]any{"type": "array", "items": object(map[string]any{
			"id":                 str("RISK-<n>."),
			"description":        str("The risk and where the spec shows it."),
			"severity":           severity,
			"related_ticket_ids": strs("Ids of the tickets it concerns."),
		})},
		"open_questions": map[string]any{"type": "array", "items": object(map[string]any{
			"id":                 str("Q-<n>."),
			"question":           str("What the spec leaves unresolved, as a question."),
			"related_ticket_ids": strs("Ids of the tickets it concerns."),
		})},
	})
}

// modelOutput is the answer's shape (OutputSchema): a ticket is a
// tickets.Ticket whose metadata the model does not write, with the
// component and source lines Interpret makes that metadata of.
type modelOutput struct {
	Summary string `json:"summary"`
	Tickets []struct {
		tickets.Ticket
		// ModelMetadata takes a "metadata" member the model adds beyond
		// the schema, which is not read: it never reaches Ticket.Metadata.
		ModelMetadata json.RawMessage `json:"metadata"`
		Component     *string         `json:"component"`
		SourceLines   []int           `json:"source_lines"`
	} `json:"tickets"`
	Risks         []tickets.Risk         `json:"risks"`
	OpenQuestions []tickets.OpenQuestion `json:"open_questions"`
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// extractJSON removes what models wrap JSON in: <think> blocks of
// reasoning models, markdown fences, prose before and after the object.
func extractJSON(text string) string {
	text = thinkBlock.ReplaceAllString(text, "")
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return strings.TrimSpace(text)
	}
	return text[start : end+1]
}

// Interpret turns an answer into a result for req and returns the
// problems that keep it from being valid (none when it is). It applies only
// repairs that are always safe: it unwraps the JSON, renumbers ticket,
// risk and question ids consistently (every reference follows), and drops
// dependencies and related ids that point at no ticket, recording each
// drop in the ticket's metadata.repairs. A truncated answer is never
// accepted.
func Interpret(a Answer, req tickets.GenerationRequest) (*tickets.Result, []string) {
	var out modelOutput
	if err := json.Unmarshal([]byte(extractJSON(a.Text)), &out); err != nil {
		problems := []string{fmt.Sprintf("the answer is not the JSON object of the schema: %v", err)}
		if a.Truncated {
			problems = append(problems, "the answer was cut off at the token limit")
		}
		return nil, problems
	}
	res := &tickets.Result{
		SchemaVersion: tickets.ResultSchemaVersion,
		JobID:         req.JobID,
		Source:        tickets.Source{Title: truncateRunes(strings.TrimSpace(req.Title), 160), Summary: strings.TrimSpace(out.Summary)},
		Tickets:       make([]tickets.Ticket, len(out.Tickets)),
		Risks:         nonNil(out.Risks),
		OpenQuestions: nonNil(out.OpenQuestions),
		Generation:    tickets.Generation{Model: a.Model},
	}
	for i, t := range out.Tickets {
		meta := map[string]any{}
		if t.Component != nil && *t.Component != "" {
			meta["component"] = *t.Component
		}
		if src, problem := sourceLines(t.SourceLines, req.Spec); src != nil {
			meta["source"] = src
		} else if problem != "" {
			meta["repairs"] = []string{problem}
		}
		tk := t.Ticket
		tk.AcceptanceCriteria, tk.Labels, tk.Dependencies = nonNil(tk.AcceptanceCriteria), nonNil(tk.Labels), nonNil(tk.Dependencies)
		tk.Metadata = meta
		res.Tickets[i] = tk
	}
	repair(res)
	repairSimple(res)
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, []string{err.Error()}
	}
	problems := tickets.ValidateResult(raw, req.JobID, req.Options)
	if a.Truncated {
		problems = append(problems, "the answer was cut off at the token limit")
	}
	return res, problems
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// repair applies the always-safe repairs to res in place.
func repair(res *tickets.Result) {
	// Renumber tickets SPEC-1… in order when their ids are unique; every
	// reference follows the renumbering.
	rename := map[string]string{}
	unique := true
	for i, t := range res.Tickets {
		if _, dup := rename[t.ExternalID]; dup {
			unique = false
			break
		}
		rename[t.ExternalID] = "SPEC-" + strconv.Itoa(i+1)
	}
	if !unique {
		return // ambiguous references: leave it to validation and the repair round
	}
	note := func(t *tickets.Ticket, format string, args ...any) {
		notes, _ := t.Metadata["repairs"].([]string)
		t.Metadata["repairs"] = append(notes, fmt.Sprintf(format, args...))
	}
	for i := range res.Tickets {
		t := &res.Tickets[i]
		if to := rename[t.ExternalID]; to != t.ExternalID {
			note(t, "renumbered from %s to %s", t.ExternalID, to)
			t.ExternalID = to
		}
		deps := t.Dependencies[:0:0]
		for _, d := range t.Dependencies {
			to, ok := rename[d]
			switch {
			case !ok:
				note(t, "dropped dependency %s: no such ticket", d)
			case to == t.ExternalID:
				note(t, "dropped dependency on itself")
			default:
				deps = append(deps, to)
			}
		}
		t.Dependencies = deps
		if t.ParentExternalID != nil {
			if to, ok := rename[*t.ParentExternalID]; ok {
				t.ParentExternalID = &to
			}
		}
	}
	relink := func(ids []string) []string {
		out := []string{}
		for _, id := range ids {
			if to, ok := rename[id]; ok {
				out = append(out, to)
			}
		}
		return out
	}
	for i := range res.Risks {
		res.Risks[i].ID = "RISK-" + strconv.Itoa(i+1)
		res.Risks[i].RelatedTicketIDs = relink(res.Risks[i].RelatedTicketIDs)
	}
	for i := range res.OpenQuestions {
		res.OpenQuestions[i].ID = "Q-" + strconv.Itoa(i+1)
		res.OpenQuestions[i].RelatedTicketIDs = relink(res.OpenQuestions[i].RelatedTicketIDs)
	}
}

// Bounds of a ticket the local repairs restore (see repairSimple).
const (
	maxTitleRunes = 120
	maxCriteria   = 8
)

// pointScale is the estimation scale of stories, tasks, bugs and spikes.
var pointScale = []int{1, 2, 3, 5, 8, 13}

// repairSimple fixes, in place and without a model round, the faults a
// model makes most and whose fix loses nothing: a title longer than 120
// characters is cut at a word (the whole title stays in the description),
// story points off the scale go to the nearest value of 1, 2, 3, 5, 8, 13
// (an epic's impossible points to null), and criteria beyond the eighth
// move to the description under "Further criteria". Each fix is recorded
// in the ticket's metadata.repairs.
func repairSimple(res *tickets.Result) {
	for i := range res.Tickets {
		t := &res.Tickets[i]
		note := func(format string, args ...any) {
			notes, _ := t.Metadata["repairs"].([]string)
			t.Metadata["repairs"] = append(notes, fmt.Sprintf(format, args...))
		}
		t.Title = strings.TrimSpace(t.Title)
		if n := utf8.RuneCountInString(t.Title); n > maxTitleRunes {
			full := t.Title
			t.Title = cutAtWord(full, maxTitleRunes)
			t.Description = strings.TrimSpace(t.Description + "\n\nFull title: " + full)
			note("shortened the title from %d to %d characters", n, utf8.RuneCountInString(t.Title))
		}
		if p := t.StoryPoints; p != nil {
			switch {
			case t.TicketType == tickets.TypeEpic && (*p < 1 || *p > 100):
				t.StoryPoints = nil
				note("dropped the epic's story points %d", *p)
			case t.TicketType != tickets.TypeEpic && !slices.Contains(pointScale, *p):
				to := nearestPoints(*p)
				t.StoryPoints = &to
				note("story points %d set to %d, the nearest value of the scale", *p, to)
			}
		}
		if n := len(t.AcceptanceCriteria); n > maxCriteria {
			rest := t.AcceptanceCriteria[maxCriteria:]
			var kept []string
			for _, c := range rest {
				if c = strings.TrimSpace(c); c != "" {
					kept = append(kept, "- "+c)
				}
			}
			t.AcceptanceCriteria = t.AcceptanceCriteria[:maxCriteria:maxCriteria]
			if len(kept) > 0 {
				t.Description = strings.TrimSpace(t.Description + "\n\nFurther criteria:\n" + strings.Join(kept, "\n"))
			}
			note("moved acceptance criteria 9 to %d to the description", n)
		}
	}
}

// cutAtWord cuts s to at most max runes at a word boundary, without a
// trailing separator.
func cutAtWord(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	cut := string(r[:max])
	if i := strings.LastIndexAny(cut, " \t"); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-.(")
}

// nearestPoints is the value of pointScale nearest p (the smaller on a
// tie); below 1 it is 1, above 13 it is 13.
func nearestPoints(p int) int {
	best := pointScale[0]
	for _, v := range pointScale {
		if abs(v-p) < abs(best-p) {
			best = v
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// sourceLines is metadata.source of a ticket whose model cited lines
// [first, last] of spec: nil, with why, when the lines are not two
// numbers within the spec in order; nil and "" when none were cited.
func sourceLines(lines []int, spec string) (map[string]any, string) {
	if len(lines) == 0 {
		return nil, ""
	}
	n := strings.Count(strings.TrimRight(spec, "\n"), "\n") + 1
	if len(lines) != 2 || lines[0] < 1 || lines[0] > lines[1] || lines[1] > n {
		return nil, fmt.Sprintf("dropped source lines %v: not [first, last] within the spec's %d lines", lines, n)
	}
	return map[string]any{"first_line": lines[0], "last_line": lines[1]}, ""
}
