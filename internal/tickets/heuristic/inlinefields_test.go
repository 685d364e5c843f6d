package heuristic_test

import (
	"testing"
)

// TestExpectedAndActualOnOneLine reads a report whose expected and actual
// results share a line ("Expected: 12.50. Actual: 12.500.") as a bug.
func TestExpectedAndActualOnOneLine(t *testing.T) {
	spec := "# Bug bash\n\n### BB-31 Voucher value shown with three decimals\n\nSeverity: S4\n\nExpected: 5.00. Actual: 5.000.\n\n" +
		"### BB-32 Search box loses focus after typing\n\nSeverity: S3\n\nSteps: type two letters in the search box.\n\nExpected: focus stays. Actual: focus moves to the logo.\n"
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
