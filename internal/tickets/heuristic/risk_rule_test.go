package heuristic

import "testing"

// TestNotARule tells a "never" or "don't" that forbids something from one
// that forbids nothing: a chore spared and what does not change gave
// "Hard prohibitions" risks that readers of three specs found boilerplate.
func TestNotARule(t *testing.T) {
	checkTextCases(t, "a rule", func(s string) bool { return !notARule.MatchString(s) }, []textCase[bool]{
		{"Credentials must never be logged.", true},
		{"A stake is never debited twice.", true},
		{"The `workspace` key is not allowed in a package's manifest.", true},
		{"With workspace inheritance you never have to write the version again.", false},
		{"The Pod and PodSpec APIs don't get any new fields.", false},
		{"This likely never will be needed.", false},
		{"We don't do that lightly.", false},
	})
}
