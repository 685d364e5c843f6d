package ratelimit

import (
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/clientaddr"
)

// FailureGuard slows down clients that send wrong credentials: it counts
// the failed sign-ins of each client address in a token bucket, and once
// an address's bucket is empty its wrong credentials are answered 429
// with Retry-After rather than 401 until the bucket refills. A nil
// FailureGuard never refuses.
//
// A valid credential is served whatever its address's budget: the caller
// checks the credential first and calls Failed only when it is wrong. One
// client must not lock out every other client of its address (behind a
// reverse proxy that is not trusted all of them share the proxy's), and
// serving valid
// credentials helps no guesser: the platform's credentials carry at least
// 192 random bits, which no number of guesses finds. The budget therefore
// does not bound how fast an address may try credentials; their entropy
// does.
type FailureGuard struct {
	failures *Limiter
	proxies  clientaddr.Proxies
}

// NewFailureGuard allows burst failures per client address, refilled at
// perMinute a minute. perMinute <= 0 disables the guard. A request's
// client address is proxies.LimitKey(r): behind the proxies, the
// client's; for IPv6, its /64.
func NewFailureGuard(perMinute float64, burst int, proxies clientaddr.Proxies) *FailureGuard {
	return &FailureGuard{failures: New(perMinute/60, burst), proxies: proxies}
}

// Failed counts a failed sign-in of r's client address. When the address
// has used up its budget, the failure is refused instead: refused is true
// and retryAfter is how long until the address's budget holds a failure
// again. The caller answers a refused failure 429 with Retry-After, any
// other 401.
func (g *FailureGuard) Failed(r *http.Request) (refused bool, retryAfter time.Duration) {
	if g == nil {
		return false, 0
	}
	ok, wait := g.failures.Allow(g.proxies.LimitKey(r))
	return !ok, wait
}
