package heuristic_test

import (
	"testing"
)

// TestPassiveRequirementTitles turns a passive requirement into a
// verb-first title ("Previews are served via the CDN" is "Serve previews
// via the CDN"), not "Implement previews are served …".
func TestPassiveRequirementTitles(t *testing.T) {
	spec := readSpec(t, "specs/shop-passive-requirements")
	res := generate(t, defaultRequest(spec, "Shop"))
	wantTitles(t, res.Tickets, sameTitle, "Serve previews via the CDN (SH-1)", "Update order totals from the payment webhooks (SH-2)")
}
