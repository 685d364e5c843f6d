// Package enginetest runs the conformance suite of every store contract
// (tickets, betting, bets, credentials, aggregator, ledger, audit) on one
// database engine, so that SQLite and PostgreSQL are held to the same
// suites by one call each.
package enginetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/aggregator/aggregatortest"
	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/audit/audittest"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/storetest"
)

// Stores is what a database engine gives the platform: one store of each
// contract.
type Stores interface {
	TicketStore() tickets.Store
	BettingStore() betting.Store
	BetStore() betting.BetStore
	CredentialStore() betting.CredentialStore
	AggregatorStore() aggregator.Store
	LedgerStore() ledger.Store
	AuditStore() audit.Store
}

// Engine is a database engine under test.
type Engine struct {
	// Open opens a new, migrated database for the test, closed when the
	// test ends, and a function that runs a statement on it outside the
	// stores (to break what a store guards).
	Open func(t *testing.T) (Stores, func(query string) error)
	// ConcurrentWriters is set when the engine's writes run at once, each
	// holding its own row locks (ledgertest.Database).
	ConcurrentWriters bool
}

// Run runs every store's conformance suite on e, each in a parallel
// subtest named after the store; every test of a suite has a database of
// its own.
func Run(t *testing.T, e Engine) {
	suites := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"TicketStore", func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) tickets.Store { return e.stores(t).TicketStore() })
		}},
		{"BettingStore", func(t *testing.T) {
			bettingtest.Run(t, func(t *testing.T) betting.Store { return e.stores(t).BettingStore() })
		}},
		{"BetStore", func(t *testing.T) {
			bettingtest.RunBets(t, func(t *testing.T) betting.BetStore { return e.stores(t).BetStore() })
		}},
		{"CredentialStore", func(t *testing.T) {
			bettingtest.RunCredentials(t, func(t *testing.T) (betting.Store, betting.CredentialStore) {
				s := e.stores(t)
				return s.BettingStore(), s.CredentialStore()
			})
		}},
		{"AggregatorStore", func(t *testing.T) {
			aggregatortest.Run(t, func(t *testing.T) aggregator.Store { return e.stores(t).AggregatorStore() })
		}},
		{"LedgerStore", func(t *testing.T) {
			ledgertest.Run(t, func(t *testing.T) ledgertest.Database {
				s, exec := e.Open(t)
				return ledgertest.Database{Store: s.LedgerStore(), ConcurrentWriters: e.ConcurrentWriters, Exec: exec}
			})
		}},
		{"AuditStore", func(t *testing.T) {
			audittest.Run(t, func(t *testing.T) audittest.Database {
				s, exec := e.Open(t)
				return audittest.Database{Store: s.AuditStore(), Exec: exec}
			})
		}},
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(t)
		})
	}
}

func (e Engine) stores(t *testing.T) Stores {
	s, _ := e.Open(t)
	return s
}

// ListBetsReadsAnIndex checks that a page of an operator's bets, newest
// first (the first page, the next, and one of a status), is read in order
// from an index rather than by sorting every bet of the operator: at
// 100,000 bets the sort made the admin API's whole list take minutes.
// explain returns the engine's plan of BetStore.ListBets' query, a line a
// step; a plan sorts when a line contains sorts, or when none contains
// index.
func ListBetsReadsAnIndex(t *testing.T, explain func(context.Context, betting.BetFilter) ([]string, error), sorts, index string) {
	t.Helper()
	for name, f := range map[string]betting.BetFilter{
		"first page": {OperatorID: "acme", Limit: 101},
		"next page":  {OperatorID: "acme", Limit: 101, BeforeCreatedAt: time.Now(), BeforeID: uuid.NewString()},
		"by status":  {OperatorID: "acme", Statuses: []betting.BetStatus{betting.BetSettled}, Limit: 101},
	} {
		plan, err := explain(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if joined := strings.Join(plan, "; "); strings.Contains(joined, sorts) || !strings.Contains(joined, index) {
			t.Errorf("%s: the plan sorts instead of reading an index in order: %s", name, joined)
		}
	}
}
