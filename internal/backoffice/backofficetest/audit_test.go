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
	w := newWorld(t)
	w.registerSandbox()
	ev := w.createEvent("sports", "Cup final", "Who wins?")
	m := ev.Markets[0]
	w.call("POST", "/admin/v1/markets/"+m.ID+"/suspend", nil, nil)
	cred, err := w.admin.IssueOperatorCredential(context.Background(), "sandbox", "Ana (trading desk)", nil)
	if err != nil {
		t.Fatal(err)
	}
	ana := &admin.Client{BaseURL: w.url, Token: cred.Key}
	if err := ana.Do(context.Background(), "PATCH", "/admin/v1/operators/sandbox", map[string]any{"margin": map[string]any{"method": "shin", "value": "0.07"}}, nil); err != nil {
		t.Fatal(err)
	}

	tb := w.signIn()
	tb.viewport(1200, 900)
	tb.navigate(w.url + "/backoffice/#/audit")
	suspended := "tbody[data-action='market.suspended']"
	tb.waitFor("the market's suspension", fmt.Sprintf("document.querySelector(%q)", suspended))
	tb.waitText("#view [role=status]", "4 entries.")
	var columns []int
	tb.eval("Array.from(document.querySelectorAll('table.audit > thead > tr, table.audit > tbody > tr:first-child'), r => r.cells.length)", &columns)
	if len(columns) != 5 || columns[0] != 6 || columns[4] != 6 {
		t.Errorf("the table's header and entries have %v cells, want 6 in each of a header and 4 entries", columns)
	}
	if who := tb.text(suspended + " td:nth-child(2)"); who != "Platform staff (admin token)" {
		t.Errorf("the suspension is by %q", who)
	}
	if target := tb.text(suspended + " td:nth-child(4) a"); !strings.Contains(target, m.ID) {
		t.Errorf("the suspension's target is %q", target)
	}
	tb.click(suspended + " button[aria-expanded]")
	tb.waitFor("its changes", fmt.Sprintf("document.querySelector(%q)", suspended+" tr[data-field=status]"))
	if row := tb.text(suspended + " tr[data-field=status]"); row != "statusopensuspended" {
		t.Errorf("the status change reads %q", row)
	}

	tb.choose("[data-filter=action]", "operator.updated")
	tb.waitText("#view [role=status]", "1 entry.")
	updated := "tbody[data-action='operator.updated']"
	if who := tb.text(updated + " td:nth-child(2)"); !strings.Contains(who, "Ana (trading desk) · sandbox") {
		t.Errorf("the margin change is by %q", who)
	}
	tb.click(updated + " button[aria-expanded]")
	tb.waitFor("its changes", fmt.Sprintf("document.querySelector(%q)", updated+" tr[data-field='margin.value']"))
	if row := tb.text(updated + " tr[data-field='margin.value']"); row != "margin.value0.050.07" {
		t.Errorf("the margin change reads %q", row)
	}
	tb.screenshot("audit")

	// Signed in with the operator's key: its own operator's entries only.
	tb.click("#sign-out")
	tb.waitText("#signin-status", "Signed out.")
	tb.typeIn("#token", cred.Key)
	tb.click("#signin-submit")
	tb.waitFor("signed in as the operator", "document.body.dataset.signedIn === 'true' && document.body.dataset.kind === 'operator'")
	tb.navigate(w.url + "/backoffice/#/audit")
	tb.waitText("#view [role=status]", "3 entries.")
	var actions []string
	tb.eval("Array.from(document.querySelectorAll('tbody[data-action]'), e => e.dataset.action)", &actions)
	if strings.Join(actions, ",") != "operator.updated,operator_credential.issued,operator.created" {
		t.Errorf("the operator's key sees %v", actions)
	}
}
