package betting

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/bearerkey"
)

// CredentialKeyPrefix starts every operator credential's key, so that a
// leaked one is recognisable (ticket API keys start with "fsk_").
const CredentialKeyPrefix = "fso_"

// Credential is a bearer key with which one operator's staff use the admin
// API and the backoffice for that operator alone. Platform staff issue and
// revoke credentials; only the SHA-256 hash of the key is kept.
type Credential struct {
	ID         string     `json:"id"`
	OperatorID string     `json:"operator_id"`
	Name       string     `json:"name"`
	KeyHash    []byte     `json:"-"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// CredentialStore keeps operator credentials. Implementations (sqlite,
// postgres) pass the conformance suite in bettingtest.
type CredentialStore interface {
	// CreateCredential inserts c; ErrConflict when its id or key hash
	// exists.
	CreateCredential(ctx context.Context, c Credential) error
	// CredentialByHash returns the credential whose key has hash, revoked
	// and expired ones included; ErrNotFound when there is none.
	CredentialByHash(ctx context.Context, hash []byte) (Credential, error)
	// ListCredentials returns an operator's credentials, oldest first.
	ListCredentials(ctx context.Context, operatorID string) ([]Credential, error)
	// RevokeCredential sets the revocation time of the operator's
	// credential id unless it is already revoked (the first time is kept);
	// ErrNotFound when the operator has no such credential.
	RevokeCredential(ctx context.Context, operatorID, id string, at time.Time) error
}

// ErrCredentialRefused is Authenticate's answer to a key that is not a
// live credential: malformed, unknown, revoked or expired alike, so that
// the answer tells nothing about which.
var ErrCredentialRefused = errors.New("betting: the operator credential is not valid")

// Credentials issues, lists, revokes and checks operator credentials.
type Credentials struct {
	store     CredentialStore
	operators *Service
	// Now returns the current time; tests may replace it.
	Now func() time.Time
}

// NewCredentials returns the credentials of store; operators is where
// their operators are looked up.
func NewCredentials(store CredentialStore, operators *Service) *Credentials {
	return &Credentials{store: store, operators: operators, Now: time.Now}
}

// Store returns the credentials' store.
func (c *Credentials) Store() CredentialStore { return c.store }

// Issue makes a credential named name (1 to 200 characters) for an
// operator, valid until expiresAt (never when nil), and returns it with
// its key, which is shown once: only its hash is stored.
//
// Errors (*Error): ErrNotFound for an unknown operator, ErrInvalid for a
// bad name or an expiry that is not in the future.
func (c *Credentials) Issue(ctx context.Context, operatorID, name string, expiresAt *time.Time) (Credential, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return Credential{}, "", invalidf("name must be 1 to 200 characters")
	}
	now := c.Now().UTC().Truncate(time.Microsecond)
	if expiresAt != nil {
		at := expiresAt.UTC().Truncate(time.Microsecond)
		if !at.After(now) {
			return Credential{}, "", invalidf("expires_at must be in the future")
		}
		expiresAt = &at
	}
	if _, err := c.operators.GetOperator(ctx, operatorID); err != nil {
		return Credential{}, "", err
	}
	cred := Credential{ID: uuid.NewString(), OperatorID: operatorID, Name: name, CreatedAt: now, ExpiresAt: expiresAt}
	key, hash := bearerkey.New(CredentialKeyPrefix, cred.ID)
	cred.KeyHash = hash
	if err := c.store.CreateCredential(ctx, cred); err != nil {
		return Credential{}, "", err
	}
	return cred, key, nil
}

// List returns an operator's credentials, oldest first, revoked and
// expired ones included. Errors: ErrNotFound for an unknown operator.
func (c *Credentials) List(ctx context.Context, operatorID string) ([]Credential, error) {
	if _, err := c.operators.GetOperator(ctx, operatorID); err != nil {
		return nil, err
	}
	return c.store.ListCredentials(ctx, operatorID)
}

// Revoke revokes an operator's credential at once: the next request with
// its key is refused. Revoking twice is harmless. Errors: ErrNotFound when
// the operator has no such credential.
func (c *Credentials) Revoke(ctx context.Context, operatorID, id string) error {
	return c.store.RevokeCredential(ctx, operatorID, id, c.Now().UTC().Truncate(time.Microsecond))
}

// Authenticate returns the live credential whose key is key.
//
// Errors: ErrCredentialRefused for a key that is malformed, unknown,
// revoked or expired; anything else is a storage failure.
func (c *Credentials) Authenticate(ctx context.Context, key string) (Credential, error) {
	if _, ok := bearerkey.ParseID(CredentialKeyPrefix, key); !ok {
		return Credential{}, ErrCredentialRefused
	}
	cred, err := c.store.CredentialByHash(ctx, bearerkey.Hash(key))
	if IsNotFound(err) {
		return Credential{}, ErrCredentialRefused
	}
	if err != nil {
		return Credential{}, err
	}
	if cred.RevokedAt != nil || (cred.ExpiresAt != nil && !c.Now().Before(*cred.ExpiresAt)) {
		return Credential{}, ErrCredentialRefused
	}
	return cred, nil
}
