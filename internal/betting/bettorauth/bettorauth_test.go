package bettorauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// Keys are generated once per test binary.
var testKeys = sync.OnceValue(func() []*rsa.PrivateKey {
	keys := make([]*rsa.PrivateKey, 3)
	for i := range keys {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keys[i] = k
	}
	return keys
})

// jwksServer is an operator's JWKS endpoint on loopback (TLS), whose key
// set can change during a test.
type jwksServer struct {
	srv     *httptest.Server
	fetches atomic.Int32

	mu   sync.Mutex
	keys []jwk
}

type jwk struct {
	kid string
	pub *rsa.PublicKey
}

func newJWKSServer(t *testing.T, useTLS bool, keys ...jwk) *jwksServer {
	t.Helper()
	s := &jwksServer{keys: keys}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		set := map[string][]map[string]string{"keys": {}}
		for _, k := range s.keys {
			set["keys"] = append(set["keys"], map[string]string{
				"kty": "RSA", "use": "sig", "alg": "RS256", "kid": k.kid,
				"n": base64.RawURLEncoding.EncodeToString(k.pub.N.Bytes()),
				"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.pub.E)).Bytes()),
			})
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	})
	if useTLS {
		s.srv = httptest.NewTLSServer(h)
	} else {
		s.srv = httptest.NewServer(h)
	}
	t.Cleanup(s.srv.Close)
	return s
}

func (s *jwksServer) add(k jwk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, k)
}

func (s *jwksServer) url() string { return s.srv.URL + "/.well-known/jwks.json" }

func newValidator(t *testing.T, s *jwksServer, limit time.Duration) *bettorauth.Validator {
	t.Helper()
	v := bettorauth.New(bettorauth.Options{HTTPClient: s.srv.Client(), RefreshUnknownKIDRateLimit: limit})
	t.Cleanup(v.Close)
	return v
}

// newOperatorA starts operator op-a's JWKS over TLS, holding the first
// test key as kid k1, and returns the test keys, the server, a validator
// that trusts the server's certificate (and refreshes for an unknown kid
// at most once per limit) and the operator.
func newOperatorA(t *testing.T, limit time.Duration) ([]*rsa.PrivateKey, *jwksServer, *bettorauth.Validator, bettorauth.Operator) {
	t.Helper()
	k := testKeys()
	s := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	return k, s, newValidator(t, s, limit), bettorauth.Operator{ID: "op-a", JWKSURL: s.url()}
}

// operatorAToken is a token of op-a's claims signed with the first test
// key as kid k1, as op-a's JWKS of newOperatorA publishes it.
func operatorAToken(t *testing.T) string {
	t.Helper()
	return sign(t, jwt.SigningMethodRS256, testKeys()[0], "k1", claims("op-a"))
}

func claims(iss string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"sub": "5f0c6d3e-8f7a-4c43-9d7e-2b1f0e6a9c11", "currency": "USD", "iss": iss,
		"iat": now.Unix(), "exp": now.Add(15 * time.Minute).Unix(),
	}
}

func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func with(c jwt.MapClaims, mod func(jwt.MapClaims)) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	mod(out)
	return out
}

func TestValidTokenAccepted(t *testing.T) {
	t.Parallel()
	k, _, v, op := newOperatorA(t, 10*time.Millisecond)
	c := claims("op-a")
	got, err := v.Validate(context.Background(), op, sign(t, jwt.SigningMethodRS256, k[0], "k1", c))
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	want := bettorauth.Claims{
		BettorID: c["sub"].(string), Currency: "USD", Issuer: "op-a",
		IssuedAt: time.Unix(c["iat"].(int64), 0), ExpiresAt: time.Unix(c["exp"].(int64), 0),
	}
	if got.BettorID != want.BettorID || got.Currency != want.Currency || got.Issuer != want.Issuer ||
		!got.IssuedAt.Equal(want.IssuedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Errorf("Claims = %+v, want %+v", got, want)
	}
	// Within the leeway an expired token still passes.
	c = with(claims("op-a"), func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() })
	if _, err := v.Validate(context.Background(), op, sign(t, jwt.SigningMethodRS256, k[0], "k1", c)); err != nil {
		t.Errorf("token expired 10 s ago: %v; want accepted", err)
	}
}

func TestInvalidTokensRejected(t *testing.T) {
	t.Parallel()
	k, _, v, op := newOperatorA(t, 10*time.Millisecond)
	good := claims("op-a")

	der, err := x509.MarshalPKIXPublicKey(&k[0].PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	publicPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	now := time.Now()
	valid := sign(t, jwt.SigningMethodRS256, k[0], "k1", good)
	parts := strings.Split(valid, ".")

	tests := map[string]string{
		"wrong issuer":         sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["iss"] = "op-b" })),
		"no issuer":            sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { delete(c, "iss") })),
		"expired":              sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["exp"] = now.Add(-2 * time.Minute).Unix() })),
		"no exp":               sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { delete(c, "exp") })),
		"exp not a number":     sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["exp"] = "tomorrow" })),
		"iat in the future":    sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["iat"] = now.Add(5 * time.Minute).Unix() })),
		"nbf in the future":    sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["nbf"] = now.Add(5 * time.Minute).Unix() })),
		"no sub":               sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { delete(c, "sub") })),
		"empty sub":            sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["sub"] = "" })),
		"no currency":          sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { delete(c, "currency") })),
		"lowercase currency":   sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["currency"] = "usd" })),
		"8-character currency": sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["currency"] = "USDTXXXX" })),
		"lower-case currency":  sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["currency"] = "usd" })),
		"numeric currency":     sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["currency"] = 840 })),
		"HS256 with the PEM":   sign(t, jwt.SigningMethodHS256, publicPEM, "k1", good),
		"HS256 with N":         sign(t, jwt.SigningMethodHS256, k[0].PublicKey.N.Bytes(), "k1", good),
		"alg none":             sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", good),
		"RS512":                sign(t, jwt.SigningMethodRS512, k[0], "k1", good),
		"PS256":                sign(t, jwt.SigningMethodPS256, k[0], "k1", good),
		"missing kid":          sign(t, jwt.SigningMethodRS256, k[0], "", good),
		"unknown kid":          sign(t, jwt.SigningMethodRS256, k[1], "k9", good),
		"kid of another key":   sign(t, jwt.SigningMethodRS256, k[1], "k1", good),
		"tampered payload":     parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"someone-else","currency":"USD","iss":"op-a","exp":9999999999}`)) + "." + parts[2],
		"signature stripped":   parts[0] + "." + parts[1] + ".",
		"extra segment":        valid + ".x",
		"leading space":        " " + valid,
		"empty":                "",
		"one word":             "garbage",
		"three dots":           "...",
		"three empty-ish":      "a.b.c",
		"base64 junk":          "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.bm90IGpzb24.c2ln",
		"header not JSON":      base64.RawURLEncoding.EncodeToString([]byte("{")) + "." + parts[1] + "." + parts[2],
		"many dots":            strings.Repeat(".", 4000),
		"longer than 8 KiB":    sign(t, jwt.SigningMethodRS256, k[0], "k1", with(good, func(c jwt.MapClaims) { c["pad"] = strings.Repeat("x", 8<<10) })),
		"kid is not a string":  signWithHeader(t, k[0], map[string]any{"kid": 1}, good),
	}
	for name, token := range tests {
		_, err := v.Validate(context.Background(), op, token)
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, bettorauth.ErrInvalidToken) {
			t.Errorf("%s: Validate = %v, want ErrInvalidToken", name, err)
		}
	}
}

func signWithHeader(t *testing.T, key *rsa.PrivateKey, header map[string]any, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An operator rotates keys: a token with the new kid is refused while the
// JWKS lacks it, then accepted after the key is published, by a refresh
// the unknown kid triggers.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	k, s, v, op := newOperatorA(t, 10*time.Millisecond)
	ctx := context.Background()
	if _, err := v.Validate(ctx, op, operatorAToken(t)); err != nil {
		t.Fatalf("k1 token: %v", err)
	}
	if n := s.fetches.Load(); n != 1 {
		t.Fatalf("%d JWKS fetches after the first token, want 1", n)
	}
	rotated := sign(t, jwt.SigningMethodRS256, k[1], "k2", claims("op-a"))
	if _, err := v.Validate(ctx, op, rotated); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Fatalf("k2 token before k2 is published: %v, want ErrInvalidToken", err)
	}
	s.add(jwk{"k2", &k[1].PublicKey})
	before := s.fetches.Load()
	if _, err := v.Validate(ctx, op, rotated); err != nil {
		t.Fatalf("k2 token after k2 is published: %v", err)
	}
	if n := s.fetches.Load(); n != before+1 {
		t.Errorf("%d JWKS fetches, want %d (one refresh for the new kid)", n, before+1)
	}
	// Known kids need no fetch.
	for _, tok := range []string{rotated, operatorAToken(t)} {
		if _, err := v.Validate(ctx, op, tok); err != nil {
			t.Errorf("known kid: %v", err)
		}
	}
	if n := s.fetches.Load(); n != before+1 {
		t.Errorf("%d JWKS fetches after known kids, want %d", n, before+1)
	}
}

// Unknown kids cannot make the platform hammer the operator's JWKS.
func TestUnknownKIDRefreshIsRateLimited(t *testing.T) {
	t.Parallel()
	k, s, v, op := newOperatorA(t, time.Hour)
	ctx := context.Background()
	if _, err := v.Validate(ctx, op, operatorAToken(t)); err != nil {
		t.Fatal(err)
	}
	for i, kid := range []string{"x1", "x2", "x3", "x4"} {
		if _, err := v.Validate(ctx, op, sign(t, jwt.SigningMethodRS256, k[1], kid, claims("op-a"))); !errors.Is(err, bettorauth.ErrInvalidToken) {
			t.Fatalf("unknown kid %s: %v", kid, err)
		}
		if n := s.fetches.Load(); n != 2 {
			t.Errorf("after unknown kid %d: %d JWKS fetches, want 2 (initial + one rate-limited refresh)", i+1, n)
		}
	}
}

// A made-up kid in an unsigned token, which anyone can send for any
// operator (operator ids are public), must not keep the operator's new key
// out: the next fetch, at most the spacing later, reads it. (An outside
// attack kept it out for up to an hour with one such token.) A flood of
// made-up kids shares one fetch per spacing, and a kid that caused a fetch
// causes none again within the per-kid limit.
func TestMadeUpKIDsDoNotDelayRotation(t *testing.T) {
	t.Parallel()
	const spacing = 300 * time.Millisecond
	k := testKeys()
	s := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	v := bettorauth.New(bettorauth.Options{HTTPClient: s.srv.Client(), RefreshUnknownKIDRateLimit: time.Hour, UnknownKIDRefreshSpacing: spacing})
	t.Cleanup(v.Close)
	op := bettorauth.Operator{ID: "op-a", JWKSURL: s.url()}
	ctx := context.Background()
	if _, err := v.Validate(ctx, op, operatorAToken(t)); err != nil {
		t.Fatal(err)
	}
	forged := unsignedToken(t, "made-up", claims("op-a"))
	if _, err := v.Validate(ctx, op, forged); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Fatalf("forged token: %v, want ErrInvalidToken", err)
	}
	if n := s.fetches.Load(); n != 2 {
		t.Fatalf("%d JWKS fetches after the forged token, want 2", n)
	}

	s.add(jwk{"k2", &k[1].PublicKey})
	start := time.Now()
	if _, err := v.Validate(ctx, op, sign(t, jwt.SigningMethodRS256, k[1], "k2", claims("op-a"))); err != nil {
		t.Fatalf("token of the new key after a forged token: %v", err)
	}
	// Seconds of room for a loaded machine, short of the 10 s a token
	// may wait for a fetch (unknownKIDWaitMax).
	if took := time.Since(start); took > spacing+5*time.Second {
		t.Errorf("the new key took %v to be accepted, want about the spacing (%v)", took, spacing)
	}
	if n := s.fetches.Load(); n != 3 {
		t.Fatalf("%d JWKS fetches after the new key, want 3", n)
	}

	start = time.Now()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if _, err := v.Validate(ctx, op, unsignedToken(t, fmt.Sprintf("made-up-%d", i), claims("op-a"))); !errors.Is(err, bettorauth.ErrInvalidToken) {
				t.Errorf("made-up kid %d: %v, want ErrInvalidToken", i, err)
			}
		})
	}
	wg.Wait()
	if n, most := s.fetches.Load(), 3+1+int32(time.Since(start)/spacing); n > most {
		t.Errorf("%d JWKS fetches after a flood of made-up kids, want at most %d (one per spacing)", n, most)
	}

	// Once spacing has passed since the last fetch, only the per-kid limit
	// can keep the forged kid from causing one at once. The Validator reads
	// the time and sets timers itself (no clock to inject), so the spacing
	// passes for real.
	time.Sleep(spacing)
	before := s.fetches.Load()
	if _, err := v.Validate(ctx, op, forged); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Fatalf("forged token again: %v, want ErrInvalidToken", err)
	}
	if n := s.fetches.Load(); n != before {
		t.Errorf("the forged token's kid fetched the JWKS again within the per-kid limit (%d fetches, want %d)", n, before)
	}
}

// unsignedToken is a token with claims c and kid whose signature is not
// one, as anyone can make.
func unsignedToken(t *testing.T, kid string, c jwt.MapClaims) string {
	t.Helper()
	header, err := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": kid})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(header) + "." + enc.EncodeToString(payload) + "." + enc.EncodeToString([]byte("not a signature"))
}

// Each operator's tokens are checked against that operator's keys only,
// even when two operators use the same kid.
func TestOperatorsAreIsolated(t *testing.T) {
	t.Parallel()
	k := testKeys()
	a := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	b := newJWKSServer(t, true, jwk{"k1", &k[2].PublicKey})
	// One client trusts both test servers' certificates (httptest uses
	// the same certificate for every TLS server).
	v := newValidator(t, a, 10*time.Millisecond)
	opA := bettorauth.Operator{ID: "op-a", JWKSURL: a.url()}
	opB := bettorauth.Operator{ID: "op-b", JWKSURL: b.url()}
	ctx := context.Background()

	tokA := operatorAToken(t)
	tokB := sign(t, jwt.SigningMethodRS256, k[2], "k1", claims("op-b"))
	if _, err := v.Validate(ctx, opA, tokA); err != nil {
		t.Fatalf("A's token for A: %v", err)
	}
	if _, err := v.Validate(ctx, opB, tokB); err != nil {
		t.Fatalf("B's token for B: %v", err)
	}
	if _, err := v.Validate(ctx, opB, tokA); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("A's token for B: %v, want ErrInvalidToken", err)
	}
	if _, err := v.Validate(ctx, opA, tokB); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("B's token for A: %v, want ErrInvalidToken", err)
	}
	// A token claiming to be B's, signed with A's key under the shared kid.
	forged := sign(t, jwt.SigningMethodRS256, k[0], "k1", claims("op-b"))
	if _, err := v.Validate(ctx, opB, forged); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("B-issued token signed with A's key: %v, want ErrInvalidToken", err)
	}
	if a.fetches.Load() != 1 || b.fetches.Load() < 1 {
		t.Errorf("fetches A %d, B %d; want 1 and at least 1", a.fetches.Load(), b.fetches.Load())
	}
}

func TestConcurrentFirstUseFetchesOnce(t *testing.T) {
	t.Parallel()
	_, s, v, op := newOperatorA(t, time.Hour)
	tok := operatorAToken(t)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			if _, err := v.Validate(context.Background(), op, tok); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Validate: %v", err)
	}
	if n := s.fetches.Load(); n != 1 {
		t.Errorf("%d JWKS fetches, want 1", n)
	}
}

func TestJWKSURLRules(t *testing.T) {
	t.Parallel()
	k := testKeys()
	plain := newJWKSServer(t, false, jwk{"k1", &k[0].PublicKey})
	tok := operatorAToken(t)
	ctx := context.Background()

	strict := bettorauth.New(bettorauth.Options{})
	t.Cleanup(strict.Close)
	for _, u := range []string{plain.url(), "", "/jwks.json", "ftp://example.com/jwks", "https://user:pw@example.com/jwks"} {
		_, err := strict.Validate(ctx, bettorauth.Operator{ID: "op-a", JWKSURL: u}, tok)
		if err == nil || errors.Is(err, bettorauth.ErrInvalidToken) {
			t.Errorf("JWKS URL %q: %v, want a configuration error", u, err)
		}
	}
	if _, err := strict.Validate(ctx, bettorauth.Operator{JWKSURL: "https://example.com/jwks"}, tok); err == nil || errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("operator without id: %v, want a configuration error", err)
	}
	if n := plain.fetches.Load(); n != 0 {
		t.Errorf("the http JWKS was fetched %d times", n)
	}

	insecure := bettorauth.New(bettorauth.Options{AllowInsecure: true})
	t.Cleanup(insecure.Close)
	if _, err := insecure.Validate(ctx, bettorauth.Operator{ID: "op-a", JWKSURL: plain.url()}, tok); err != nil {
		t.Errorf("http JWKS with AllowInsecure: %v", err)
	}
}

func TestDefaultClientRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	k := testKeys()
	s := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	v := bettorauth.New(bettorauth.Options{RefreshUnknownKIDRateLimit: time.Millisecond})
	t.Cleanup(v.Close)
	_, err := v.Validate(context.Background(), bettorauth.Operator{ID: "op-a", JWKSURL: s.url()}, operatorAToken(t))
	if !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("Validate = %v, want ErrInvalidToken (keys unavailable)", err)
	}
	if n := s.fetches.Load(); n != 0 {
		t.Errorf("the loopback JWKS was fetched %d times, want 0", n)
	}
}

func TestChangedJWKSURLReplacesKeys(t *testing.T) {
	t.Parallel()
	k := testKeys()
	old := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	moved := newJWKSServer(t, true, jwk{"k2", &k[1].PublicKey})
	v := newValidator(t, old, time.Hour)
	ctx := context.Background()
	tok1 := operatorAToken(t)
	if _, err := v.Validate(ctx, bettorauth.Operator{ID: "op-a", JWKSURL: old.url()}, tok1); err != nil {
		t.Fatal(err)
	}
	op := bettorauth.Operator{ID: "op-a", JWKSURL: moved.url()}
	if _, err := v.Validate(ctx, op, tok1); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("old key after the JWKS URL changed: %v, want ErrInvalidToken", err)
	}
	if _, err := v.Validate(ctx, op, sign(t, jwt.SigningMethodRS256, k[1], "k2", claims("op-a"))); err != nil {
		t.Errorf("new key at the new URL: %v", err)
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	k := testKeys()
	s := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	v := bettorauth.New(bettorauth.Options{HTTPClient: s.srv.Client()})
	op := bettorauth.Operator{ID: "op-a", JWKSURL: s.url()}
	tok := operatorAToken(t)
	if _, err := v.Validate(context.Background(), op, tok); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v.Close() // idempotent
	if _, err := v.Validate(context.Background(), op, tok); err == nil || errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("Validate after Close = %v, want a non-token error", err)
	}
}

// A caller whose context ends while the operator's keys are still loading
// stops waiting.
func TestContextEndsWhileKeysLoad(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"keys":[]}`))
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	v := bettorauth.New(bettorauth.Options{HTTPClient: slow.Client()})
	t.Cleanup(v.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := v.Validate(ctx, bettorauth.Operator{ID: "op-a", JWKSURL: slow.URL}, operatorAToken(t))
	if !errors.Is(err, bettorauth.ErrInvalidToken) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Validate = %v, want ErrInvalidToken wrapping the deadline", err)
	}
}

// TestPlatformKeys: with Operator.Keys the key comes from the platform, not
// a JWKS; the rules (RS256, kid, iss, exp, key size) stay, and the sid and
// demo claims are read.
func TestPlatformKeys(t *testing.T) {
	t.Parallel()
	k := testKeys()
	v := bettorauth.New(bettorauth.Options{})
	t.Cleanup(v.Close)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(_ context.Context, kid string) (*rsa.PublicKey, error) {
		switch kid {
		case "p1":
			return &k[0].PublicKey, nil
		case "small":
			return &small.PublicKey, nil
		}
		return nil, errors.New("no such key")
	}
	op := bettorauth.Operator{ID: "agg", Keys: keys}
	c := with(claims("agg"), func(c jwt.MapClaims) { c["sid"] = "s-1"; c["demo"] = true; c["currency"] = "USDT" })
	got, err := v.Validate(context.Background(), op, sign(t, jwt.SigningMethodRS256, k[0], "p1", c))
	if err != nil || got.SessionID != "s-1" || !got.Demo || got.Currency != "USDT" {
		t.Fatalf("Validate = %+v, %v", got, err)
	}
	for name, token := range map[string]string{
		"another issuer":   sign(t, jwt.SigningMethodRS256, k[0], "p1", claims("other")),
		"unknown kid":      sign(t, jwt.SigningMethodRS256, k[0], "p9", claims("agg")),
		"another key":      sign(t, jwt.SigningMethodRS256, k[1], "p1", claims("agg")),
		"1024-bit key":     sign(t, jwt.SigningMethodRS256, small, "small", claims("agg")),
		"no kid":           sign(t, jwt.SigningMethodRS256, k[0], "", claims("agg")),
		"expired":          sign(t, jwt.SigningMethodRS256, k[0], "p1", with(claims("agg"), func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() })),
		"8-char currency":  sign(t, jwt.SigningMethodRS256, k[0], "p1", with(claims("agg"), func(c jwt.MapClaims) { c["currency"] = "USDTUSDT" })),
		"HS256 with a key": sign(t, jwt.SigningMethodHS256, []byte("secret"), "p1", claims("agg")),
	} {
		if _, err := v.Validate(context.Background(), op, token); !errors.Is(err, bettorauth.ErrInvalidToken) {
			t.Errorf("%s: Validate = %v, want ErrInvalidToken", name, err)
		}
	}
}

// blockingTransport answers no request: it waits until the request's
// context ends, then, a little later, notes that it returned.
type blockingTransport struct{ returned atomic.Bool }

func (b *blockingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	time.Sleep(50 * time.Millisecond)
	b.returned.Store(true)
	return nil, r.Context().Err()
}

// Close cancels a first load of keys that is still under way and waits
// for it to end.
func TestCloseWaitsForTheLoads(t *testing.T) {
	t.Parallel()
	tr := &blockingTransport{}
	v := bettorauth.New(bettorauth.Options{HTTPClient: &http.Client{Transport: tr}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := v.Validate(ctx, bettorauth.Operator{ID: "op-a", JWKSURL: "https://jwks.invalid/keys"}, operatorAToken(t)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Validate = %v, want the deadline while the keys load", err)
	}
	v.Close()
	if !tr.returned.Load() {
		t.Error("Close returned before the load of the keys ended")
	}
}

// refetchBlocker answers the first request through first, and blocks
// every later one as blockingTransport does, closing inFlight when the
// second arrives.
type refetchBlocker struct {
	first    http.RoundTripper
	requests atomic.Int32
	inFlight chan struct{}
	blockingTransport
}

func (r *refetchBlocker) RoundTrip(req *http.Request) (*http.Response, error) {
	switch r.requests.Add(1) {
	case 1:
		return r.first.RoundTrip(req)
	case 2:
		close(r.inFlight)
	}
	return r.blockingTransport.RoundTrip(req)
}

// Close also cancels, and waits for, a fetch of the JWKS that an unknown
// kid caused.
func TestCloseWaitsForTheFetchOfAnUnknownKID(t *testing.T) {
	t.Parallel()
	k := testKeys()
	s := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	tr := &refetchBlocker{first: s.srv.Client().Transport, inFlight: make(chan struct{})}
	v := bettorauth.New(bettorauth.Options{HTTPClient: &http.Client{Transport: tr}})
	op := bettorauth.Operator{ID: "op-a", JWKSURL: s.url()}
	if _, err := v.Validate(t.Context(), op, operatorAToken(t)); err != nil {
		t.Fatal(err)
	}
	// The caller gives up once the fetch is under way; a deadline could
	// end it on a loaded machine before the unknown kid asked for one.
	unknown := sign(t, jwt.SigningMethodRS256, k[1], "x1", claims("op-a"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-tr.inFlight:
		case <-time.After(waitfor.Bound):
		}
		cancel()
	}()
	if _, err := v.Validate(ctx, op, unknown); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Fatalf("unknown kid: %v", err)
	}
	select {
	case <-tr.inFlight:
	default:
		t.Fatalf("the unknown kid caused no fetch of the JWKS within %v", waitfor.Bound)
	}
	v.Close()
	if !tr.returned.Load() {
		t.Error("Close returned before the fetch for the unknown kid ended")
	}
}
