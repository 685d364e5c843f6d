package backofficetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/browsertest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// heldEngine is the heuristic engine, except that the spec titled
// heldTitle waits until release is closed, and the one titled
// unavailableTitle fails as an engine whose model server refuses the
// connection.
type heldEngine struct {
	tickets.Engine
	release chan struct{}
}

const (
	heldTitle        = "Team calendar"
	unavailableTitle = "Billing export"
)

func (e heldEngine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	switch req.Title {
	case heldTitle:
		select {
		case <-e.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case unavailableTitle:
		return nil, &tickets.Error{Code: tickets.CodeEngineUnavailable, Message: "The model server refused the connection."}
	}
	return e.Engine.Generate(ctx, req)
}

// submitJob submits a spec titled title through the ticket API with key
// and returns the job's id.
func (w *world) submitJob(key, title string) string {
	w.T.Helper()
	body, _ := json.Marshal(map[string]string{"schema_version": "tickets.input.v1", "idempotency_key": title,
		"title": title, "spec": "- Users must log in with their e-mail address.\n- Admins can export the monthly report."})
	status, data := browsertest.Request(w.T, "POST", w.URL+"/tickets/v1/jobs", key, string(body))
	var job struct {
		JobID string `json:"job_id"`
	}
	if status != http.StatusAccepted || json.Unmarshal(data, &job) != nil || job.JobID == "" {
		w.T.Fatalf("submitting %q = %d %s", title, status, data)
	}
	return job.JobID
}

// waitJob waits until the admin API shows the job with status, and
// returns it.
func (w *world) waitJob(id, status string) admin.TicketJob {
	w.T.Helper()
	var j admin.TicketJob
	waitfor.Check(w.T, func() error {
		var err error
		if j, err = w.admin.GetTicketJob(context.Background(), id); err != nil {
			w.T.Fatalf("job %s: %v", id, err)
		}
		if j.Status != status {
			return fmt.Errorf("job %s is %s; waited for %s", id, j.Status, status)
		}
		return nil
	})
	return j
}

// newTicketClient creates a ticket client with a key that submits and
// reads.
func (w *world) newTicketClient(name string) (admin.TicketClient, string) {
	w.T.Helper()
	ctx := context.Background()
	c, err := w.admin.CreateTicketClient(ctx, name)
	if err != nil {
		w.T.Fatal(err)
	}
	k, err := w.admin.CreateTicketKey(ctx, c.ID, []string{"tickets:submit", "tickets:read"}, nil)
	if err != nil {
		w.T.Fatal(err)
	}
	return c, k.Key
}

// TestTicketJobs submits jobs of two clients through the ticket API with
// their keys and follows them in the backoffice: each with its status,
// one seen moving from processing to completed without a reload, the
// filters by status and client, a job's details with a link to its
// client, the client's own list, paging, and phone width.
func TestTicketJobs(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	releaseHeld := func() { once.Do(func() { close(release) }) }
	t.Cleanup(releaseHeld)
	w := newWorld(t, func(c *server.Config) { c.Engine = heldEngine{heuristic.New(), release} })
	growth, growthKey := w.newTicketClient("Growth")
	search, searchKey := w.newTicketClient("Search")
	held := w.submitJob(growthKey, heldTitle)
	failed := w.submitJob(growthKey, unavailableTitle)
	done := w.submitJob(searchKey, "Search onboarding")
	w.waitJob(held, "processing")
	w.waitJob(failed, "failed")
	w.waitJob(done, "completed")
	name := map[string]string{held: "held", failed: "failed", done: "done"}

	tb := w.openScreen("tickets")
	tb.WaitFor("the clients", "document.body.dataset.view === 'tickets' && document.querySelector('[data-service-nav=jobs]')")
	tb.Click("[data-service-nav=jobs]")
	tb.WaitFor("the three jobs", "document.querySelectorAll('tr[data-job]').length === 3")
	shown := func() string {
		t.Helper()
		var rows [][2]string
		tb.Eval("Array.from(document.querySelectorAll('tr[data-job]'), e => [e.dataset.job, e.dataset.status])", &rows)
		var out []string
		for _, r := range rows {
			out = append(out, name[r[0]]+":"+r[1])
		}
		return strings.Join(out, " ")
	}
	if got, want := shown(), "done:completed failed:failed held:processing"; got != want {
		t.Errorf("jobs shown %q, want newest first %q", got, want)
	}
	row := func(id string) string { return fmt.Sprintf("tr[data-job=%q]", id) }
	if got := tb.Text(row(failed) + " .badge"); got != "failed" {
		t.Errorf("the failed job's badge says %q", got)
	}
	if got := tb.Text(row(failed) + " td:last-child"); got != "engine_unavailable" {
		t.Errorf("the failed job's error column says %q", got)
	}
	if got := tb.Text(row(done) + " td:nth-child(3)"); got != "Search" {
		t.Errorf("the completed job's client column says %q", got)
	}
	var labelled bool
	tb.Eval("Array.from(document.querySelectorAll('#view select, #view input')).every(e => e.labels.length > 0)", &labelled)
	if !labelled {
		t.Error("a control of the jobs screen has no label")
	}
	tb.WaitFor("the refresh announced", "document.querySelector('[data-jobs-status]').dataset.refreshing === 'true'")
	tb.screenshot("ticket-jobs")

	// The held job finishes; the page shows it without being reloaded.
	var marked bool
	tb.Eval("(window.__sameDocument = true)", &marked)
	releaseHeld()
	heldJob := w.waitJob(held, "completed")
	tb.WaitFor("the held job completed on screen", fmt.Sprintf("document.querySelector('%s[data-status=completed]')", row(held)))
	tb.WaitText("[data-jobs-status]", "“"+heldTitle+"” is now completed.")
	var same bool
	tb.Eval("window.__sameDocument === true && location.hash === '#/tickets/jobs'", &same)
	if !same {
		t.Error("the page was reloaded or left to show the completed job")
	}
	tb.WaitFor("the refresh stopped", "document.querySelector('[data-jobs-status]').dataset.refreshing === 'false'")
	if got := tb.Text(row(held) + " td:nth-child(6)"); heldJob.TicketCount == nil || got != fmt.Sprint(*heldJob.TicketCount) {
		t.Errorf("the held job shows %q tickets; the admin API says %v", got, heldJob.TicketCount)
	}

	for _, tc := range []struct {
		name, client, status string
		want                 []string
	}{
		{"failed", "", "failed", []string{failed}},
		{"Search's", search.ID, "", []string{done}},
		{"Growth's completed", growth.ID, "completed", []string{held}},
		{"Search's failed", search.ID, "failed", nil},
		{"every", "", "", []string{done, failed, held}},
	} {
		tb.choose("[data-filter=client]", tc.client)
		tb.choose("[data-filter=status]", tc.status)
		tb.WaitFor(tc.name+" jobs", fmt.Sprintf("Array.from(document.querySelectorAll('tr[data-job]'), e => e.dataset.job).join(',') === %q && document.querySelector('[data-jobs-status]').textContent.startsWith('%d job')",
			strings.Join(tc.want, ","), len(tc.want)))
	}

	// A job's details, and its client.
	tb.Click(row(failed) + " td:nth-child(2) a")
	tb.WaitFor("the job's page", fmt.Sprintf("document.querySelector('[data-job-detail=%q]')", failed))
	detail := tb.Text("[data-job-detail]")
	for _, want := range []string{"engine_unavailable: The model server refused the connection.", "Engineheuristic", "Attempts1", "Growth (" + growth.ID + ")", "none (the job did not complete)"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the failed job's details %q lack %q", detail, want)
		}
	}
	tb.Click("[data-client-link]")
	tb.WaitFor("the client's page", "document.querySelector('[data-client-jobs]')")
	if got := tb.Text("#view h1"); got != "Growth" {
		t.Errorf("the job's client link led to %q", got)
	}
	tb.Click("[data-client-jobs]")
	tb.WaitFor("the client's two jobs", fmt.Sprintf("document.querySelector('[data-filter=client]')?.value === %q && Array.from(document.querySelectorAll('tr[data-job]'), e => e.dataset.job).join(',') === %q",
		growth.ID, failed+","+held))

	// A page is 50 jobs; the rest come with "Load more".
	for i := range 50 {
		w.submitJob(searchKey, fmt.Sprint("bulk ", i))
	}
	tb.choose("[data-filter=client]", "")
	tb.WaitFor("the first page", "document.querySelectorAll('tr[data-job]').length === 50 && document.querySelector('[data-jobs-status]').textContent.includes('more to load')")
	tb.Click("[data-load-more]")
	tb.WaitFor("every job", "document.querySelectorAll('tr[data-job]').length === 53")

	// Phone width: nothing but the table scrolls sideways.
	tb.Viewport(360, 740)
	for _, screen := range []string{"tickets/jobs", "tickets/jobs/" + failed} {
		var reset bool
		tb.Eval("(document.body.dataset.view = '', true)", &reset)
		tb.Navigate(w.URL + "/backoffice/#/" + screen)
		tb.WaitFor(screen, "document.body.dataset.view === 'tickets' && document.querySelector('[data-job-detail], tr[data-job]')")
		if wide := tb.pageWidth(); wide > 360 {
			t.Errorf("#/%s is %d px wide at a phone's 360", screen, wide)
		}
	}
}
