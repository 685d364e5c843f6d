package wallet_test

import (
	"io"
	"net/http"
	"sync"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
)

const secret = "aggregator-secret-0123456789"

// fakeWallet answers Round/BetWin with the canned answers in turn (the
// last one repeats) and records every request body; Player/Balance always
// answers 200.
type fakeWallet struct {
	mu       sync.Mutex
	answers  []canned
	bodies   []string
	paths    []string
	balances []string // Player/Balance bodies
}

type canned struct {
	status int
	body   string
}

func (f *fakeWallet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("X-REQUEST-SIGN") != wallet.Sign(secret, body) {
		http.Error(w, "bad signature", http.StatusForbidden)
		return
	}
	if r.URL.Path == wallet.PathBalance {
		f.mu.Lock()
		f.balances = append(f.balances, string(body))
		f.mu.Unlock()
		io.WriteString(w, `{"balance":"10.00"}`)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.paths = append(f.paths, r.URL.Path)
	a := f.answers[min(len(f.bodies), len(f.answers))-1]
	f.mu.Unlock()
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}
