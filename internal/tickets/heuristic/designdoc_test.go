package heuristic_test

import "testing"

// TestDesignDocMetadataIsNoWork gives a design proposal's header fields
// ("**Owners:**", "**Related Tickets:**", "**Other docs:**" over links)
// and its "Audience" section no ticket.
func TestDesignDocMetadataIsNoWork(t *testing.T) {
	spec := readSpec(t, "specs/mail-relay-design-doc")
	res := generate(t, defaultRequest(spec, "Retry budget"))
	wantNoTitleWith(t, res.Tickets, "the proposal's header or audience", "related tickets", "other docs", "owners", "audience", "status")
}
