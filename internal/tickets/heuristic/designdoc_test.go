package heuristic_test

import "testing"

// TestDesignDocMetadataIsNoWork gives a design proposal's header fields
// ("**Owners:**", "**Related Tickets:**", "**Other docs:**" over links)
// and its "Audience" section no ticket.
func TestDesignDocMetadataIsNoWork(t *testing.T) {
	spec := "## Retry budget for the mail relay\n\n* **Owners:**\n  * Ada\n* **Status:**\n  * `Proposed`\n* **Related Tickets:**\n  * #812 — retries storm the relay after an outage\n* **Other docs:**\n  * Relay runbook — how the relay is operated\n\n" +
		"## Audience\n\n* Operators of the relay who tune its retries.\n\n## How\n\n### Budget\n\nThe relay keeps a retry budget of 10 % of the last minute's sends and drops retries beyond it with a warning.\n"
	res := generate(t, defaultRequest(spec, "Retry budget"))
	wantNoTitleWith(t, res.Tickets, "the proposal's header or audience", "related tickets", "other docs", "owners", "audience", "status")
}
