package heuristic_test

import "testing"

// TestShortHeadingIsTitledByWhatItStates titles the ticket of a section
// under a short heading that only says what the work is about by the
// heading and what the section's first sentence states ("Implement
// pagination" told a lead nothing the heading did not), and keeps
// "Implement <heading>" where the first unit states nothing of the work.
func TestShortHeadingIsTitledByWhatItStates(t *testing.T) {
	for _, c := range []struct{ name, section, want string }{
		{"statement", "## Pagination\n\nList endpoints page with an opaque cursor: `?limit=` (1 to 100, default 25) and `?starting_after=<id>`. The response carries `has_more`.\n",
			"Pagination: List endpoints page with an opaque cursor"},
		{"main clause of a long sentence", "## WAL archiving\n\n`archive_command` pushes each WAL segment to the bucket, giving point-in-time recovery to any second of the last 14 days and more.\n",
			"WAL archiving: archive_command pushes each WAL segment to the bucket"},
		{"long sentence without a clause to end on", "## Admin console\n\nSupport sees each tenant's current limit and its source and can add, change or remove an override with a reason and a date.\n",
			"Implement admin console"},
		{"label line", "## Scope\n\nRequirement keywords: MUST is needed for the phase to ship, SHOULD is expected.\n",
			"Implement scope"},
		{"subordinate clause", "## Rollback\n\nUntil step 6, setting the backend back to memcached restores the old behaviour at once.\n",
			"Implement rollback"},
		{"status quo", "## Documentation\n\nThere are currently 75 undocumented system variables in the server.\n",
			"Implement documentation"},
		{"list", "## Rollout\n\n- Private beta with three integrators behind the account flag.\n- General availability after a month.\n",
			"Implement rollout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := "# Invoices API v2\n\n" + c.section + "\n## Billing\n\nInvoices are issued in the account's currency.\n"
			res := generate(t, defaultRequest(spec, "Spec"))
			var got []string
			for _, tk := range res.Tickets {
				got = append(got, tk.Title)
				if tk.Title == c.want {
					return
				}
			}
			t.Errorf("no ticket titled %q: %q", c.want, got)
		})
	}
}
