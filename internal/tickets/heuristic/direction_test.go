package heuristic

import "testing"

// TestHeadingDirection: a heading's words say who hosts its endpoints, the
// nearest heading that says so decides, and the spec's own system (the
// platform, the service, we ...) hosting them makes them inbound.
func TestHeadingDirection(t *testing.T) {
	for _, c := range []struct {
		headings    []string // outermost first
		wantInbound bool
		wantParty   string
	}{
		{[]string{"Endpoints"}, true, ""},
		{[]string{"Wallet API (hosted by the operator)"}, false, "operator"},
		{[]string{"API served by the platform"}, true, "platform"},
		{[]string{"Operator-hosted endpoints"}, false, "operator"},
		{[]string{"The platform calls the operator"}, false, "operator"},
		{[]string{"The operator calls the service"}, true, "service"},
		{[]string{"Partner hosts"}, false, "partner"},
		{[]string{"Webhooks, called by the partner"}, true, ""},
		{[]string{"Wallet (hosted by the operator)", "Withdrawals"}, false, "operator"},
		{[]string{"Wallet (hosted by the operator)", "Our callbacks, served by us"}, true, "us"},
	} {
		s := &section{}
		for _, h := range c.headings {
			s = &section{heading: h, parent: s}
		}
		inbound, party := headingDirection(s)
		if inbound != c.wantInbound || party != c.wantParty {
			t.Errorf("%q: inbound %v, party %q; want %v, %q", c.headings, inbound, party, c.wantInbound, c.wantParty)
		}
	}
}
