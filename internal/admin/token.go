package admin

import (
	"crypto/rand"
	"encoding/hex"
)

// NewToken returns a random admin token, "adm_" and 48 hex digits (192
// random bits), for a server the caller starts itself: the demo's and a
// load run's.
func NewToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "adm_" + hex.EncodeToString(b)
}
