package heuristic_test

import (
	"strings"
	"testing"
)

func TestOnlyRealQuestionsAreAsked(t *testing.T) {
	// questionsSpec mixes real open points (a question, TBD, "To be provided
	// by") with sentences that only look like them to a word match (the noun
	// "todo" of a todo app, a condition "is not specified", a quantified
	// "fast"), seen on a public Todo API spec, KEP-3140 and a TOTP PRD.
	questionsSpec := readSpec(t, "specs/todo-app-delete-endpoint")
	res := generate(t, defaultRequest(questionsSpec, "Todo app"))
	var qs []string
	for _, q := range res.OpenQuestions {
		if !strings.HasPrefix(q.Question, "Left out") && !strings.HasPrefix(q.Question, "Merged into") {
			qs = append(qs, q.Question)
		}
	}
	all := strings.Join(qs, "\n")
	wantHolds(t, "the open questions", all, "archived after 30 days?", "To be provided by Design Team", "Export format")
	for _, q := range qs {
		if !strings.Contains(q, "?") {
			t.Errorf("open question %q asks nothing", q)
		}
		wantLacks(t, "an open question", q, "Delete a todo", "Todo not found", "not specified", "\"Fast\"", "\"todo\"", "\"Todo\"")
	}
}
