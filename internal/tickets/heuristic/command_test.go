package heuristic

import "testing"

func TestCommandName(t *testing.T) {
	for text, want := range map[string]string{
		"`logpipe tail <file>` — follows a file":    "logpipe tail <file>",
		"`logpipe init` — writes a default config":  "logpipe init",
		"`403 Forbidden` — the key lacks the scope": "",
		"`404` — no such invoice":                   "",
		"`GET /invoices` — lists invoices":          "",
		"`src/App.tsx` — the root component":        "",
		"`InvoiceList` — renders the list":          "",
		"`<InvoiceList>` — renders the list":        "",
		"`invoice.total` — the sum of the lines":    "",
	} {
		if got := commandName(text); got != want {
			t.Errorf("commandName(%q) = %q, want %q", text, got, want)
		}
	}
}
