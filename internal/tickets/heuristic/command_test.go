package heuristic

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

func TestCommandName(t *testing.T) {
	checkTextCases(t, "commandName", commandName, []textCase[string]{
		{"`logpipe tail <file>` — follows a file", "logpipe tail <file>"},
		{"`logpipe init` — writes a default config", "logpipe init"},
		{"`403 Forbidden` — the key lacks the scope", ""},
		{"`404` — no such invoice", ""},
		{"`GET /invoices` — lists invoices", ""},
		{"`src/App.tsx` — the root component", ""},
		{"`InvoiceList` — renders the list", ""},
		{"`<InvoiceList>` — renders the list", ""},
		{"`invoice.total` — the sum of the lines", ""},
		{"`email`: string (required, unique)", ""},
		{"`limit`: integer (optional, default: 20)", ""},
		{"`NOT_FOUND`: Resource not found", ""},
		{"`X-RateLimit-Limit`: 100", ""},
	})
}

// TestCommandsNeedACommandLine: a code span opening a list item is a
// command only where the spec speaks of a command line; in an API spec
// the fields, query parameters and error codes stay criteria (seen on a
// public Todo API spec: "Implement email command", "Implement NOT_FOUND
// command").
func TestCommandsNeedACommandLine(t *testing.T) {
	api := "# Todo API\n\n## Entities\n\n### User\n\n- `email`: required, unique, email format\n- `name`: required, max 100 chars\n\n" +
		"## Query parameters\n\n- `sort`: one of createdAt or title - Sort field\n\n## Error codes\n\n- `NOT_FOUND`: Resource not found\n- `FORBIDDEN`: User not authorized to access resource\n"
	cli := "# logship\n\n## Subcommands\n\n- `logship run` — tail the configured files and ship lines until stopped.\n- `logship check` — validate the config file.\n"
	for _, c := range []struct {
		spec string
		want int
	}{{api, 0}, {cli, 2}} {
		doc := parseDocument(newMeter(t.Context()), c.spec)
		b := newBuilder(newMeter(t.Context()), tickets.GenerationRequest{Spec: c.spec}, normalizeOptions(tickets.Options{}), doc)
		b.build()
		n := 0
		for _, d := range b.drafts {
			if d.origin == originCommand {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%d command drafts, want %d, in %q", n, c.want, c.spec)
		}
	}
}
