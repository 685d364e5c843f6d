package jobload

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRun submits jobs, briefly, to a server in this process with its
// workers, and to the bare handler beside it.
func TestRun(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "load.db")
	var report, errs bytes.Buffer
	err := Run(context.Background(), Options{DatabaseURL: url, DatabaseName: "the test's database", Workers: true, Clients: 3,
		Duration: 200 * time.Millisecond, Concurrency: 4, Rate: 20}, &report, &errs)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, report.String(), errs.String())
	}
	for _, want := range []string{"database the test's database, workers true, concurrency 4, 200ms per phase",
		"bare net/http handler, max", "POST /tickets/v1/jobs, max", "bare net/http handler, 20/s", "POST /tickets/v1/jobs, 20/s", "statuses map[202:"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report\n%s\nwithout %q", report.String(), want)
		}
	}
	if errs.Len() > 0 {
		t.Errorf("stopping the server: %s", errs.String())
	}
}
