package operator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

func TestFailNext(t *testing.T) {
	e := fundedEnv(t)
	n := e.ledgerLen()
	body := withdrawalBody(t, "tx-1", "b1", "10.00", "USD")

	e.op.FailNext("withdrawals", 2, http.StatusServiceUnavailable)
	for i := range 2 {
		status, resp := e.withdraw(body)
		wantStatus(t, "injected failure", status, resp, http.StatusServiceUnavailable, "injected_failure")
		e.wantBalance("b1", "100.00")
		if e.ledgerLen() != n {
			t.Fatalf("attempt %d changed the ledger", i)
		}
	}
	// The retry of the same transaction is processed: the failures did not
	// consume it.
	status, resp := e.withdraw(body)
	wantStatus(t, "after the failures", status, resp, http.StatusOK, "")
	e.wantBalance("b1", "90.00")

	// Failures apply before authentication, and only to their endpoint.
	e.op.FailNext("deposits", 1, http.StatusInternalServerError)
	status, resp = e.withdraw(withdrawalBody(t, "tx-2", "b1", "10.00", "USD"))
	wantStatus(t, "other endpoint", status, resp, http.StatusOK, "")
	status, _, _ = e.do(e.signedRequest(http.MethodPost, "/v1/deposits", nil, func(h http.Header) { h.Del("X-Payload-Signature") }))
	if status != http.StatusInternalServerError {
		t.Errorf("unsigned deposit during an injected failure: %d", status)
	}

	// Rollbacks and sessions too; a session request survives a failure.
	e.op.FailNext("rollbacks", 1, http.StatusBadGateway)
	rb := rollbackBody(t, "rb-1", "b1", "10.00", "USD")
	status, resp = e.rollback("tx-1", rb)
	wantStatus(t, "rollback failure", status, resp, http.StatusBadGateway, "injected_failure")
	e.wantBalance("b1", "80.00")
	status, resp = e.rollback("tx-1", rb)
	wantStatus(t, "rollback retry", status, resp, http.StatusOK, "")
	e.wantBalance("b1", "90.00")

	e.op.FailNext("session", 1, http.StatusServiceUnavailable)
	id := e.op.NewSessionRequest("b1", "")
	status, resp = e.exchange(id)
	wantStatus(t, "session failure", status, resp, http.StatusServiceUnavailable, "injected_failure")
	status, resp = e.exchange(id)
	wantStatus(t, "session retry", status, resp, http.StatusOK, "")

	// Disarming.
	e.op.FailNext("withdrawals", 3, http.StatusServiceUnavailable)
	e.op.FailNext("withdrawals", 0, http.StatusServiceUnavailable)
	status, resp = e.withdraw(withdrawalBody(t, "tx-3", "b1", "1.00", "USD"))
	wantStatus(t, "disarmed", status, resp, http.StatusOK, "")

	sandboxtest.WantPanics(t, map[string]func(){
		"unknown endpoint": func() { e.op.FailNext("balance", 1, 500) },
		"bad status":       func() { e.op.FailNext("deposits", 1, 42) },
		"delay endpoint":   func() { e.op.DelayNext("jwks", 1, time.Second) },
		"drop endpoint":    func() { e.op.DropResponseNext("withdrawal", 1) },
	})
}

func TestDropResponseNext(t *testing.T) {
	e := fundedEnv(t)
	body := withdrawalBody(t, "tx-1", "b1", "10.00", "USD")

	e.op.DropResponseNext("withdrawals", 1)
	resp, err := e.client.Do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, nil))
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("the answer was not dropped: %d %s", resp.StatusCode, b)
	}
	// The debit happened.
	e.wantBalance("b1", "90.00")
	ledger := e.op.Ledger()
	if last := ledger[len(ledger)-1]; last.Type != operator.EntryWithdrawal || last.TransactionID != "tx-1" {
		t.Fatalf("ledger %+v", ledger)
	}

	// The platform's retry (fresh nonce, same body) gets the answer of the
	// first processing and nothing moves again.
	status, first := e.withdraw(body)
	wantStatus(t, "retry", status, first, http.StatusOK, "")
	a := answer(t, first)
	if a["balance"] != "90.00" || a["transaction_id"] != ledger[len(ledger)-1].OperatorTransactionID {
		t.Errorf("retry answer %s, ledger %+v", first, ledger[len(ledger)-1])
	}
	e.wantBalance("b1", "90.00")
	if len(e.op.Ledger()) != len(ledger) {
		t.Error("the retry moved money")
	}

	// A dropped rollback answer: the credit happened too.
	e.op.DropResponseNext("rollbacks", 1)
	_, err = e.client.Do(e.signedRequest(http.MethodDelete, "/v1/rollbacks/tx-1", rollbackBody(t, "rb-1", "b1", "10.00", "USD"), nil))
	if err == nil {
		t.Fatal("the rollback answer was not dropped")
	}
	e.wantBalance("b1", "100.00")

	// A dropped session answer used the session request up.
	e.op.DropResponseNext("session", 1)
	id := e.op.NewSessionRequest("b1", "")
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/session", bytes.NewReader(sandboxtest.JSON(t, map[string]string{"session_request_id": id})))
	req.Header.Set("Content-Type", "application/json")
	if _, err := e.client.Do(req); err == nil {
		t.Fatal("the session answer was not dropped")
	}
	status, resp2 := e.exchange(id)
	wantStatus(t, "exchange after a lost answer", status, resp2, http.StatusUnauthorized, "session_request_used")
}

func TestDelayNext(t *testing.T) {
	e := fundedEnv(t)
	e.op.DelayNext("withdrawals", 1, 2*time.Second)

	// The client gives up while the operator holds its request (the
	// delay is used up), as a client with a time-out would; a time-out
	// of its own could end on a loaded machine before the request
	// arrived ...
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan error, 1)
	go func() {
		resp, err := e.client.Do(e.signedRequest(http.MethodPost, "/v1/withdrawals", withdrawalBody(t, "tx-1", "b1", "10.00", "USD"), nil).WithContext(ctx))
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	waitfor.True(t, "the delay taking the withdrawal", func() bool { return len(e.op.Faults.Armed()) == 0 })
	cancel()
	if err := <-answered; !errors.Is(err, context.Canceled) {
		t.Fatalf("want the client to have given up before the answer, got %v", err)
	}
	// ... and the slow wallet still debits.
	waitfor.True(t, "the delayed withdrawal's debit", func() bool {
		got, _ := e.op.Balance("b1")
		return got == "90.00"
	})
	// The delay was used up: the next request is answered normally.
	status, resp := e.withdraw(withdrawalBody(t, "tx-2", "b1", "10.00", "USD"))
	wantStatus(t, "after the delay", status, resp, http.StatusOK, "")
	e.wantBalance("b1", "80.00")
}

// TestRejectKeepsIdempotency: an injected refusal is for new transactions;
// a retry of an answered one gets its first answer and leaves the refusal
// armed. RefuseRetryNext is the non-conforming wallet: it refuses exactly
// those retries afresh.
func TestRejectKeepsIdempotency(t *testing.T) {
	e := fundedEnv(t)
	first := withdrawalBody(t, "tx-1", "b1", "10.00", "USD")
	status, debit := e.withdraw(first)
	wantStatus(t, "debit", status, debit, http.StatusOK, "")

	e.op.RejectNext("withdrawals", 1, "insufficient_funds")
	status, resp := e.withdraw(first)
	if status != http.StatusOK || !bytes.Equal(resp, debit) {
		t.Errorf("retry during a reject = %d %s, want the first answer %s", status, resp, debit)
	}
	status, resp = e.withdraw(withdrawalBody(t, "tx-2", "b1", "10.00", "USD"))
	wantStatus(t, "new transaction", status, resp, http.StatusConflict, "insufficient_funds")
	e.wantBalance("b1", "90.00")

	// The non-conforming wallet: a new transaction is processed, a retry
	// refused although it debited.
	e.op.RefuseRetryNext("withdrawals", 1, "insufficient_funds")
	status, resp = e.withdraw(withdrawalBody(t, "tx-3", "b1", "5.00", "USD"))
	wantStatus(t, "new transaction during refuse_retry", status, resp, http.StatusOK, "")
	status, resp = e.withdraw(first)
	wantStatus(t, "retry during refuse_retry", status, resp, http.StatusConflict, "insufficient_funds")
	e.wantBalance("b1", "85.00")
	status, resp = e.withdraw(first)
	if status != http.StatusOK || !bytes.Equal(resp, debit) {
		t.Errorf("retry once refuse_retry is used up = %d %s, want the first answer", status, resp)
	}
}

// TestMalformedNext: a 200 whose body is not the wallet's answer, before
// any processing: nothing changes, and the same request is processed next.
func TestMalformedNext(t *testing.T) {
	e := fundedEnv(t)
	for _, shape := range malformed.Shapes {
		body := withdrawalBody(t, "tx-"+shape, "b1", "1.00", "USD")
		e.op.MalformedNext("withdrawals", 1, shape)
		status, resp, h := e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, nil))
		if status != http.StatusOK || json.Valid(resp) && answer(t, resp)["transaction_id"] != "" {
			t.Errorf("%s: %d %s (%s), want a 200 without the protocol's answer", shape, status, resp, h.Get("Content-Type"))
		}
		e.wantBalance("b1", "100.00")
		status, resp = e.withdraw(body)
		wantStatus(t, shape+": the same request next", status, resp, http.StatusOK, "")
		e.setBalance("b1", "USD", "100.00")
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown shape was armed")
		}
	}()
	e.op.MalformedNext("deposits", 1, "json")
}
