// Package wire holds what the sandbox partners' wallet endpoints share on
// the wire: the request signature, strict JSON decoding of a request body,
// the canonical form that fingerprints a request for idempotency, and
// writing a JSON answer.
// The bodies themselves are each protocol's.
package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// Decode decodes a JSON object into v, refusing trailing data. Its errors
// are for the client: a field of the wrong type is named with the JSON
// type it must be.
func Decode(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("%s must be a JSON %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
		}
		return fmt.Errorf("the body is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("the body has data after the JSON object")
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	default:
		return goKind
	}
}

// Canonical is the JSON value of a valid body with sorted keys and no
// white space: the idempotency fingerprint. A body that is not JSON is
// its own fingerprint.
func Canonical(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(body)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(body)
	}
	return string(b)
}

// MustJSON marshals a value that cannot fail (a struct of strings and
// numbers), ending with a newline. It panics otherwise.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("wire: marshal %T: %v", v, err))
	}
	return append(b, '\n')
}

// IsJSON says whether a request says its body is JSON: a Content-Type of
// application/json, with or without parameters.
func IsJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// Write answers status with the JSON body, not to be cached.
func Write(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Sign returns the signature of body both wallet protocols use
// (X-REQUEST-SIGN, X-Payload-Signature): the lowercase hex HMAC-SHA256 of
// the exact bytes, keyed with secret.
func Sign(secret, body []byte) string { return hex.EncodeToString(mac(secret, body)) }

func mac(secret, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}

// IsSignature says whether sig is written as a signature: 64 lowercase hex
// digits.
func IsSignature(sig string) bool { return len(sig) == 2*sha256.Size && isLowerHex(sig) }

// SignatureMatches says whether sig is a signature (IsSignature) equal, in
// constant time, to Sign(secret, body).
func SignatureMatches(sig string, secret, body []byte) bool {
	if !IsSignature(sig) {
		return false
	}
	got, err := hex.DecodeString(sig)
	return err == nil && hmac.Equal(got, mac(secret, body))
}

// isLowerHex says whether s is only the digits 0-9 and a-f.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
