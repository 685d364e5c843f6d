package ratelimit

import (
	"testing"
	"time"
)

// setClock makes l read the time from the returned clock, which starts
// at 2026-01-01 UTC; tests move it forward.
func setClock(l *Limiter) *time.Time {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	return &now
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	l := New(2, 3)
	now := setClock(l)

	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d within the burst was refused", i+1)
		}
	}
	ok, retry := l.Allow("a")
	if ok || retry <= 0 || retry > 500*time.Millisecond {
		t.Fatalf("request beyond the burst = %v, retry after %v; want refused with a wait up to 500ms", ok, retry)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another key shares the bucket")
	}
	*now = now.Add(retry)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refused after waiting the advertised time")
	}
}

func TestLimiterDisabled(t *testing.T) {
	t.Parallel()
	l := New(0, 0)
	for range 1000 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatal("disabled limiter refused a request")
		}
	}
}

func TestLimiterForgetsIdleKeys(t *testing.T) {
	t.Parallel()
	l := New(10, 10)
	now := setClock(l)
	l.Allow("a")
	*now = now.Add(2 * time.Minute)
	l.Allow("b")
	if _, kept := l.buckets["a"]; kept {
		t.Error("idle bucket was not forgotten")
	}
}
