package heuristic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/golden"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
)

const testJobID = "00000000-0000-4000-8000-000000000000"

// specFiles are the three specs of the project, copied into testdata.
var specFiles = []string{"tickets-api", "bettor-and-operator-api", "aggregator-api"}

func readSpec(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// inputs are the specs every combination of options is run against.
func inputs(t testing.TB) []struct{ name, title, spec string } {
	cliSpec := readSpec(t, "specs/logpipe-cli")
	setextSpec := readSpec(t, "specs/notification-preferences-setext")
	// rstSpec is written as PEPs are: a header of fields, overlined titles
	// ("=" then "-" then "'"), a specification among sections that explain,
	// and objections with their responses, which are not work.
	rstSpec := readSpec(t, "specs/counter-merge-pep")
	out := []struct{ name, title, spec string }{
		{"paragraph", "Invoice CSV export", "We need a CSV export of the monthly invoices page so the finance team can reconcile payments. The export should include the invoice number, customer name, amount, currency and status, and it must respect the filters the user has applied. Large exports should run in the background and email a download link when they are ready."},
		{"bug", "Crash when uploading a large profile photo", "The mobile app crashes when a user uploads a profile photo larger than 10 MB. This is a regression since 3.2.0.\n\nSteps to reproduce:\n1. Open Settings > Profile\n2. Tap \"Change photo\"\n3. Pick a 12 MB JPEG\n\nExpected: the photo is resized to 2048 px and saved.\nActual: the app crashes with an OutOfMemoryError.\n\nEnvironment: Android 14, app 3.2.1."},
		{"cli", "logpipe CLI", cliSpec},
		{"plain-list", "Login improvements", "- Add login with email and password\n- Add logout from every page\n- Users can reset their password via an email link\n- Remember me checkbox keeps the session for 30 days\n- Failed logins must be rate-limited per IP address"},
		{"tiny", "x", "x"},
		{"whitespace", "Blank spec", "   \n\t  \n"},
		{"dark-mode", "Dark mode", "Add dark mode"},
		{"questions", "Platform choices", "Which database should we use? Do we need multi-tenancy from day one? How do we handle authentication? Is the public API versioned?"},
		{"setext", "Notifications", setextSpec},
		{"rst-overlined", "PEP 9999", rstSpec},
	}
	for _, name := range specFiles {
		out = append(out, struct{ name, title, spec string }{name, name, readSpec(t, name)})
	}
	return out
}

// options lists every combination the tests run: include_epics,
// output_detail, ticket_count (0 = unset) and max_ticket_count. The service
// rejects ticket_count above max_ticket_count before calling an engine;
// those combinations are run anyway, and the engine honours ticket_count.
func options() []tickets.Options {
	var out []tickets.Options
	for _, epics := range []bool{true, false} {
		for _, detail := range []string{tickets.DetailCompact, tickets.DetailStandard, tickets.DetailDetailed} {
			for _, max := range []int{1, 5, 20, 50} {
				for _, count := range []int{0, 1, 3, 7, 20, 50} {
					out = append(out, tickets.Options{TicketCount: count, MaxTicketCount: max, IncludeEpics: epics, DependencyMode: tickets.DependencyExplicit, OutputDetail: detail})
				}
			}
		}
	}
	return out
}

func TestName(t *testing.T) {
	if got := heuristic.New().Name(); got != "heuristic" {
		t.Fatalf("Name() = %q, want heuristic", got)
	}
	var _ tickets.Engine = heuristic.New()
}

// TestEveryInputAndOption runs every input with every option combination
// through the validity checker.
func TestEveryInputAndOption(t *testing.T) {
	e := heuristic.New()
	for _, in := range inputs(t) {
		for _, opts := range options() {
			name := fmt.Sprintf("%s/epics=%v/%s/count=%d/max=%d", in.name, opts.IncludeEpics, opts.OutputDetail, opts.TicketCount, opts.MaxTicketCount)
			req := tickets.GenerationRequest{JobID: testJobID, Title: in.title, Spec: in.spec, Options: opts}
			res, err := e.Generate(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, problem := range check(res, req) {
				t.Errorf("%s: %s", name, problem)
			}
		}
	}
}

// TestLargeSpec checks the 50 KB benchmark input with a few options.
func TestLargeSpec(t *testing.T) {
	spec := largeSpec(t)
	for _, opts := range []tickets.Options{
		{MaxTicketCount: 20, IncludeEpics: true, OutputDetail: tickets.DetailStandard},
		{MaxTicketCount: 50, IncludeEpics: true, OutputDetail: tickets.DetailDetailed},
		{TicketCount: 50, MaxTicketCount: 50, IncludeEpics: false, OutputDetail: tickets.DetailCompact},
		{TicketCount: 3, MaxTicketCount: 5, IncludeEpics: true, OutputDetail: tickets.DetailStandard},
	} {
		req := tickets.GenerationRequest{JobID: testJobID, Title: "Foresight", Spec: spec, Options: opts}
		res, err := heuristic.New().Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range check(res, req) {
			t.Errorf("%+v: %s", opts, problem)
		}
	}
}

func TestTicketCountAboveMax(t *testing.T) {
	// The service rejects this combination; the engine honours ticket_count.
	req := tickets.GenerationRequest{JobID: testJobID, Title: "t", Spec: readSpec(t, "tickets-api"), Options: tickets.Options{TicketCount: 9, MaxTicketCount: 4, IncludeEpics: true}}
	res, err := heuristic.New().Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tickets) != 9 {
		t.Fatalf("got %d tickets, want 9", len(res.Tickets))
	}
}

func TestDeterministic(t *testing.T) {
	for _, in := range inputs(t) {
		for _, opts := range []tickets.Options{
			{MaxTicketCount: 20, IncludeEpics: true, OutputDetail: tickets.DetailStandard},
			{TicketCount: 7, MaxTicketCount: 20, IncludeEpics: true, OutputDetail: tickets.DetailDetailed},
			{TicketCount: 50, MaxTicketCount: 50, IncludeEpics: false, OutputDetail: tickets.DetailCompact},
		} {
			req := tickets.GenerationRequest{JobID: testJobID, Title: in.title, Spec: in.spec, Options: opts}
			first := mustJSON(t, generate(t, req))
			for i := 0; i < 3; i++ {
				if again := mustJSON(t, generate(t, req)); !bytes.Equal(first, again) {
					t.Fatalf("%s %+v: run %d differs from the first", in.name, opts, i+2)
				}
			}
		}
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := heuristic.New().Generate(ctx, tickets.GenerationRequest{JobID: testJobID, Title: "t", Spec: readSpec(t, "tickets-api")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res != nil {
		t.Fatal("a cancelled generation returned a result")
	}
}

// TestSpecTickets checks that the tickets of the project's specs name the
// real endpoints and features.
func TestSpecTickets(t *testing.T) {
	want := map[string][]string{
		"tickets-api": {
			"Implement POST /tickets/v1/jobs submission endpoint",
			"Implement DELETE /tickets/v1/jobs/{job_id} cancellation endpoint",
			"Implement GET /tickets/v1/jobs/{job_id}/result endpoint",
		},
		"bettor-and-operator-api": {
			"Implement POST /api/v1/bettor/bets endpoint",
			"Call operator POST /v1/withdrawals to debit the stake",
		},
		"aggregator-api": {
			"Implement POST /v2/agg_provider.Launcher/Real to start a real-money session",
			"Call aggregator POST /v2/provider_agg.Round/BetWin to debit a stake or credit a win",
		},
	}
	for _, name := range specFiles {
		res := generate(t, defaultRequest(readSpec(t, name), name))
		titles := map[string]bool{}
		for _, tk := range res.Tickets {
			titles[tk.Title] = true
		}
		for _, w := range want[name] {
			if !titles[w] {
				t.Errorf("%s: no ticket titled %q", name, w)
			}
		}
		if len(res.OpenQuestions) == 0 {
			t.Errorf("%s: no open questions, but the spec has many \"not shown\" items", name)
		}
		if len(res.Risks) == 0 {
			t.Errorf("%s: no risks", name)
		}
	}
}

func TestShapes(t *testing.T) {
	byName := map[string]struct{ name, title, spec string }{}
	for _, in := range inputs(t) {
		byName[in.name] = in
	}
	run := func(name string) *tickets.Result {
		in := byName[name]
		return generate(t, tickets.GenerationRequest{JobID: testJobID, Title: in.title, Spec: in.spec, Options: tickets.Options{MaxTicketCount: 20, IncludeEpics: true, OutputDetail: tickets.DetailStandard}})
	}
	if res := run("bug"); firstWork(res).TicketType != tickets.TypeBug {
		t.Errorf("bug report: first ticket is a %s, want a bug", firstWork(res).TicketType)
	}
	if res := run("questions"); len(res.OpenQuestions) != 4 || firstWork(res).TicketType != tickets.TypeSpike {
		t.Errorf("questions: %d open questions, first ticket %s; want 4 and a spike", len(res.OpenQuestions), firstWork(res).TicketType)
	}
	if res := run("plain-list"); len(res.Tickets) < 5 {
		t.Errorf("plain list: %d tickets, want one per item", len(res.Tickets))
	}
	if res := run("paragraph"); firstWork(res).TicketType != tickets.TypeStory || !strings.HasPrefix(firstWork(res).Description, "As a") {
		t.Errorf("paragraph: first ticket %s %q, want a story in role/means/ends form", firstWork(res).TicketType, firstWork(res).Description)
	}
	res := run("cli")
	found := false
	for _, tk := range res.Tickets {
		if tk.Title == "Implement logpipe init command" {
			found = true
		}
	}
	if !found {
		t.Errorf("cli: no ticket for the init command")
	}
}

// firstWork is the first ticket that is not an epic.
func firstWork(res *tickets.Result) tickets.Ticket {
	for _, tk := range res.Tickets {
		if tk.TicketType != tickets.TypeEpic {
			return tk
		}
	}
	return res.Tickets[0]
}

func TestGolden(t *testing.T) {
	for _, name := range specFiles {
		t.Run(name, func(t *testing.T) {
			got := mustJSON(t, generate(t, defaultRequest(readSpec(t, name), name)))
			golden.Check(t, filepath.Join("testdata", name+".golden.json"), got)
		})
	}
}

func defaultRequest(spec, title string) tickets.GenerationRequest {
	return tickets.GenerationRequest{
		JobID: testJobID,
		Title: title,
		Spec:  spec,
		Options: tickets.Options{
			TicketCount:    0,
			MaxTicketCount: 20,
			IncludeEpics:   true,
			DependencyMode: tickets.DependencyExplicit,
			OutputDetail:   tickets.DetailStandard,
		},
	}
}

func generate(t testing.TB, req tickets.GenerationRequest) *tickets.Result {
	t.Helper()
	res, err := heuristic.New().Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// largeSpec is 50 KB of markdown: the three specs concatenated and
// repeated, cut at the last line break before 50,000 bytes.
func largeSpec(t testing.TB) string {
	var b strings.Builder
	for b.Len() < 50_000 {
		for _, name := range specFiles {
			b.WriteString(readSpec(t, name))
			b.WriteString("\n\n")
		}
	}
	s := b.String()[:50_000]
	return s[:strings.LastIndexByte(s, '\n')+1]
}

var (
	specID     = regexp.MustCompile(`^SPEC-[0-9]+$`)
	riskID     = regexp.MustCompile(`^RISK-[0-9]+$`)
	questionID = regexp.MustCompile(`^Q-[0-9]+$`)
	kebabLabel = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	vagueWords = regexp.MustCompile(`(?i)\b(etc\.|tbd|user-friendly)|\bfast\b`)
	types      = map[string]bool{tickets.TypeEpic: true, tickets.TypeStory: true, tickets.TypeTask: true, tickets.TypeBug: true, tickets.TypeSpike: true}
	levels     = map[string]bool{tickets.PriorityLow: true, tickets.PriorityMedium: true, tickets.PriorityHigh: true, tickets.PriorityCritical: true}
	points     = map[int]bool{1: true, 2: true, 3: true, 5: true, 8: true, 13: true}
)

// check validates a result as the service does (tickets.ValidateResult:
// tickets.result.v1 and its rules, a dependency cycle among them) and
// checks the engine's own promises. It returns every problem found.
func check(res *tickets.Result, req tickets.GenerationRequest) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if res == nil {
		return []string{"nil result"}
	}
	if res.SchemaVersion != tickets.ResultSchemaVersion {
		bad("schema_version %q", res.SchemaVersion)
	}
	if res.JobID != req.JobID {
		bad("job_id %q, want %q", res.JobID, req.JobID)
	}
	if n := utf8.RuneCountInString(res.Source.Title); n < 1 || n > 160 {
		bad("source.title has %d runes", n)
	}
	if strings.TrimSpace(res.Source.Summary) == "" {
		bad("empty source.summary")
	}
	if res.Tickets == nil || res.Risks == nil || res.OpenQuestions == nil {
		bad("nil top-level slice")
	}
	n := len(res.Tickets)
	if n < 1 || n > 50 {
		bad("%d tickets", n)
	}
	opts := req.Options
	if opts.TicketCount > 0 && n != opts.TicketCount {
		bad("%d tickets, want exactly %d", n, opts.TicketCount)
	}
	if opts.TicketCount == 0 && n > opts.MaxTicketCount {
		bad("%d tickets, more than max %d", n, opts.MaxTicketCount)
	}
	byID := map[string]tickets.Ticket{}
	titles := map[string]bool{}
	for i, tk := range res.Tickets {
		where := tk.ExternalID
		if want := fmt.Sprintf("SPEC-%d", i+1); tk.ExternalID != want {
			bad("ticket %d has id %q, want %q", i, tk.ExternalID, want)
		}
		if !specID.MatchString(tk.ExternalID) {
			bad("%s: bad id", where)
		}
		if _, dup := byID[tk.ExternalID]; dup {
			bad("%s: duplicate id", where)
		}
		byID[tk.ExternalID] = tk
		if !types[tk.TicketType] {
			bad("%s: type %q", where, tk.TicketType)
		}
		if !opts.IncludeEpics && tk.TicketType == tickets.TypeEpic {
			bad("%s: epic while include_epics is false", where)
		}
		rn := utf8.RuneCountInString(tk.Title)
		if rn < 1 || rn > 120 {
			bad("%s: title has %d runes", where, rn)
		}
		if strings.TrimRight(tk.Title, ".,;:!? ") != tk.Title {
			bad("%s: title %q ends with punctuation", where, tk.Title)
		}
		key := strings.ToLower(tk.Title)
		if titles[key] {
			bad("%s: duplicate title %q", where, tk.Title)
		}
		titles[key] = true
		if strings.TrimSpace(tk.Description) == "" {
			bad("%s: empty description", where)
		}
		if len(tk.AcceptanceCriteria) < 1 || len(tk.AcceptanceCriteria) > 8 {
			bad("%s: %d acceptance criteria", where, len(tk.AcceptanceCriteria))
		}
		if opts.OutputDetail == tickets.DetailCompact && len(tk.AcceptanceCriteria) > 3 {
			bad("%s: %d criteria in compact output", where, len(tk.AcceptanceCriteria))
		}
		for _, ac := range tk.AcceptanceCriteria {
			if strings.TrimSpace(ac) == "" {
				bad("%s: empty criterion", where)
			}
			if vagueWords.MatchString(ac) && !askedAbout(res, tk.ExternalID, ac) {
				bad("%s: vague criterion %q that no open question asks about", where, ac)
			}
		}
		if tk.Labels == nil {
			bad("%s: nil labels", where)
		}
		for _, l := range tk.Labels {
			if n := utf8.RuneCountInString(l); n < 1 || n > 40 || !kebabLabel.MatchString(l) {
				bad("%s: label %q", where, l)
			}
		}
		if tk.Dependencies == nil {
			bad("%s: nil dependencies", where)
		}
		if tk.StoryPoints != nil {
			if *tk.StoryPoints < 1 || *tk.StoryPoints > 100 {
				bad("%s: story_points %d", where, *tk.StoryPoints)
			}
			if !points[*tk.StoryPoints] {
				bad("%s: story_points %d not on the 1,2,3,5,8,13 scale", where, *tk.StoryPoints)
			}
		}
		if tk.TicketType == tickets.TypeEpic && tk.StoryPoints != nil {
			bad("%s: epic with story points", where)
		}
		if tk.TicketType != tickets.TypeEpic && tk.StoryPoints == nil {
			bad("%s: %s without story points", where, tk.TicketType)
		}
		if tk.Priority != nil && !levels[*tk.Priority] {
			bad("%s: priority %q", where, *tk.Priority)
		}
		if tk.Metadata == nil {
			bad("%s: nil metadata", where)
		} else {
			if c, ok := tk.Metadata["component"].(string); !ok || c == "" {
				bad("%s: metadata.component %v", where, tk.Metadata["component"])
			}
			if c, ok := tk.Metadata["confidence"].(float64); !ok || c < 0 || c > 1 {
				bad("%s: metadata.confidence %v", where, tk.Metadata["confidence"])
			}
			if m, ok := tk.Metadata["suggested_milestone"]; ok {
				if s, ok := m.(string); !ok || s == "" {
					bad("%s: metadata.suggested_milestone %v", where, m)
				}
			}
		}
	}
	for _, tk := range res.Tickets {
		where := tk.ExternalID
		for _, d := range tk.Dependencies {
			if !specID.MatchString(d) {
				bad("%s: dependency %q", where, d)
			}
			if _, ok := byID[d]; !ok {
				bad("%s: dependency %s does not exist", where, d)
			}
			if d == tk.ExternalID {
				bad("%s: depends on itself", where)
			}
		}
		if tk.ParentExternalID != nil {
			if !opts.IncludeEpics {
				bad("%s: parent %s while include_epics is false", where, *tk.ParentExternalID)
			}
			parent, ok := byID[*tk.ParentExternalID]
			switch {
			case !ok:
				bad("%s: parent %s does not exist", where, *tk.ParentExternalID)
			case parent.TicketType != tickets.TypeEpic:
				bad("%s: parent %s is a %s", where, parent.ExternalID, parent.TicketType)
			case parent.ExternalID == tk.ExternalID:
				bad("%s: is its own parent", where)
			}
		}
	}
	for i, r := range res.Risks {
		if want := fmt.Sprintf("RISK-%d", i+1); r.ID != want || !riskID.MatchString(r.ID) {
			bad("risk %d has id %q", i, r.ID)
		}
		if strings.TrimSpace(r.Description) == "" {
			bad("%s: empty description", r.ID)
		}
		if !levels[r.Severity] {
			bad("%s: severity %q", r.ID, r.Severity)
		}
		if r.RelatedTicketIDs == nil {
			bad("%s: nil related ids", r.ID)
		}
		for _, id := range r.RelatedTicketIDs {
			if _, ok := byID[id]; !ok {
				bad("%s: related ticket %s does not exist", r.ID, id)
			}
		}
	}
	for i, q := range res.OpenQuestions {
		if want := fmt.Sprintf("Q-%d", i+1); q.ID != want || !questionID.MatchString(q.ID) {
			bad("question %d has id %q", i, q.ID)
		}
		if strings.TrimSpace(q.Question) == "" {
			bad("%s: empty question", q.ID)
		}
		if q.RelatedTicketIDs == nil {
			bad("%s: nil related ids", q.ID)
		}
		for _, id := range q.RelatedTicketIDs {
			if _, ok := byID[id]; !ok {
				bad("%s: related ticket %s does not exist", q.ID, id)
			}
		}
	}
	g := res.Generation
	if g.Model != "heuristic-v1" || g.DurationMS != 0 || g.PromptTokens != nil || g.CompletionTokens != nil || g.FinishReason == nil || *g.FinishReason != "stop" {
		bad("generation %+v", g)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		bad("marshal: %v", err)
		return p
	}
	// The service rejects ticket_count above max_ticket_count before an
	// engine runs; options() runs those combinations anyway.
	validated := req.Options
	validated.MaxTicketCount = max(validated.MaxTicketCount, validated.TicketCount)
	for _, problem := range tickets.ValidateResult(raw, req.JobID, validated) {
		bad("tickets.ValidateResult: %s", problem)
	}
	if bytes.Contains(raw, []byte(`":null`)) {
		// Only the nullable scalars may be null.
		cleaned := regexp.MustCompile(`"(story_points|priority|parent_external_id|prompt_tokens|completion_tokens|finish_reason)":null`).ReplaceAll(raw, nil)
		if bytes.Contains(cleaned, []byte(`":null`)) {
			bad("JSON has a null where an array or object belongs")
		}
	}
	return p
}

// askedAbout reports whether an open question related to ticket id quotes
// its criterion: a vague criterion of the spec is kept and asked about,
// never deleted in silence.
func askedAbout(res *tickets.Result, id, criterion string) bool {
	for _, q := range res.OpenQuestions {
		if slices.Contains(q.RelatedTicketIDs, id) && strings.Contains(q.Question, strings.TrimRight(criterion, ".")) {
			return true
		}
	}
	return false
}

// TestGeneratedInputs runs a few hundred inputs stitched together from
// markdown fragments (a fixed seed, so the same ones every run) through
// the validity checker.
func TestGeneratedInputs(t *testing.T) {
	pieces := []string{"# ", "## ", "- ", "1. ", "| a | b |\n|---|---|\n", "| GET /x/{id} | y |\n", "`cmd x` — y", "TBD", "not shown", "?", "must ", "should ", "Users can ", "The API returns ", "(1) ", ": ", "\n", "\n\n", "```\n", "====\n", "----\n", "POST /a/b", "Round/BetWin", "as a user, I want x so that y", "Steps to reproduce:", "Expected: ", "Actual: ", "crash", "never ", "its ", "Is the ", "What ", "x", "é", "  ", "\t", "<br>", "[a](b)", "**b**", "{c}", "| State | Trigger | Next state |\n|---|---|---|\n| A | t | B |\n", "| Field | Type |\n|---|---|\n| f | string |\n"}
	r := rand.New(rand.NewSource(1))
	e := heuristic.New()
	for i := 0; i < 300; i++ {
		var sb strings.Builder
		for j := r.Intn(30); j > 0; j-- {
			sb.WriteString(pieces[r.Intn(len(pieces))])
		}
		for _, count := range []int{0, 3, 50} {
			for _, epics := range []bool{true, false} {
				req := tickets.GenerationRequest{JobID: testJobID, Title: "Generated", Spec: sb.String(), Options: tickets.Options{TicketCount: count, MaxTicketCount: 50, IncludeEpics: epics, OutputDetail: tickets.DetailStandard}}
				res, err := e.Generate(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				for _, problem := range check(res, req) {
					t.Errorf("input %q count=%d epics=%v: %s", sb.String(), count, epics, problem)
				}
			}
		}
	}
}

// FuzzGenerate checks that any text gives a valid result. go test runs the
// seeds; go test -fuzz FuzzGenerate explores further.
func FuzzGenerate(f *testing.F) {
	setextSpec := readSpec(f, "specs/notification-preferences-setext")
	cliSpec := readSpec(f, "specs/logpipe-cli")
	for _, seed := range []string{"", "x", "# A\n\n| a | b |\n|---|---|\n| GET /x | y |\n", "- `cmd run` — runs\n", "Is it? TBD.", "## S\n\n1. (1) a; (2) b\n   - nested: item\n", setextSpec, cliSpec} {
		f.Add(seed, uint8(0), true)
	}
	f.Fuzz(func(t *testing.T, spec string, count uint8, epics bool) {
		opts := tickets.Options{TicketCount: int(count % 8), MaxTicketCount: 20, IncludeEpics: epics, OutputDetail: tickets.DetailStandard}
		req := tickets.GenerationRequest{JobID: testJobID, Title: "Fuzz", Spec: spec, Options: opts}
		res, err := heuristic.New().Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range check(res, req) {
			t.Error(problem)
		}
	})
}

// TestReStructuredTextTitles: a PEP's overlined titles are headings (they
// became tickets titled "Implement ======== Abstract"), objections and
// their responses are not work, and a section named "Specification" is
// titled by what the spec builds, from its "Title:" header.
func TestReStructuredTextTitles(t *testing.T) {
	t.Parallel()
	rstSpec := readSpec(t, "specs/counter-merge-pep")
	res := generate(t, defaultRequest(rstSpec, "PEP 9999"))
	var titles []string
	for _, tk := range res.Tickets {
		titles = append(titles, tk.Title)
	}
	if len(res.Tickets) != 1 || res.Tickets[0].Title != "Add a Merge Operator To Counters" {
		t.Fatalf("tickets %q; want one, titled from the Title header", titles)
	}
	want := []string{"Counter merge will return a new counter holding the sum of both operands.", "The in-place version updates the left operand.",
		"Merging with anything but a counter raises TypeError."}
	if got := res.Tickets[0].AcceptanceCriteria; !slices.Equal(got, want) {
		t.Errorf("criteria %q, want the specification's sentences %q", got, want)
	}
}
