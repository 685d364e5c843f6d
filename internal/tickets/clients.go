package tickets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// NewWebhookSecret returns a new callback signing secret in the Standard
// Webhooks form: "whsec_" and 32 random bytes in base64.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// CreateClient creates a client with a new webhook secret. The tickets
// feature is enabled and the client is not suspended.
//
// Errors: invalid_request for an empty or over-long name; storage_error.
func (s *Service) CreateClient(ctx context.Context, name string) (Client, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return Client{}, Errorf(CodeInvalidRequest, "name must be 1 to 200 characters.")
	}
	c := Client{ID: uuid.NewString(), Name: name, WebhookSecret: NewWebhookSecret(), TicketsEnabled: true,
		CreatedAt: s.Now().UTC().Truncate(time.Microsecond)}
	if err := s.store.CreateClient(ctx, c); err != nil {
		return Client{}, storageError(err)
	}
	return c, nil
}

// GetClient returns a client, or ErrNotFound.
func (s *Service) GetClient(ctx context.Context, id string) (Client, error) {
	c, err := s.store.GetClient(ctx, id)
	if err != nil {
		return Client{}, lookupError(err)
	}
	return c, nil
}

// ListClients returns clients ordered by id after afterID.
func (s *Service) ListClients(ctx context.Context, afterID string, limit int) ([]Client, error) {
	cs, err := s.store.ListClients(ctx, afterID, limit)
	if err != nil {
		return nil, storageError(err)
	}
	return cs, nil
}

// UpdateClient suspends or reinstates a client, or turns its tickets
// feature off or on. Returns ErrNotFound for an unknown client.
func (s *Service) UpdateClient(ctx context.Context, id string, u ClientUpdate) (Client, error) {
	defer s.keys.dropClient(id)
	c, err := s.store.UpdateClient(ctx, id, u)
	if err != nil {
		return Client{}, lookupError(err)
	}
	return c, nil
}

// CreateKey issues a key with scopes for a client and returns it with the
// key text, which is shown once; only its hash is stored.
//
// Errors: invalid_request for no scopes, an unknown scope or an expiry in
// the past; ErrNotFound for an unknown client; storage_error.
func (s *Service) CreateKey(ctx context.Context, clientID string, scopes []Scope, expiresAt *time.Time) (APIKey, string, error) {
	if len(scopes) == 0 {
		return APIKey{}, "", Errorf(CodeInvalidRequest, "scopes must name at least one of tickets:submit, tickets:read, tickets:cancel.")
	}
	for _, sc := range scopes {
		if !sc.Valid() {
			return APIKey{}, "", Errorf(CodeInvalidRequest, "scope %q is not one of tickets:submit, tickets:read, tickets:cancel.", sc)
		}
	}
	now := s.Now().UTC().Truncate(time.Microsecond)
	if expiresAt != nil {
		if !expiresAt.After(now) {
			return APIKey{}, "", Errorf(CodeInvalidRequest, "expires_at must be in the future.")
		}
		t := expiresAt.UTC().Truncate(time.Microsecond)
		expiresAt = &t
	}
	scopes = slices.Clone(scopes)
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	k := APIKey{ID: uuid.NewString(), ClientID: clientID, Scopes: scopes, ExpiresAt: expiresAt, CreatedAt: now}
	key, hash := NewKeySecret(k.ID)
	k.SecretHash = hash
	if err := s.store.CreateKey(ctx, k); err != nil {
		return APIKey{}, "", lookupError(err)
	}
	return k, key, nil
}

// ListKeys returns a client's keys (without secrets).
func (s *Service) ListKeys(ctx context.Context, clientID string) ([]APIKey, error) {
	if _, err := s.GetClient(ctx, clientID); err != nil {
		return nil, err
	}
	ks, err := s.store.ListKeys(ctx, clientID)
	if err != nil {
		return nil, storageError(err)
	}
	return ks, nil
}

// RevokeKey revokes a client's key at once; revoking twice is harmless.
// Returns ErrNotFound when the client has no such key.
func (s *Service) RevokeKey(ctx context.Context, clientID, keyID string) error {
	defer s.keys.dropKey(keyID)
	return lookupError(s.store.RevokeKey(ctx, clientID, keyID, s.Now()))
}
