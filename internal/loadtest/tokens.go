package loadtest

import (
	"crypto/rand"
	"encoding/hex"
)

// NewAdminToken returns a random admin token ("adm_" and 48 hex digits)
// for a server a load starts in its own process.
func NewAdminToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "adm_" + hex.EncodeToString(b)
}

// NewRunID returns a short random name for a run, the first 8 characters
// of a NewAdminToken: a run puts it in the names of the operators and
// clients it creates, so that runs against one server keep theirs apart.
func NewRunID() string { return NewAdminToken()[:8] }
