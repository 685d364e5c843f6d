package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/ledger"
)

// TestAdminLedgerVerify runs `foresight serve` and `foresight admin ledger
// verify` before and after a balance row is changed in the database.
func TestAdminLedgerVerify(t *testing.T) {
	t.Parallel()
	token := "operator-secret-0123456789abcdef01234"
	srv := serveSQLite(t, token, nil)
	addr, dbPath, env, ctx := srv.addr, srv.dbPath, srv.env, srv.ctx

	c := &admin.Client{BaseURL: "http://" + addr, Token: token}
	if err := c.Do(ctx, http.MethodPost, "/admin/v1/operators", json.RawMessage(`{"id":"bundle","name":"Bundle","integration":"bundled",
		"currencies":[{"code":"EUR"}],"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"5000"}}}`), nil); err != nil {
		t.Fatal(err)
	}
	// The client sends no Idempotency-Key: the deposit goes through the
	// HTTP API directly.
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/admin/v1/operators/bundle/bettors/ann/deposits",
		strings.NewReader(`{"currency":"EUR","amount":"10"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", "d1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("deposit = %v %v", resp, err)
	}
	resp.Body.Close()

	verify := func() (ledger.Report, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, []string{"admin", "ledger", "verify"}, env, &out, &errOut)
		var rep ledger.Report
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
				t.Fatalf("admin ledger verify printed %q (%s)", out.String(), errOut.String())
			}
		}
		return rep, err
	}
	if rep, err := verify(); err != nil || !rep.OK || rep.Transfers != 1 {
		t.Fatalf("verify = %+v %v", rep, err)
	}
	raw, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ann := ledger.AccountID("bundle", "EUR", ledger.Bettor("ann"))
	if _, err := raw.Exec(`UPDATE ledger_accounts SET balance = '11' WHERE id = ?`, ann); err != nil {
		t.Fatal(err)
	}
	if _, err := verify(); err == nil || !strings.Contains(err.Error(), "1 discrepancies") ||
		!strings.Contains(err.Error(), "balance operator=bundle currency=EUR account="+ann+": the stored balance is 11; the account's entries sum to 10") {
		t.Errorf("verify after tampering: %v", err)
	}
	if err := run(ctx, []string{"admin", "ledger", "verify", "--operator", "bundle"}, env, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("admin ledger verify --operator: accepted")
	}
}
