package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/anthropic"
	"github.com/foresight-dev/foresight/internal/tickets/anthropic/anthropictest"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/tickets/llm"
)

const jobID = "00000000-0000-4000-8000-000000000002"

var opts = tickets.Options{MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}

func request() tickets.GenerationRequest {
	return tickets.GenerationRequest{JobID: jobID, Title: "Calendar", Options: opts,
		Spec: "# Calendar\n## Shifts\n- Users must create shifts.\n- Shifts should export to iCal.\n- Who edits other teams' shifts? TBD."}
}

// modelAnswer is a valid answer in the model's schema, drafted by the
// heuristic engine.
func modelAnswer(t *testing.T) string {
	t.Helper()
	r, err := heuristic.New().Generate(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"summary": r.Source.Summary, "tickets": r.Tickets, "risks": r.Risks, "open_questions": r.OpenQuestions})
	return string(b)
}

func engine(t *testing.T, srv *anthropictest.Server, timeout time.Duration, retries int) *llm.Engine {
	t.Helper()
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.BaseURL(), APIKey: "sk-ant-SECRET", Model: "claude-test", MaxRetries: retries})
	if err != nil {
		t.Fatal(err)
	}
	return llm.NewEngine("anthropic", m, llm.Options{Timeout: timeout})
}

func TestValidAnswer(t *testing.T) {
	t.Parallel()
	srv := anthropictest.New(t, anthropictest.Reply{Text: modelAnswer(t)})
	res, err := engine(t, srv, 5*time.Second, 0).Generate(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	if problems := tickets.ValidateResult(raw, jobID, opts); len(problems) > 0 {
		t.Fatalf("invalid: %v", problems)
	}
	g := res.Generation
	if g.Model != "claude-test" || *g.PromptTokens != 900 || *g.CompletionTokens != 700 || *g.FinishReason != "end_turn" {
		t.Errorf("generation = %+v", g)
	}
	sent := srv.Requests()[0]
	oc, _ := sent["output_config"].(map[string]any)
	format, _ := oc["format"].(map[string]any)
	if format["type"] != "json_schema" || format["schema"] == nil || sent["_api_key"] != "sk-ant-SECRET" || sent["system"] == nil {
		t.Errorf("request = %v", sent)
	}
}

func TestRepairRoundAndTruncation(t *testing.T) {
	t.Parallel()
	srv := anthropictest.New(t, anthropictest.Reply{Text: "Here you go: {\"summary\": "}, anthropictest.Reply{Text: modelAnswer(t)})
	if _, err := engine(t, srv, 5*time.Second, 0).Generate(context.Background(), request()); err != nil {
		t.Fatalf("after one repair round: %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	cut := anthropictest.New(t, anthropictest.Reply{Text: modelAnswer(t), StopReason: "max_tokens"})
	_, err := engine(t, cut, 5*time.Second, 0).Generate(context.Background(), request())
	if tickets.ErrorCode(err) != tickets.CodeModelOutputInvalid || !strings.Contains(tickets.ErrorMessage(err), "cut off") {
		t.Errorf("truncated twice: %v", err)
	}

	refused := anthropictest.New(t, anthropictest.Reply{StopReason: "refusal"})
	_, err = engine(t, refused, 5*time.Second, 0).Generate(context.Background(), request())
	if tickets.ErrorCode(err) != tickets.CodeModelOutputInvalid || !strings.Contains(tickets.ErrorMessage(err), "refused") {
		t.Errorf("refusal: %v", err)
	}
}

func TestProviderFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		reply   anthropictest.Reply
		timeout time.Duration
		retries int
		code    tickets.Code
	}{
		{"slow", anthropictest.Reply{Text: "{}", Delay: 5 * time.Second}, 300 * time.Millisecond, 0, tickets.CodeModelTimeout},
		{"500 after retries", anthropictest.Reply{Status: 500}, 30 * time.Second, 1, tickets.CodeEngineUnavailable},
		{"401", anthropictest.Reply{Status: 401}, 30 * time.Second, 1, tickets.CodeEngineUnavailable},
	} {
		srv := anthropictest.New(t, tt.reply)
		_, err := engine(t, srv, tt.timeout, tt.retries).Generate(context.Background(), request())
		if tickets.ErrorCode(err) != tt.code || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: err = %v, want %s without the key", tt.name, err, tt.code)
		}
	}
	srv := anthropictest.New(t, anthropictest.Reply{Text: "{}", Delay: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := engine(t, srv, time.Minute, 0).Generate(ctx, request()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
}

// TestOversizedAnswerFails: an answer far beyond the response limit (a
// valid answer followed by spaces, which leave it valid JSON), or an error
// answer as large, fails the call with engine_unavailable instead of being
// read whole, and the client stops reading near the limit.
func TestOversizedAnswerFails(t *testing.T) {
	t.Parallel()
	const padding = 256 << 20 // 32 times the limit for the default 16,000 answer tokens
	for _, reply := range []anthropictest.Reply{{Text: modelAnswer(t), Padding: padding}, {Status: 500, Padding: padding}} {
		srv := anthropictest.New(t, reply)
		_, err := engine(t, srv, 30*time.Second, 0).Generate(context.Background(), request())
		if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable || !strings.Contains(tickets.ErrorMessage(err), "larger than") {
			t.Errorf("status %d: err = %v (%q), want engine_unavailable about the answer's size", reply.Status, err, tickets.ErrorMessage(err))
		}
		if n := srv.PaddingWritten(); n > padding/4 {
			t.Errorf("status %d: %d MiB of the answer were read, want the reading to stop near the limit", reply.Status, n>>20)
		}
	}
}
