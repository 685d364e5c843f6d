package admin

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/logbuffer"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
)

// TestCashierAuditOutlivesTheRequest: a deposit committed before its
// client hung up still gets its audit entry, with the balances (the read
// of the transfer's entries ended with the request, and the entry was
// never written; found by a review).
func TestCashierAuditOutlivesTheRequest(t *testing.T) {
	t.Parallel()
	db := sqlitetest.Open(t)
	l := ledger.New(db.LedgerStore(), ledger.Options{})
	trail := audit.New(db.AuditStore(), audit.Options{})
	var logs logbuffer.Buffer
	h := &handler{ledger: l, audit: trail, log: slog.New(slog.NewTextHandler(&logs, nil))}
	moved, _, err := l.Transfer(context.Background(), ledger.TransferRequest{OperatorID: "op", Currency: "USD", Key: cashierKeyPrefix + "k1",
		Debit: ledger.Funding(), Credit: ledger.Bettor("ann"), Amount: money.MustParse("10"), Code: "deposit"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, hangUp := context.WithCancel(context.WithValue(context.Background(), principalKey{}, principal{name: "platform staff"}))
	hangUp() // the client is gone once the transfer committed
	r := httptest.NewRequest("POST", "/admin/v1/operators/op/bettors/ann/deposits", nil).WithContext(ctx)
	h.recordCashier(r, "op", betting.Currency{Code: "USD", Decimals: 2}, "ann", moved, "k1")

	got, err := trail.List(context.Background(), audit.Filter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d audit entries for one committed deposit, want 1; log:\n%s", len(got), logs.String())
	}
	var after cashierAudit
	if err := json.Unmarshal(got[0].After, &after); err != nil {
		t.Fatal(err)
	}
	if got[0].Action != audit.BettorCredited || after.Balance != "10.00" || after.Amount != "10.00" || after.TransferID != moved.ID {
		t.Errorf("entry %s after %+v, want bettor.credited to a balance of 10.00 by 10.00 in %s", got[0].Action, after, moved.ID)
	}
}
