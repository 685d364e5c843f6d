package wallet

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting/walletcall"
)

// Header names of a signed wallet call (bettor-and-operator-api.md,
// "Authentication").
const (
	// HeaderSignature carries the lowercase hex HMAC-SHA256 of the raw
	// request body, keyed with the operator's signing secret.
	HeaderSignature = "X-Payload-Signature"
	// HeaderTimestamp carries the time of sending, RFC 3339 in UTC
	// ("2026-11-21T10:00:00Z").
	HeaderTimestamp = "X-Timestamp"
	// HeaderNonce carries a fresh UUID v4 per request, retries included.
	HeaderNonce = "X-Nonce"
)

// MaxClockSkew is how far X-Timestamp may lie from the receiver's clock, in
// either direction, for Verify to accept a request.
const MaxClockSkew = 5 * time.Minute

// ErrSignature is wrapped by every error of Verify: a missing header, a
// malformed or out-of-window timestamp, a malformed nonce or a wrong
// signature. The operator answers such a request 401.
var ErrSignature = errors.New("wallet: request signature check failed")

// Sign returns the X-Payload-Signature value of a request body: the
// lowercase hex HMAC-SHA256 of the raw body bytes, keyed with secret.
func Sign(secret string, body []byte) string {
	return walletcall.Sign(secret, body)
}

// Verify checks the signature headers of a received wallet call, as an
// operator (or the sandbox operator, or a test) does before any
// processing: all three headers present, X-Timestamp an RFC 3339 time no
// more than MaxClockSkew before or after now, X-Nonce a UUID v4, and
// X-Payload-Signature the HMAC-SHA256 of body with secret (compared in
// constant time; upper-case hex is accepted too). Every failure wraps
// ErrSignature; an empty secret always fails. The error never contains the
// secret or the expected signature.
//
// Verify does not remember nonces; a receiver that wants replay protection
// beyond the time window keeps the nonces of the last MaxClockSkew×2.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	if secret == "" {
		return fmt.Errorf("%w: no signing secret configured", ErrSignature)
	}
	sig := header.Get(HeaderSignature)
	ts := header.Get(HeaderTimestamp)
	nonce := header.Get(HeaderNonce)
	for _, h := range []struct{ name, value string }{
		{HeaderSignature, sig}, {HeaderTimestamp, ts}, {HeaderNonce, nonce},
	} {
		if h.value == "" {
			return fmt.Errorf("%w: missing %s header", ErrSignature, h.name)
		}
	}
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: %s is not a hex HMAC-SHA256", ErrSignature, HeaderSignature)
	}
	if !hmac.Equal(got, walletcall.MAC(secret, body)) {
		return fmt.Errorf("%w: wrong signature", ErrSignature)
	}
	sent, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return fmt.Errorf("%w: %s is not an RFC 3339 time", ErrSignature, HeaderTimestamp)
	}
	if age := now.Sub(sent); age > MaxClockSkew || age < -MaxClockSkew {
		return fmt.Errorf("%w: %s %s is more than %v away from now", ErrSignature, HeaderTimestamp, ts, MaxClockSkew)
	}
	if id, err := uuid.Parse(nonce); err != nil || id.Version() != 4 || id.Variant() != uuid.RFC4122 || len(nonce) != 36 {
		return fmt.Errorf("%w: %s is not a UUID v4", ErrSignature, HeaderNonce)
	}
	return nil
}

// timestamp formats t as X-Timestamp: RFC 3339 in UTC with a Z.
func timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
