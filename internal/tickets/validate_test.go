package tickets

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/netguard/netguardtest"
)

const testJobID = "00000000-0000-4000-8000-000000000000"

// validResult is a small result that passes every rule; tests break it.
func validResult() Result {
	epic, story, task := TypeEpic, TypeStory, TypeTask
	parent := "SPEC-1"
	high := PriorityHigh
	three := 3
	stop := "stop"
	return Result{
		SchemaVersion: ResultSchemaVersion, JobID: testJobID,
		Source: Source{Title: "Calendar", Summary: "Shifts for on-call teams."},
		Tickets: []Ticket{
			{ExternalID: "SPEC-1", TicketType: epic, Title: "Calendar", Description: "d", AcceptanceCriteria: []string{"a"},
				Labels: []string{"calendar"}, Dependencies: []string{}, Metadata: map[string]any{"confidence": 0.5}},
			{ExternalID: "SPEC-2", TicketType: story, Title: "Create a shift", Description: "d", AcceptanceCriteria: []string{"a"},
				Labels: []string{}, Dependencies: []string{}, StoryPoints: &three, Priority: &high, ParentExternalID: &parent, Metadata: map[string]any{}},
			{ExternalID: "SPEC-3", TicketType: task, Title: "Export iCal", Description: "d", AcceptanceCriteria: []string{"a"},
				Labels: []string{}, Dependencies: []string{"SPEC-2"}, ParentExternalID: &parent, Metadata: map[string]any{}},
		},
		Risks:         []Risk{{ID: "RISK-1", Description: "r", Severity: "low", RelatedTicketIDs: []string{"SPEC-2"}}},
		OpenQuestions: []OpenQuestion{{ID: "Q-1", Question: "Who edits?", RelatedTicketIDs: []string{"SPEC-3"}}},
		Generation:    Generation{Model: "m", DurationMS: 1, FinishReason: &stop},
	}
}

func TestValidateResult(t *testing.T) {
	t.Parallel()
	opts := Options{MaxTicketCount: 20, IncludeEpics: true}
	tests := []struct {
		name   string
		mutate func(r *Result)
		opts   *Options
		want   string // a substring of one problem; "" means valid
	}{
		{"valid", func(r *Result) {}, nil, ""},
		{"wrong job id", func(r *Result) { r.JobID = "11111111-1111-4111-8111-111111111111" }, nil, "/job_id"},
		{"bad id pattern", func(r *Result) { r.Tickets[1].ExternalID = "TICKET-2" }, nil, "/tickets/1/external_id"},
		{"duplicate id", func(r *Result) { r.Tickets[2].ExternalID = "SPEC-2"; r.Tickets[2].Dependencies = []string{} }, nil, "used twice"},
		{"unknown type", func(r *Result) { r.Tickets[1].TicketType = "feature" }, nil, "/tickets/1/ticket_type"},
		{"title too long", func(r *Result) { r.Tickets[1].Title = strings.Repeat("x", 121) }, nil, "/tickets/1/title"},
		{"no criteria", func(r *Result) { r.Tickets[1].AcceptanceCriteria = []string{} }, nil, "/tickets/1/acceptance_criteria"},
		{"nine criteria", func(r *Result) { r.Tickets[1].AcceptanceCriteria = make([]string, 9) }, nil, "/tickets/1/acceptance_criteria"},
		{"long label", func(r *Result) { r.Tickets[1].Labels = []string{strings.Repeat("l", 41)} }, nil, "/tickets/1/labels/0"},
		{"story points 0", func(r *Result) { zero := 0; r.Tickets[1].StoryPoints = &zero }, nil, "/tickets/1/story_points"},
		{"priority other", func(r *Result) { p := "urgent"; r.Tickets[1].Priority = &p }, nil, "/tickets/1/priority"},
		{"confidence 2", func(r *Result) { r.Tickets[0].Metadata["confidence"] = 2 }, nil, "/tickets/0/metadata/confidence"},
		{"nil labels", func(r *Result) { r.Tickets[1].Labels = nil }, nil, "/tickets/1/labels"},
		{"missing dependency", func(r *Result) { r.Tickets[2].Dependencies = []string{"SPEC-9"} }, nil, "SPEC-9 does not exist"},
		{"self dependency", func(r *Result) { r.Tickets[2].Dependencies = []string{"SPEC-3"} }, nil, "depends on itself"},
		{"repeated dependency", func(r *Result) { r.Tickets[2].Dependencies = []string{"SPEC-2", "SPEC-2"} }, nil, "listed twice"},
		{"cycle", func(r *Result) { r.Tickets[1].Dependencies = []string{"SPEC-3"} }, nil, "dependency cycle"},
		{"missing parent", func(r *Result) { p := "SPEC-7"; r.Tickets[2].ParentExternalID = &p }, nil, "SPEC-7 does not exist"},
		{"parent not an epic", func(r *Result) { p := "SPEC-2"; r.Tickets[2].ParentExternalID = &p }, nil, "parents must be epics"},
		{"risk to missing ticket", func(r *Result) { r.Risks[0].RelatedTicketIDs = []string{"SPEC-4"} }, nil, "/risks/0/related_ticket_ids/0"},
		{"bad severity", func(r *Result) { r.Risks[0].Severity = "severe" }, nil, "/risks/0/severity"},
		{"duplicate question", func(r *Result) { r.OpenQuestions = append(r.OpenQuestions, r.OpenQuestions[0]) }, nil, "Q-1 is used twice"},
		{"question to missing ticket", func(r *Result) { r.OpenQuestions[0].RelatedTicketIDs = []string{"SPEC-8"} }, nil, "/open_questions/0"},
		{"source title 161", func(r *Result) { r.Source.Title = strings.Repeat("t", 161) }, nil, "/source/title"},
		{"empty summary", func(r *Result) { r.Source.Summary = "" }, nil, "/source/summary"},
		{"no tickets", func(r *Result) { r.Tickets = []Ticket{}; r.Risks = nil; r.OpenQuestions = nil }, nil, "/tickets"},
		{"negative duration", func(r *Result) { r.Generation.DurationMS = -1 }, nil, "/generation/duration_ms"},
		{"ticket_count not honoured", func(r *Result) {}, &Options{TicketCount: 4, MaxTicketCount: 20}, "ticket_count asks for 4"},
		{"above max_ticket_count", func(r *Result) {}, &Options{MaxTicketCount: 2}, "max_ticket_count is 2"},
		{"ticket_count honoured", func(r *Result) {}, &Options{TicketCount: 3, MaxTicketCount: 3, IncludeEpics: true}, ""},
		{"epic without include_epics", func(r *Result) {}, &Options{MaxTicketCount: 20}, "include_epics is false"},
	}
	for _, tt := range tests {
		r := validResult()
		tt.mutate(&r)
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		if tt.opts != nil {
			o = *tt.opts
		}
		problems := ValidateResult(raw, testJobID, o)
		if tt.want == "" {
			if len(problems) > 0 {
				t.Errorf("%s: problems %v, want none", tt.name, problems)
			}
			continue
		}
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, tt.want)
		}
		if !found {
			t.Errorf("%s: problems %v, want one containing %q", tt.name, problems, tt.want)
		}
	}
}

func TestValidateResultRejectsUnknownProperties(t *testing.T) {
	t.Parallel()
	raw, _ := json.Marshal(validResult())
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["tickets"].([]any)[0].(map[string]any)["assignee"] = "me"
	raw, _ = json.Marshal(m)
	if problems := ValidateResult(raw, testJobID, Options{MaxTicketCount: 20, IncludeEpics: true}); len(problems) == 0 {
		t.Error("an unknown ticket property passed")
	}
	if problems := ValidateResult([]byte(`{"schema_version":`), testJobID, Options{}); len(problems) != 1 || !strings.Contains(problems[0], "JSON") {
		t.Errorf("truncated JSON: %v", problems)
	}
}

func TestParseSubmissionDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want Options
	}{
		{`{}`, Options{MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}},
		{`{"options":{"ticket_count":30,"max_ticket_count":30}}`, Options{TicketCount: 30, MaxTicketCount: 30, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}},
		{`{"options":{"ticket_count":2.0}}`, Options{TicketCount: 2, MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}},
		{`{"options":{"ticket_count":5,"max_ticket_count":8,"include_epics":false,"output_detail":"compact"}}`,
			Options{TicketCount: 5, MaxTicketCount: 8, DependencyMode: "explicit", OutputDetail: "compact"}},
		{`{"options":{"max_ticket_count":3}}`, Options{MaxTicketCount: 3, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}},
	}
	for _, tt := range tests {
		var m map[string]any
		json.Unmarshal([]byte(tt.body), &m)
		m["schema_version"], m["idempotency_key"], m["title"], m["spec"] = InputSchemaVersion, "k", "t", "s"
		raw, _ := json.Marshal(m)
		sub, err := ParseSubmission(raw)
		if err != nil {
			t.Errorf("%s: %v", tt.body, err)
			continue
		}
		if sub.Request.Options != tt.want {
			t.Errorf("%s: options %+v, want %+v", tt.body, sub.Request.Options, tt.want)
		}
	}
	implicit, _ := ParseSubmission([]byte(`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"s"}`))
	explicit, _ := ParseSubmission([]byte(`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"s",
		"options":{"max_ticket_count":20,"include_epics":true,"dependency_mode":"explicit","output_detail":"standard"}}`))
	other, _ := ParseSubmission([]byte(`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"s2"}`))
	if implicit.Hash != explicit.Hash || implicit.Hash == other.Hash {
		t.Error("the fingerprint must ignore spelled-out defaults and see a changed spec")
	}
}

func TestParseSubmissionRejects(t *testing.T) {
	t.Parallel()
	base := `"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"s"`
	for _, tt := range []struct{ name, body string }{
		{"ticket_count above the default max", `{` + base + `,"options":{"ticket_count":21}}`},
		{"NUL in spec", `{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"a\u0000b"}`},
		{"NUL in key", `{"schema_version":"tickets.input.v1","idempotency_key":"k\u0000","title":"t","spec":"s"}`},
		{"short IPv4", `{` + base + `,"callback_url":"https://127.1/cb"}`},
		{"octal IPv4", `{` + base + `,"callback_url":"https://0177.0.0.1/cb"}`},
		{"decimal IPv4", `{` + base + `,"callback_url":"https://2130706433/cb"}`},
		{"hex IPv4", `{` + base + `,"callback_url":"https://0x7f.0.0.1/cb"}`},
		{"zero", `{` + base + `,"callback_url":"https://0/cb"}`},
		// Hosts a browser or Go's HTTP client reads as localhost or a
		// non-public address.
		{"localhost with two dots", `{` + base + `,"callback_url":"https://localhost../cb"}`},
		{"empty label", `{` + base + `,"callback_url":"https://hooks..example.com/cb"}`},
		{"full-width localhost", `{` + base + `,"callback_url":"https://ｌｏｃａｌｈｏｓｔ/cb"}`},
		{"half full-width localhost", `{` + base + `,"callback_url":"https://locａlhost:8443/cb"}`},
		{"escaped full-width localhost", `{` + base + `,"callback_url":"https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/cb"}`},
		{"ideographic full stop", `{` + base + `,"callback_url":"https://api.localhost。/cb"}`},
		{"full-width loopback digits", `{` + base + `,"callback_url":"https://１２７.０.０.１/cb"}`},
		{"IPv4-compatible loopback", `{` + base + `,"callback_url":"https://[::127.0.0.1]/cb"}`},
		{"IPv4-compatible private", `{` + base + `,"callback_url":"https://[::10.0.0.1]/cb"}`},
		{"site-local", `{` + base + `,"callback_url":"https://[fec0::1]/cb"}`},
		{"6to4 of loopback", `{` + base + `,"callback_url":"https://[2002:7f00:1::]/cb"}`},
		{"6to4 of private", `{` + base + `,"callback_url":"https://[2002:c0a8:101::1]/cb"}`},
		{"NAT64 of private", `{` + base + `,"callback_url":"https://[64:ff9b::a00:1]/cb"}`},
		{"IPv4-mapped metadata", `{` + base + `,"callback_url":"https://[::ffff:169.254.169.254]/cb"}`},
		{"IPv4-mapped hex", `{` + base + `,"callback_url":"https://[::ffff:7f00:1]/cb"}`},
		{"link-local with zone", `{` + base + `,"callback_url":"https://[fe80::1%25eth0]/cb"}`},
		// Text that is no text.
		{"invalid UTF-8 in spec", `{` + base[:len(base)-2] + "\xff\xfe" + `"}`},
		{"lone high surrogate", `{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"a\ud800b"}`},
		{"lone low surrogate", `{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"\udc00","spec":"s"}`},
		{"high surrogate at the end", `{"schema_version":"tickets.input.v1","idempotency_key":"k\uDBFF","title":"t","spec":"s"}`},
		{"reversed pair", `{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"\ude00\ud83d"}`},
		{"high surrogate then a letter escape", `{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"\ud83d\u0041"}`},
	} {
		if _, err := ParseSubmission([]byte(tt.body)); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%s: err = %v, want invalid_request", tt.name, err)
		}
	}
	for _, body := range []string{
		`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"a surrogate pair \ud83d\ude00 is one character"}`,
		`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"an escaped backslash \\ud800 is no escape"}`,
		`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"ünïcödé 😀","spec":"\\\ud83d\ude00"}`,
	} {
		if _, err := ParseSubmission([]byte(body)); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	for _, ok := range []string{"https://hooks.example.com/cb", "https://93.184.216.34/cb", "https://api.v2.example.io:8443/x",
		"https://Hooks.Example.COM./cb", "https://bücher.example/cb", "https://[2606:4700::1111]/cb", "https://[2002:5db8:d822::1]/cb"} {
		if _, err := ParseSubmission([]byte(`{` + base + `,"callback_url":"` + ok + `"}`)); err != nil {
			t.Errorf("callback_url %s: %v", ok, err)
		}
	}
}

func TestCheckCallbackHost(t *testing.T) {
	t.Parallel()
	r := netguardtest.Resolver{"loop.example.com": {"127.0.0.1"}, "internal.example.com": {"10.1.2.3"}, "v6loop.example.com": {"::1"},
		"public.example.com": {"93.184.216.34"}}
	base := `{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"s","callback_url":"`
	for url, refused := range map[string]bool{
		"https://loop.example.com/cb":     true,
		"https://LOOP.example.com./cb":    true,
		"https://ｌｏｏｐ.example.com/cb":     true,
		"https://internal.example.com/cb": true,
		"https://v6loop.example.com/cb":   true,
		"https://public.example.com/cb":   false,
		"https://unknown.example.com/cb":  false, // delivery checks it when it connects
		"https://93.184.216.34/cb":        false,
	} {
		sub, err := ParseSubmission([]byte(base + url + `"}`))
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		err = CheckCallbackHost(context.Background(), r, sub)
		if refused && ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%s: %v; want invalid_request", url, err)
		}
		if !refused && err != nil {
			t.Errorf("%s: %v; want nil", url, err)
		}
	}
}
