package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// endlessEngine stands for a generation longer than any test: on the job
// titled "Spec adversarial" it runs the heuristic engine over the spec again
// and again (counting the passes), so the job's cancellation reaches it
// only through the heuristic engine's own looks at its context. Other jobs
// get one pass.
type endlessEngine struct {
	tickets.Engine
	passes atomic.Int32
}

func (e *endlessEngine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	if req.Title != "Spec adversarial" {
		return e.Engine.Generate(ctx, req)
	}
	for {
		if _, err := e.Engine.Generate(ctx, req); err != nil {
			return nil, err
		}
		e.passes.Add(1)
	}
}

// TestCancelFreesTheWorkerOfAnAdversarialSpec runs one generation worker
// on a spec of distinct bullets (one generation of which kept a worker busy
// for minutes, whatever cancel or time-out said), cancels the job in the
// middle of a generation, and checks that the worker then serves another
// client's job.
func TestCancelFreesTheWorkerOfAnAdversarialSpec(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		engine := &endlessEngine{Engine: heuristic.New()}
		w := newWorld(t, db, worldOptions{config: func(c *server.Config) {
			c.Engine = engine
			c.Queue.Workers = 1
		}})
		var spec strings.Builder
		for i := 0; spec.Len() < 64<<10; i++ {
			fmt.Fprintf(&spec, "- Feature %d must work\n", i)
		}
		id := w.submit("adversarial", spec.String(), nil)
		// A cancel is checked between the engine's phases anyway; after a
		// first pass it arrives anywhere in the next ones.
		waitfor.True(t, "one generation of the adversarial spec", func() bool { return engine.passes.Load() > 0 })

		other := *w
		_, other.key = w.newClient("other", "tickets:submit", "tickets:read")
		queued := other.submit("ordinary", sampleSpec, nil)

		if r := w.do("DELETE", "/tickets/v1/jobs/"+id, w.key, nil); r.status != http.StatusOK {
			t.Fatalf("cancel = %d %s", r.status, r.body)
		}
		w.waitFor(id, tickets.StatusCancelled)
		other.waitFor(queued, tickets.StatusCompleted)
	})
}
