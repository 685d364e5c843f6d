package bettorhttp

import "sync"

// inFlight counts the requests in progress of each key, up to max each;
// a max of 0 counts nothing and refuses nothing.
type inFlight struct {
	max  int
	mu   sync.Mutex
	open map[string]int
}

func newInFlight(max int) *inFlight {
	return &inFlight{max: max, open: map[string]int{}}
}

// take counts one more request of key; ok is false, and nothing is
// counted, when key already has max in progress. release ends the
// request.
func (f *inFlight) take(key string) (release func(), ok bool) {
	if f.max == 0 {
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
