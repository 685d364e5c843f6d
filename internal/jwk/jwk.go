// Package jwk writes RSA public keys as JSON Web Keys (RFC 7517, RFC 7518
// §6.3.1) for RS256 signatures, and names a key by its RFC 7638
// thumbprint.
package jwk

import (
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"math/big"
)

// Key is the public form of an RSA signing key.
type Key struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// Set is a JWK Set document (RFC 7517 §5).
type Set struct {
	Keys []Key `json:"keys"`
}

// RSA returns pub as a key that signs with RS256, named kid; an empty kid
// names it by its thumbprint.
func RSA(pub *rsa.PublicKey, kid string) Key {
	n, e := modulusAndExponent(pub)
	if kid == "" {
		kid = thumbprint(n, e)
	}
	return Key{Kty: "RSA", Kid: kid, Use: "sig", Alg: "RS256", N: n, E: e}
}

// Thumbprint returns the RFC 7638 thumbprint of pub: the SHA-256 of its
// required members in lexical order, base64url without padding.
func Thumbprint(pub *rsa.PublicKey) string {
	return thumbprint(modulusAndExponent(pub))
}

func thumbprint(n, e string) string {
	sum := sha256.Sum256([]byte(`{"e":"` + e + `","kty":"RSA","n":"` + n + `"}`))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// modulusAndExponent are pub's n and e members: big-endian, base64url
// without padding.
func modulusAndExponent(pub *rsa.PublicKey) (n, e string) {
	return base64.RawURLEncoding.EncodeToString(pub.N.Bytes()), base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes())
}
