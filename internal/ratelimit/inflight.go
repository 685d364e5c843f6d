package ratelimit

import "sync"

// InFlight bounds the requests (or calls) of each key in progress at
// once in this process: an odds stream's token, a bettor's placements, a
// ticket client's callbacks. Its zero value is not usable; see
// NewInFlight.
type InFlight[K comparable] struct {
	max  int
	mu   sync.Mutex
	open map[K]int
}

// NewInFlight allows max requests of each key in progress at once; a max
// of 0 or less refuses nothing and counts nothing.
func NewInFlight[K comparable](max int) *InFlight[K] {
	return &InFlight[K]{max: max, open: map[K]int{}}
}

// Take counts one more request of key in progress; ok is false, and
// nothing is counted, when key already has max in progress. release ends
// the request and must be called once.
func (f *InFlight[K]) Take(key K) (release func(), ok bool) {
	if f.max <= 0 {
		return func() {}, true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open[key] >= f.max {
		return nil, false
	}
	f.open[key]++
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.open[key]--; f.open[key] <= 0 {
			delete(f.open, key)
		}
	}, true
}
