// Package ratelimit limits request rates per key (an API key, an operator)
// with token buckets held in memory. Each process limits on its own: with N
// nodes behind a balancer a key gets up to N times the rate.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter holds one token bucket per key. Buckets idle for longer than it
// takes to refill are forgotten.
type Limiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

// New returns a Limiter allowing perSecond requests per second per key with
// bursts of burst. perSecond <= 0 disables limiting.
func New(perSecond float64, burst int) *Limiter {
	if perSecond <= 0 {
		return &Limiter{rate: rate.Inf, burst: 1, now: time.Now, buckets: map[string]*bucket{}}
	}
	return &Limiter{rate: rate.Limit(perSecond), burst: max(1, burst), now: time.Now, buckets: map[string]*bucket{}}
}

// Allow takes one token from key's bucket. When the bucket is empty it
// returns false and how long until a token is available.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if l.rate == rate.Inf {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[key] = b
	}
	b.lastSeen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep forgets buckets that are full again, at most once a minute.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	refill := time.Duration(float64(l.burst) / float64(l.rate) * float64(time.Second))
	for k, b := range l.buckets {
		if now.Sub(b.lastSeen) > refill {
			delete(l.buckets, k)
		}
	}
}
