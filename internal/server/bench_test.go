package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// BenchmarkJobToCompleted measures one job from submission to completed
// with the heuristic engine on an idle server with the default queue
// settings: it submits over HTTP and then reads the job's status from the
// store every millisecond. median-ms is the number docs/performance.md
// records.
func BenchmarkJobToCompleted(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			db := "sqlite:" + filepath.Join(b.TempDir(), "bench.db")
			if engine == "postgres" {
				db = pgtest.NewDatabase(b)
			}
			w := newWorld(b, db, worldOptions{noContractCheck: true, config: func(c *server.Config) {
				*c = defaultsOnly(*c)
			}})
			var took []time.Duration
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				id := w.submit(fmt.Sprint("bench-", i), sampleSpec, nil)
				for {
					st, err := w.srv.Tickets().Store().JobStatus(context.Background(), id)
					if err != nil {
						b.Fatal(err)
					}
					if st == tickets.StatusCompleted {
						break
					}
					if st.Terminal() {
						b.Fatalf("job %s", st)
					}
					time.Sleep(time.Millisecond) // the latency's resolution; waitfor's growing interval would distort it
				}
				took = append(took, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
		})
	}
}

// defaultsOnly undoes the test speed-ups of testConfig, keeping the
// database and the admin token.
func defaultsOnly(c server.Config) server.Config {
	d := server.DefaultConfig()
	d.DatabaseURL, d.AdminToken, d.RateLimit = c.DatabaseURL, c.AdminToken, 0
	d.Tickets.MaxActiveJobs = 1 << 20
	return d
}
