package heuristic_test

import (
	"slices"
	"testing"
)

// An item waits for the one listed before it only where the spec writes
// an order: a numbered list under a heading or a sentence that reads as a
// sequence, or an item whose own text refers back. The items of a list of
// requirements can be built in any order, and a team importing the
// tickets got a false chain of blockers from list order (issue 17).
func TestListOrderIsADependencyOnlyWhereTheSpecWritesIt(t *testing.T) {
	const (
		save    = "Ensure shoppers save their cart to their account on every change"
		restore = "Ensure shoppers restore a saved cart when they sign in on another device"
		sold    = "Ensure shoppers see which saved items are no longer sold"
		upgrade = "Upgrade the session library from 4.x to 5.x in the web app"
		backend = "Add a Redis session backend behind the session_backend setting"
		reads   = "Switch session reads to Redis for all traffic"
	)
	carts := "- Shoppers save their cart to their account on every change.\n- Shoppers restore a saved cart when they sign in on another device.\n- Shoppers see which saved items are no longer sold.\n"
	steps := "1. Upgrade the session library from 4.x to 5.x in the web app.\n2. Add a Redis session backend behind the session_backend setting.\n3. Switch session reads to Redis for all traffic.\n"
	for _, c := range []struct {
		name  string
		spec  string
		waits [][2]string // [from, on]: from depends on on
		free  [][2]string // from does not depend on on
	}{
		{"a bulleted list of requirements", "# Saved carts\n\n## Requirements\n\n" + carts,
			nil, [][2]string{{restore, save}, {sold, restore}}},
		{"a numbered list of requirements", "# Saved carts\n\n## Requirements\n\n" + numbered(carts),
			nil, [][2]string{{restore, save}, {sold, restore}}},
		{"numbered steps under a heading of steps, beside requirements",
			"# Sessions\n\n## Steps\n\n" + steps + "\n## Requirements\n\n" + carts,
			[][2]string{{backend, upgrade}, {reads, backend}}, [][2]string{{restore, save}}},
		{"numbered items under a sentence that gives their order",
			"# Sessions\n\n## Work\n\nRoll out in this order:\n\n" + steps + "\n## Requirements\n\n" + numbered(carts),
			[][2]string{{backend, upgrade}, {reads, backend}}, [][2]string{{restore, save}}},
		{"an item that refers back to the step before it",
			"# Sessions\n\n## Work\n\n- Upgrade the session library from 4.x to 5.x in the web app.\n- Add a Redis session backend behind the session_backend setting.\n- Switch session reads to Redis for all traffic. Requires step 2.\n",
			[][2]string{{reads, backend}}, [][2]string{{backend, upgrade}}},
		{"an item that waits until the work above is in place",
			"# Sessions\n\n## Work\n\n- Upgrade the session library from 4.x to 5.x in the web app.\n- Add a Redis session backend behind the session_backend setting.\n- Switch session reads to Redis for all traffic once the backend is in place.\n",
			[][2]string{{reads + " once the backend is in place", backend}}, [][2]string{{backend, upgrade}}},
		{"a numbered test plan",
			"# Sessions\n\n## Test plan\n\n1. Unit tests cover the Redis session backend's reads and writes.\n2. A load test replays one hour of production session traffic against Redis.\n",
			nil, [][2]string{{"A load test replays one hour of production session traffic against Redis", "Unit tests cover the Redis session backend's reads and writes"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := generate(t, defaultRequest(c.spec, "Spec")).Tickets
			for _, w := range c.waits {
				wantDependsOn(t, ts, w[0], w[1])
			}
			for _, f := range c.free {
				i, j := titled(ts, f[0]), titled(ts, f[1])
				if i < 0 || j < 0 {
					t.Fatalf("want tickets %q and %q: %v", f[0], f[1], titles(ts))
				}
				if slices.Contains(ts[i].Dependencies, ts[j].ExternalID) {
					t.Errorf("%q depends on %q, which the spec lists before it in no order", f[0], f[1])
				}
			}
		})
	}
}

// numbered turns a bulleted list into a numbered one.
func numbered(list string) string {
	var out []byte
	n := 0
	for i := 0; i < len(list); i++ {
		if list[i] == '-' && (i == 0 || list[i-1] == '\n') {
			n++
			out = append(out, byte('0'+n), '.')
			continue
		}
		out = append(out, list[i])
	}
	return string(out)
}
