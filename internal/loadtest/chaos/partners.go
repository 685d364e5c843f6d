package chaos

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

// Ids of the partners on the platform.
const (
	operatorID   = "chaos"
	aggregatorID = "chaosagg"
	casinoID     = "casino-chaos"
)

// walletTimeoutFault is the delay of a "slow" fault: past the platform's
// time-out of one wallet attempt (5 s), so the platform gives up while the
// wallet still applies the request.
const walletTimeoutFault = 6 * time.Second

// faultKind is one kind of wallet fault, armed for one request.
type faultKind struct {
	name string
	// on reports whether the kind applies to a request of endpoint
	// (withdrawal, deposit, rollback, finish), sent again when retry.
	on func(endpoint string, retry bool) bool
	// operator and casino arm the fault for the bettor's next request to
	// the endpoint; nil when the wallet has no such fault.
	operator func(f *operator.Faults, endpoint string)
	casino   func(f *casino.Faults, endpoint string)
}

func anyRequest(string, bool) bool { return true }

func newWithdrawal(endpoint string, retry bool) bool { return endpoint == "withdrawal" && !retry }

func retriedWithdrawal(endpoint string, retry bool) bool { return endpoint == "withdrawal" && retry }

// operatorEndpoint and casinoEndpoint name an endpoint in each sandbox's
// fault controls.
func operatorEndpoint(endpoint string) string {
	return map[string]string{"withdrawal": "withdrawals", "deposit": "deposits", "rollback": "rollbacks"}[endpoint]
}

func casinoEndpoint(endpoint string) string {
	switch endpoint {
	case "withdrawal", "deposit":
		return casino.EndpointBetWin
	case "finish":
		return casino.EndpointFinish
	}
	return casino.EndpointRollback
}

func oneOf(s ...string) string { return s[mrand.IntN(len(s))] }

// faultKinds are the faults a run injects, with the sandboxes' fault
// controls: what a wallet, conforming or not, and the network in front of
// it do. Left out: a malformed answer to a standalone deposit or rollback
// that is empty or foreign JSON, which the platform takes as done (the
// protocol names no body for them), so the credit is lost as documented.
var faultKinds = []faultKind{
	{name: "timeout", on: anyRequest,
		operator: func(f *operator.Faults, e string) { f.StallNext(operatorEndpoint(e), 1) },
		casino:   func(f *casino.Faults, e string) { f.StallNext(casinoEndpoint(e), 1) }},
	{name: "slow (applied after the time-out)", on: anyRequest,
		operator: func(f *operator.Faults, e string) { f.DelayNext(operatorEndpoint(e), 1, walletTimeoutFault) },
		casino:   func(f *casino.Faults, e string) { f.DelayNext(casinoEndpoint(e), 1, walletTimeoutFault) }},
	{name: "5xx", on: anyRequest,
		operator: func(f *operator.Faults, e string) { f.FailNext(operatorEndpoint(e), 1, http.StatusServiceUnavailable) },
		casino:   func(f *casino.Faults, e string) { f.FailNext(casinoEndpoint(e), 1, http.StatusInternalServerError) }},
	{name: "lost answer", on: anyRequest,
		operator: func(f *operator.Faults, e string) { f.DropResponseNext(operatorEndpoint(e), 1) },
		casino:   func(f *casino.Faults, e string) { f.DropResponseNext(casinoEndpoint(e), 1) }},
	{name: "malformed answer", on: anyRequest,
		operator: func(f *operator.Faults, e string) {
			shape := oneOf(malformed.Shapes...)
			if e != "withdrawal" {
				shape = oneOf(malformed.Garbage, malformed.HTML, malformed.Truncated)
			}
			f.MalformedNext(operatorEndpoint(e), 1, shape)
		},
		casino: func(f *casino.Faults, e string) { f.MalformedNext(casinoEndpoint(e), 1, oneOf(malformed.Shapes...)) }},
	{name: "rejection", on: newWithdrawal,
		operator: func(f *operator.Faults, e string) {
			f.RejectNext(operatorEndpoint(e), 1, oneOf("insufficient_funds", "bettor_blocked", "bet_limit_reached"))
		},
		casino: func(f *casino.Faults, e string) { f.RejectNext(casinoEndpoint(e), 1, oneOf("100", "105", "110")) }},
	{name: "retry refused afresh (non-conforming)", on: retriedWithdrawal,
		operator: func(f *operator.Faults, e string) {
			f.RefuseRetryNext(operatorEndpoint(e), 1, oneOf("insufficient_funds", "bettor_blocked", "bet_limit_reached"))
		},
		casino: func(f *casino.Faults, e string) { f.RefuseRetryNext(casinoEndpoint(e), 1, oneOf("100", "105", "110")) }},
	{name: "no round_id", on: newWithdrawal,
		casino: func(f *casino.Faults, _ string) { f.OmitRoundIDNext(1) }},
}

// faultInjector arms a random fault for a share of the wallet requests.
type faultInjector struct {
	ratio float64
	on    atomic.Bool

	mu     sync.Mutex
	counts map[string]int
	seen   map[string]bool // transaction ids sent before
}

// pick decides whether a request of endpoint for transaction txID gets a
// fault, and which.
func (fi *faultInjector) pick(endpoint, txID string, casinoWallet bool) *faultKind {
	fi.mu.Lock()
	retry := fi.seen[endpoint+" "+txID]
	fi.seen[endpoint+" "+txID] = true
	fi.mu.Unlock()
	if !fi.on.Load() || mrand.Float64() >= fi.ratio {
		return nil
	}
	var kinds []*faultKind
	for i := range faultKinds {
		k := &faultKinds[i]
		if k.on(endpoint, retry) && (casinoWallet && k.casino != nil || !casinoWallet && k.operator != nil) {
			kinds = append(kinds, k)
		}
	}
	k := kinds[mrand.IntN(len(kinds))]
	fi.mu.Lock()
	fi.counts[k.name]++
	fi.mu.Unlock()
	return k
}

// total returns the faults injected, and by kind.
func (fi *faultInjector) total() (int, []FaultCount) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	n := 0
	var out []FaultCount
	for k, c := range fi.counts {
		n += c
		out = append(out, FaultCount{Kind: k, Count: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return n, out
}

// readBody reads r's body and puts it back.
func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

// operatorFaults arms faults on the operator's wallet requests before they
// reach it, for the request's bettor.
func (fi *faultInjector) operatorFaults(op *operator.Operator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endpoint := ""
		switch {
		case r.URL.Path == "/v1/withdrawals":
			endpoint = "withdrawal"
		case r.URL.Path == "/v1/deposits":
			endpoint = "deposit"
		case strings.HasPrefix(r.URL.Path, "/v1/rollbacks/"):
			endpoint = "rollback"
		}
		if endpoint != "" {
			var v struct {
				BettorID      string `json:"bettor_id"`
				TransactionID string `json:"transaction_id"`
			}
			if json.Unmarshal(readBody(r), &v) == nil && v.BettorID != "" {
				if k := fi.pick(endpoint, v.TransactionID, false); k != nil {
					k.operator(op.ForBettor(v.BettorID), endpoint)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// casinoFaults arms faults on the casino's wallet requests before they
// reach it, for the request's account.
func (fi *faultInjector) casinoFaults(c *casino.Casino, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v struct {
			AccountID    string `json:"account_id"`
			RoundID      string `json:"round_id"`
			Transactions []struct {
				IDProvider string `json:"id_provider"`
				Type       string `json:"type"`
			} `json:"transactions"`
		}
		endpoint := ""
		if strings.HasPrefix(r.URL.Path, "/v2/provider_agg.Round/") && json.Unmarshal(readBody(r), &v) == nil && v.AccountID != "" {
			switch {
			case strings.HasSuffix(r.URL.Path, "/BetWin") && len(v.Transactions) == 1 && v.Transactions[0].Type == "bet":
				endpoint = "withdrawal"
			case strings.HasSuffix(r.URL.Path, "/BetWin"):
				endpoint = "deposit"
			case strings.HasSuffix(r.URL.Path, "/Finish"):
				endpoint = "finish"
			case strings.HasSuffix(r.URL.Path, "/Rollback"):
				endpoint = "rollback"
			}
		}
		if endpoint != "" {
			txID := v.RoundID // a Finish is idempotent by round
			if len(v.Transactions) == 1 {
				txID = v.Transactions[0].IDProvider
			}
			if k := fi.pick(endpoint, txID, true); k != nil {
				k.casino(c.ForAccount(v.AccountID), endpoint)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// partners are the sandbox wallets of a run, on loopback, each with its
// SQLite journal.
type partners struct {
	op           *operator.Operator
	opURL        string
	opSecret     string
	casino       *casino.Casino
	casinoURL    string
	casinoSecret string
	faults       *faultInjector
	closers      []func()
}

// startPartners starts the sandbox operator and, when withCasino, the
// sandbox casino, with their journals in dir.
func startPartners(ctx context.Context, dir string, withCasino bool, fi *faultInjector) (_ *partners, err error) {
	p := &partners{faults: fi, opSecret: randomSecret(), casinoSecret: randomSecret()}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	j, err := journal.Open(ctx, filepath.Join(dir, "operator.db"))
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, func() { j.Close() })
	if p.op, err = operator.New(operator.Config{ID: operatorID, SigningSecret: p.opSecret, StartingBalance: "1000000000.00", Journal: j}); err != nil {
		return nil, err
	}
	if p.opURL, err = p.serve(fi.operatorFaults(p.op, p.op.Handler()), p.op.Close); err != nil {
		return nil, err
	}
	if !withCasino {
		return p, nil
	}
	cj, err := journal.Open(ctx, filepath.Join(dir, "casino.db"))
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, func() { cj.Close() })
	if p.casino, err = casino.New(casino.Config{SigningSecret: p.casinoSecret, StartingBalance: "1000000000.00", Journal: cj}); err != nil {
		return nil, err
	}
	if p.casinoURL, err = p.serve(fi.casinoFaults(p.casino, p.casino.Handler()), p.casino.Close); err != nil {
		return nil, err
	}
	return p, nil
}

// serve serves h on a loopback port; stopWaits ends the requests a fault
// holds, so that the server can close.
func (p *partners) serve(h http.Handler, stopWaits func()) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		srv.Serve(l) // ends with http.ErrServerClosed when closed
		close(done)
	}()
	p.closers = append(p.closers, func() { stopWaits(); srv.Close(); <-done })
	return "http://" + l.Addr().String(), nil
}

// movements returns the entries of every ledger.
func (p *partners) movements() ([]Movement, error) {
	out, err := OperatorMovements(p.op.Ledger())
	if err != nil || p.casino == nil {
		return out, err
	}
	c, err := CasinoMovements(p.casino.Ledger())
	return append(out, c...), err
}

// close stops the wallets, then closes their journals.
func (p *partners) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
	p.closers = nil
}

func randomSecret() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}
