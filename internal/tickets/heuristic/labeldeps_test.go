package heuristic_test

import (
	"slices"
	"strings"
	"testing"
)

// TestLabelDependencies reads the order a spec states with its own
// identifiers: work that says it waits for others by name ("once A-1 and
// A-2 are fixed", "Requires INV-1") depends on their tickets.
func TestLabelDependencies(t *testing.T) {
	for _, tt := range []struct {
		name, spec, waiting string
		on                  []string
	}{
		{"findings", "# Audit findings\n\n## Details\n\n### A-1 Admin panel reachable without login\n\nAnyone can open /admin. **Recommendation:** require a staff login on every admin route.\n\n" +
			"### A-2 Passwords stored with MD5\n\nThe users table holds unsalted MD5 hashes. **Recommendation:** rehash with bcrypt at the next login.\n\n" +
			"### A-3 Debug endpoint left enabled\n\n`/debug/vars` answers in production. **Recommendation:** turn the debug endpoint off.\n\n" +
			"## Retest\n\nThe auditor retests for free within 30 days. Book the retest once A-1 and A-2 are fixed.\n",
			"retest", []string{"A-1", "A-2"}},
		{"requirements", "# Invoicing\n\n## 3.2 Billing runs\n\n- INV-7 (MUST) A billing run issues one invoice per customer with open usage at the end of the month.\n" +
			"- INV-8 (MUST) A credit note reverses one invoice line and is numbered in the credit series.\n\n" +
			"## 3.3 Payments\n\n- PAY-1 (MUST) Card payments settle the invoice they name; requires INV-7.\n- PAY-2 (SHOULD) Bank transfers are matched to invoices by the reference in the transfer.\n",
			"card payments", []string{"INV-7"}},
	} {
		res := generate(t, defaultRequest(tt.spec, tt.name))
		idOf := map[string]string{}
		for _, tk := range res.Tickets {
			if strings.Contains(strings.ToLower(tk.Title), tt.waiting) {
				continue
			}
			for _, l := range tt.on {
				if strings.Contains(tk.Title, l) {
					idOf[l] = tk.ExternalID
				}
			}
		}
		found := false
		for _, tk := range res.Tickets {
			if !strings.Contains(strings.ToLower(tk.Title), tt.waiting) {
				continue
			}
			found = true
			for _, l := range tt.on {
				if idOf[l] == "" || !slices.Contains(tk.Dependencies, idOf[l]) {
					t.Errorf("%s: %q depends on %v, not on the ticket of %s (%s)", tt.name, tk.Title, tk.Dependencies, l, idOf[l])
				}
			}
		}
		if !found {
			t.Errorf("%s: no ticket about %q: %v", tt.name, tt.waiting, titles(res.Tickets))
		}
	}
}
