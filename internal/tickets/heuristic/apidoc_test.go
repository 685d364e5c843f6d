package heuristic_test

import (
	"testing"
)

// TestEndpointLineUnderActionHeading reads an API doc whose sections are
// named by what they do ("### 1️⃣ Get All Invoices") and give the endpoint
// on a line of their own: one endpoint ticket per section, titled by the
// method, the path and the heading, without the emoji.
func TestEndpointLineUnderActionHeading(t *testing.T) {
	spec := "# Invoice API\n\n## 📌 Endpoints\n\n### 1️⃣ Get All Invoices\nGET /api/invoices\nResponse:\n```\n[{\"id\": \"1\"}]\n```\n\n" +
		"### 2️⃣ Void Invoice\nPOST /api/invoices/:id/void\n\nStatus:\n200 OK\n404 Not Found\n"
	res := generate(t, defaultRequest(spec, "Invoice API"))
	wantTitles(t, res.Tickets, sameTitle, "Implement GET /api/invoices to get all invoices", "Implement POST /api/invoices/:id/void to void invoice")
}
