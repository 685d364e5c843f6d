// Package bearerkey makes the platform's bearer keys (ticket API keys,
// operator credentials): a prefix that names what the key is for, so that
// a leaked key is recognisable by people and secret scanners, the id of
// the key's record, and 256 random bits. Only the key's SHA-256 hash is
// stored; the key itself is shown once.
package bearerkey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// New returns a new key "<prefix><id without dashes>_<secret>" for the
// record id (a UUID), and the hash to store.
func New(prefix, id string) (key string, hash []byte) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	key = prefix + strings.ReplaceAll(id, "-", "") + "_" + base64.RawURLEncoding.EncodeToString(secret)
	return key, Hash(key)
}

// Hash returns the SHA-256 hash of key, as stored.
func Hash(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// ParseID returns the record id embedded in a key that New made with
// prefix, or false when key is not of that form.
func ParseID(prefix, key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return "", false
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok || len(id) != 32 || secret == "" {
		return "", false
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return "", false
	}
	return u.String(), true
}
