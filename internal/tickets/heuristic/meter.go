package heuristic

import "context"

// checkEvery is how many steps of work pass between two looks at the
// context: a step is one iteration of a loop whose length grows with the
// spec (a line, a sentence, a pair of drafts compared), so a cancelled
// generation stops within microseconds of work.
const checkEvery = 1024

// meter counts the steps of one generation and aborts it once its context
// is done. The count is the engine's measure of work: tests assert that it
// grows about linearly with the size of the spec.
type meter struct {
	ctx   context.Context
	steps int64
	next  int64
}

// aborted carries the context's error out of a generation through panic;
// Generate recovers it.
type aborted struct{ err error }

func newMeter(ctx context.Context) *meter { return &meter{ctx: ctx, next: checkEvery} }

// tick records n steps and, every checkEvery steps, aborts the generation
// when the context is done.
func (m *meter) tick(n int) {
	m.steps += int64(n)
	if m.steps < m.next {
		return
	}
	m.next = m.steps + checkEvery
	if err := m.ctx.Err(); err != nil {
		panic(aborted{err})
	}
}
