package heuristic

import "testing"

// textCase is one row of a table test over text: the input, and the value
// wanted for it.
type textCase[T comparable] struct {
	in   string
	want T
}

// checkTextCases reports every case whose fn(in) is not its want; name is
// what the report calls fn.
func checkTextCases[T comparable](t *testing.T, name string, fn func(string) T, cases []textCase[T]) {
	t.Helper()
	for _, c := range cases {
		if got := fn(c.in); got != c.want {
			t.Errorf("%s(%q) = %#v, want %#v", name, c.in, got, c.want)
		}
	}
}
