package aggregator

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/foresight-dev/foresight/internal/jwk"
)

// keyBits is the size of the platform's RSA keys.
const keyBits = 2048

// keyReloadInterval bounds how often an unknown kid makes Keys read the
// store again (a key another node added).
const keyReloadInterval = 5 * time.Second

// Keys are the RSA keys of the session tokens the platform mints for
// aggregator players (RS256, published at /.well-known/jwks.json). They
// live in the database so that every node signs and verifies with the
// same keys: the first node to start generates one.
type Keys struct {
	store Store

	mu         sync.Mutex
	keys       []platformKey // oldest first; the last one signs
	lastReload time.Time
}

type platformKey struct {
	kid  string
	priv *rsa.PrivateKey
}

// LoadKeys reads the platform's keys, generating and storing the first
// one when there is none.
func LoadKeys(ctx context.Context, store Store) (*Keys, error) {
	k := &Keys{store: store}
	if err := k.reload(ctx); err != nil {
		return nil, err
	}
	if len(k.keys) > 0 {
		return k, nil
	}
	priv, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return nil, fmt.Errorf("generate the platform key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err := store.AddPlatformKey(ctx, StoredKey{ID: jwk.Thumbprint(&priv.PublicKey), PrivatePEM: pemText, CreatedAt: time.Now().UTC()}); err != nil {
		return nil, fmt.Errorf("store the platform key: %w", err)
	}
	// Another node may have stored its own first key meanwhile: read back.
	if err := k.reload(ctx); err != nil {
		return nil, err
	}
	if len(k.keys) == 0 {
		return nil, errors.New("the platform key was not stored")
	}
	return k, nil
}

func (k *Keys) reload(ctx context.Context) error {
	stored, err := k.store.PlatformKeys(ctx)
	if err != nil {
		return fmt.Errorf("read the platform keys: %w", err)
	}
	keys := make([]platformKey, 0, len(stored))
	for _, s := range stored {
		block, _ := pem.Decode([]byte(s.PrivatePEM))
		if block == nil {
			return fmt.Errorf("platform key %s: not PEM", s.ID)
		}
		parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return fmt.Errorf("platform key %s: %w", s.ID, err)
		}
		priv, ok := parsed.(*rsa.PrivateKey)
		if !ok {
			return fmt.Errorf("platform key %s: not an RSA key", s.ID)
		}
		keys = append(keys, platformKey{kid: s.ID, priv: priv})
	}
	k.mu.Lock()
	k.keys, k.lastReload = keys, time.Now()
	k.mu.Unlock()
	return nil
}

// SessionClaims are the claims of a session token.
type SessionClaims struct {
	Issuer    string // the aggregator operator's id
	Subject   string // the account id; "demo" for a demo session
	Currency  string
	SessionID string // the aggregator's session_id; a random UUID for a demo session
	Demo      bool
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Mint signs a session token with the newest key.
func (k *Keys) Mint(_ context.Context, c SessionClaims) (string, error) {
	k.mu.Lock()
	key := k.keys[len(k.keys)-1]
	k.mu.Unlock()
	claims := jwt.MapClaims{"iss": c.Issuer, "sub": c.Subject, "currency": c.Currency, "iat": c.IssuedAt.Unix(), "exp": c.ExpiresAt.Unix()}
	if c.SessionID != "" {
		claims["sid"] = c.SessionID
	}
	if c.Demo {
		claims["demo"] = true
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = key.kid
	return t.SignedString(key.priv)
}

// PublicKey returns the public key named kid; an unknown kid makes it read
// the store again (at most every few seconds), for keys other nodes added.
func (k *Keys) PublicKey(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	if pub := k.find(kid); pub != nil {
		return pub, nil
	}
	k.mu.Lock()
	due := time.Since(k.lastReload) >= keyReloadInterval
	k.mu.Unlock()
	if due {
		if err := k.reload(ctx); err != nil {
			return nil, err
		}
		if pub := k.find(kid); pub != nil {
			return pub, nil
		}
	}
	return nil, fmt.Errorf("no platform key %q", kid)
}

func (k *Keys) find(kid string) *rsa.PublicKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range k.keys {
		if key.kid == kid {
			return &key.priv.PublicKey
		}
	}
	return nil
}

// JWKS returns the public keys as an RFC 7517 JWK Set document.
func (k *Keys) JWKS() []byte {
	k.mu.Lock()
	set := jwk.Set{Keys: make([]jwk.Key, 0, len(k.keys))}
	for _, key := range k.keys {
		set.Keys = append(set.Keys, jwk.RSA(&key.priv.PublicKey, key.kid))
	}
	k.mu.Unlock()
	out, _ := json.Marshal(set)
	return out
}
