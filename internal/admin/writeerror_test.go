package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/logbuffer"
)

// TestWriteErrorLedger checks that a ledger error answers its problem
// from any handler, wrapped or not, and that a code the table lacks is 500.
func TestWriteErrorLedger(t *testing.T) {
	h := &handler{log: slog.New(slog.DiscardHandler)}
	for _, c := range []struct {
		code        ledger.ErrorCode
		status      int
		problemCode string
	}{
		{ledger.ErrInvalid, http.StatusBadRequest, CodeInvalidRequest},
		{ledger.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{ledger.ErrConflict, http.StatusConflict, CodeConflict},
		{ledger.ErrAlreadyResolved, http.StatusConflict, CodeConflict},
		{ledger.ErrInsufficientFunds, http.StatusConflict, CodeInsufficientFunds},
		{"a code of tomorrow", http.StatusInternalServerError, CodeInternal},
	} {
		rec := httptest.NewRecorder()
		err := fmt.Errorf("read the statement: %w", &ledger.Error{Code: c.code, Message: "the ledger's message"})
		h.writeError(rec, httptest.NewRequest(http.MethodGet, "/admin/v1/ledger/house", nil), err)
		var p Problem
		if jsonErr := json.Unmarshal(rec.Body.Bytes(), &p); jsonErr != nil {
			t.Fatalf("%s: body %s: %v", c.code, rec.Body, jsonErr)
		}
		wantDetail := "the ledger's message"
		if c.status == http.StatusInternalServerError {
			wantDetail = "Internal error."
		}
		if rec.Code != c.status || p.Code != c.problemCode || p.Detail != wantDetail {
			t.Errorf("%s = %d %+v, want %d %s %q", c.code, rec.Code, p, c.status, c.problemCode, wantDetail)
		}
	}
}

// TestWriteErrorProblemWithCause: a handler's own problem wrapped with its
// cause answers the problem and logs the cause (the cashier's answer when
// the balance cannot be read after a movement).
func TestWriteErrorProblemWithCause(t *testing.T) {
	var logs logbuffer.Buffer
	h := &handler{log: slog.New(slog.NewTextHandler(&logs, nil))}
	rec := httptest.NewRecorder()
	err := fmt.Errorf("%w (%w)", problem(http.StatusInternalServerError, CodeInternal, "The deposit was made."), errors.New("database is locked"))
	h.writeError(rec, httptest.NewRequest(http.MethodPost, "/admin/v1/operators/acme/bettors/ann/deposits", nil), err)
	var p Problem
	if jsonErr := json.Unmarshal(rec.Body.Bytes(), &p); jsonErr != nil {
		t.Fatal(jsonErr)
	}
	if rec.Code != http.StatusInternalServerError || p.Detail != "The deposit was made." {
		t.Errorf("answer %d %+v, want 500 with the handler's detail", rec.Code, p)
	}
	if !strings.Contains(logs.String(), "database is locked") {
		t.Errorf("the log does not name the cause: %s", logs.String())
	}
}
