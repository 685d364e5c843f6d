package operator

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/foresight-dev/foresight/internal/jwk"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/sandbox/wire"
)

// signingKey is one RSA key of the JWK Set.
type signingKey struct {
	kid  string
	priv *rsa.PrivateKey
	jwk  jwk.Key
}

func newSigningKey(priv *rsa.PrivateKey, kid string) (*signingKey, error) {
	if priv.N == nil || priv.N.BitLen() < 2048 {
		return nil, errors.New("operator: the RSA key must have at least 2048 bits")
	}
	if err := priv.Validate(); err != nil {
		return nil, fmt.Errorf("operator: invalid RSA key: %w", err)
	}
	pub := jwk.RSA(&priv.PublicKey, kid) // an empty kid: the RFC 7638 thumbprint
	return &signingKey{kid: pub.Kid, priv: priv, jwk: pub}, nil
}

// KeyID returns the kid of the key that signs new tokens.
func (o *Operator) KeyID() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.keys[len(o.keys)-1].kid
}

// RotateKey generates a new KeyBits-bit key, adds it to the JWK Set and
// signs every later token with it. The previous keys stay in the set, so
// tokens they signed stay valid. It returns the new key's kid (its RFC 7638
// thumbprint). With a journal the key is recorded in it (private part
// included) so that it survives a restart; an error appending changes
// nothing.
func (o *Operator) RotateKey() (string, error) {
	priv, err := rsa.GenerateKey(rand.Reader, KeyBits)
	if err != nil {
		return "", fmt.Errorf("operator: generating a key: %w", err)
	}
	key, err := newSigningKey(priv, "")
	if err != nil {
		return "", err
	}
	if err := o.addKey(&journal.Op{}, key); err != nil {
		return "", err
	}
	return key.kid, nil
}

// addKey makes key the one that signs new tokens.
func (o *Operator) addKey(x *journal.Op, key *signingKey) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.Keeper.Begin(x); err != nil {
		return err
	}
	for _, k := range o.keys {
		if k.kid == key.kid {
			return fmt.Errorf("operator: the JWK Set already has a key %q", key.kid)
		}
	}
	o.keys = append(o.keys, key)
	return o.Keeper.Commit(x, kindKey, keyRecordOf(key))
}

// RemoveKey takes a rotated-out key out of the JWK Set; tokens it signed no
// longer verify. The key that signs new tokens cannot be removed. With a
// journal the removal is recorded in it; an error appending changes
// nothing.
func (o *Operator) RemoveKey(kid string) error {
	return o.removeKey(&journal.Op{}, kid)
}

func (o *Operator) removeKey(x *journal.Op, kid string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.Keeper.Begin(x); err != nil {
		return err
	}
	for i, k := range o.keys {
		if k.kid != kid {
			continue
		}
		if i == len(o.keys)-1 {
			return fmt.Errorf("operator: key %q signs new tokens; rotate before removing it", kid)
		}
		o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
		return o.Keeper.Commit(x, kindRemoveKey, keyRecord{KeyID: kid})
	}
	return fmt.Errorf("operator: no key %q", kid)
}

// serveJWKS answers GET /.well-known/jwks.json.
func (o *Operator) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	o.mu.Lock()
	set := jwk.Set{Keys: make([]jwk.Key, len(o.keys))}
	for i, k := range o.keys {
		set.Keys[i] = k.jwk
	}
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(wire.MustJSON(set))
}

// sessionClaims are the claims of a session JWT.
type sessionClaims struct {
	Currency string `json:"currency"`
	jwt.RegisteredClaims
}

// MintToken returns a session JWT for a bettor without the session
// exchange, as the operator's backend would. currency "" means the
// bettor's currency, or Config.Currency for an unknown bettor. The bettor
// need not exist (unless Config.StartingBalance is set, when it is
// created, and recorded in the journal if any), but a known bettor's
// currency must match.
func (o *Operator) MintToken(bettorID, currency string) (string, error) {
	o.mu.Lock()
	currency, err := o.sessionCurrencyLocked(&journal.Op{}, bettorID, currency)
	o.mu.Unlock()
	if err != nil {
		return "", err
	}
	token, _, err := o.mint(bettorID, currency)
	return token, err
}

// TokenLifetime returns the lifetime of the session JWTs minted now:
// SetTokenLifetime's, else Config.TokenLifetime, else
// DefaultTokenLifetime.
func (o *Operator) TokenLifetime() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tokenLifetimeLocked()
}

func (o *Operator) tokenLifetimeLocked() time.Duration {
	if o.lifetimeSet > 0 {
		return o.lifetimeSet
	}
	return o.lifetime
}

// SetTokenLifetime sets the lifetime of the session JWTs minted from now
// on (by POST /v1/session and MintToken); tokens already issued keep their
// exp. d is whole seconds, at least one; 0 goes back to
// Config.TokenLifetime. Tests make tokens short-lived with it to see a
// client renew its session. With a journal the setting is recorded in it
// and outlives a restart; an error appending changes nothing.
func (o *Operator) SetTokenLifetime(d time.Duration) error {
	return o.setTokenLifetime(&journal.Op{}, d)
}

func (o *Operator) setTokenLifetime(x *journal.Op, d time.Duration) error {
	if d < 0 || (d > 0 && d < time.Second) || d%time.Second != 0 {
		return fmt.Errorf("operator: a token lifetime is whole seconds, at least one (0 for the configured %v), not %v", o.lifetime, d)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.Keeper.Begin(x); err != nil {
		return err
	}
	if o.lifetimeSet == d {
		return nil
	}
	o.lifetimeSet = d
	return o.Keeper.Commit(x, kindLifetime, lifetimeRecord{Seconds: int64(d / time.Second)})
}

// mint signs a token with the current key.
func (o *Operator) mint(bettorID, currency string) (string, time.Time, error) {
	o.mu.Lock()
	key := o.keys[len(o.keys)-1]
	lifetime := o.tokenLifetimeLocked()
	o.mu.Unlock()
	iat := o.now().Truncate(time.Second)
	exp := iat.Add(lifetime).Truncate(time.Second)
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, sessionClaims{
		Currency: currency,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    o.id,
			Subject:   bettorID,
			IssuedAt:  jwt.NewNumericDate(iat),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	})
	t.Header["kid"] = key.kid
	s, err := t.SignedString(key.priv)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("operator: signing a token: %w", err)
	}
	return s, exp.UTC(), nil
}

// sessionCurrencyLocked checks a bettor id and resolves the currency of
// its session, creating the bettor when Config.StartingBalance is set (a
// creation is journalled).
func (o *Operator) sessionCurrencyLocked(x *journal.Op, bettorID, currency string) (string, error) {
	if err := sandboxweb.CheckID("bettor id", bettorID); err != nil {
		return "", fmt.Errorf("operator: %w", err)
	}
	_, currency, decimals, err := o.beginBettorLocked(x, bettorID, currency)
	if err != nil {
		return "", err
	}
	if _, created := o.ensureBettorLocked(x.At, bettorID, currency, decimals); created {
		x.Applied = true
		if err := o.Keeper.Commit(x, kindBettor, bettorRecord{BettorID: bettorID, Currency: currency}); err != nil {
			return "", err
		}
	}
	return currency, nil
}

// createBettor replays a bettor created by a session request or MintToken.
func (o *Operator) createBettor(x *journal.Op, bettorID, currency string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.sessionCurrencyLocked(x, bettorID, currency); err != nil {
		return err
	}
	if !x.Applied {
		return fmt.Errorf("operator: bettor %q exists already", bettorID)
	}
	return nil
}

// sessionRequest is an issued session_request_id.
type sessionRequest struct {
	bettorID string
	currency string
	expires  time.Time
	used     bool
}

// CreateSessionRequest issues a single-use session_request_id for a bettor,
// valid for SessionRequestTTL (2 minutes), as the operator's backend does
// for every page load of the widget. currency is resolved and checked as
// by MintToken.
func (o *Operator) CreateSessionRequest(bettorID, currency string) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("operator: %w", err)
	}
	id := "sr_" + base64.RawURLEncoding.EncodeToString(raw[:])
	o.mu.Lock()
	defer o.mu.Unlock()
	currency, err := o.sessionCurrencyLocked(&journal.Op{}, bettorID, currency)
	if err != nil {
		return "", err
	}
	now := o.now()
	for k, s := range o.sessions {
		if now.Sub(s.expires) > NonceRetention {
			delete(o.sessions, k)
		}
	}
	o.sessions[id] = &sessionRequest{bettorID: bettorID, currency: currency, expires: now.Add(SessionRequestTTL)}
	return id, nil
}

// NewSessionRequest is CreateSessionRequest for callers whose arguments are
// known to be valid (the demo, tests): it panics on an error.
func (o *Operator) NewSessionRequest(bettorID, currency string) string {
	id, err := o.CreateSessionRequest(bettorID, currency)
	if err != nil {
		panic(err)
	}
	return id
}

// exchangeSession handles POST /v1/session. Session requests are not
// journalled: they live two minutes.
func (o *Operator) exchangeSession(_ *journal.Op, _ string, body []byte) response {
	var req struct {
		SessionRequestID string `json:"session_request_id"`
	}
	if err := wire.Decode(body, &req); err != nil {
		return invalid(err)
	}
	if req.SessionRequestID == "" {
		return invalid(errors.New("session_request_id is required"))
	}
	o.mu.Lock()
	s := o.sessions[req.SessionRequestID]
	var code string
	switch {
	case s == nil:
		code = "session_request_not_found"
	case s.used:
		code = "session_request_used"
	case o.now().After(s.expires):
		code = "session_request_expired"
	default:
		s.used = true
	}
	o.mu.Unlock()
	if code != "" {
		return errorResponse(http.StatusUnauthorized, code, "")
	}
	token, exp, err := o.mint(s.bettorID, s.currency)
	if err != nil {
		return errorResponse(http.StatusInternalServerError, "internal_error", "")
	}
	// The bettor's balance now, so that the widget shows it before the
	// platform's first wallet call reports one (docs/operator-integration.md).
	balance, _ := o.Balance(s.bettorID)
	return response{status: http.StatusOK, body: wire.MustJSON(struct {
		AuthToken string `json:"auth_token"`
		ExpiresAt string `json:"expires_at"`
		Balance   string `json:"balance,omitempty"`
	}{token, exp.Format(time.RFC3339), balance})}
}

// setCORS answers the CORS headers of POST /v1/session.
func (o *Operator) setCORS(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	h := w.Header()
	if o.origins != nil {
		h.Add("Vary", "Origin")
	}
	switch {
	case origin == "":
	case o.origins == nil:
		h.Set("Access-Control-Allow-Origin", "*")
	case o.origins[origin]:
		h.Set("Access-Control-Allow-Origin", origin)
	}
}

// sessionPreflight answers OPTIONS /v1/session.
func (o *Operator) sessionPreflight(w http.ResponseWriter, r *http.Request) {
	o.setCORS(w, r)
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.Header().Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
}
