package ledgertest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/ledger"
)

// Benchmark measures transfers a second on a store (docs/performance.md):
// deposits from the funding account to 1,000 bettors, and stakes held then
// posted from those bettors to the house account, with b.RunParallel's
// goroutines (-cpu sets how many). Every deposit writes the funding
// account and every stake the house account: those two rows are where
// writers queue. Verify then reads the whole ledger the runs left (-benchtime
// sets its size).
func Benchmark(b *testing.B, store ledger.Store) {
	ctx := context.Background()
	l := ledger.New(store, ledger.Options{})
	var seq atomic.Int64
	b.Run("Deposit", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := seq.Add(1)
				if _, _, err := l.Transfer(ctx, deposit(fmt.Sprintf("bd%d", n), fmt.Sprintf("b%d", n%1000), "100")); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("HoldAndPost", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := seq.Add(1)
				key := fmt.Sprintf("bs%d", n)
				if _, _, err := l.Hold(ctx, stake(key, fmt.Sprintf("b%d", n%1000), "0.01")); err != nil {
					b.Error(err)
					return
				}
				if _, _, err := l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: key + "/post", PendingKey: key}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	// Verify runs once, whatever b.N: its time is the ms/verify metric.
	b.Run("Verify", func(b *testing.B) {
		start := time.Now()
		r, err := ledger.Verify(ctx, store)
		if err != nil || !r.OK {
			b.Fatalf("verify after the benchmark: %+v %v", r.Discrepancies[:min(3, len(r.Discrepancies))], err)
		}
		took := time.Since(start)
		for b.Loop() {
		}
		// After the loop: b.Loop's start drops metrics reported before.
		b.ReportMetric(float64(took.Milliseconds()), "ms/verify")
		b.ReportMetric(float64(r.Transfers), "transfers")
		b.ReportMetric(float64(r.Entries), "entries")
	})
}
