// Package audittest is the conformance suite every audit.Store passes:
// entries read back as written, newest first; every filter; paging; a
// keyed entry stored once, under concurrency too; and the table refusing
// UPDATE and DELETE behind the store's back.
package audittest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/audit"
)

// Database is a store for one test and a way to run SQL on its database
// behind the store's back (Exec runs one statement without parameters).
type Database struct {
	Store audit.Store
	Exec  func(query string) error
}

// Run runs the suite; newDatabase returns an empty database for one test.
func Run(t *testing.T, newDatabase func(t *testing.T) Database) {
	t.Run("RoundTrip", func(t *testing.T) { t.Parallel(); testRoundTrip(t, newDatabase(t).Store) })
	t.Run("Filters", func(t *testing.T) { t.Parallel(); testFilters(t, newDatabase(t).Store) })
	t.Run("Paging", func(t *testing.T) { t.Parallel(); testPaging(t, newDatabase(t).Store) })
	t.Run("Keyed", func(t *testing.T) { t.Parallel(); testKeyed(t, newDatabase(t).Store) })
	t.Run("AppendOnly", func(t *testing.T) { t.Parallel(); testAppendOnly(t, newDatabase(t)) })
}

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 123456000, time.UTC)

var (
	staff    = audit.Actor{Kind: audit.ActorAdmin, Name: "platform staff"}
	cashierA = audit.Actor{Kind: audit.ActorOperatorCredential, Name: "cashier", CredentialID: uuid.NewString(), OperatorID: "alpha"}
)

func entry(at time.Time, actor audit.Actor, action, kind, id, operator string) audit.Entry {
	return audit.Entry{ID: uuid.NewString(), At: at, Actor: actor, Action: action, TargetKind: kind, TargetID: id, OperatorID: operator,
		ClientAddress: "192.0.2.7", RequestID: "req-" + id,
		Before: json.RawMessage(`{"status":"open"}`), After: json.RawMessage(`{"status":"suspended"}`)}
}

func appendAll(t *testing.T, s audit.Store, entries ...audit.Entry) {
	t.Helper()
	for _, e := range entries {
		ok, err := s.Append(context.Background(), e)
		if err != nil || !ok {
			t.Fatalf("Append %s = %v, %v", e.Action, ok, err)
		}
	}
}

func list(t *testing.T, s audit.Store, f audit.Filter) []audit.Entry {
	t.Helper()
	if f.Limit == 0 {
		f.Limit = 100
	}
	got, err := s.List(context.Background(), f)
	if err != nil {
		t.Fatalf("List %+v: %v", f, err)
	}
	return got
}

func ids(entries []audit.Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.TargetID)
	}
	return out
}

// sameJSON reports whether a and b are the same JSON value (a store may
// keep JSON in a normal form: jsonb reorders keys and spaces).
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return (len(a) == 0 || string(a) == "null") && (len(b) == 0 || string(b) == "null")
	}
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// testRoundTrip: every field reads back as written, newest first, with a
// Seq that grows; a creation's null before stays null.
func testRoundTrip(t *testing.T, s audit.Store) {
	first := entry(t0, staff, audit.MarketSuspended, audit.TargetMarket, "m1", "")
	second := entry(t0.Add(time.Second), cashierA, audit.BettorCredited, audit.TargetBettor, "b1", "alpha")
	second.Before = nil
	second.After = json.RawMessage(`{"balance": "10.00", "nested": {"list": [1, "two"]}}`)
	appendAll(t, s, first, second)
	got := list(t, s, audit.Filter{})
	if len(got) != 2 {
		t.Fatalf("List = %d entries, want 2", len(got))
	}
	if got[0].Seq <= got[1].Seq || got[1].Seq <= 0 {
		t.Errorf("seqs %d, %d: want positive and newest first", got[0].Seq, got[1].Seq)
	}
	for i, want := range []audit.Entry{second, first} {
		g := got[i]
		if !sameJSON(g.Before, want.Before) || !sameJSON(g.After, want.After) {
			t.Errorf("entry %d states = %s → %s, want %s → %s", i, g.Before, g.After, want.Before, want.After)
		}
		g.Seq, g.Before, g.After, want.Before, want.After = 0, nil, nil, nil, nil
		if !reflect.DeepEqual(g, want) {
			t.Errorf("entry %d =\n%+v, want\n%+v", i, g, want)
		}
	}
	if got[0].Before != nil && string(got[0].Before) != "null" {
		t.Errorf("a creation's before = %s, want null", got[0].Before)
	}
}

// testFilters: each filter alone and together.
func testFilters(t *testing.T, s audit.Store) {
	other := audit.Actor{Kind: audit.ActorOperatorCredential, Name: "beta desk", CredentialID: uuid.NewString(), OperatorID: "beta"}
	appendAll(t, s,
		entry(t0, staff, audit.MarketSuspended, audit.TargetMarket, "m1", ""),
		entry(t0.Add(1*time.Second), staff, audit.OperatorUpdated, audit.TargetOperator, "alpha", "alpha"),
		entry(t0.Add(2*time.Second), cashierA, audit.BettorCredited, audit.TargetBettor, "b1", "alpha"),
		entry(t0.Add(3*time.Second), other, audit.BettorDebited, audit.TargetBettor, "b1", "beta"),
		entry(t0.Add(4*time.Second), cashierA, audit.BettorDebited, audit.TargetBettor, "b2", "alpha"),
	)
	for _, tc := range []struct {
		name   string
		filter audit.Filter
		want   []string
	}{
		{"all", audit.Filter{}, []string{"b2", "b1", "b1", "alpha", "m1"}},
		{"operator", audit.Filter{OperatorID: "alpha"}, []string{"b2", "b1", "alpha"}},
		{"action", audit.Filter{Action: audit.BettorDebited}, []string{"b2", "b1"}},
		{"admin actor", audit.Filter{ActorKind: audit.ActorAdmin}, []string{"alpha", "m1"}},
		{"credential", audit.Filter{CredentialID: cashierA.CredentialID}, []string{"b2", "b1"}},
		{"target", audit.Filter{TargetKind: audit.TargetBettor, TargetID: "b1"}, []string{"b1", "b1"}},
		{"target kind", audit.Filter{TargetKind: audit.TargetMarket}, []string{"m1"}},
		{"since", audit.Filter{Since: t0.Add(2 * time.Second)}, []string{"b2", "b1", "b1"}},
		{"until excludes its instant", audit.Filter{Until: t0.Add(2 * time.Second)}, []string{"alpha", "m1"}},
		{"window", audit.Filter{Since: t0.Add(time.Second), Until: t0.Add(3 * time.Second)}, []string{"b1", "alpha"}},
		{"together", audit.Filter{OperatorID: "alpha", Action: audit.BettorCredited, CredentialID: cashierA.CredentialID}, []string{"b1"}},
		{"nothing", audit.Filter{OperatorID: "gamma"}, []string{}},
	} {
		if got := ids(list(t, s, tc.filter)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// testPaging: pages of two, by the Seq of the last entry read, cover every
// entry once, newest first.
func testPaging(t *testing.T, s audit.Store) {
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("m%d", i)
		appendAll(t, s, entry(t0, staff, audit.MarketRepriced, audit.TargetMarket, id, ""))
		want = append([]string{id}, want...)
	}
	var got []string
	var before int64
	for range 10 {
		page := list(t, s, audit.Filter{Action: audit.MarketRepriced, BeforeSeq: before, Limit: 2})
		got = append(got, ids(page)...)
		if len(page) < 2 {
			break
		}
		before = page[len(page)-1].Seq
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
}

// testKeyed: an entry whose key is stored already is not stored again,
// also when 20 writers append it at once; unkeyed entries never collide.
func testKeyed(t *testing.T, s audit.Store) {
	ctx := context.Background()
	first := entry(t0, cashierA, audit.BettorCredited, audit.TargetBettor, "b1", "alpha")
	first.Key = "cashier:alpha:dep-1"
	appendAll(t, s, first)
	again := first
	again.ID = uuid.NewString()
	if ok, err := s.Append(ctx, again); err != nil || ok {
		t.Fatalf("Append of a stored key = %v, %v; want false, nil", ok, err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := entry(t0, staff, audit.CredentialRevoked, audit.TargetCredential, "c1", "alpha")
			e.Key = "revoked:c1"
			ok, err := s.Append(ctx, e)
			if err != nil {
				t.Errorf("concurrent Append: %v", err)
			}
			if ok {
				mu.Lock()
				stored++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if stored != 1 {
		t.Errorf("%d of 20 concurrent appends of one key stored, want 1", stored)
	}
	appendAll(t, s, entry(t0, staff, audit.MarketOpened, audit.TargetMarket, "m1", ""), entry(t0, staff, audit.MarketOpened, audit.TargetMarket, "m1", ""))
	if got := ids(list(t, s, audit.Filter{})); !reflect.DeepEqual(got, []string{"m1", "m1", "c1", "b1"}) {
		t.Errorf("entries = %v, want m1 m1 c1 b1", got)
	}
}

// testAppendOnly: the database refuses to change or remove an entry, even
// from outside the store.
func testAppendOnly(t *testing.T, db Database) {
	appendAll(t, db.Store, entry(t0, staff, audit.MarketResolved, audit.TargetMarket, "m1", ""))
	for _, q := range []string{
		`UPDATE audit_entries SET action = 'market.opened'`,
		`UPDATE audit_entries SET after_state = NULL`,
		`DELETE FROM audit_entries`,
	} {
		if err := db.Exec(q); err == nil {
			t.Errorf("%s: accepted", q)
		}
	}
	got := list(t, db.Store, audit.Filter{})
	if len(got) != 1 || got[0].Action != audit.MarketResolved || !sameJSON(got[0].After, json.RawMessage(`{"status":"suspended"}`)) {
		t.Errorf("after the refused writes: %+v", got)
	}
}
