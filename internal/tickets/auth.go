package tickets

import (
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"time"

	"github.com/foresight-dev/foresight/internal/bearerkey"
)

// Scope is a permission of an API key.
type Scope string

// The scopes of tickets-api.md.
const (
	ScopeSubmit Scope = "tickets:submit"
	ScopeRead   Scope = "tickets:read"
	ScopeCancel Scope = "tickets:cancel"
)

// Valid reports whether s is one of the spec's scopes.
func (s Scope) Valid() bool {
	return s == ScopeSubmit || s == ScopeRead || s == ScopeCancel
}

// apiKeyPrefix starts every key so that a leaked key is recognisable.
const apiKeyPrefix = "fsk_"

// Principal is an authenticated API key with its client.
type Principal struct {
	KeyID    string
	ClientID string
	Scopes   []Scope
}

// NewKeySecret returns a new key for the key id: "fsk_<id>_<secret>", and
// the hash to store. The key is shown once; only the hash is kept.
func NewKeySecret(keyID string) (key string, hash []byte) {
	return bearerkey.New(apiKeyPrefix, keyID)
}

// Authenticate checks a bearer key and returns its principal.
//
// Errors (as *Error): unauthorized for a missing, malformed or unknown key,
// key_revoked, key_expired, client_suspended, feature_disabled when the
// client's tickets feature is off; storage_error when the store fails.
func Authenticate(ctx context.Context, store Store, key string, now time.Time) (Principal, error) {
	return authenticate(ctx, store.GetKey, key, now)
}

// authenticate is Authenticate with the key's lookup: the store's GetKey,
// or the Service's cache in front of it.
func authenticate(ctx context.Context, getKey func(context.Context, string) (APIKey, Client, error), key string, now time.Time) (Principal, error) {
	if key == "" {
		return Principal{}, Errorf(CodeUnauthorized, "A bearer API key is required.")
	}
	id, ok := bearerkey.ParseID(apiKeyPrefix, key)
	if !ok {
		return Principal{}, Errorf(CodeUnauthorized, "The bearer API key is malformed.")
	}
	k, c, err := getKey(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Principal{}, Errorf(CodeUnauthorized, "The bearer API key is not valid.")
	}
	if err != nil {
		return Principal{}, storageError(err)
	}
	if subtle.ConstantTimeCompare(k.SecretHash, bearerkey.Hash(key)) != 1 {
		return Principal{}, Errorf(CodeUnauthorized, "The bearer API key is not valid.")
	}
	if k.RevokedAt != nil {
		return Principal{}, Errorf(CodeKeyRevoked, "The API key has been revoked.")
	}
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return Principal{}, Errorf(CodeKeyExpired, "The API key expired at %s.", k.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if c.Suspended {
		return Principal{}, Errorf(CodeClientSuspended, "The client of this API key is suspended.")
	}
	if !c.TicketsEnabled {
		return Principal{}, Errorf(CodeFeatureDisabled, "The ticket service is disabled for this client.")
	}
	return Principal{KeyID: k.ID, ClientID: c.ID, Scopes: k.Scopes}, nil
}

// Authorize checks that p holds scope.
func (p Principal) Authorize(scope Scope) error {
	if !slices.Contains(p.Scopes, scope) {
		return Errorf(CodeForbidden, "The API key lacks the %s scope.", scope)
	}
	return nil
}

func storageError(err error) error {
	return &Error{Code: CodeStorageError, Message: "The job store is unavailable; try again.", Err: err}
}

// lookupError is a store error as the administration methods return it:
// nil, ErrNotFound as it is, or a storage_error.
func lookupError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return ErrNotFound
	default:
		return storageError(err)
	}
}
