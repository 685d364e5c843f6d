package heuristic

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foresight-dev/foresight/internal/cputime"
	"github.com/foresight-dev/foresight/internal/cputime/cputimetest"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// adversarialShape builds a spec of about size bytes whose shape has made
// (or could make) the engine do more than linear work.
type adversarialShape struct {
	name  string
	build func(size int) string
}

// repeatTo repeats line(i) for i = 0, 1, ... until the text reaches size bytes.
func repeatTo(size int, head string, line func(i int) string) string {
	var sb strings.Builder
	sb.WriteString(head)
	for i := 0; sb.Len() < size; i++ {
		sb.WriteString(line(i))
	}
	return sb.String()
}

var adversarialShapes = []adversarialShape{
	{"distinct-bullets", func(n int) string {
		return repeatTo(n, "", func(i int) string { return fmt.Sprintf("- Feature %d must work\n", i) })
	}},
	{"requirement-bullets", func(n int) string {
		return repeatTo(n, "# Product\n\n## Requirements\n\n", func(i int) string {
			return fmt.Sprintf("- Users can export report%d as CSV with column%d and filter%d.\n", i, i, i)
		})
	}},
	{"labelled-items", func(n int) string {
		return repeatTo(n, "## Features\n\n", func(i int) string {
			return fmt.Sprintf("- **Widget%d**: the system must render widget%d within budget%d.\n", i, i, i)
		})
	}},
	{"many-headings", func(n int) string {
		return repeatTo(n, "# Spec\n\n", func(i int) string {
			return fmt.Sprintf("## Area%d\n\nThe service must handle area%d requests.\n\n", i, i)
		})
	}},
	{"deep-headings", func(n int) string {
		return repeatTo(n, "", func(i int) string {
			return fmt.Sprintf("%s Level%d\n\nThe thing%d must work.\n\n", strings.Repeat("#", 1+i%6), i, i)
		})
	}},
	{"deep-list", func(n int) string {
		return repeatTo(n, "## Requirements\n\n", func(i int) string {
			return fmt.Sprintf("%s- Step%d must finish.\n", strings.Repeat(" ", 2*(i%200)), i)
		})
	}},
	{"list-continuation", func(n int) string {
		return repeatTo(n, "- The first item must\n", func(i int) string { return fmt.Sprintf("  continue%d\n", i) })
	}},
	{"field-table", func(n int) string {
		return repeatTo(n, "## Resource\n\n| Field | Type | Description |\n|---|---|---|\n", func(i int) string {
			return fmt.Sprintf("| field%d | string | must be set%d |\n", i, i)
		})
	}},
	{"endpoint-table", func(n int) string {
		return repeatTo(n, "## Endpoints\n\n| Method | Path | Purpose |\n|---|---|---|\n", func(i int) string {
			return fmt.Sprintf("| POST | /v1/things%d/{id} | creates thing%d |\n", i, i)
		})
	}},
	{"rule-table", func(n int) string {
		return repeatTo(n, "## Rules\n\n| Case | Outcome |\n|---|---|\n", func(i int) string {
			return fmt.Sprintf("| case%d happens | the system must reject it%d |\n", i, i)
		})
	}},
	{"state-table", func(n int) string {
		return repeatTo(n, "## States\n\n| State | Trigger | Next state |\n|---|---|---|\n", func(i int) string {
			return fmt.Sprintf("| s%d | event%d | s%d |\n", i, i, i+1)
		})
	}},
	{"endpoints-in-text", func(n int) string {
		return repeatTo(n, "## API\n\n", func(i int) string {
			return fmt.Sprintf("The client calls POST /v1/item%d/run and GET /v1/item%d.\n", i, i)
		})
	}},
	{"one-huge-line", func(n int) string {
		return repeatTo(n, "", func(i int) string { return fmt.Sprintf("word%d ", i) })
	}},
	{"one-huge-sentence-line", func(n int) string {
		return repeatTo(n, "", func(i int) string { return fmt.Sprintf("The system must do thing%d. ", i) })
	}},
	{"code-blocks", func(n int) string {
		return repeatTo(n, "## Code\n\n", func(i int) string { return fmt.Sprintf("```\nx%d := %d\n```\n", i, i) })
	}},
	{"unclosed-fence", func(n int) string {
		return repeatTo(n, "```\n", func(i int) string { return fmt.Sprintf("line %d\n", i) })
	}},
	{"repeated-words", func(n int) string {
		return repeatTo(n, "", func(int) string { return "must must must must must must must must\n" })
	}},
	{"repeated-bullet", func(n int) string {
		return repeatTo(n, "", func(int) string { return "- The feature must work\n" })
	}},
	{"questions", func(n int) string {
		return repeatTo(n, "## Open questions\n\n", func(i int) string {
			return fmt.Sprintf("- Should option%d be enabled by default?\n- The limit%d is TBD.\n", i, i)
		})
	}},
	{"brackets", func(n int) string {
		return repeatTo(n, "", func(i int) string { return "((([[[{{{ must " })
	}},
	{"backticks", func(n int) string {
		return repeatTo(n, "", func(i int) string { return "`a` b. " })
	}},
	{"pipes", func(n int) string {
		return repeatTo(n, "| a | b |\n|---|---|\n", func(i int) string { return "|||||||||||||||||||\n" })
	}},
	{"punctuation", func(n int) string {
		return repeatTo(n, "", func(i int) string { return "*_~>#.!?:;-—–…\"'`|" })
	}},
	{"unicode", func(n int) string {
		return repeatTo(n, "", func(i int) string { return fmt.Sprintf("Ünïcödé%d mùst wörk ẞ́̈ 日本語%d. ", i, i) })
	}},
	{"links-html", func(n int) string {
		return repeatTo(n, "", func(i int) string { return fmt.Sprintf("[link%d](http://x/%d) <br> <!-- c%d ", i, i, i) })
	}},
	{"setext", func(n int) string {
		return repeatTo(n, "", func(i int) string { return fmt.Sprintf("Title %d must\n===\n\n", i) })
	}},
	{"commands", func(n int) string {
		return repeatTo(n, "## Commands\n\n", func(i int) string { return fmt.Sprintf("- `tool cmd%d` — runs step%d.\n", i, i) })
	}},
	{"stories", func(n int) string {
		return repeatTo(n, "", func(i int) string {
			return fmt.Sprintf("As a user%d, I want report%d so that I can plan%d.\n\n", i, i, i)
		})
	}},
	{"bug-report", func(n int) string {
		return repeatTo(n, "The app crashes.\n\nSteps to reproduce:\n", func(i int) string { return fmt.Sprintf("%d. Tap button%d\n", i+1, i) })
	}},
	{"cross-cutting", func(n int) string {
		return repeatTo(n, "", func(i int) string {
			return fmt.Sprintf("## Errors %d\n\nThe service must return error%d.\n\n## Limits %d\n\nThe service must limit rate%d.\n\n", i, i, i, i)
		})
	}},
}

func adversarialRequest(spec string) tickets.GenerationRequest {
	return tickets.GenerationRequest{JobID: "00000000-0000-4000-8000-000000000000", Title: "Adversarial", Spec: spec,
		Options: tickets.Options{MaxTicketCount: tickets.DefaultMaxTicketCount, IncludeEpics: true,
			DependencyMode: tickets.DependencyExplicit, OutputDetail: tickets.DetailStandard}}
}

// TestWorkGrowsLinearly generates every adversarial shape at two sizes and
// compares the steps of work the engine counted, and the bytes it
// allocated (which catch a text built by repeated concatenation): eight
// times the spec may cost about eight times as much (a little more for
// n log n), never the sixty-four times of a quadratic pass.
func TestWorkGrowsLinearly(t *testing.T) {
	const small, large = 16 << 10, 128 << 10
	for _, sh := range adversarialShapes {
		t.Run(sh.name, func(t *testing.T) {
			var steps, bytes [2]uint64
			for i, size := range []int{small, large} {
				spec := sh.build(size)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				res, n, err := generate(context.Background(), adversarialRequest(spec))
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Tickets) == 0 || len(res.Tickets) > tickets.DefaultMaxTicketCount {
					t.Errorf("%d KB: %d tickets", size>>10, len(res.Tickets))
				}
				steps[i], bytes[i] = uint64(n), after.TotalAlloc-before.TotalAlloc
			}
			if steps[1] > 12*steps[0] {
				t.Errorf("%d steps at %d KB, %d steps at %d KB: the work grows faster than the spec", steps[0], small>>10, steps[1], large>>10)
			}
			if bytes[1] > 12*bytes[0] {
				t.Errorf("%d bytes allocated at %d KB, %d at %d KB: the work grows faster than the spec", bytes[0], small>>10, bytes[1], large>>10)
			}
			t.Logf("%d KB: %d steps, %d bytes; %d KB: %d steps, %d bytes", small>>10, steps[0], bytes[0], large>>10, steps[1], bytes[1])
		})
	}
}

// countdownContext is a context that reports itself cancelled from its
// n-th look on; it counts the looks.
type countdownContext struct {
	context.Context
	cancelAt int64
	looks    atomic.Int64
}

func (c *countdownContext) Err() error {
	if c.looks.Add(1) >= c.cancelAt {
		return context.Canceled
	}
	return nil
}

// TestCancelStopsAGenerationInItsLoops cancels a generation of a spec of
// distinct bullets in the middle of its work: the engine must return
// context.Canceled at its next look at the context, not after the phase
// (the greedy of fit on this spec ran for minutes).
func TestCancelStopsAGenerationInItsLoops(t *testing.T) {
	ctx := &countdownContext{Context: context.Background(), cancelAt: 20}
	res, _, err := generate(ctx, adversarialRequest(adversarialShapes[0].build(64<<10)))
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("generate = %v, %v; want context.Canceled", res, err)
	}
	if n := ctx.looks.Load(); n != ctx.cancelAt {
		t.Errorf("the engine looked at the context %d times, want %d: it went on after the cancellation", n, ctx.cancelAt)
	}
}

// BenchmarkAdversarial generates each adversarial shape at the 1 MiB
// request body limit, reporting the CPU time per generation besides the
// wall clock. CI runs it once per shape (-benchtime 1x) to bound the time
// of the worst specs.
func BenchmarkAdversarial(b *testing.B) {
	for _, sh := range adversarialShapes {
		req := adversarialRequest(sh.build(1 << 20))
		b.Run(sh.name, func(b *testing.B) {
			b.SetBytes(int64(len(req.Spec)))
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := New().Generate(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			cputimetest.ReportPerOp(b, cpu)
		})
	}
}
