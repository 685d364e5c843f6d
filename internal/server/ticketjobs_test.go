package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestAdminTicketJobs submits jobs of two clients through the ticket API
// (one completes and calls back, one fails inside the engine, one of the
// other client completes) and reads them through GET /admin/v1/ticket-jobs
// and GET /admin/v1/ticket-jobs/{id}: their fields, the filters, paging
// and the refusals, against api/admin.yaml.
func TestAdminTicketJobs(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testAdminTicketJobs)
}

func testAdminTicketJobs(t *testing.T, db string) {
	w, recv := newCallbackWorld(t, db, func(c *server.Config) { c.Engine = scriptedEngine{heuristic.New()} })
	get := func(path string) (int, map[string]any) {
		t.Helper()
		return w.asAdmin(t, "GET", path, nil)
	}
	ids := func(page map[string]any) []string {
		t.Helper()
		items, ok := page["items"].([]any)
		if !ok {
			t.Fatalf("no items in %v", page)
		}
		out := []string{}
		for _, it := range items {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}

	done := w.submit("done", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/foresight"})
	broken := w.submit("broken", sampleSpec, map[string]any{"title": "broken"})
	other, otherKey := w.newClient("other team", "tickets:submit", "tickets:read")
	r := w.do("POST", "/tickets/v1/jobs", otherKey, submitBody("theirs", sampleSpec, nil))
	if r.status != 202 {
		t.Fatalf("submit as the other client = %d %s", r.status, r.body)
	}
	theirs := r.json(t)["job_id"].(string)
	w.waitFor(done, tickets.StatusCompleted)
	w.waitFor(broken, tickets.StatusFailed)
	recv.next(t, 20*time.Second, "callback")
	// The delivery is recorded after the receiver answers; wait for it and
	// for the other client's job through the admin API itself.
	waitJob := func(id string, ok func(map[string]any) bool) map[string]any {
		t.Helper()
		var job map[string]any
		waitfor.Check(t, func() error {
			var st int
			if st, job = get("/admin/v1/ticket-jobs/" + id); st != 200 || !ok(job) {
				return fmt.Errorf("job %s = %d %v", id, st, job)
			}
			return nil
		})
		return job
	}
	doneJob := waitJob(done, func(j map[string]any) bool { return j["callback"] == "delivered" })
	theirJob := waitJob(theirs, func(j map[string]any) bool { return j["status"] == "completed" })
	_, brokenJob := get("/admin/v1/ticket-jobs/" + broken)

	var result tickets.Result
	json.Unmarshal(w.do("GET", "/tickets/v1/jobs/"+done+"/result", w.key, nil).body, &result)
	times := func(j map[string]any, names ...string) []time.Time {
		t.Helper()
		var out []time.Time
		for _, n := range names {
			s, _ := j[n].(string)
			at, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				t.Fatalf("%s of %v: %v", n, j["id"], err)
			}
			out = append(out, at)
		}
		return out
	}
	ts := times(doneJob, "created_at", "started_at", "finished_at", "callback_delivered_at")
	if doneJob["client_id"] != w.client.ID || doneJob["client_name"] != "team" || doneJob["title"] != "Spec done" ||
		doneJob["status"] != "completed" || doneJob["stage"] != "completed" || doneJob["error"] != nil ||
		doneJob["engine"] != "heuristic" || doneJob["attempts"] != float64(1) || doneJob["ticket_count"] != float64(len(result.Tickets)) ||
		ts[1].Before(ts[0]) || ts[2].Before(ts[1]) || ts[3].Before(ts[2]) {
		t.Errorf("the completed job = %v; want %d tickets, times in order", doneJob, len(result.Tickets))
	}
	for _, secret := range []string{"hooks.example.com", "Team calendar", "SPEC-1"} {
		if raw, _ := json.Marshal(doneJob); strings.Contains(string(raw), secret) {
			t.Errorf("the admin API shows %q of the job's request or result: %s", secret, raw)
		}
	}
	e, _ := brokenJob["error"].(map[string]any)
	times(brokenJob, "started_at", "finished_at")
	if brokenJob["status"] != "failed" || e["code"] != "internal_error" || e["message"] != "The generation failed unexpectedly." ||
		brokenJob["ticket_count"] != nil || brokenJob["callback"] != "none" || brokenJob["callback_delivered_at"] != nil || brokenJob["title"] != "broken" {
		t.Errorf("the failed job = %v", brokenJob)
	}
	if raw, _ := json.Marshal(brokenJob); strings.Contains(string(raw), "10.0.0.7") || strings.Contains(string(raw), "secret") {
		t.Errorf("the failed job shows the engine's internal error: %s", raw)
	}
	if theirJob["client_id"] != other.ID || theirJob["client_name"] != "other team" || theirJob["callback"] != "none" {
		t.Errorf("the other client's job = %v", theirJob)
	}

	// Every client's jobs, newest first: the list says so, and each item
	// is what the job's own read answers.
	st, all := get("/admin/v1/ticket-jobs")
	if st != 200 || all["next_cursor"] != nil || len(ids(all)) != 3 {
		t.Fatalf("list = %d %v", st, all)
	}
	items := all["items"].([]any)
	for i, it := range items {
		item := it.(map[string]any)
		if i > 0 {
			prev := items[i-1].(map[string]any)
			if a, b := times(prev, "created_at")[0], times(item, "created_at")[0]; b.After(a) || b.Equal(a) && item["id"].(string) > prev["id"].(string) {
				t.Errorf("not newest first: %v after %v", item["id"], prev["id"])
			}
		}
		if _, one := get("/admin/v1/ticket-jobs/" + item["id"].(string)); !reflect.DeepEqual(one, item) {
			t.Errorf("listed %v, read %v", item, one)
		}
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"client_id=" + w.client.ID, []string{done, broken}},
		{"client_id=" + other.ID, []string{theirs}},
		{"status=failed", []string{broken}},
		{"status=completed", []string{done, theirs}},
		{"client_id=" + other.ID + "&status=failed", nil},
		{"client_id=" + uuid.NewString(), nil},
		{"status=queued", nil},
	} {
		// The same jobs as in the whole list, in its order.
		want := slices.DeleteFunc(ids(all), func(id string) bool { return !slices.Contains(tc.want, id) })
		st, page := get("/admin/v1/ticket-jobs?" + tc.query)
		if got := ids(page); st != 200 || !slices.Equal(got, want) {
			t.Errorf("?%s = %d %v, want %v", tc.query, st, got, want)
		}
	}

	var paged []string
	cursor := ""
	for range 5 {
		path := "/admin/v1/ticket-jobs?limit=1"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		_, page := get(path)
		paged = append(paged, ids(page)...)
		next, _ := page["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if want := ids(all); !reflect.DeepEqual(paged, want) {
		t.Errorf("one a page: %v, want %v", paged, want)
	}

	for _, bad := range []string{"status=done", "status=Completed", "client_id=team", "cursor=garbage", "limit=0", "limit=101", "limit=ten"} {
		if st, p := get("/admin/v1/ticket-jobs?" + bad); st != 400 || p["code"] != "invalid_request" {
			t.Errorf("?%s = %d %v, want 400 invalid_request", bad, st, p)
		}
	}
	for _, unknown := range []string{uuid.NewString(), "not-a-uuid"} {
		if st, p := get("/admin/v1/ticket-jobs/" + unknown); st != 404 || p["code"] != "not_found" {
			t.Errorf("job %s = %d %v, want 404 not_found", unknown, st, p)
		}
	}
	if st, _ := w.adminDo(t, "GET", "/admin/v1/ticket-jobs", "", nil); st != 401 {
		t.Errorf("no token = %d, want 401", st)
	}

	// The Go client.
	ctx := context.Background()
	jobs, next, err := w.admin.ListTicketJobs(ctx, admin.TicketJobQuery{ClientID: w.client.ID, Status: "failed", Limit: 5})
	if err != nil || next != "" || len(jobs) != 1 || jobs[0].ID != broken || jobs[0].Error == nil || jobs[0].Error.Code != "internal_error" {
		t.Errorf("ListTicketJobs = %+v %q %v", jobs, next, err)
	}
	j, err := w.admin.GetTicketJob(ctx, done)
	if err != nil || j.TicketCount == nil || *j.TicketCount != len(result.Tickets) || j.Callback != "delivered" || j.StartedAt == nil {
		t.Errorf("GetTicketJob = %+v, %v", j, err)
	}
	var p *admin.Problem
	if _, _, err := w.admin.ListTicketJobs(ctx, admin.TicketJobQuery{Status: "done"}); !errors.As(err, &p) || p.Status != 400 {
		t.Errorf("ListTicketJobs(bad status) err = %v, want a 400 problem", err)
	}
}
