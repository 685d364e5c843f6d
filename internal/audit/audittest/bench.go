package audittest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/audit"
)

// Benchmark measures appends a second on a store (docs/performance.md),
// with b.RunParallel's goroutines (-cpu sets how many): a cashier
// movement's entry (keyed, with its states), and the same key again (a
// replay, which stores nothing).
func Benchmark(b *testing.B, store audit.Store) {
	ctx := context.Background()
	var seq atomic.Int64
	cashier := func(n int64) audit.Entry {
		e := entry(time.Now().UTC().Truncate(time.Microsecond), cashierA, audit.BettorCredited, audit.TargetBettor, fmt.Sprintf("b%d", n%1000), "alpha")
		e.Key = fmt.Sprintf("cashier:alpha:dep-%d", n)
		return e
	}
	b.Run("Append", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if ok, err := store.Append(ctx, cashier(seq.Add(1))); err != nil || !ok {
					b.Errorf("Append = %v, %v", ok, err)
					return
				}
			}
		})
	})
	last := seq.Load()
	b.Run("Replay", func(b *testing.B) {
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				e := cashier(1 + n.Add(1)%max(last, 1))
				e.ID = uuid.NewString()
				if ok, err := store.Append(ctx, e); err != nil || (ok && last > 0) {
					b.Errorf("Append of a stored key = %v, %v", ok, err)
					return
				}
			}
		})
	})
}
