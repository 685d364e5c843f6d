package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/anthropic"
	"github.com/foresight-dev/foresight/internal/tickets/anthropic/anthropictest"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/tickets/openai"
	"github.com/foresight-dev/foresight/internal/tickets/openai/openaitest"
	"github.com/foresight-dev/foresight/internal/waitfor"
	"github.com/foresight-dev/foresight/internal/webhook"
)

const sampleSpec = `# Team calendar

Teams need one calendar for on-call shifts.

## Requirements
- Users must be able to create a shift with a start, an end and an owner.
- The calendar should export to iCal.
- Who can edit another team's shifts? TBD.
`

func TestSubmitAndFetchResult(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{})
		for _, path := range []string{"/tickets/v1/jobs", "/v1/task-generation/jobs"} {
			r := w.do("POST", path, w.key, submitBody("k-"+path, sampleSpec, map[string]any{"options": map[string]any{"ticket_count": 4}}))
			if r.status != http.StatusAccepted {
				t.Fatalf("POST %s = %d %s", path, r.status, r.body)
			}
			acc := r.json(t)
			id := acc["job_id"].(string)
			if acc["schema_version"] != "tickets.job.v1" || acc["status"] != "queued" ||
				acc["status_url"] != w.url+"/tickets/v1/jobs/"+id || acc["result_url"] != w.url+"/tickets/v1/jobs/"+id+"/result" {
				t.Errorf("accepted = %s", r.body)
			}
			if r.header.Get("Location") != acc["status_url"] {
				t.Errorf("Location = %q, want the status URL", r.header.Get("Location"))
			}
			job := w.waitFor(id, tickets.StatusCompleted, tickets.StatusFailed)
			if job["status"] != "completed" || job["stage"] != "completed" || job["error"] != nil {
				t.Fatalf("job = %v", job)
			}
			res := w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil)
			if res.status != http.StatusOK {
				t.Fatalf("result = %d %s", res.status, res.body)
			}
			if problems := tickets.ValidateResult(res.body, id, tickets.Options{TicketCount: 4, MaxTicketCount: 20, IncludeEpics: true}); len(problems) > 0 {
				t.Errorf("result breaks the rules: %v", problems)
			}
			var result tickets.Result
			json.Unmarshal(res.body, &result)
			if len(result.Tickets) != 4 || result.Generation.Model == "" {
				t.Errorf("result has %d tickets, model %q; want 4 tickets and a model", len(result.Tickets), result.Generation.Model)
			}
		}
	})
}

func TestSchemaEndpointServesTheValidatingSchema(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noWorkers: true})
	r := w.do("GET", "/tickets/v1/schema", w.key, nil)
	if r.status != http.StatusOK {
		t.Fatalf("schema = %d %s", r.status, r.body)
	}
	m := r.json(t)
	if m["input_schema_version"] != "tickets.input.v1" || m["result_schema_version"] != "tickets.result.v1" {
		t.Errorf("schema versions = %v", m)
	}
	doc, _ := m["schema_json"].(string)
	if doc != tickets.ResultSchemaJSON() {
		t.Error("schema_json is not the document results are validated against")
	}
	var parsed map[string]any
	if err := json.Unmarshal([]byte(doc), &parsed); err != nil || parsed["$schema"] == nil {
		t.Errorf("schema_json is not a JSON Schema document: %v", err)
	}
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true})
		first := w.submit("same", sampleSpec, nil)
		// Spelling out the defaults is the same request.
		r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("same", sampleSpec, map[string]any{
			"options": map[string]any{"max_ticket_count": 20, "include_epics": true, "dependency_mode": "explicit", "output_detail": "standard"}}))
		if r.status != http.StatusAccepted || r.json(t)["job_id"] != first {
			t.Fatalf("retry = %d %s; want 202 and job %s", r.status, r.body, first)
		}
		r = w.do("POST", "/v1/task-generation/jobs", w.key, submitBody("same", sampleSpec+"\nmore", nil))
		if r.status != http.StatusBadRequest || r.errorCode(t) != "invalid_request" || !strings.Contains(string(r.body), "idempotency_key") {
			t.Fatalf("reuse with another request = %d %s; want 400 invalid_request about idempotency_key", r.status, r.body)
		}
		// Another client's key space is its own.
		_, otherKey := w.newClient("other", "tickets:submit")
		r = w.do("POST", "/tickets/v1/jobs", otherKey, submitBody("same", "x", nil))
		if r.status != http.StatusAccepted || r.json(t)["job_id"] == first {
			t.Fatalf("other client with the same key = %d %s", r.status, r.body)
		}
	})
}

func TestSubmitValidation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noWorkers: true})
	valid := func(mutate func(m map[string]any)) []byte {
		m := map[string]any{"schema_version": "tickets.input.v1", "idempotency_key": "k", "title": "t", "spec": "s"}
		mutate(m)
		b, _ := json.Marshal(m)
		return b
	}
	opt := func(k string, v any) []byte {
		return valid(func(m map[string]any) { m["options"] = map[string]any{k: v} })
	}
	set := func(k string, v any) []byte { return valid(func(m map[string]any) { m[k] = v }) }
	drop := func(k string) []byte { return valid(func(m map[string]any) { delete(m, k) }) }
	tests := []struct {
		name   string
		body   []byte
		header []string
		code   string
	}{
		{"not JSON", []byte(`{"schema_version":`), nil, "invalid_request"},
		{"JSON array", []byte(`[]`), nil, "invalid_request"},
		{"text content type", set("title", "t"), []string{"Content-Type", "text/plain"}, "invalid_request"},
		{"unknown property", set("colour", "red"), nil, "invalid_request"},
		{"unknown option", opt("temperature", 1), nil, "invalid_request"},
		{"options not an object", set("options", []int{1}), nil, "invalid_request"},
		{"wrong schema_version", set("schema_version", "tickets.input.v2"), nil, "invalid_request"},
		{"missing schema_version", drop("schema_version"), nil, "invalid_request"},
		{"missing idempotency_key", drop("idempotency_key"), nil, "invalid_request"},
		{"empty idempotency_key", set("idempotency_key", ""), nil, "invalid_request"},
		{"empty title", set("title", ""), nil, "invalid_request"},
		{"title a number", set("title", 7), nil, "invalid_request"},
		{"missing spec", drop("spec"), nil, "invalid_request"},
		{"empty spec", set("spec", ""), nil, "invalid_request"},
		{"ticket_count zero", opt("ticket_count", 0), nil, "invalid_request"},
		{"ticket_count string", opt("ticket_count", "3"), nil, "invalid_request"},
		{"ticket_count fraction", opt("ticket_count", 2.5), nil, "invalid_request"},
		{"ticket_count 51", opt("ticket_count", 51), nil, "invalid_request"},
		{"max_ticket_count zero", opt("max_ticket_count", 0), nil, "invalid_request"},
		{"max_ticket_count 51", opt("max_ticket_count", 51), nil, "invalid_request"},
		{"ticket_count above the default max", opt("ticket_count", 21), nil, "invalid_request"},
		{"NUL in spec", set("spec", "a\x00b"), nil, "invalid_request"},
		{"callback short IPv4", set("callback_url", "https://127.1/cb"), nil, "invalid_request"},
		{"no content type", set("title", "t"), []string{"Content-Type", ""}, "invalid_request"},
		{"ticket_count above max", valid(func(m map[string]any) {
			m["options"] = map[string]any{"ticket_count": 6, "max_ticket_count": 5}
		}), nil, "invalid_request"},
		{"include_epics string", opt("include_epics", "yes"), nil, "invalid_request"},
		{"dependency_mode other", opt("dependency_mode", "implicit"), nil, "invalid_request"},
		{"output_detail other", opt("output_detail", "verbose"), nil, "invalid_request"},
		{"callback http", set("callback_url", "http://example.com/cb"), nil, "invalid_request"},
		{"callback localhost", set("callback_url", "https://localhost/cb"), nil, "invalid_request"},
		{"callback sub.localhost", set("callback_url", "https://api.localhost:8443/cb"), nil, "invalid_request"},
		{"callback loopback IP", set("callback_url", "https://127.0.0.1/cb"), nil, "invalid_request"},
		{"callback IPv6 loopback", set("callback_url", "https://[::1]/cb"), nil, "invalid_request"},
		{"callback private IP", set("callback_url", "https://10.1.2.3/cb"), nil, "invalid_request"},
		{"callback metadata IP", set("callback_url", "https://169.254.169.254/latest"), nil, "invalid_request"},
		{"callback not a URL", set("callback_url", "not a url"), nil, "invalid_request"},
		{"callback with credentials", set("callback_url", "https://u:p@example.com/cb"), nil, "invalid_request"},
		{"callback full-width localhost", set("callback_url", "https://ｌｏｃａｌｈｏｓｔ/cb"), nil, "invalid_request"},
		{"callback localhost with two dots", set("callback_url", "https://localhost../cb"), nil, "invalid_request"},
		{"callback IPv4-compatible loopback", set("callback_url", "https://[::127.0.0.1]/cb"), nil, "invalid_request"},
		{"callback 6to4 of loopback", set("callback_url", "https://[2002:7f00:1::]/cb"), nil, "invalid_request"},
		{"lone surrogate", []byte(`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"t","spec":"\ud800"}`), nil, "invalid_request"},
		{"invalid UTF-8", []byte("{\"schema_version\":\"tickets.input.v1\",\"idempotency_key\":\"k\",\"title\":\"t\",\"spec\":\"\xff\"}"), nil, "invalid_request"},
		{"too large", set("spec", strings.Repeat("x", 1<<20)), nil, "request_too_large"},
	}
	for _, tt := range tests {
		r := w.do("POST", "/tickets/v1/jobs", w.key, tt.body, tt.header...)
		if r.status != http.StatusBadRequest || r.errorCode(t) != tt.code {
			t.Errorf("%s: %d %s; want 400 %s", tt.name, r.status, r.body, tt.code)
		}
	}
	list := w.do("GET", "/tickets/v1/jobs", w.key, nil)
	if jobs := list.json(t)["jobs"].([]any); len(jobs) != 0 {
		t.Errorf("rejected requests created %d jobs", len(jobs))
	}
	// The bounds themselves are accepted.
	for i, body := range [][]byte{opt("max_ticket_count", 1), opt("ticket_count", 20), opt("ticket_count", 2.0),
		valid(func(m map[string]any) { m["options"] = map[string]any{"ticket_count": 50, "max_ticket_count": 50} }),
		set("callback_url", "https://hooks.example.com/foresight")} {
		var m map[string]any
		json.Unmarshal(body, &m)
		m["idempotency_key"] = fmt.Sprint("ok-", i)
		b, _ := json.Marshal(m)
		if r := w.do("POST", "/tickets/v1/jobs", w.key, b); r.status != http.StatusAccepted {
			t.Errorf("valid body %s = %d %s", b, r.status, r.body)
		}
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true})
		ctx := context.Background()
		store := w.srv.Tickets().Store()

		readOnly, readKey := w.newClient("reader", "tickets:read")
		_ = readOnly
		revokedClient, revokedKey := w.newClient("revoked", "tickets:read")
		keys, _ := w.admin.ListTicketKeys(ctx, revokedClient.ID)
		if err := w.admin.RevokeTicketKey(ctx, revokedClient.ID, keys[0].ID); err != nil {
			t.Fatal(err)
		}
		expiredClient, _ := w.newClient("expired", "tickets:read")
		past := time.Now().Add(-time.Hour)
		expiredID := uuid.NewString()
		expiredKey, hash := tickets.NewKeySecret(expiredID)
		if err := store.CreateKey(ctx, tickets.APIKey{ID: expiredID, ClientID: expiredClient.ID, SecretHash: hash,
			Scopes: []tickets.Scope{tickets.ScopeRead}, ExpiresAt: &past, CreatedAt: past.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		suspendedClient, suspendedKey := w.newClient("suspended", "tickets:read")
		yes, no := true, false
		if _, err := w.admin.UpdateTicketClient(ctx, suspendedClient.ID, &yes, nil); err != nil {
			t.Fatal(err)
		}
		disabledClient, disabledKey := w.newClient("disabled", "tickets:read")
		if _, err := w.admin.UpdateTicketClient(ctx, disabledClient.ID, nil, &no); err != nil {
			t.Fatal(err)
		}
		forged := w.key[:len(w.key)-4] + "AAAA"

		tests := []struct {
			name, method, path, key, header string
			status                          int
			code                            string
		}{
			{"no header", "GET", "/tickets/v1/jobs", "", "", 401, "unauthorized"},
			{"basic scheme", "GET", "/tickets/v1/jobs", "", "Basic dXNlcjpwYXNz", 401, "unauthorized"},
			{"malformed key", "GET", "/tickets/v1/jobs", "not-a-key", "", 401, "unauthorized"},
			{"unknown key", "GET", "/tickets/v1/jobs", "fsk_" + strings.Repeat("0", 32) + "_secret", "", 401, "unauthorized"},
			{"forged secret", "GET", "/tickets/v1/jobs", forged, "", 401, "unauthorized"},
			{"revoked", "GET", "/tickets/v1/jobs", revokedKey, "", 401, "key_revoked"},
			{"expired", "GET", "/tickets/v1/schema", expiredKey, "", 401, "key_expired"},
			{"suspended", "GET", "/tickets/v1/jobs", suspendedKey, "", 403, "client_suspended"},
			{"feature disabled", "GET", "/tickets/v1/jobs", disabledKey, "", 403, "feature_disabled"},
			{"submit without scope", "POST", "/tickets/v1/jobs", readKey, "", 403, "forbidden"},
			{"alias without scope", "POST", "/v1/task-generation/jobs", readKey, "", 403, "forbidden"},
			{"cancel without scope", "DELETE", "/tickets/v1/jobs/" + uuid.NewString(), readKey, "", 403, "forbidden"},
		}
		for _, tt := range tests {
			var body []byte
			if tt.method == "POST" {
				body = submitBody("auth", "s", nil)
			}
			var header []string
			if tt.header != "" {
				header = []string{"Authorization", tt.header}
			}
			r := w.do(tt.method, tt.path, tt.key, body, header...)
			if r.status != tt.status || r.errorCode(t) != tt.code {
				t.Errorf("%s: %d %s; want %d %s", tt.name, r.status, r.body, tt.status, tt.code)
			}
			if tt.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s: no WWW-Authenticate: Bearer challenge", tt.name)
			}
		}
		// A read-only key reads.
		if r := w.do("GET", "/tickets/v1/jobs", readKey, nil); r.status != http.StatusOK {
			t.Errorf("read-only key listing = %d %s", r.status, r.body)
		}
	})
}

func TestJobsAreVisibleOnlyToTheirClient(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true})
		id := w.submit("mine", sampleSpec, nil)
		_, otherKey := w.newClient("other", "tickets:submit", "tickets:read", "tickets:cancel")
		for _, req := range []struct{ method, path string }{
			{"GET", "/tickets/v1/jobs/" + id}, {"GET", "/tickets/v1/jobs/" + id + "/result"}, {"DELETE", "/tickets/v1/jobs/" + id},
			{"GET", "/tickets/v1/jobs/" + uuid.NewString()},
		} {
			r := w.do(req.method, req.path, otherKey, nil)
			if r.status != http.StatusNotFound || r.errorCode(t) != "job_not_found" {
				t.Errorf("%s %s by another client = %d %s; want 404 job_not_found", req.method, req.path, r.status, r.body)
			}
		}
		if r := w.do("GET", "/tickets/v1/jobs", otherKey, nil); len(r.json(t)["jobs"].([]any)) != 0 {
			t.Errorf("another client lists %s", r.body)
		}
		if job := w.waitFor(id, tickets.StatusQueued); job["status"] != "queued" {
			t.Errorf("the owner's job changed: %v", job)
		}
	})
}

func TestPathValidation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noWorkers: true})
	for _, p := range []string{"/tickets/v1/jobs/123", "/tickets/v1/jobs/not-a-uuid/result", "/tickets/v1/jobs/{" + uuid.NewString() + "}"} {
		for _, method := range []string{"GET", "DELETE"} {
			if method == "DELETE" && strings.HasSuffix(p, "/result") {
				continue
			}
			r := w.do(method, p, w.key, nil)
			if r.status != http.StatusBadRequest || r.errorCode(t) != "invalid_request" {
				t.Errorf("%s %s = %d %s; want 400 invalid_request", method, p, r.status, r.body)
			}
		}
	}
	r := w.send("GET", "/tickets/v1/nothing", w.key, nil) // not in the document
	if r.status != http.StatusNotFound || r.errorCode(t) != "invalid_request" {
		t.Errorf("unknown path = %d %s", r.status, r.body)
	}
	r = w.send("PUT", "/tickets/v1/jobs", w.key, nil)
	if r.status != http.StatusMethodNotAllowed || r.errorCode(t) != "invalid_request" || r.header.Get("Allow") != "GET, POST" {
		t.Errorf("PUT /tickets/v1/jobs = %d %s Allow %q", r.status, r.body, r.header.Get("Allow"))
	}
	r = w.send("POST", "/tickets/v1/jobs/"+uuid.NewString(), w.key, nil)
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, DELETE" {
		t.Errorf("POST on a job = %d Allow %q", r.status, r.header.Get("Allow"))
	}
}

func TestListPaging(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true})
		want := map[string]bool{}
		for i := range 5 {
			want[w.submit(fmt.Sprint("p", i), "spec", nil)] = true
		}
		seen := map[string]bool{}
		cursor := ""
		for pages := 0; ; pages++ {
			path := "/tickets/v1/jobs?limit=2"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := w.do("GET", path, w.key, nil)
			m := r.json(t)
			for _, j := range m["jobs"].([]any) {
				seen[j.(map[string]any)["job_id"].(string)] = true
			}
			next, _ := m["next_cursor"].(string)
			if next == "" {
				break
			}
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			cursor = next
		}
		if len(seen) != 5 {
			t.Errorf("paging saw %d of 5 jobs", len(seen))
		}
		for _, q := range []string{"limit=0", "limit=101", "limit=x", "cursor=bogus", "status=done"} {
			if r := w.do("GET", "/tickets/v1/jobs?"+q, w.key, nil); r.status != http.StatusBadRequest {
				t.Errorf("list ?%s = %d; want 400", q, r.status)
			}
		}
		r := w.do("GET", "/tickets/v1/jobs?status=queued", w.key, nil)
		if n := len(r.json(t)["jobs"].([]any)); n != 5 {
			t.Errorf("status=queued lists %d jobs, want 5", n)
		}
	})
}

func TestCancel(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		// A queued job is cancelled at once.
		w := newWorld(t, db, worldOptions{noWorkers: true})
		id := w.submit("queued", sampleSpec, nil)
		r := w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil)
		job := r.json(t)
		if r.status != http.StatusOK || job["status"] != "cancelled" || job["stage"] != "queued" {
			t.Fatalf("cancel queued = %d %s", r.status, r.body)
		}
		if e, _ := job["error"].(map[string]any); e["code"] != "job_cancelled" {
			t.Errorf("cancelled job error = %v", job["error"])
		}
		r = w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil)
		if r.status != http.StatusConflict {
			t.Errorf("cancel of a cancelled job = %d %s; want 409", r.status, r.body)
		}
		if res := w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil); res.status != http.StatusOK || res.json(t)["status"] != "cancelled" {
			t.Errorf("result of a cancelled job = %d %s; want 200 with the job", res.status, res.body)
		}

		// A processing job (its worker elsewhere) becomes cancel_requested,
		// and stays so on a repeated cancel.
		id = w.submit("processing", sampleSpec, nil)
		if _, err := w.srv.Tickets().Store().UpdateJob(context.Background(), id, tickets.JobUpdate{
			From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, Stage: tickets.StageGeneratingTickets, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if res := w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil); res.status != http.StatusAccepted || res.errorCode(t) == "" {
			t.Errorf("result while processing = %d %s; want 202 with an error body", res.status, res.body)
		}
		for range 2 {
			r = w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil)
			if job := r.json(t); r.status != http.StatusOK || job["status"] != "cancel_requested" || job["stage"] != "generating_tickets" {
				t.Errorf("cancel processing = %d %s; want 200 cancel_requested keeping the stage", r.status, r.body)
			}
		}
	})
}

func TestCancelAbortsRunningGeneration(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		engine := &blockingEngine{}
		w := newWorld(t, db, worldOptions{config: func(c *server.Config) { c.Engine = engine }})
		id := w.submit("slow", sampleSpec, nil)
		waitStarted(t, engine)
		start := time.Now()
		r := w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil)
		if st := r.json(t)["status"]; r.status != http.StatusOK || (st != "cancel_requested" && st != "cancelled") {
			t.Fatalf("cancel = %d %s", r.status, r.body)
		}
		job := w.waitFor(id, tickets.StatusCancelled)
		t.Logf("cancelled %v after the request", time.Since(start))
		if job["stage"] != "generating_tickets" {
			t.Errorf("cancelled job stage = %v, want the last stage", job["stage"])
		}
		if engine.started.Load() != 1 {
			t.Errorf("engine started %d times", engine.started.Load())
		}
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	// One request back per 100 s, so that the test does not depend on how
	// fast the machine is (at 0.5 a second, a third request 2 s after the
	// first would pass).
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noWorkers: true, config: func(c *server.Config) {
		c.RateLimit, c.RateBurst = 0.01, 2
	}})
	for i := range 2 {
		if r := w.do("GET", "/tickets/v1/jobs", w.key, nil); r.status != http.StatusOK {
			t.Fatalf("request %d within the burst = %d", i, r.status)
		}
	}
	r := w.do("GET", "/tickets/v1/jobs", w.key, nil)
	if r.status != http.StatusTooManyRequests || r.errorCode(t) != "rate_limited" || r.header.Get("Retry-After") == "" {
		t.Fatalf("beyond the burst = %d %s Retry-After %q", r.status, r.body, r.header.Get("Retry-After"))
	}
	_, otherKey := w.newClient("other", "tickets:read")
	if r := w.do("GET", "/tickets/v1/jobs", otherKey, nil); r.status != http.StatusOK {
		t.Errorf("another key is limited too: %d", r.status)
	}
}

func TestQueueFull(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true, config: func(c *server.Config) { c.Tickets.MaxActiveJobs = 2 }})
		w.submit("a", "s", nil)
		w.submit("b", "s", nil)
		r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("c", "s", nil))
		if r.status != http.StatusTooManyRequests || r.errorCode(t) != "queue_full" || r.header.Get("Retry-After") == "" {
			t.Fatalf("third job = %d %s", r.status, r.body)
		}
		// A retry of an accepted job is not a new job.
		if r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("a", "s", nil)); r.status != http.StatusAccepted {
			t.Errorf("retry of an accepted job with a full queue = %d %s", r.status, r.body)
		}
	})
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{config: func(c *server.Config) {
			// Long enough for the job to complete first under the race
			// detector on a loaded machine (1.5 s was not, once).
			c.Tickets.JobLifetime = 4 * time.Second
			c.ExpiryInterval = 100 * time.Millisecond
		}})
		id := w.submit("short-lived", sampleSpec, nil)
		w.waitFor(id, tickets.StatusCompleted)
		if r := w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil); r.json(t)["schema_version"] != "tickets.result.v1" {
			t.Fatalf("result before expiry = %s", r.body)
		}
		job := w.waitFor(id, tickets.StatusExpired)
		if job["stage"] != "completed" {
			t.Errorf("expired job stage = %v", job["stage"])
		}
		r := w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil)
		if r.status != http.StatusOK || r.json(t)["status"] != "expired" {
			t.Errorf("result after expiry = %d %s; want 200 with the expired job", r.status, r.body)
		}
		stored, _ := w.srv.Tickets().Store().GetJob(context.Background(), "", id)
		if stored.Result != nil {
			t.Error("the expired job's result was not deleted")
		}
	})
}

func TestCallbacks(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w, recv := newCallbackWorld(t, db, func(c *server.Config) {
			c.Queue.CallbackRetries = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
		})
		secret := mustClientSecret(t, w)
		id := w.submit("cb", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/foresight"})
		got := recv.next(t, 20*time.Second, "callback")
		if err := webhook.Verify(secret, got.header, got.body, time.Now()); err != nil {
			t.Errorf("callback signature: %v", err)
		}
		var ev tickets.CallbackEvent
		json.Unmarshal(got.body, &ev)
		if ev.Type != "tickets.job.completed" || ev.Data.JobID != id || ev.Data.Status != tickets.StatusCompleted {
			t.Errorf("callback = %s", got.body)
		}
		if got.header.Get("webhook-id") != tickets.CallbackMessageID(id, tickets.StatusCompleted) {
			t.Errorf("webhook-id = %q", got.header.Get("webhook-id"))
		}

		// A receiver that always fails: three attempts, then callback_failed.
		recv.status.Store(http.StatusInternalServerError)
		id = w.submit("cb-fail", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/foresight"})
		var job map[string]any
		waitfor.Check(t, func() error {
			r := w.do("GET", "/tickets/v1/jobs/"+id, w.key, nil)
			job = r.json(t)
			if e, _ := job["error"].(map[string]any); e == nil || e["code"] != "callback_failed" {
				return fmt.Errorf("no callback_failed: %s", r.body)
			}
			return nil
		})
		if job["status"] != "completed" {
			t.Errorf("job with a failed callback is %v, want completed", job["status"])
		}
		// Deliveries are at least once: on a loaded machine the first job's
		// callback may have been delivered again (its answer came after the
		// attempt's time-out), so only the failing job's attempts count.
		attempts, others := 0, 0
		for len(recv.got) > 0 {
			got := <-recv.got
			var ev tickets.CallbackEvent
			if json.Unmarshal(got.body, &ev) == nil && ev.Data.JobID == id {
				attempts++
			} else {
				others++
			}
		}
		if others > 0 {
			t.Logf("%d more deliveries of the first job's callback", others)
		}
		if attempts != 3 {
			t.Errorf("callback attempts of the failing job = %d, want 3", attempts)
		}
	})
}

func mustClientSecret(t *testing.T, w *world) string {
	t.Helper()
	c, err := w.srv.Tickets().Store().GetClient(context.Background(), w.client.ID)
	if err != nil {
		t.Fatal(err)
	}
	return c.WebhookSecret
}

func TestJobsSurviveRestart(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		// Jobs accepted by a server without workers are queued when it stops.
		w := newWorld(t, db, worldOptions{noWorkers: true})
		var ids []string
		for i := range 3 {
			ids = append(ids, w.submit(fmt.Sprint("r", i), sampleSpec, nil))
		}
		// One was being worked on when the process died.
		if _, err := w.srv.Tickets().Store().UpdateJob(context.Background(), ids[0], tickets.JobUpdate{
			From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, Stage: tickets.StageGeneratingTickets, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		w.stop()

		engine := &countingEngine{Engine: heuristic.New()}
		cfg := testConfig(db)
		cfg.Engine = engine
		w.start(cfg, false)
		for _, id := range ids {
			w.waitFor(id, tickets.StatusCompleted)
		}
		// A second generation of a job (a wrong reclaim, the queue polls
		// every 50 ms) would start in the next moments; nothing signals
		// that none is coming, so the count is read after a fixed window.
		time.Sleep(200 * time.Millisecond)
		if n := engine.calls.Load(); n != 3 {
			t.Errorf("engine ran %d times for 3 jobs", n)
		}
	})
}

func TestTwoServersShareOnePostgres(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	engineA, engineB := &countingEngine{Engine: heuristic.New()}, &countingEngine{Engine: heuristic.New()}
	a := newWorld(t, db, worldOptions{config: func(c *server.Config) { c.Engine = engineA }})
	b := &world{t: t, api: a.api, client: a.client, key: a.key}
	cfg := testConfig(db)
	cfg.Engine = engineB
	b.start(cfg, false)
	t.Cleanup(b.stop)

	const n = 40
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := a
			if i%2 == 1 {
				target = b
			}
			r := target.do("POST", "/tickets/v1/jobs", a.key, submitBody(fmt.Sprint("shared-", i), sampleSpec, nil))
			if r.status != http.StatusAccepted {
				t.Errorf("submit = %d %s", r.status, r.body)
				return
			}
			ids[i] = r.json(t)["job_id"].(string)
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != "" {
			a.waitFor(id, tickets.StatusCompleted)
		}
	}
	// A second generation of a job would start in the next moments;
	// nothing signals that none is coming, so the count is read after a
	// fixed window.
	time.Sleep(200 * time.Millisecond)
	if got := engineA.calls.Load() + engineB.calls.Load(); got != n {
		t.Errorf("generations = %d (A %d, B %d), want exactly %d", got, engineA.calls.Load(), engineB.calls.Load(), n)
	}
	t.Logf("server A ran %d jobs, server B %d", engineA.calls.Load(), engineB.calls.Load())
}

// scriptedEngine behaves as the job's title says: "unavailable", "broken",
// "slow", "invalid"; anything else is the heuristic engine.
type scriptedEngine struct{ tickets.Engine }

func (e scriptedEngine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	switch req.Title {
	case "unavailable":
		return nil, &tickets.Error{Code: tickets.CodeEngineUnavailable, Message: "The model server refused the connection."}
	case "broken":
		return nil, fmt.Errorf("dial tcp 10.0.0.7:443: secret internal detail")
	case "slow":
		<-ctx.Done()
		return nil, ctx.Err()
	case "invalid":
		res, err := e.Engine.Generate(ctx, req)
		if err == nil {
			res.Tickets[0].Dependencies = []string{"SPEC-999"}
		}
		return res, err
	}
	return e.Engine.Generate(ctx, req)
}

func TestEngineFailures(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{config: func(c *server.Config) {
			c.Engine = scriptedEngine{heuristic.New()}
			// The slow job waits it out; the others must finish within
			// it under the race detector on a loaded machine, where a
			// job has taken longer than 1.5 s (TestExpiry).
			c.Queue.JobTimeout = 5 * time.Second
		}})
		for _, tt := range []struct{ title, code string }{
			{"unavailable", "engine_unavailable"}, {"broken", "internal_error"}, {"slow", "model_timeout"}, {"invalid", "model_output_invalid"},
		} {
			r := w.do("POST", "/tickets/v1/jobs", w.key, []byte(`{"schema_version":"tickets.input.v1","idempotency_key":"`+tt.title+`","title":"`+tt.title+`","spec":"- Users must log in."}`))
			id := r.json(t)["job_id"].(string)
			job := w.waitFor(id, tickets.StatusFailed, tickets.StatusCompleted)
			e, _ := job["error"].(map[string]any)
			if job["status"] != "failed" || job["stage"] != "failed" || e["code"] != tt.code {
				t.Errorf("%s: job = %v; want failed/failed with %s", tt.title, job, tt.code)
			}
			if msg, _ := e["message"].(string); strings.Contains(msg, "10.0.0.7") || strings.Contains(msg, "secret") {
				t.Errorf("%s: internal detail in the message: %q", tt.title, msg)
			}
			res := w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil)
			if res.status != http.StatusOK || res.json(t)["status"] != "failed" {
				t.Errorf("%s: result = %d %s; want 200 with the failed job", tt.title, res.status, res.body)
			}
		}
	})
}

func TestOptionsShapeTheResult(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{})
	id := w.submit("no-epics", sampleSpec, map[string]any{"options": map[string]any{"include_epics": false, "max_ticket_count": 3}})
	w.waitFor(id, tickets.StatusCompleted)
	var res tickets.Result
	json.Unmarshal(w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil).body, &res)
	if len(res.Tickets) == 0 || len(res.Tickets) > 3 {
		t.Errorf("max_ticket_count 3 gave %d tickets", len(res.Tickets))
	}
	for _, tk := range res.Tickets {
		if tk.TicketType == tickets.TypeEpic || tk.ParentExternalID != nil {
			t.Errorf("include_epics false gave %s %q with parent %v", tk.TicketType, tk.Title, tk.ParentExternalID)
		}
	}
}

func TestCallbackOnCancel(t *testing.T) {
	t.Parallel()
	recv, tr := newCallbackReceiver(t)
	db := "sqlite:" + t.TempDir() + "/f.db"
	w := newWorld(t, db, worldOptions{noWorkers: true, config: func(c *server.Config) { c.CallbackTransport = tr }})
	id := w.submit("cancel-cb", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/foresight"})
	if r := w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil); r.status != http.StatusOK {
		t.Fatalf("cancel = %d", r.status)
	}
	// The server has no workers; a second one on the same database delivers.
	cfg := testConfig(db)
	cfg.CallbackTransport = tr
	w.stop()
	w.start(cfg, false)
	got := recv.next(t, 20*time.Second, "callback for the cancelled job")
	var ev tickets.CallbackEvent
	json.Unmarshal(got.body, &ev)
	if ev.Type != "tickets.job.cancelled" || ev.Data.JobID != id || ev.Data.Error == nil || ev.Data.Error.Code != tickets.CodeJobCancelled {
		t.Errorf("callback = %s", got.body)
	}
}

func TestFinishedJobsCannotBeCancelled(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{config: func(c *server.Config) {
		c.Engine = scriptedEngine{heuristic.New()}
	}})
	done := w.submit("done", sampleSpec, nil)
	failed := w.do("POST", "/tickets/v1/jobs", w.key, []byte(`{"schema_version":"tickets.input.v1","idempotency_key":"f","title":"unavailable","spec":"s"}`)).json(t)["job_id"].(string)
	w.waitFor(done, tickets.StatusCompleted)
	w.waitFor(failed, tickets.StatusFailed)
	for _, id := range []string{done, failed} {
		before := w.do("GET", "/tickets/v1/jobs/"+id, w.key, nil).body
		r := w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil)
		if r.status != http.StatusConflict || r.errorCode(t) != "invalid_request" {
			t.Errorf("cancel of a finished job = %d %s; want 409", r.status, r.body)
		}
		if after := w.do("GET", "/tickets/v1/jobs/"+id, w.key, nil).body; string(after) != string(before) {
			t.Errorf("a refused cancel changed the job: %s → %s", before, after)
		}
	}
}

func TestSubmitIsRateLimited(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noWorkers: true, config: func(c *server.Config) {
		c.RateLimit, c.RateBurst = 0.5, 1
	}})
	w.submit("first", "s", nil)
	r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("second", "s", nil))
	if r.status != http.StatusTooManyRequests || r.errorCode(t) != "rate_limited" || r.header.Get("Retry-After") == "" {
		t.Fatalf("second submission = %d %s", r.status, r.body)
	}
	if jobs := w.do("GET", "/tickets/v1/jobs", "", nil); jobs.status != http.StatusUnauthorized {
		t.Errorf("no key = %d", jobs.status)
	}
}

// TestStopInTheMiddleOfAGeneration stops a server while a generation runs
// and starts another on the same database: the job is finished once.
func TestStopInTheMiddleOfAGeneration(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		engine := &blockingEngine{}
		w := newWorld(t, db, worldOptions{config: func(c *server.Config) { c.Engine = engine }})
		id := w.submit("interrupted", sampleSpec, nil)
		waitStarted(t, engine)
		w.stop() // graceful: the generation is cancelled and handed back, still processing
		counting := &countingEngine{Engine: heuristic.New()}
		cfg := testConfig(db)
		cfg.Engine = counting
		w.start(cfg, false)
		w.waitFor(id, tickets.StatusCompleted)
		// A second generation would start in the next moments; nothing
		// signals that none is coming, so the count is read after a fixed
		// window.
		time.Sleep(200 * time.Millisecond)
		if n := counting.calls.Load(); n != 1 {
			t.Errorf("the resumed job was generated %d times", n)
		}
		// The admin API counts the claim and the resumption, and names the
		// engine that finished the job.
		if j, err := w.admin.GetTicketJob(context.Background(), id); err != nil || j.Attempts != 2 || j.Engine == nil || *j.Engine != "heuristic" {
			t.Errorf("the resumed job in the admin API = %+v, %v; want 2 attempts by heuristic", j, err)
		}
	})
}

// TestCancelReachesTheNodeRunningTheJob cancels through one server while
// another runs the generation.
func TestCancelReachesTheNodeRunningTheJob(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	engine := &blockingEngine{}
	runner := newWorld(t, db, worldOptions{config: func(c *server.Config) { c.Engine = engine }})
	front := &world{t: t, api: runner.api, client: runner.client, key: runner.key}
	front.start(testConfig(db), true)
	t.Cleanup(func() { front.stop() })

	id := front.submit("elsewhere", sampleSpec, nil)
	waitStarted(t, engine)
	if r := front.do("DELETE", "/tickets/v1/jobs/"+id, front.key, nil); r.json(t)["status"] != "cancel_requested" {
		t.Fatalf("cancel through the other node = %s", r.body)
	}
	front.waitFor(id, tickets.StatusCancelled)
}

func TestExpiryOfUnfinishedJobsCallsBack(t *testing.T) {
	t.Parallel()
	recv, tr := newCallbackReceiver(t)
	db := "sqlite:" + t.TempDir() + "/f.db"
	w := newWorld(t, db, worldOptions{noWorkers: true})
	id := w.submit("never-run", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/x"})
	w.stop()
	// A server with a lifetime already over, whose engine never answers.
	cfg := testConfig(db)
	cfg.CallbackTransport = tr
	cfg.Engine = &blockingEngine{}
	cfg.ExpiryInterval = 50 * time.Millisecond
	w.start(cfg, false)
	if _, err := w.srv.Tickets().Store().ExpireJobs(context.Background(), time.Now().Add(8*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	job := w.waitFor(id, tickets.StatusExpired)
	got := recv.next(t, 20*time.Second, fmt.Sprintf("callback for the job that expired unfinished (%v)", job))
	var ev tickets.CallbackEvent
	json.Unmarshal(got.body, &ev)
	if ev.Type != "tickets.job.expired" || ev.Data.JobID != id {
		t.Errorf("callback = %s", got.body)
	}
}

func TestCallbackGoneStopsRetries(t *testing.T) {
	t.Parallel()
	w, recv := newCallbackWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) {
		c.Queue.CallbackRetries = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	})
	recv.status.Store(http.StatusGone)
	id := w.submit("gone", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/x"})
	var e map[string]any
	waitfor.True(t, "callback_failed after 410", func() bool {
		e, _ = w.do("GET", "/tickets/v1/jobs/"+id, w.key, nil).json(t)["error"].(map[string]any)
		return e != nil
	})
	if e["code"] != "callback_failed" || !strings.Contains(e["message"].(string), "410") {
		t.Errorf("error = %v", e)
	}
	// A wrong resend would come 10 ms after the 410; nothing signals that
	// none is coming, so the count is read after a fixed window.
	time.Sleep(200 * time.Millisecond)
	if n := len(recv.got); n != 1 {
		t.Errorf("410 Gone got %d attempts, want 1", n)
	}
}

// waitStarted waits until the engine's generation has begun.
func waitStarted(t *testing.T, e *blockingEngine) {
	t.Helper()
	waitfor.True(t, "the generation's start", func() bool { return e.started.Load() > 0 })
}

// TestLLMEnginesThroughTheAPI runs jobs through the public API with the
// openai and anthropic engines against fake provider servers.
func TestLLMEnginesThroughTheAPI(t *testing.T) {
	t.Parallel()
	drafted, err := heuristic.New().Generate(context.Background(), tickets.GenerationRequest{JobID: uuid.NewString(), Title: "Calendar", Spec: sampleSpec,
		Options: tickets.Options{MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}})
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := json.Marshal(map[string]any{"summary": drafted.Source.Summary, "tickets": drafted.Tickets,
		"risks": drafted.Risks, "open_questions": drafted.OpenQuestions})
	openaiFake := openaitest.New(t, openaitest.Reply{Content: string(answer)}, openaitest.Reply{Status: 401})
	anthropicFake := anthropictest.New(t, anthropictest.Reply{Text: string(answer)}, anthropictest.Reply{Status: 401})
	for _, engine := range []struct{ name, model string }{{"openai", "gpt-test"}, {"anthropic", "claude-test"}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{config: func(c *server.Config) {
				c.TicketsEngine = engine.name
				c.OpenAI = openai.Config{BaseURL: openaiFake.BaseURL(), APIKey: "sk-test-SECRET", Model: "gpt-test"}
				c.Anthropic = anthropic.Config{BaseURL: anthropicFake.BaseURL(), APIKey: "sk-ant-SECRET", Model: "claude-test"}
			}})
			checkLLMJobs(t, w, drafted, engine.model)
		})
	}
}

func checkLLMJobs(t *testing.T, w *world, drafted *tickets.Result, model string) {
	id := w.submit("llm", sampleSpec, nil)
	w.waitFor(id, tickets.StatusCompleted)
	var res tickets.Result
	json.Unmarshal(w.do("GET", "/tickets/v1/jobs/"+id+"/result", w.key, nil).body, &res)
	if res.JobID != id || len(res.Tickets) != len(drafted.Tickets) || res.Generation.Model != model || res.Generation.PromptTokens == nil {
		t.Errorf("result from the model: job %s, %d tickets, generation %+v", res.JobID, len(res.Tickets), res.Generation)
	}

	id = w.submit("llm-401", sampleSpec, nil)
	job := w.waitFor(id, tickets.StatusFailed)
	e, _ := job["error"].(map[string]any)
	if e["code"] != "engine_unavailable" || strings.Contains(fmt.Sprint(e["message"]), "SECRET") {
		t.Errorf("401 from the provider: %v", job)
	}
}
