// Package aggregatortest is the conformance suite of aggregator.Store: every
// storage engine runs it.
package aggregatortest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/aggregator"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Run runs the suite; newStore returns an empty store.
func Run(t *testing.T, newStore func(t *testing.T) aggregator.Store) {
	t.Run("launch is used once", func(t *testing.T) { testLaunchOnce(t, newStore(t)) })
	t.Run("launch expires", func(t *testing.T) { testLaunchExpiry(t, newStore(t)) })
	t.Run("keys", func(t *testing.T) { testKeys(t, newStore(t)) })
	t.Run("expired launches deleted", func(t *testing.T) { testDeleteLaunches(t, newStore(t)) })
}

func launch(hash string) aggregator.Launch {
	return aggregator.Launch{TokenHash: hash, OperatorID: "agg", CasinoID: "casino-1", AccountID: "player-1", Currency: "EUR",
		SessionID: "1b4e28ba-2fa1-41d2-883f-0016d3cca427", Locale: "de", CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)}
}

func testLaunchOnce(t *testing.T, s aggregator.Store) {
	ctx := context.Background()
	want := launch("h1")
	if err := s.CreateLaunch(ctx, want); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseLaunch(ctx, "unknown", t0); !errors.Is(err, aggregator.ErrLaunchInvalid) {
		t.Errorf("unknown launch: %v, want ErrLaunchInvalid", err)
	}
	// Ten concurrent exchanges: exactly one gets the launch.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []aggregator.Launch
	for range 10 {
		wg.Go(func() {
			l, err := s.UseLaunch(ctx, "h1", t0.Add(time.Second))
			switch {
			case err == nil:
				mu.Lock()
				got = append(got, l)
				mu.Unlock()
			case !errors.Is(err, aggregator.ErrLaunchInvalid):
				t.Errorf("UseLaunch: %v", err)
			}
		})
	}
	wg.Wait()
	if len(got) != 1 {
		t.Fatalf("%d exchanges got the launch, want 1", len(got))
	}
	if got[0] != want {
		t.Errorf("launch = %+v, want %+v", got[0], want)
	}
}

func testLaunchExpiry(t *testing.T, s aggregator.Store) {
	ctx := context.Background()
	demo := launch("h2")
	demo.AccountID, demo.SessionID, demo.Demo = "", "", true
	if err := s.CreateLaunch(ctx, demo); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseLaunch(ctx, "h2", t0.Add(time.Minute)); !errors.Is(err, aggregator.ErrLaunchInvalid) {
		t.Errorf("launch used at its expiry: %v, want ErrLaunchInvalid", err)
	}
	if err := s.CreateLaunch(ctx, launch("h3")); err != nil {
		t.Fatal(err)
	}
	if l, err := s.UseLaunch(ctx, "h3", t0.Add(59*time.Second)); err != nil || l.Demo {
		t.Errorf("launch before its expiry: %+v, %v", l, err)
	}
}

func testKeys(t *testing.T, s aggregator.Store) {
	ctx := context.Background()
	if keys, err := s.PlatformKeys(ctx); err != nil || len(keys) != 0 {
		t.Fatalf("empty store: %v, %v", keys, err)
	}
	a := aggregator.StoredKey{ID: "k1", PrivatePEM: "pem-1", CreatedAt: t0}
	b := aggregator.StoredKey{ID: "k2", PrivatePEM: "pem-2", CreatedAt: t0.Add(time.Hour)}
	for _, k := range []aggregator.StoredKey{b, a, {ID: "k1", PrivatePEM: "another", CreatedAt: t0.Add(2 * time.Hour)}} {
		if err := s.AddPlatformKey(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := s.PlatformKeys(ctx)
	if err != nil || len(keys) != 2 || keys[0] != a || keys[1] != b {
		t.Errorf("keys = %+v, %v; want k1 (first stored) then k2, oldest first", keys, err)
	}
}

func testDeleteLaunches(t *testing.T, s aggregator.Store) {
	ctx := context.Background()
	for i, h := range []string{"old-used", "old", "live"} {
		l := launch(h)
		l.ExpiresAt = t0.Add(time.Duration(i) * time.Hour)
		if err := s.CreateLaunch(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.UseLaunch(ctx, "old-used", t0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteLaunches(ctx, t0.Add(90*time.Minute)); err != nil || n != 2 {
		t.Fatalf("DeleteLaunches = %d, %v; want 2", n, err)
	}
	if _, err := s.UseLaunch(ctx, "old", t0.Add(-time.Minute)); !errors.Is(err, aggregator.ErrLaunchInvalid) {
		t.Errorf("a deleted launch: %v", err)
	}
	if _, err := s.UseLaunch(ctx, "live", t0); err != nil {
		t.Errorf("the live launch: %v", err)
	}
}
