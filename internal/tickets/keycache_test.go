package tickets_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/foresight-dev/foresight/internal/sqlite"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// countingStore counts the key lookups that reach the store.
type countingStore struct {
	tickets.Store
	reads atomic.Int64
}

func (s *countingStore) GetKey(ctx context.Context, id string) (tickets.APIKey, tickets.Client, error) {
	s.reads.Add(1)
	return s.Store.GetKey(ctx, id)
}

// TestAuthenticateCachesKeys checks that a key is read from the store once
// for many requests, and that a revocation, a suspension or the feature
// switched off through the service refuses the key at the next request.
func TestAuthenticateCachesKeys(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := &countingStore{Store: db.TicketStore()}
	svc := tickets.NewService(store, nil, nil, tickets.DefaultConfig(), nil)
	newKey := func() (tickets.Client, tickets.APIKey, string) {
		c, err := svc.CreateClient(ctx, "cached")
		if err != nil {
			t.Fatal(err)
		}
		k, key, err := svc.CreateKey(ctx, c.ID, []tickets.Scope{tickets.ScopeSubmit}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c, k, key
	}
	wantCode := func(key string, code tickets.Code) {
		t.Helper()
		_, err := svc.Authenticate(ctx, key)
		var e *tickets.Error
		switch {
		case code == "" && err != nil:
			t.Fatalf("Authenticate = %v, want a principal", err)
		case code != "" && (!errors.As(err, &e) || e.Code != code):
			t.Fatalf("Authenticate = %v, want %s", err, code)
		}
	}

	c, k, key := newKey()
	for range 10 {
		wantCode(key, "")
	}
	if n := store.reads.Load(); n != 1 {
		t.Errorf("10 requests read the key %d times, want once", n)
	}
	wantCode(key+"x", tickets.CodeUnauthorized)

	if err := svc.RevokeKey(ctx, c.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(key, tickets.CodeKeyRevoked)

	suspended, off := true, false
	for _, update := range []struct {
		change tickets.ClientUpdate
		code   tickets.Code
	}{
		{tickets.ClientUpdate{Suspended: &suspended}, tickets.CodeClientSuspended},
		{tickets.ClientUpdate{TicketsEnabled: &off}, tickets.CodeFeatureDisabled},
	} {
		c, _, key = newKey()
		wantCode(key, "")
		if _, err := svc.UpdateClient(ctx, c.ID, update.change); err != nil {
			t.Fatal(err)
		}
		wantCode(key, update.code)
	}
}
