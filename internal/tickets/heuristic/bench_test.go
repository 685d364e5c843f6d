package heuristic_test

import (
	"context"
	"testing"

	"github.com/foresight-dev/foresight/internal/cputime"
	"github.com/foresight-dev/foresight/internal/cputime/cputimetest"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
)

// BenchmarkGenerate50KB measures one generation over about 50 KB of spec
// (the three project specs repeated) with the default options. Besides
// the wall clock it reports the CPU time of the process per generation
// (cpu-ns/op), steadier on a loaded machine.
func BenchmarkGenerate50KB(b *testing.B) {
	spec := largeSpec(b)
	req := tickets.GenerationRequest{
		JobID: testJobID,
		Title: "Foresight",
		Spec:  spec,
		Options: tickets.Options{
			MaxTicketCount: tickets.DefaultMaxTicketCount,
			IncludeEpics:   true,
			DependencyMode: tickets.DependencyExplicit,
			OutputDetail:   tickets.DetailStandard,
		},
	}
	e := heuristic.New()
	b.SetBytes(int64(len(spec)))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := e.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	cputimetest.ReportPerOp(b, cpu)
}
