package storetest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/cputime"
	"github.com/foresight-dev/foresight/internal/cputime/cputimetest"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// BenchmarkCreateJob creates jobs in s from 32 goroutines at once (as
// `foresight loadtest` keeps 32 submissions in flight), spread over 1,000
// clients, each job with a 1 KB spec, and reports beside the wall time the
// CPU time this process spent per job (cpu-ns/op), which other processes on
// a shared machine disturb less. On PostgreSQL the database's own CPU is
// not in it.
func BenchmarkCreateJob(b *testing.B, s tickets.Store) {
	ctx := context.Background()
	clients := make([]string, 1000)
	for i := range clients {
		c := tickets.Client{ID: uuid.NewString(), Name: fmt.Sprint("bench-", i), WebhookSecret: "whsec", TicketsEnabled: true, CreatedAt: t0}
		if err := s.CreateClient(ctx, c); err != nil {
			b.Fatal(err)
		}
		clients[i] = c.ID
	}
	spec := strings.Repeat("- Users must be able to export the report as CSV.\n", 20)
	var next atomic.Int64
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	cpu := cputime.Process()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			j := newJob(clients[i%int64(len(clients))], fmt.Sprint("bench-", i), time.Now().UTC().Truncate(time.Microsecond))
			j.Request.Spec = spec
			if _, created, err := s.CreateJob(ctx, j, 1<<30); err != nil || !created {
				b.Errorf("CreateJob = %v, created %v", err, created)
				return
			}
		}
	})
	cputimetest.ReportPerOp(b, cpu)
}
