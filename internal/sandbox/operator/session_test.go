package operator_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

func rsaKey(bits int) (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, bits) }

// exchange posts a session_request_id to /v1/session.
func (e *env) exchange(id string) (int, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/session",
		bytes.NewReader(sandboxtest.JSON(e.t, map[string]string{"session_request_id": id})))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	status, body, _ := e.do(req)
	return status, body
}

type jwkSet struct {
	Keys []struct {
		Kty, Kid, Use, Alg, N, E string
	} `json:"keys"`
}

// fetchJWKS reads the served key set and turns it into public keys by kid.
func (e *env) fetchJWKS() map[string]*rsa.PublicKey {
	e.t.Helper()
	resp, err := e.client.Get(e.srv.URL + "/.well-known/jwks.json")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		e.t.Fatalf("JWKS: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var set jwkSet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		e.t.Fatal(err)
	}
	keys := make(map[string]*rsa.PublicKey)
	for _, k := range set.Keys {
		if k.Kty != "RSA" || k.Use != "sig" || k.Alg != "RS256" || k.Kid == "" {
			e.t.Fatalf("JWK %+v", k)
		}
		if strings.ContainsAny(k.N+k.E, "=+/") {
			e.t.Fatalf("JWK n/e are not unpadded base64url: %+v", k)
		}
		n, err := base64.RawURLEncoding.DecodeString(k.N)
		if err != nil {
			e.t.Fatal(err)
		}
		eb, err := base64.RawURLEncoding.DecodeString(k.E)
		if err != nil {
			e.t.Fatal(err)
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(eb).Int64())}
	}
	return keys
}

type claims struct {
	Currency string `json:"currency"`
	jwt.RegisteredClaims
}

// verify checks a token against the served JWKS as the platform does.
func (e *env) verify(token string) (*claims, string) {
	e.t.Helper()
	keys := e.fetchJWKS()
	var c claims
	parsed, err := jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k := keys[kid]
		if k == nil {
			return nil, fmt.Errorf("no key %q in the JWKS", kid)
		}
		return k, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer(testOperatorID),
		jwt.WithTimeFunc(e.clock.Now), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
	if err != nil {
		e.t.Fatalf("token does not verify: %v", err)
	}
	return &c, parsed.Header["kid"].(string)
}

func TestSessionExchange(t *testing.T) {
	e := newEnv(t)
	e.setBalance("b1", "EUR", "10.00")
	id := e.op.NewSessionRequest("b1", "")

	status, body := e.exchange(id)
	wantStatus(t, "exchange", status, body, http.StatusOK, "")
	var got struct {
		AuthToken string `json:"auth_token"`
		ExpiresAt string `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if want := testStart.Add(time.Hour).Format(time.RFC3339); got.ExpiresAt != want || !strings.HasSuffix(got.ExpiresAt, "Z") {
		t.Errorf("expires_at %q, want %q", got.ExpiresAt, want)
	}
	c, kid := e.verify(got.AuthToken)
	if kid != "key-1" || c.Subject != "b1" || c.Currency != "EUR" || c.Issuer != testOperatorID ||
		!c.IssuedAt.Equal(testStart) || !c.ExpiresAt.Equal(testStart.Add(time.Hour)) {
		t.Errorf("claims %+v kid %s", c, kid)
	}
	// Exactly the documented claims, as JSON numbers.
	var raw map[string]any
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(got.AuthToken, ".")[1])
	if err := json.Unmarshal(payload, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 5 || raw["iat"] != float64(testStart.Unix()) || raw["exp"] != float64(testStart.Add(time.Hour).Unix()) {
		t.Errorf("claims %v", raw)
	}

	// Single use.
	status, body = e.exchange(id)
	wantStatus(t, "second exchange", status, body, http.StatusUnauthorized, "session_request_used")
	// Unknown.
	status, body = e.exchange("sr_unknown")
	wantStatus(t, "unknown", status, body, http.StatusUnauthorized, "session_request_not_found")
	// Malformed.
	status, body = e.exchange("")
	wantStatus(t, "empty", status, body, http.StatusBadRequest, "invalid_request")

	// Expiry: valid at two minutes, expired just after.
	edge := e.op.NewSessionRequest("b1", "EUR")
	late := e.op.NewSessionRequest("b1", "EUR")
	e.clock.Advance(operator.SessionRequestTTL)
	status, body = e.exchange(edge)
	wantStatus(t, "at the TTL", status, body, http.StatusOK, "")
	e.clock.Advance(time.Second)
	status, body = e.exchange(late)
	wantStatus(t, "after the TTL", status, body, http.StatusUnauthorized, "session_request_expired")

	// Requests the operator must not issue.
	if _, err := e.op.CreateSessionRequest("b1", "USD"); err == nil {
		t.Error("session in another currency than the bettor's")
	}
	if _, err := e.op.CreateSessionRequest("", "USD"); err == nil {
		t.Error("session without a bettor")
	}
	if _, err := e.op.CreateSessionRequest("b9", "usd"); err == nil {
		t.Error("session with a malformed currency")
	}
}

func TestSessionRequestIDsAreUnique(t *testing.T) {
	e := newEnv(t)
	seen := map[string]bool{}
	for range 100 {
		id := e.op.NewSessionRequest("b1", "USD")
		if seen[id] || len(id) < 40 {
			t.Fatalf("session_request_id %q", id)
		}
		seen[id] = true
	}
}

func TestSessionCORS(t *testing.T) {
	e := newEnv(t, func(c *operator.Config) { c.AllowedOrigins = []string{"https://widget.example"} })
	for _, c := range []struct{ origin, allow string }{
		{"https://widget.example", "https://widget.example"},
		{"https://evil.example", ""},
	} {
		req, _ := http.NewRequest(http.MethodOptions, e.srv.URL+"/v1/session", nil)
		req.Header.Set("Origin", c.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		status, _, h := e.do(req)
		if status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != c.allow {
			t.Errorf("preflight from %s: %d %q", c.origin, status, h.Get("Access-Control-Allow-Origin"))
		}
		if c.allow != "" && (h.Get("Access-Control-Allow-Methods") != "POST" || h.Get("Access-Control-Allow-Headers") != "Content-Type") {
			t.Errorf("preflight headers %v", h)
		}
	}
	id := e.op.NewSessionRequest("b1", "USD")
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/session", strings.NewReader(`{"session_request_id":"`+id+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://widget.example")
	status, body, h := e.do(req)
	if status != http.StatusOK || h.Get("Access-Control-Allow-Origin") != "https://widget.example" {
		t.Errorf("POST: %d %s %v", status, body, h)
	}

	open := newEnv(t)
	req, _ = http.NewRequest(http.MethodOptions, open.srv.URL+"/v1/session", nil)
	req.Header.Set("Origin", "http://127.0.0.1:9999")
	if _, _, h := open.do(req); h.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("default origins: %v", h)
	}
}

func TestMintTokenAndRotation(t *testing.T) {
	e := newEnv(t)
	old, err := e.op.MintToken("b1", "JPY")
	if err != nil {
		t.Fatal(err)
	}
	c, kid := e.verify(old)
	if c.Subject != "b1" || c.Currency != "JPY" || kid != "key-1" {
		t.Errorf("claims %+v kid %s", c, kid)
	}

	newKid, err := e.op.RotateKey()
	if err != nil {
		t.Fatal(err)
	}
	if newKid == "key-1" || e.op.KeyID() != newKid {
		t.Fatalf("rotated kid %q, current %q", newKid, e.op.KeyID())
	}
	keys := e.fetchJWKS()
	if len(keys) != 2 || keys["key-1"] == nil || keys[newKid] == nil {
		t.Fatalf("JWKS after rotation has %d keys", len(keys))
	}
	fresh, err := e.op.MintToken("b1", "JPY")
	if err != nil {
		t.Fatal(err)
	}
	if _, kid := e.verify(fresh); kid != newKid {
		t.Errorf("new token signed with %s, want %s", kid, newKid)
	}
	// The old token still verifies.
	if _, kid := e.verify(old); kid != "key-1" {
		t.Errorf("old token kid %s", kid)
	}
	// The session exchange signs with the new key too.
	status, body := e.exchange(e.op.NewSessionRequest("b2", "USD"))
	wantStatus(t, "exchange after rotation", status, body, http.StatusOK, "")
	var got struct {
		AuthToken string `json:"auth_token"`
	}
	_ = json.Unmarshal(body, &got)
	if _, kid := e.verify(got.AuthToken); kid != newKid {
		t.Errorf("exchanged token kid %s", kid)
	}

	// Retiring the old key: the current one cannot go, the old one can.
	if err := e.op.RemoveKey(newKid); err == nil {
		t.Error("removed the signing key")
	}
	if err := e.op.RemoveKey("key-1"); err != nil {
		t.Fatal(err)
	}
	if keys := e.fetchJWKS(); len(keys) != 1 || keys[newKid] == nil {
		t.Errorf("JWKS after removal: %v", keys)
	}
	if err := e.op.RemoveKey("key-1"); err == nil {
		t.Error("removed a missing key")
	}

	if _, err := e.op.MintToken("", "USD"); err == nil {
		t.Error("token without a bettor")
	}
	if _, err := e.op.MintToken("b1", "ZZZ"); err == nil {
		t.Error("token with an unknown currency")
	}
}

func TestGeneratedKeyAndThumbprint(t *testing.T) {
	clock := &fakeClock{t: testStart}
	op, err := operator.New(operator.Config{ID: testOperatorID, SigningSecret: testSecret, Now: clock.Now, TokenLifetime: 15 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, op: op, clock: clock}
	e.srv = newServer(t, op)
	e.client = e.srv.Client()
	keys := e.fetchJWKS()
	if len(keys) != 1 {
		t.Fatalf("%d keys", len(keys))
	}
	for kid, k := range keys {
		if k.N.BitLen() != operator.KeyBits || k.E != 65537 {
			t.Errorf("key %d bits, e %d", k.N.BitLen(), k.E)
		}
		// RFC 7638 thumbprint, computed here from the served n and e.
		n := base64.RawURLEncoding.EncodeToString(k.N.Bytes())
		ex := base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())
		sum := sha256.Sum256([]byte(`{"e":"` + ex + `","kty":"RSA","n":"` + n + `"}`))
		if want := base64.RawURLEncoding.EncodeToString(sum[:]); kid != want || kid != op.KeyID() {
			t.Errorf("kid %q", kid)
		}
	}
	token, err := op.MintToken("b1", "")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := e.verify(token)
	if c.Currency != "USD" || !c.ExpiresAt.Equal(testStart.Add(15*time.Minute)) {
		t.Errorf("claims %+v", c)
	}
	// Expired tokens are refused by the verifier.
	clock.Advance(16 * time.Minute)
	keys = e.fetchJWKS()
	if _, err := jwt.Parse(token, func(*jwt.Token) (any, error) { return keys[op.KeyID()], nil },
		jwt.WithTimeFunc(clock.Now), jwt.WithValidMethods([]string{"RS256"})); err == nil {
		t.Error("expired token verified")
	}
}

// TestSetTokenLifetime: the lifetime applies to the tokens minted after
// it, only whole seconds from one second are taken, and 0 goes back to
// Config.TokenLifetime.
func TestSetTokenLifetime(t *testing.T) {
	e := newEnv(t, func(c *operator.Config) { c.TokenLifetime = 15 * time.Minute })
	before, err := e.op.MintToken("b1", "USD")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		set  time.Duration
		ok   bool
		want time.Duration
	}{
		{2 * time.Second, true, 2 * time.Second},
		{1500 * time.Millisecond, false, 2 * time.Second},
		{500 * time.Millisecond, false, 2 * time.Second},
		{-time.Second, false, 2 * time.Second},
		{time.Hour, true, time.Hour},
		{0, true, 15 * time.Minute},
	}
	for _, tt := range tests {
		err := e.op.SetTokenLifetime(tt.set)
		if (err == nil) != tt.ok {
			t.Errorf("SetTokenLifetime(%v) = %v, want ok %v", tt.set, err, tt.ok)
		}
		token, err := e.op.MintToken("b1", "USD")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := e.verify(token)
		if got := c.ExpiresAt.Sub(c.IssuedAt.Time); got != tt.want || e.op.TokenLifetime() != tt.want {
			t.Errorf("after SetTokenLifetime(%v) tokens live %v (TokenLifetime %v), want %v", tt.set, got, e.op.TokenLifetime(), tt.want)
		}
	}
	if c, _ := e.verify(before); c.ExpiresAt.Sub(c.IssuedAt.Time) != 15*time.Minute {
		t.Errorf("a token minted before changed its exp: %+v", c)
	}
}
