package wallet_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
)

// RFC 4231-style known answer: HMAC-SHA256 with key "key" over the pangram,
// a published test vector.
func TestSignKnownAnswer(t *testing.T) {
	t.Parallel()
	got := wallet.Sign("key", []byte("The quick brown fox jumps over the lazy dog"))
	if want := "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

// Sign agrees with an independent computation over the exact bytes,
// including bytes that a re-encoding of the JSON would change.
func TestSignMatchesIndependentHMAC(t *testing.T) {
	t.Parallel()
	secret := "s3cr3t-" + uuid.NewString()
	for _, body := range []string{
		`{"transaction_id":"t1","amount":"10.50"}`,
		`{ "transaction_id" : "t1", "amount": "10.50" }`,
		`{"bettor_id":"<b&o>"}`,
		``,
	} {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(body))
		want := hex.EncodeToString(m.Sum(nil))
		if got := wallet.Sign(secret, []byte(body)); got != want {
			t.Errorf("Sign(%q) = %s, want %s", body, got, want)
		}
		if got := wallet.Sign(secret, []byte(body)); got != strings.ToLower(got) {
			t.Errorf("Sign(%q) = %s, not lowercase", body, got)
		}
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	const secret = "operator-secret"
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	body := []byte(`{"transaction_id":"t1"}`)
	sig := wallet.Sign(secret, body)
	nonce := uuid.NewString()
	header := func(mod func(h http.Header)) http.Header {
		h := http.Header{}
		h.Set(wallet.HeaderSignature, sig)
		h.Set(wallet.HeaderTimestamp, now.Format(time.RFC3339))
		h.Set(wallet.HeaderNonce, nonce)
		if mod != nil {
			mod(h)
		}
		return h
	}
	tests := []struct {
		name   string
		secret string
		header http.Header
		body   []byte
		now    time.Time
		ok     bool
	}{
		{"valid", secret, header(nil), body, now, true},
		{"upper-case hex", secret, header(func(h http.Header) { h.Set(wallet.HeaderSignature, strings.ToUpper(sig)) }), body, now, true},
		{"4m59s old", secret, header(nil), body, now.Add(4*time.Minute + 59*time.Second), true},
		{"exactly 5m old", secret, header(nil), body, now.Add(5 * time.Minute), true},
		{"offset timestamp", secret, header(func(h http.Header) {
			h.Set(wallet.HeaderTimestamp, now.In(time.FixedZone("", 3600)).Format(time.RFC3339))
		}), body, now, true},
		{"wrong signature", secret, header(func(h http.Header) { h.Set(wallet.HeaderSignature, wallet.Sign("other", body)) }), body, now, false},
		{"wrong secret", "other-secret", header(nil), body, now, false},
		{"empty secret", "", header(func(h http.Header) { h.Set(wallet.HeaderSignature, wallet.Sign("", body)) }), body, now, false},
		{"tampered body", secret, header(nil), []byte(`{"transaction_id":"t2"}`), now, false},
		{"whitespace changed", secret, header(nil), []byte(`{"transaction_id": "t1"}`), now, false},
		{"truncated signature", secret, header(func(h http.Header) { h.Set(wallet.HeaderSignature, sig[:62]) }), body, now, false},
		{"not hex", secret, header(func(h http.Header) { h.Set(wallet.HeaderSignature, strings.Repeat("z", 64)) }), body, now, false},
		{"5m01s old", secret, header(nil), body, now.Add(5*time.Minute + time.Second), false},
		{"an hour old", secret, header(nil), body, now.Add(time.Hour), false},
		{"6m in the future", secret, header(nil), body, now.Add(-6 * time.Minute), false},
		{"timestamp not RFC 3339", secret, header(func(h http.Header) { h.Set(wallet.HeaderTimestamp, "1795255200") }), body, now, false},
		{"nonce not a UUID", secret, header(func(h http.Header) { h.Set(wallet.HeaderNonce, "n-1") }), body, now, false},
		{"nonce UUID v1", secret, header(func(h http.Header) { h.Set(wallet.HeaderNonce, "6ba7b810-9dad-11d1-80b4-00c04fd430c8") }), body, now, false},
		{"missing signature", secret, header(func(h http.Header) { h.Del(wallet.HeaderSignature) }), body, now, false},
		{"missing timestamp", secret, header(func(h http.Header) { h.Del(wallet.HeaderTimestamp) }), body, now, false},
		{"missing nonce", secret, header(func(h http.Header) { h.Del(wallet.HeaderNonce) }), body, now, false},
		{"no headers", secret, http.Header{}, body, now, false},
	}
	for _, tt := range tests {
		err := wallet.Verify(tt.secret, tt.header, tt.body, tt.now)
		if tt.ok {
			if err != nil {
				t.Errorf("%s: Verify = %v, want nil", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, wallet.ErrSignature) {
			t.Errorf("%s: Verify = %v, want ErrSignature", tt.name, err)
		} else if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), sig) {
			t.Errorf("%s: error %q reveals the secret or the expected signature", tt.name, err)
		}
	}
}
