package heuristic_test

import (
	"slices"
	"strings"
	"testing"
)

// Work waits for the layer below it that it names: an endpoint for its
// entity, a controller for its API type (a public Todo API spec and
// KEP-3140 had no dependency at all).
func TestLayerDependencies(t *testing.T) {
	for _, c := range []struct{ spec, from, on string }{
		{"# Todo API\n\n## Entities\n\n### Todo\n\n- `id`: string (UUID, primary key)\n- `title`: string (required, max 200 chars)\n- `completed`: boolean (default false)\n\n## Endpoints\n\n### GET /api/todos/:id\n\n- **Description:** Get a single todo by ID\n- **Authorization:** User can only access their own todos\n",
			"Implement GET /api/todos/:id to get a single todo by ID", "todo"},
		{"# KEP\n\n## Design Details\n\n### CronJob API\n\nThe spec for a CronJob is expanded with a new timeZone field.\n\n### CronJob controller\n\nCronJob controller will use the timeZone field when scheduling the next run.\n",
			"CronJob controller: CronJob controller will use the timeZone field when scheduling the next run", "new timezone field"},
	} {
		res := generate(t, defaultRequest(c.spec, "Spec"))
		on := ""
		for _, tk := range res.Tickets {
			if tk.Title != c.from && strings.Contains(strings.ToLower(tk.Title), c.on) {
				on = tk.ExternalID
			}
		}
		found := false
		for _, tk := range res.Tickets {
			if tk.Title == c.from {
				found = true
				if on == "" || !slices.Contains(tk.Dependencies, on) {
					t.Errorf("%q depends on %v, want %q (%s)", c.from, tk.Dependencies, c.on, on)
				}
			}
		}
		if !found {
			t.Errorf("no ticket %q: %v", c.from, titles(res.Tickets))
		}
	}
}
