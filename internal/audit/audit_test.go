package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/audit"
)

// memoryStore keeps entries in a slice; enough to test the trail's rules.
type memoryStore struct{ entries []audit.Entry }

func (s *memoryStore) Append(_ context.Context, e audit.Entry) (bool, error) {
	s.entries = append(s.entries, e)
	return true, nil
}

func (s *memoryStore) List(context.Context, audit.Filter) ([]audit.Entry, error) {
	return s.entries, nil
}

func TestRecordRules(t *testing.T) {
	t.Parallel()
	admin := audit.Actor{Kind: audit.ActorAdmin, Name: "platform staff"}
	valid := audit.Entry{Actor: admin, Action: audit.OperatorUpdated, TargetKind: audit.TargetOperator, TargetID: "acme"}
	with := func(f func(e *audit.Entry)) audit.Entry {
		e := valid
		f(&e)
		return e
	}
	for _, tc := range []struct {
		name  string
		entry audit.Entry
		ok    bool
	}{
		{"valid", valid, true},
		{"creation without before", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"name":"Acme"}`) }), true},
		{"secret marked changed", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"signing_secret":"changed"}`) }), true},
		{"secret marked set", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"webhook_secret":"set"}`) }), true},
		{"idempotency key is no secret", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"idempotency_key":"dep-1"}`) }), true},
		{"secret value", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"signing_secret":"hunter2"}`) }), false},
		{"secret value before", with(func(e *audit.Entry) { e.Before = json.RawMessage(`{"webhook_secret":"whsec_x"}`) }), false},
		{"nested secret", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"items":[{"key":"fs_live_x"}]}`) }), false},
		{"api key", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"api_key":"x"}`) }), false},
		{"token", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"admin_token":"x"}`) }), false},
		{"empty secret", with(func(e *audit.Entry) { e.After = json.RawMessage(`{"signing_secret":""}`) }), false},
		{"state not an object", with(func(e *audit.Entry) { e.After = json.RawMessage(`"open"`) }), false},
		{"state not JSON", with(func(e *audit.Entry) { e.After = json.RawMessage(`{`) }), false},
		{"no actor", with(func(e *audit.Entry) { e.Actor = audit.Actor{} }), false},
		{"credential without operator", with(func(e *audit.Entry) {
			e.Actor = audit.Actor{Kind: audit.ActorOperatorCredential, CredentialID: "c1"}
		}), false},
		{"no action", with(func(e *audit.Entry) { e.Action = "" }), false},
		{"no target", with(func(e *audit.Entry) { e.TargetID = "" }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := &memoryStore{}
			at := time.Date(2026, 11, 26, 10, 0, 0, 123456789, time.UTC)
			trail := audit.New(store, audit.Options{Now: func() time.Time { return at }})
			_, err := trail.Record(context.Background(), tc.entry)
			if tc.ok {
				if err != nil {
					t.Fatalf("Record = %v", err)
				}
				got := store.entries[0]
				if got.ID == "" || !got.At.Equal(at.Truncate(time.Microsecond)) {
					t.Errorf("recorded id %q at %v", got.ID, got.At)
				}
				return
			}
			if !errors.Is(err, audit.ErrInvalid) {
				t.Fatalf("Record = %v, want ErrInvalid", err)
			}
			if len(store.entries) != 0 {
				t.Errorf("a refused entry was stored")
			}
		})
	}
}

func TestListLimit(t *testing.T) {
	t.Parallel()
	trail := audit.New(&memoryStore{}, audit.Options{})
	for _, limit := range []int{0, -1, 1001} {
		if _, err := trail.List(context.Background(), audit.Filter{Limit: limit}); !errors.Is(err, audit.ErrInvalid) {
			t.Errorf("List(limit %d) = %v, want ErrInvalid", limit, err)
		}
	}
}
