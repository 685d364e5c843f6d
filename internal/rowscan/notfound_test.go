package rowscan_test

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestNotFound: each store's not-found error replaces the error of no row
// (also when wrapped, as pgx's ErrNoRows wraps sql.ErrNoRows), and any
// other error or none passes through.
func TestNotFound(t *testing.T) {
	for _, tc := range []struct {
		name       string
		classify   func(error) error
		isNotFound func(error) bool
	}{
		{"betting", func(err error) error { return rowscan.BettingNotFound(err, "bet", "b1") }, func(err error) bool {
			var be *betting.Error
			return errors.As(err, &be) && be.Code == betting.ErrNotFound && be.Message == "no bet b1"
		}},
		{"ledger", func(err error) error { return rowscan.LedgerNotFound(err, "account", "a1") }, func(err error) bool {
			var le *ledger.Error
			return errors.As(err, &le) && le.Code == ledger.ErrNotFound && le.Message == "no account a1"
		}},
		{"tickets", rowscan.TicketsNotFound, func(err error) bool { return err == tickets.ErrNotFound }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, noRow := range []error{sql.ErrNoRows, fmt.Errorf("query: %w", sql.ErrNoRows)} {
				if err := tc.classify(noRow); !tc.isNotFound(err) {
					t.Errorf("%v: got %v, want the store's not-found error", noRow, err)
				}
			}
			if err := tc.classify(nil); err != nil {
				t.Errorf("no error: got %v, want none", err)
			}
			if err := tc.classify(errStop); err != errStop {
				t.Errorf("another error: got %v, want it unchanged", err)
			}
		})
	}
}
