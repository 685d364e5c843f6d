package heuristic_test

import (
	"testing"
)

// TestEndpointLineUnderActionHeading reads an API doc whose sections are
// named by what they do ("### 1️⃣ Get All Invoices") and give the endpoint
// on a line of their own: one endpoint ticket per section, titled by the
// method, the path and the heading, without the emoji.
func TestEndpointLineUnderActionHeading(t *testing.T) {
	spec := readSpec(t, "specs/invoice-api-emoji-headings")
	res := generate(t, defaultRequest(spec, "Invoice API"))
	wantTitles(t, res.Tickets, sameTitle, "Implement GET /api/invoices to get all invoices", "Implement POST /api/invoices/:id/void to void invoice")
}
