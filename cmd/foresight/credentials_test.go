package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/admin"
)

// TestStaffIssueOperatorCredentialFromTerminal issues, lists and revokes
// an operator's credential with `foresight admin operator-credentials`,
// and uses the key in between.
func TestStaffIssueOperatorCredentialFromTerminal(t *testing.T) {
	t.Parallel()
	srv := serveSQLite(t, "staff-secret-0123456789abcdef0123456789", nil)
	addr, env, ctx := srv.addr, srv.env, srv.ctx
	staff := &admin.Client{BaseURL: "http://" + addr, Token: "staff-secret-0123456789abcdef0123456789"}
	if err := staff.Do(ctx, "POST", "/admin/v1/operators", map[string]any{
		"id": "acme", "name": "Acme Bets", "integration": "standalone", "wallet_url": "https://wallet.acme.example",
		"signing_secret": "acme-signing-secret-0123", "jwks_url": "https://wallet.acme.example/jwks.json",
		"currencies": []any{map[string]any{"code": "USD", "decimals": 2}},
		"limits":     map[string]any{"USD": map[string]any{"min_stake": "1", "max_stake": "100", "max_payout": "1000", "outcome_exposure": "5000"}},
	}, nil); err != nil {
		t.Fatal(err)
	}

	cli := func(out any, args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(ctx, append([]string{"admin", "operator-credentials"}, args...), env, &stdout, &stderr); err != nil {
			t.Fatalf("foresight admin operator-credentials %v: %v %s", args, err, stderr.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
			t.Fatalf("foresight admin operator-credentials %v printed %q", args, stdout.String())
		}
	}

	var issued admin.OperatorCredential
	cli(&issued, "issue", "--operator", "acme", "--name", "Ana", "--expires-at", "2099-01-01T00:00:00Z")
	if !strings.HasPrefix(issued.Key, "fso_") || issued.OperatorID != "acme" || issued.ExpiresAt == nil {
		t.Fatalf("issued %+v", issued)
	}
	if st := whoami(t, "http://"+addr, issued.Key); st != http.StatusOK {
		t.Errorf("whoami with the issued key = %d", st)
	}
	var listed []admin.OperatorCredential
	cli(&listed, "list", "--operator", "acme")
	if len(listed) != 1 || listed[0].ID != issued.ID || listed[0].Key != "" {
		t.Errorf("list = %+v", listed)
	}
	var revoked map[string]string
	cli(&revoked, "revoke", "--operator", "acme", "--credential", issued.ID)
	if st := whoami(t, "http://"+addr, issued.Key); st != http.StatusUnauthorized {
		t.Errorf("whoami with the revoked key = %d, want 401", st)
	}

	// The audit trail shows both, by platform staff, never the key.
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"admin", "audit", "list", "--operator", "acme", "--target-kind", "operator_credential", "--actor", "admin"}, env, &stdout, &stderr); err != nil {
		t.Fatalf("foresight admin audit list: %v %s", err, stderr.String())
	}
	var page struct {
		Items []admin.AuditEntry `json:"items"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &page); err != nil || len(page.Items) != 2 || page.Items[0].Action != "operator_credential.revoked" ||
		page.Items[1].Action != "operator_credential.issued" || page.Items[0].TargetID != issued.ID || page.Items[0].Actor.Kind != "admin" {
		t.Errorf("foresight admin audit list printed %s (%v)", stdout.String(), err)
	}
	if strings.Contains(stdout.String(), issued.Key) {
		t.Error("the audit trail shows the key")
	}
	if err := run(ctx, []string{"admin", "audit", "list", "--since", "yesterday"}, env, &bytes.Buffer{}, &stderr); err == nil {
		t.Error("foresight admin audit list --since yesterday succeeded")
	}

	for _, args := range [][]string{{"issue", "--operator", "acme"}, {"issue", "--operator", "acme", "--name", "x", "--expires-at", "soon"}, {"revoke", "--operator", "acme"}} {
		if err := run(ctx, append([]string{"admin", "operator-credentials"}, args...), env, &bytes.Buffer{}, &stderr); err == nil {
			t.Errorf("foresight admin operator-credentials %v succeeded", args)
		}
	}
}
