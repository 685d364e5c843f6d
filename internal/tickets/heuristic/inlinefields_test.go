package heuristic_test

import (
	"testing"
)

// TestExpectedAndActualOnOneLine reads a report whose expected and actual
// results share a line ("Expected: 12.50. Actual: 12.500.") as a bug.
func TestExpectedAndActualOnOneLine(t *testing.T) {
	spec := readSpec(t, "specs/bug-bash-inline-fields")
	res := generate(t, defaultRequest(spec, "Bug bash"))
	found := false
	for _, tk := range res.Tickets {
		if tk.Title == "Fix BB-31: Voucher value shown with three decimals" && tk.TicketType == "bug" {
			found = true
		}
	}
	if !found {
		t.Errorf("no bug 'Fix BB-31: Voucher value shown with three decimals': %v", titles(res.Tickets))
	}
}
