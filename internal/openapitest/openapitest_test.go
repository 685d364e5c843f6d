package openapitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/foresight-dev/foresight/api"
)

// recorder is a testing.TB that records failures instead of failing the
// test, so that a test can assert that Check did fail.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprint(args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.fatal = true
	r.mu.Unlock()
	panic(errFatal)
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

func (r *recorder) Fail()        { r.Errorf("Fail called") }
func (r *recorder) FailNow()     { r.Fatalf("FailNow called") }
func (r *recorder) Failed() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.errors) > 0 }

var errFatal = fmt.Errorf("recorder: fatal")

// check runs v.Check against a recorder and returns the failures it reported.
func check(t *testing.T, v *Validator, req *http.Request, reqBody []byte, resp *http.Response) []string {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != errFatal {
				panic(p)
			}
		}()
		v.Check(rec, req, reqBody, resp.StatusCode, resp.Header, body)
	}()
	return rec.errors
}

// serve starts a server that answers every request with status, content
// type and body, plus extra headers.
func serve(t *testing.T, status int, contentType, body string, extra ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			w.Header().Set(extra[i], extra[i+1])
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// exchange sends method path body to srv and checks the exchange with v.
func exchange(t *testing.T, v *Validator, srv *httptest.Server, method, path, body string) []string {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return check(t, v, resp.Request, []byte(body), resp)
}

func wantPass(t *testing.T, errs []string) {
	t.Helper()
	if len(errs) != 0 {
		t.Errorf("Check failed, want pass:\n%s", strings.Join(errs, "\n"))
	}
}

func wantFail(t *testing.T, errs []string, contains string) {
	t.Helper()
	if len(errs) == 0 {
		t.Fatalf("Check passed, want a failure mentioning %q", contains)
	}
	all := strings.Join(errs, "\n")
	if !strings.Contains(all, contains) {
		t.Errorf("Check failed, but without %q:\n%s", contains, all)
	}
	t.Logf("Check reported, as wanted:\n%s", all)
}

const jobID = "0b5e8f0e-2f7d-4c1e-9a3b-6d2f1e4c8a90"

func job(status, stage, errorJSON string) string {
	return `{"schema_version":"tickets.job.v1","job_id":"` + jobID + `","status":"` + status +
		`","stage":"` + stage + `","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:06Z",` +
		`"expires_at":"2026-01-09T03:04:05Z","error":` + errorJSON + `}`
}

func result(externalID string) string {
	return `{
	  "schema_version": "tickets.result.v1",
	  "job_id": "` + jobID + `",
	  "source": {"title": "Checkout", "summary": "A checkout flow."},
	  "tickets": [
	    {"external_id": "SPEC-1", "ticket_type": "epic", "title": "Checkout", "description": "The epic.",
	     "acceptance_criteria": ["Works"], "labels": ["checkout"], "dependencies": [],
	     "story_points": null, "priority": null, "parent_external_id": null, "metadata": {}},
	    {"external_id": "` + externalID + `", "ticket_type": "story", "title": "Pay", "description": "Pay by card.",
	     "acceptance_criteria": ["Card accepted", "Receipt sent"], "labels": [], "dependencies": ["SPEC-1"],
	     "story_points": 3, "priority": "high", "parent_external_id": "SPEC-1",
	     "metadata": {"component": "payments", "confidence": 0.8, "anything": [1, 2]}}
	  ],
	  "risks": [{"id": "RISK-1", "description": "PCI scope.", "severity": "high", "related_ticket_ids": ["SPEC-1"]}],
	  "open_questions": [{"id": "Q-1", "question": "Which PSP?", "related_ticket_ids": []}],
	  "generation": {"model": "heuristic", "duration_ms": 12, "prompt_tokens": null, "completion_tokens": null, "finish_reason": null}
	}`
}

func TestDocumentsLoadAndValidate(t *testing.T) {
	entries, err := api.Documents.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, ","), "admin.yaml,aggregator.yaml,bettor.yaml,tickets.yaml"; got != want {
		t.Errorf("api.Documents holds %s, want %s", got, want)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := api.Documents.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(data)
			if err != nil {
				t.Fatal(err)
			}
			if doc.OpenAPI != "3.1.0" {
				t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
			}
			if err := doc.Validate(context.Background()); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if v := Load(t, name); v.Document() == nil {
				t.Fatal("Load returned no document")
			}
		})
	}
}

func TestTicketsOperations(t *testing.T) {
	doc := Load(t, "tickets.yaml").Document()
	want := map[string]string{
		"SubmitTicketsJob":                     "POST /tickets/v1/jobs",
		"SubmitTaskGenerationJobCompatibility": "POST /v1/task-generation/jobs",
		"ListTicketsJobs":                      "GET /tickets/v1/jobs",
		"GetTicketsJob":                        "GET /tickets/v1/jobs/{job_id}",
		"CancelTicketsJob":                     "DELETE /tickets/v1/jobs/{job_id}",
		"GetTicketsJobResult":                  "GET /tickets/v1/jobs/{job_id}/result",
		"GetTicketsSchema":                     "GET /tickets/v1/schema",
	}
	got := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got[op.OperationID] = method + " " + path
		}
	}
	if len(got) != len(want) {
		t.Errorf("operations = %v, want %v", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s = %q, want %q", id, got[id], w)
		}
	}
}

func TestCheckTickets(t *testing.T) {
	v := Load(t, "tickets.yaml")

	t.Run("valid job passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", job("processing", "generating_tickets",
			`{"code":"model_timeout","message":"The model took too long."}`))
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""))
	})
	t.Run("null error passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", job("queued", "accepted", "null"))
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""))
	})
	t.Run("bogus status fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", job("bogus", "accepted", "null"))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "response does not match")
	})
	t.Run("missing error field fails", func(t *testing.T) {
		body := strings.Replace(job("queued", "accepted", "null"), `,"error":null`, "", 1)
		srv := serve(t, 200, "application/json", body)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "error")
	})
	t.Run("wrong schema_version const fails", func(t *testing.T) {
		body := strings.Replace(job("queued", "accepted", "null"), "tickets.job.v1", "tickets.job.v2", 1)
		srv := serve(t, 200, "application/json", body)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "response does not match")
	})
	t.Run("error code outside the list fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", job("failed", "failed", `{"code":"oops","message":"x"}`))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "response does not match")
	})
	t.Run("undocumented status fails", func(t *testing.T) {
		srv := serve(t, http.StatusTeapot, "application/json", `{"error":{"code":"internal_error","message":"tea"}}`)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "status is not supported")
	})
	t.Run("status not documented for the operation fails", func(t *testing.T) {
		// 409 exists in the document, but only for CancelTicketsJob.
		srv := serve(t, http.StatusConflict, "application/json", `{"error":{"code":"invalid_request","message":"no"}}`)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "status is not supported")
	})
	t.Run("undocumented path fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{}`)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/nope", ""), "no operation")
	})
	t.Run("valid result passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", result("SPEC-2"))
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""))
	})
	t.Run("terminal job without result passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", job("failed", "failed", `{"code":"model_output_invalid","message":"bad"}`))
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""))
	})
	t.Run("result with bad external_id fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", result("X-1"))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""), "response does not match")
	})
	t.Run("result with story_points out of range fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", strings.Replace(result("SPEC-2"), `"story_points": 3`, `"story_points": 101`, 1))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""), "response does not match")
	})
	t.Run("result with confidence over 1 fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", strings.Replace(result("SPEC-2"), `"confidence": 0.8`, `"confidence": 1.5`, 1))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""), "response does not match")
	})
	t.Run("result with null labels fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", strings.Replace(result("SPEC-2"), `"labels": []`, `"labels": null`, 1))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""), "response does not match")
	})
	t.Run("result not ready 202 passes", func(t *testing.T) {
		srv := serve(t, 202, "application/json", `{"error":{"code":"invalid_request","message":"The result is not ready."}}`)
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID+"/result", ""))
	})
	t.Run("submit 202 passes", func(t *testing.T) {
		srv := serve(t, 202, "application/json", `{"schema_version":"tickets.job.v1","job_id":"`+jobID+`","status":"queued",`+
			`"status_url":"http://x/tickets/v1/jobs/`+jobID+`","result_url":"http://x/tickets/v1/jobs/`+jobID+`/result","created_at":"2026-01-02T03:04:05.123Z"}`)
		body := `{"schema_version":"tickets.input.v1","idempotency_key":"k1","title":"T","spec":"S",` +
			`"options":{"max_ticket_count":10,"output_detail":"compact"},"callback_url":"https://example.com/cb"}`
		wantPass(t, exchange(t, v, srv, "POST", "/tickets/v1/jobs", body))
		wantPass(t, exchange(t, v, srv, "POST", "/v1/task-generation/jobs", body))
	})
	t.Run("invalid request answered with success fails", func(t *testing.T) {
		srv := serve(t, 202, "application/json", `{"schema_version":"tickets.job.v1","job_id":"`+jobID+`","status":"queued",`+
			`"status_url":"u","result_url":"u","created_at":"2026-01-02T03:04:05Z"}`)
		body := `{"schema_version":"tickets.input.v1","idempotency_key":"k1","title":"T","spec":"S","options":{"max_ticket_count":51}}`
		wantFail(t, exchange(t, v, srv, "POST", "/tickets/v1/jobs", body), "request does not match")
	})
	t.Run("invalid request answered with 400 passes", func(t *testing.T) {
		srv := serve(t, 400, "application/json", `{"error":{"code":"invalid_request","message":"max_ticket_count must be 1 to 50."}}`)
		body := `{"schema_version":"tickets.input.v1","idempotency_key":"k1","title":"T","spec":"S","options":{"max_ticket_count":51},"extra":1}`
		wantPass(t, exchange(t, v, srv, "POST", "/tickets/v1/jobs", body))
	})
	t.Run("malformed job id answered with 400 passes", func(t *testing.T) {
		srv := serve(t, 400, "application/json", `{"error":{"code":"invalid_request","message":"job_id must be a UUID."}}`)
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/not-a-uuid", ""))
	})
	t.Run("malformed job id answered with 200 fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", job("queued", "accepted", "null"))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/not-a-uuid", ""), "request does not match")
	})
	t.Run("non-uuid job_id in a response fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", strings.Replace(job("queued", "accepted", "null"), jobID, "job-1", 1))
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs/"+jobID, ""), "response does not match")
	})
	t.Run("list with paging passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"jobs":[`+job("completed", "completed", "null")+`],"next_cursor":"abc"}`)
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs?limit=1&status=completed", ""))
		srv = serve(t, 200, "application/json", `{"jobs":[],"next_cursor":null}`)
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs", ""))
	})
	t.Run("list without jobs fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"next_cursor":null}`)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/jobs", ""), "response does not match")
	})
	t.Run("429 with Retry-After passes", func(t *testing.T) {
		srv := serve(t, 429, "application/json", `{"error":{"code":"rate_limited","message":"Slow down."}}`, "Retry-After", "3")
		wantPass(t, exchange(t, v, srv, "GET", "/tickets/v1/schema", ""))
	})
	t.Run("429 without Retry-After fails", func(t *testing.T) {
		srv := serve(t, 429, "application/json", `{"error":{"code":"rate_limited","message":"Slow down."}}`)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/schema", ""), "Retry-After")
	})
	t.Run("wrong content type fails", func(t *testing.T) {
		srv := serve(t, 200, "text/plain", `{"input_schema_version":"a","result_schema_version":"b","schema_json":"{}"}`)
		wantFail(t, exchange(t, v, srv, "GET", "/tickets/v1/schema", ""), "Content-Type")
	})
	t.Run("cancel 409 passes", func(t *testing.T) {
		srv := serve(t, 409, "application/json; charset=utf-8", `{"error":{"code":"invalid_request","message":"The job is completed."}}`)
		wantPass(t, exchange(t, v, srv, "DELETE", "/tickets/v1/jobs/"+jobID, ""))
	})
}

func TestCheckAdmin(t *testing.T) {
	v := Load(t, "admin.yaml")
	problem := `{"type":"about:blank","title":"Not Found","status":404,"detail":"No ticket client tc1.","code":"not_found"}`

	t.Run("problem 404 passes", func(t *testing.T) {
		srv := serve(t, 404, "application/problem+json", problem)
		wantPass(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1", ""))
	})
	t.Run("404 as plain JSON fails", func(t *testing.T) {
		srv := serve(t, 404, "application/json", problem)
		wantFail(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1", ""), "Content-Type")
	})
	t.Run("problem without code fails", func(t *testing.T) {
		srv := serve(t, 404, "application/problem+json", `{"type":"about:blank","title":"Not Found","status":404,"detail":"x"}`)
		wantFail(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1", ""), "response does not match")
	})
	t.Run("create client passes", func(t *testing.T) {
		srv := serve(t, 201, "application/json", `{"id":"tc1","name":"Team","webhook_secret":"whsec_abc","suspended":false,"tickets_enabled":true,"created_at":"2026-01-02T03:04:05Z"}`)
		wantPass(t, exchange(t, v, srv, "POST", "/admin/v1/ticket-clients", `{"name":"Team"}`))
	})
	t.Run("client read leaking the secret fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"id":"tc1","name":"Team","webhook_secret":"whsec_abc","suspended":false,"tickets_enabled":true,"created_at":"2026-01-02T03:04:05Z"}`)
		wantFail(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1", ""), "response does not match")
	})
	t.Run("create key passes", func(t *testing.T) {
		srv := serve(t, 201, "application/json", `{"id":"k1","client_id":"tc1","key":"fsk_x","scopes":["tickets:submit","tickets:read"],"expires_at":null,"created_at":"2026-01-02T03:04:05Z"}`)
		wantPass(t, exchange(t, v, srv, "POST", "/admin/v1/ticket-clients/tc1/keys", `{"scopes":["tickets:submit","tickets:read"]}`))
	})
	t.Run("create key with unknown scope answered 201 fails", func(t *testing.T) {
		srv := serve(t, 201, "application/json", `{"id":"k1","client_id":"tc1","key":"fsk_x","scopes":["tickets:submit"],"expires_at":null,"created_at":"2026-01-02T03:04:05Z"}`)
		wantFail(t, exchange(t, v, srv, "POST", "/admin/v1/ticket-clients/tc1/keys", `{"scopes":["tickets:admin"]}`), "request does not match")
	})
	t.Run("list keys passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"items":[{"id":"k1","client_id":"tc1","scopes":["tickets:read"],"expires_at":"2027-01-01T00:00:00Z","revoked_at":null,"created_at":"2026-01-02T03:04:05Z"}],"next_cursor":null}`)
		wantPass(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1/keys", ""))
	})
	t.Run("list keys with a number for a nullable date fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"items":[{"id":"k1","client_id":"tc1","scopes":["tickets:read"],"expires_at":null,"revoked_at":123,"created_at":"2026-01-02T03:04:05Z"}],"next_cursor":null}`)
		wantFail(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1/keys", ""), "revoked_at")
	})
	t.Run("list keys without next_cursor fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"items":[]}`)
		wantFail(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1/keys", ""), "next_cursor")
	})
	t.Run("list keys with a bad date fails", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"items":[{"id":"k1","client_id":"tc1","scopes":["tickets:read"],"expires_at":"tomorrow","revoked_at":null,"created_at":"2026-01-02T03:04:05Z"}],"next_cursor":null}`)
		wantFail(t, exchange(t, v, srv, "GET", "/admin/v1/ticket-clients/tc1/keys", ""), "expires_at")
	})
	t.Run("revoke 204 passes", func(t *testing.T) {
		srv := serve(t, 204, "", "")
		wantPass(t, exchange(t, v, srv, "DELETE", "/admin/v1/ticket-clients/tc1/keys/k1", ""))
	})
	t.Run("patch passes", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"id":"tc1","name":"Team","suspended":true,"tickets_enabled":true,"created_at":"2026-01-02T03:04:05Z"}`)
		wantPass(t, exchange(t, v, srv, "PATCH", "/admin/v1/ticket-clients/tc1", `{"suspended":true}`))
	})
}

// TestCheckServerSideRequest checks an exchange seen from inside a handler
// (a server request has no scheme or host in its URL).
func TestCheckServerSideRequest(t *testing.T) {
	v := Load(t, "tickets.yaml")
	req := httptest.NewRequest("GET", "/tickets/v1/jobs/"+jobID, nil)
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(200)
	rec.Body = bytes.NewBufferString(job("cancel_requested", "generating_tickets", "null"))
	wantPass(t, check(t, v, req, nil, rec.Result()))
}

// TestCheckConcurrent runs Check from parallel goroutines on one shared
// Validator, as parallel handler tests do (run with -race).
func TestCheckConcurrent(t *testing.T) {
	v := Load(t, "tickets.yaml")
	srv := serve(t, 200, "application/json", result("SPEC-2"))
	var wg sync.WaitGroup
	errs := make([][]string, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest("GET", srv.URL+"/tickets/v1/jobs/"+jobID+"/result", nil)
			if err != nil {
				t.Error(err)
				return
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			errs[i] = check(t, v, req, nil, resp)
		}()
	}
	wg.Wait()
	for _, e := range errs {
		wantPass(t, e)
	}
}
