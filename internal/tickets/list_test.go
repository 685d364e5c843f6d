package tickets_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestListReadsNoSpecs: a page of jobs is read without the jobs' specs and
// results. Twenty jobs with 1 MiB specs (stored escaped, six times that)
// made one list allocate hundreds of MiB (1.9 GiB for 100 such jobs, a
// review found); the bound below is far under one spec's stored size.
func TestListReadsNoSpecs(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.Open(t)
	svc := tickets.NewService(db.TicketStore(), nil, nil, tickets.DefaultConfig(), nil)
	c, err := svc.CreateClient(ctx, "lister")
	if err != nil {
		t.Fatal(err)
	}
	p := tickets.Principal{ClientID: c.ID}
	spec := strings.Repeat("<", 1<<20-200) // stored as \u003c
	const jobs = 20
	for i := range jobs {
		sub, err := tickets.ParseSubmission([]byte(`{"schema_version":"tickets.input.v1","idempotency_key":"k` + strconv.Itoa(i) + `","title":"T","spec":"` + spec + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Submit(ctx, p, sub); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	page, _, err := svc.List(ctx, p, "", 100, "")
	runtime.ReadMemStats(&after)
	if err != nil || len(page) != jobs {
		t.Fatalf("List = %d jobs, %v; want %d", len(page), err, jobs)
	}
	if page[0].Record().JobID == "" {
		t.Errorf("a listed job has no id: %+v", page[0])
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("List of %d jobs allocated %d MiB, want under 4 MiB: it reads the specs", jobs, n>>20)
	}
}
