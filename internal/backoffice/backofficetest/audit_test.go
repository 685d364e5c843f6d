package backofficetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/admin"
)

// TestAuditPage: the Audit page lists staff actions with who did them and
// what changed (a market suspended by platform staff: its status from open
// to suspended), filters them by action (an operator's margin changed with
// its own key), and an operator's key sees its own operator's entries
// only.
func TestAuditPage(t *testing.T) {
	w, ev := newCupFinalWorld(t)
	m := ev.Markets[0]
	w.call("POST", "/admin/v1/markets/"+m.ID+"/suspend", nil, nil)
	cred, err := w.admin.IssueOperatorCredential(context.Background(), "sandbox", "Ana (trading desk)", nil)
	if err != nil {
		t.Fatal(err)
	}
	ana := &admin.Client{BaseURL: w.URL, Token: cred.Key}
	if err := ana.Do(context.Background(), "PATCH", "/admin/v1/operators/sandbox", map[string]any{"margin": map[string]any{"method": "shin", "value": "0.07"}}, nil); err != nil {
		t.Fatal(err)
	}

	tb := w.openScreen("audit")
	suspended := "tbody[data-action='market.suspended']"
	tb.WaitFor("the market's suspension", fmt.Sprintf("document.querySelector(%q)", suspended))
	tb.WaitText("#view [role=status]", "4 entries.")
	var columns []int
	tb.Eval("Array.from(document.querySelectorAll('table.audit > thead > tr, table.audit > tbody > tr:first-child'), r => r.cells.length)", &columns)
	if len(columns) != 5 || columns[0] != 6 || columns[4] != 6 {
		t.Errorf("the table's header and entries have %v cells, want 6 in each of a header and 4 entries", columns)
	}
	if who := tb.Text(suspended + " td:nth-child(2)"); who != "Platform staff (admin token)" {
		t.Errorf("the suspension is by %q", who)
	}
	if target := tb.Text(suspended + " td:nth-child(4) a"); !strings.Contains(target, m.ID) {
		t.Errorf("the suspension's target is %q", target)
	}
	tb.Click(suspended + " button[aria-expanded]")
	tb.WaitFor("its changes", fmt.Sprintf("document.querySelector(%q)", suspended+" tr[data-field=status]"))
	if row := tb.Text(suspended + " tr[data-field=status]"); row != "statusopensuspended" {
		t.Errorf("the status change reads %q", row)
	}

	tb.choose("[data-filter=action]", "operator.updated")
	tb.WaitText("#view [role=status]", "1 entry.")
	updated := "tbody[data-action='operator.updated']"
	if who := tb.Text(updated + " td:nth-child(2)"); !strings.Contains(who, "Ana (trading desk) · sandbox") {
		t.Errorf("the margin change is by %q", who)
	}
	tb.Click(updated + " button[aria-expanded]")
	tb.WaitFor("its changes", fmt.Sprintf("document.querySelector(%q)", updated+" tr[data-field='margin.value']"))
	if row := tb.Text(updated + " tr[data-field='margin.value']"); row != "margin.value0.050.07" {
		t.Errorf("the margin change reads %q", row)
	}
	tb.screenshot("audit")

	// Signed in with the operator's key: its own operator's entries only.
	tb.Click("#sign-out")
	tb.WaitText("#signin-status", "Signed out.")
	tb.submitToken(cred.Key)
	tb.WaitFor("signed in as the operator", "document.body.dataset.signedIn === 'true' && document.body.dataset.kind === 'operator'")
	tb.Navigate(w.URL + "/backoffice/#/audit")
	tb.WaitText("#view [role=status]", "3 entries.")
	actions := tb.texts("tbody[data-action]", "e => e.dataset.action")
	if strings.Join(actions, ",") != "operator.updated,operator_credential.issued,operator.created" {
		t.Errorf("the operator's key sees %v", actions)
	}
}
