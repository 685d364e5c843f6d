package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/llm"
	"github.com/foresight-dev/foresight/internal/tickets/openai"
	"github.com/foresight-dev/foresight/internal/tickets/openai/openaitest"
)

const jobID = "00000000-0000-4000-8000-000000000001"

// answer is a model answer in OutputSchema's shape with three tickets.
func answer(mutate func(m map[string]any)) string {
	ticket := func(id, typ, title string, parent any, deps ...string) map[string]any {
		points := any(3)
		if typ == "epic" {
			points = nil
		}
		return map[string]any{"external_id": id, "ticket_type": typ, "title": title, "description": "As a user, I want it, so that it works.",
			"acceptance_criteria": []string{"The endpoint answers 200 with the job."}, "labels": []string{"api"},
			"dependencies": append([]string{}, deps...), "story_points": points, "priority": "high",
			"parent_external_id": parent, "component": "Jobs"}
	}
	m := map[string]any{
		"summary": "Submit and poll jobs.",
		"tickets": []any{ticket("SPEC-1", "epic", "Job API", nil), ticket("SPEC-2", "task", "Implement POST /jobs", "SPEC-1"),
			ticket("SPEC-3", "task", "Implement GET /jobs/{id}", "SPEC-1", "SPEC-2")},
		"risks":          []any{map[string]any{"id": "RISK-1", "description": "Load.", "severity": "medium", "related_ticket_ids": []string{"SPEC-2"}}},
		"open_questions": []any{map[string]any{"id": "Q-1", "question": "How long are jobs kept?", "related_ticket_ids": []string{"SPEC-3"}}},
	}
	if mutate != nil {
		mutate(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func request(opts tickets.Options) tickets.GenerationRequest {
	if opts.MaxTicketCount == 0 {
		opts = tickets.Options{MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}
	}
	return tickets.GenerationRequest{JobID: jobID, Title: "Jobs", Spec: "# Jobs\n- Clients must submit jobs.", Options: opts}
}

func engine(t *testing.T, srv *openaitest.Server, timeout time.Duration, retries int) *llm.Engine {
	t.Helper()
	m, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test-SECRET", Model: "gpt-test", MaxRetries: retries})
	if err != nil {
		t.Fatal(err)
	}
	return llm.NewEngine("openai", m, llm.Options{Timeout: timeout})
}

func validate(t *testing.T, res *tickets.Result, opts tickets.Options) {
	t.Helper()
	raw, _ := json.Marshal(res)
	if problems := tickets.ValidateResult(raw, jobID, opts); len(problems) > 0 {
		t.Fatalf("result is invalid: %v", problems)
	}
}

func TestValidAnswer(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.Reply{Content: answer(nil)})
	var stages []tickets.Stage
	req := request(tickets.Options{})
	req.Progress = func(s tickets.Stage) { stages = append(stages, s) }
	res, err := engine(t, srv, 5*time.Second, 0).Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, res, req.Options)
	for _, tk := range res.Tickets {
		if c, ok := tk.Metadata["confidence"].(float64); !ok || c < 0 || c > 1 {
			t.Errorf("%s: metadata.confidence = %v, want the quality score", tk.ExternalID, tk.Metadata["confidence"])
		}
	}
	g := res.Generation
	if g.Model != "gpt-test" || g.PromptTokens == nil || *g.PromptTokens != 1200 || *g.CompletionTokens != 800 || g.FinishReason == nil || *g.FinishReason != "stop" || g.DurationMS < 1 {
		t.Errorf("generation = %+v", g)
	}
	if len(stages) != 2 || stages[0] != tickets.StageGeneratingTickets || stages[1] != tickets.StageValidatingOutput {
		t.Errorf("stages = %v", stages)
	}
	sent := srv.Requests()[0]
	rf, _ := sent["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["strict"] != true || js["schema"] == nil || sent["temperature"] != 0.0 || sent["_authorization"] != "Bearer sk-test-SECRET" {
		t.Errorf("request = %v", sent)
	}
	msgs, _ := sent["messages"].([]any)
	if len(msgs) != 2 || !strings.Contains(msgs[1].(map[string]any)["content"].(string), "Clients must submit jobs") {
		t.Errorf("messages = %v", msgs)
	}
}

func TestSafeRepairs(t *testing.T) {
	t.Parallel()
	content := "<think>plan first</think>\n```json\n" + answer(func(m map[string]any) {
		ts := m["tickets"].([]any)
		ts[0].(map[string]any)["external_id"] = "T-10"
		ts[1].(map[string]any)["external_id"] = "T-11"
		ts[1].(map[string]any)["parent_external_id"] = "T-10"
		ts[2].(map[string]any)["external_id"] = "T-12"
		ts[2].(map[string]any)["parent_external_id"] = "T-10"
		ts[2].(map[string]any)["dependencies"] = []string{"T-11", "T-99"}
		m["risks"].([]any)[0].(map[string]any)["related_ticket_ids"] = []string{"T-11"}
		m["open_questions"].([]any)[0].(map[string]any)["related_ticket_ids"] = []string{"T-12"}
	}) + "\n```"
	srv := openaitest.New(t, openaitest.Reply{Content: content})
	res, err := engine(t, srv, 5*time.Second, 0).Generate(context.Background(), request(tickets.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, res, request(tickets.Options{}).Options)
	last := res.Tickets[2]
	if last.ExternalID != "SPEC-3" || *last.ParentExternalID != "SPEC-1" || len(last.Dependencies) != 1 || last.Dependencies[0] != "SPEC-2" {
		t.Errorf("renumbering = %+v", last)
	}
	repairs, _ := last.Metadata["repairs"].([]string)
	if !strings.Contains(strings.Join(repairs, ";"), "dropped dependency T-99") {
		t.Errorf("the dropped dependency is not recorded: %v", last.Metadata)
	}
	if res.Risks[0].RelatedTicketIDs[0] != "SPEC-2" || len(srv.Requests()) != 1 {
		t.Errorf("risks %v, %d requests", res.Risks, len(srv.Requests()))
	}
}

func TestRepairRoundTrip(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.Reply{Content: "{not json"}, openaitest.Reply{Content: answer(nil)})
	e := engine(t, srv, 5*time.Second, 0)

	// Invalid JSON, then a valid answer.
	res, err := e.Generate(context.Background(), request(tickets.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, res, request(tickets.Options{}).Options)
	reqs := srv.Requests()
	msgs := reqs[1]["messages"].([]any)
	if len(reqs) != 2 || len(msgs) != 4 || msgs[2].(map[string]any)["content"] != "{not json" ||
		!strings.Contains(msgs[3].(map[string]any)["content"].(string), "not the JSON object") {
		t.Fatalf("repair round = %d requests, messages %v", len(reqs), msgs)
	}
}

func TestInvalidTwiceIsModelOutputInvalid(t *testing.T) {
	t.Parallel()
	tooMany := answer(func(m map[string]any) {
		m["tickets"].([]any)[1].(map[string]any)["acceptance_criteria"] = make([]string, 9)
	})
	for _, tt := range []struct {
		name  string
		reply openaitest.Reply
		opts  tickets.Options
		want  string
	}{
		{"schema violation", openaitest.Reply{Content: tooMany}, tickets.Options{}, "acceptance_criteria"},
		{"ticket_count not honoured", openaitest.Reply{Content: answer(nil)},
			tickets.Options{TicketCount: 4, MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}, "ticket_count asks for 4"},
		{"truncated", openaitest.Reply{Content: answer(nil), FinishReason: "length"}, tickets.Options{}, "cut off"},
		{"epics not wanted", openaitest.Reply{Content: answer(nil)},
			tickets.Options{MaxTicketCount: 20, DependencyMode: "explicit", OutputDetail: "standard"}, "include_epics is false"},
	} {
		srv := openaitest.New(t, tt.reply)
		_, err := engine(t, srv, 5*time.Second, 0).Generate(context.Background(), request(tt.opts))
		if tickets.ErrorCode(err) != tickets.CodeModelOutputInvalid || !strings.Contains(tickets.ErrorMessage(err), tt.want) {
			t.Errorf("%s: err = %v; want model_output_invalid about %q", tt.name, err, tt.want)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%s: %d requests, want 2 (one repair round)", tt.name, n)
		}
	}
}

func TestProviderFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		reply    openaitest.Reply
		timeout  time.Duration
		retries  int
		code     tickets.Code
		requests int
	}{
		{"slow", openaitest.Reply{Content: answer(nil), Delay: 5 * time.Second}, 300 * time.Millisecond, 0, tickets.CodeModelTimeout, 1},
		{"500 after retries", openaitest.Reply{Status: 500}, 30 * time.Second, 1, tickets.CodeEngineUnavailable, 2},
		{"401", openaitest.Reply{Status: 401}, 30 * time.Second, 1, tickets.CodeEngineUnavailable, 1},
		{"404 model", openaitest.Reply{Status: 404}, 30 * time.Second, 0, tickets.CodeEngineUnavailable, 1},
	} {
		srv := openaitest.New(t, tt.reply)
		start := time.Now()
		_, err := engine(t, srv, tt.timeout, tt.retries).Generate(context.Background(), request(tickets.Options{}))
		if tickets.ErrorCode(err) != tt.code {
			t.Errorf("%s: err = %v, want %s", tt.name, err, tt.code)
		}
		if strings.Contains(err.Error(), "SECRET") || strings.Contains(tickets.ErrorMessage(err), "SECRET") {
			t.Errorf("%s: the provider's key leaks: %v", tt.name, err)
		}
		if n := len(srv.Requests()); n != tt.requests {
			t.Errorf("%s: %d requests, want %d", tt.name, n, tt.requests)
		}
		if tt.name == "slow" && time.Since(start) > 3*time.Second {
			t.Errorf("slow: the time limit did not cut the call (%v)", time.Since(start))
		}
	}
	srv := openaitest.New(t)
	srv.Close() // connection refused, which a short time limit could read as a time-out on a loaded machine
	_, err := engine(t, srv, 30*time.Second, 0).Generate(context.Background(), request(tickets.Options{}))
	if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable {
		t.Errorf("connection refused: err = %v", err)
	}
}

func TestCancelAbortsTheRequest(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.Reply{Content: answer(nil), Delay: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := engine(t, srv, time.Minute, 0).Generate(ctx, request(tickets.Options{}))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Errorf("cancel: err = %v after %v", err, time.Since(start))
	}
}

func TestLargeSpecIsSplitAndMerged(t *testing.T) {
	t.Parallel()
	section := func(name string) string {
		return "# " + name + "\n\n" + strings.Repeat("- Users must be able to manage "+name+" records in bulk.\n", 20) + "\n"
	}
	spec := section("Shifts") + section("Rotas")
	srv := openaitest.New(t, openaitest.Reply{Content: answer(nil)}, openaitest.Reply{Content: answer(nil)})
	m, _ := openai.New(openai.Config{BaseURL: srv.BaseURL(), APIKey: "k", Model: "gpt-test"})
	e := llm.NewEngine("openai", m, llm.Options{Timeout: 5 * time.Second, ContextTokens: 3700, AnswerTokens: 100})
	opts := tickets.Options{TicketCount: 6, MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}
	req := tickets.GenerationRequest{JobID: jobID, Title: "Scheduling", Spec: spec, Options: opts}
	res, err := e.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, res, opts)
	if len(res.Tickets) != 6 || res.Tickets[4].ExternalID != "SPEC-5" || *res.Tickets[4].ParentExternalID != "SPEC-4" ||
		res.Tickets[5].Dependencies[0] != "SPEC-5" || res.OpenQuestions[1].ID != "Q-2" || res.OpenQuestions[1].RelatedTicketIDs[0] != "SPEC-6" {
		t.Errorf("merge: %+v", res.Tickets)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one per part", len(reqs))
	}
	second := reqs[1]["messages"].([]any)[1].(map[string]any)["content"].(string)
	if !strings.Contains(second, "part 2 of 2") || !strings.Contains(second, "Rotas") || strings.Contains(second, "Shifts") || !strings.Contains(second, "exactly 3 tickets") {
		t.Errorf("second part's prompt: %s", second)
	}
	if *res.Generation.PromptTokens != 2400 {
		t.Errorf("tokens are not summed over the parts: %v", *res.Generation.PromptTokens)
	}

	huge := tickets.GenerationRequest{JobID: jobID, Title: "Huge", Spec: strings.Repeat("word ", 2000), Options: opts}
	_, err = e.Generate(context.Background(), huge)
	if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable || !strings.Contains(tickets.ErrorMessage(err), "larger than the model's context") {
		t.Errorf("unsplittable spec: %v", err)
	}
	if len(srv.Requests()) != 2 {
		t.Error("an unsplittable spec was sent to the model")
	}
}

// TestOversizedAnswerFails: an answer far beyond the response limit (a
// valid answer followed by spaces, which leave it valid JSON), or an error
// answer as large, fails the call with engine_unavailable instead of being
// read whole, and the client stops reading near the limit.
func TestOversizedAnswerFails(t *testing.T) {
	t.Parallel()
	const padding = 256 << 20 // 32 times the limit for the default 16,000 answer tokens
	for _, reply := range []openaitest.Reply{{Content: answer(nil), Padding: padding}, {Status: 500, Padding: padding}} {
		srv := openaitest.New(t, reply)
		_, err := engine(t, srv, 30*time.Second, 0).Generate(context.Background(), request(tickets.Options{}))
		if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable || !strings.Contains(tickets.ErrorMessage(err), "larger than") {
			t.Errorf("status %d: err = %v (%q), want engine_unavailable about the answer's size", reply.Status, err, tickets.ErrorMessage(err))
		}
		if n := srv.PaddingWritten(); n > padding/4 {
			t.Errorf("status %d: %d MiB of the answer were read, want the reading to stop near the limit", reply.Status, n>>20)
		}
	}
}

// TestAnswerThatIsNotTheAPIs: a server at the base URL that answers 200
// with something else than the API's JSON (a login page, a proxy's
// notice) is engine_unavailable saying so, not that it cannot be reached;
// one that refuses the connection still cannot be reached.
func TestAnswerThatIsNotTheAPIs(t *testing.T) {
	t.Parallel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>Sign in to continue</body></html>")
	}))
	defer page.Close()
	m, err := openai.New(openai.Config{BaseURL: page.URL + "/v1/", APIKey: "sk-test-SECRET", Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.NewEngine("openai", m, llm.Options{Timeout: 30 * time.Second}).Generate(context.Background(), request(tickets.Options{}))
	if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable || !strings.Contains(tickets.ErrorMessage(err), "not the API's answer") {
		t.Errorf("a 200 HTML page: err = %v (%q), want engine_unavailable saying it is not the API's answer", err, tickets.ErrorMessage(err))
	}
	srv := openaitest.New(t)
	srv.Close()
	_, err = engine(t, srv, 30*time.Second, 0).Generate(context.Background(), request(tickets.Options{}))
	if !strings.Contains(tickets.ErrorMessage(err), "cannot be reached") {
		t.Errorf("connection refused: %q, want that it cannot be reached", tickets.ErrorMessage(err))
	}
}
