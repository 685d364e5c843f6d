package ratelimit

import (
	"net"
	"net/http"
	"time"
)

// FailureGuard slows down the guessing of credentials: it counts the
// failed sign-ins of each client address in a token bucket, and an address
// whose bucket is empty is refused before its credential is even looked
// at, until the bucket refills. Successful sign-ins take nothing. A nil
// FailureGuard never refuses.
//
// An address over its budget is refused with a valid credential too:
// answering it would tell a guesser which guess was right.
type FailureGuard struct {
	failures *Limiter
}

// NewFailureGuard allows burst failures per client address, refilled at
// perMinute a minute. perMinute <= 0 disables the guard.
func NewFailureGuard(perMinute float64, burst int) *FailureGuard {
	return &FailureGuard{failures: New(perMinute/60, burst)}
}

// Refused reports whether r's client address has used up its failures,
// and how long until it may try again.
func (g *FailureGuard) Refused(r *http.Request) (refused bool, retryAfter time.Duration) {
	if g == nil {
		return false, 0
	}
	ok, wait := g.failures.Peek(ClientAddress(r))
	return !ok, wait
}

// Failed counts a failed sign-in of r's client address.
func (g *FailureGuard) Failed(r *http.Request) {
	if g != nil {
		g.failures.Allow(ClientAddress(r))
	}
}

// ClientAddress is the IP address of r's connection (RemoteAddr without
// the port). Behind a reverse proxy it is the proxy's address.
func ClientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
