package bettingtest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/bearerkey"
	"github.com/foresight-dev/foresight/internal/betting"
)

// RunCredentials runs the CredentialStore suite; newStores returns an
// empty database as the betting.Store that holds the operators and the
// CredentialStore under test, for one test.
func RunCredentials(t *testing.T, newStores func(t *testing.T) (betting.Store, betting.CredentialStore)) {
	t.Run("IssueFindList", func(t *testing.T) { t.Parallel(); testCredentials(t, newStores) })
	t.Run("Revoke", func(t *testing.T) { t.Parallel(); testRevokeCredential(t, newStores) })
	t.Run("ConcurrentRevokes", func(t *testing.T) { t.Parallel(); testConcurrentRevokes(t, newStores) })
}

// withOperators returns the credential store with operators created.
func withOperators(t *testing.T, newStores func(t *testing.T) (betting.Store, betting.CredentialStore), ids ...string) betting.CredentialStore {
	t.Helper()
	ops, creds := newStores(t)
	for _, id := range ids {
		if err := ops.CreateOperator(context.Background(), NewOperator(id)); err != nil {
			t.Fatal(err)
		}
	}
	return creds
}

// NewCredential returns a live credential of operatorID with a fresh id,
// created at, and its key.
func NewCredential(operatorID, name string, at time.Time) (betting.Credential, string) {
	c := betting.Credential{ID: uuid.NewString(), OperatorID: operatorID, Name: name, CreatedAt: at}
	key, hash := bearerkey.New(betting.CredentialKeyPrefix, c.ID)
	c.KeyHash = hash
	return c, key
}

func sameCredential(a, b betting.Credential) bool {
	eq := func(x, y *time.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	return a.ID == b.ID && a.OperatorID == b.OperatorID && a.Name == b.Name && bytes.Equal(a.KeyHash, b.KeyHash) &&
		a.CreatedAt.Equal(b.CreatedAt) && eq(a.ExpiresAt, b.ExpiresAt) && eq(a.RevokedAt, b.RevokedAt)
}

func testCredentials(t *testing.T, newStores func(t *testing.T) (betting.Store, betting.CredentialStore)) {
	ctx := context.Background()
	s := withOperators(t, newStores, "alpha", "beta")
	if got, err := s.ListCredentials(ctx, "alpha"); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("ListCredentials of an operator without any = %v, %v; want an empty list", got, err)
	}
	first, firstKey := NewCredential("alpha", "Alice's laptop", t0)
	expires := t0.Add(90 * 24 * time.Hour)
	first.ExpiresAt = &expires
	second, _ := NewCredential("alpha", "Reporting", t0.Add(time.Minute))
	other, _ := NewCredential("beta", "Beta staff", t0)
	for _, c := range []betting.Credential{second, first, other} {
		if err := s.CreateCredential(ctx, c); err != nil {
			t.Fatalf("CreateCredential %s: %v", c.Name, err)
		}
	}
	if err := s.CreateCredential(ctx, first); code(err) != betting.ErrConflict {
		t.Errorf("a second credential with the same id and hash: %v, want ErrConflict", err)
	}
	sameHash, _ := NewCredential("beta", "Copy", t0)
	sameHash.KeyHash = first.KeyHash
	if err := s.CreateCredential(ctx, sameHash); code(err) != betting.ErrConflict {
		t.Errorf("a second credential with the same key hash: %v, want ErrConflict", err)
	}

	got, err := s.CredentialByHash(ctx, bearerkey.Hash(firstKey))
	if err != nil || !sameCredential(got, first) {
		t.Fatalf("CredentialByHash = %+v, %v; want %+v", got, err, first)
	}
	if _, err := s.CredentialByHash(ctx, bearerkey.Hash(firstKey+"x")); code(err) != betting.ErrNotFound {
		t.Errorf("CredentialByHash of an unknown key: %v, want ErrNotFound", err)
	}

	list, err := s.ListCredentials(ctx, "alpha")
	if err != nil || len(list) != 2 || !sameCredential(list[0], first) || !sameCredential(list[1], second) {
		t.Fatalf("ListCredentials(alpha) = %+v, %v; want the two of alpha, oldest first", list, err)
	}
	if list, err := s.ListCredentials(ctx, "beta"); err != nil || len(list) != 1 || list[0].ID != other.ID {
		t.Errorf("ListCredentials(beta) = %+v, %v", list, err)
	}
}

func testRevokeCredential(t *testing.T, newStores func(t *testing.T) (betting.Store, betting.CredentialStore)) {
	ctx := context.Background()
	s := withOperators(t, newStores, "alpha", "beta")
	c, key := NewCredential("alpha", "Alice", t0)
	if err := s.CreateCredential(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeCredential(ctx, "beta", c.ID, t0.Add(time.Hour)); code(err) != betting.ErrNotFound {
		t.Errorf("revoking through another operator: %v, want ErrNotFound", err)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		if err := s.RevokeCredential(ctx, "alpha", id, t0.Add(time.Hour)); code(err) != betting.ErrNotFound {
			t.Errorf("revoking unknown %q: %v, want ErrNotFound", id, err)
		}
	}
	if got, _ := s.CredentialByHash(ctx, bearerkey.Hash(key)); got.RevokedAt != nil {
		t.Fatalf("a refused revocation revoked the credential: %+v", got)
	}
	revokedAt := t0.Add(2 * time.Hour)
	if err := s.RevokeCredential(ctx, "alpha", c.ID, revokedAt); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeCredential(ctx, "alpha", c.ID, revokedAt.Add(time.Hour)); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	got, err := s.CredentialByHash(ctx, bearerkey.Hash(key))
	if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(revokedAt) {
		t.Errorf("after revoking twice: %+v, %v; want the first revocation time %s kept", got, err, revokedAt)
	}
}

// testConcurrentRevokes revokes one credential from several goroutines:
// every call succeeds and one time is kept.
func testConcurrentRevokes(t *testing.T, newStores func(t *testing.T) (betting.Store, betting.CredentialStore)) {
	ctx := context.Background()
	s := withOperators(t, newStores, "alpha")
	c, key := NewCredential("alpha", "Shared", t0)
	if err := s.CreateCredential(ctx, c); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() { errs <- s.RevokeCredential(ctx, "alpha", c.ID, t0.Add(time.Duration(i+1)*time.Minute)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent revoke: %v", err)
		}
	}
	if got, err := s.CredentialByHash(ctx, bearerkey.Hash(key)); err != nil || got.RevokedAt == nil {
		t.Errorf("after concurrent revokes: %+v, %v", got, err)
	}
}
