package sqlargs_test

import (
	"slices"
	"testing"

	"github.com/foresight-dev/foresight/internal/sqlargs"
)

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		name string
		list *sqlargs.List
		want string
	}{
		{"numbered", sqlargs.Numbered(), "$1 $2 $3"},
		{"positional", sqlargs.Positional(), "? ? ?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.list.Add("a") + " " + tc.list.Add(2) + " " + tc.list.Add(true)
			if got != tc.want {
				t.Errorf("placeholders = %q, want %q", got, tc.want)
			}
			if v := tc.list.Values(); !slices.Equal(v, []any{"a", 2, true}) {
				t.Errorf("values = %v, want [a 2 true]", v)
			}
		})
	}
}

func TestAndEqual(t *testing.T) {
	type status string
	l := sqlargs.Numbered()
	l.Add("operator")
	if got := sqlargs.AndEqual(l, "status", status("")); got != "" || len(l.Values()) != 1 {
		t.Errorf("unset filter: %q with %v, want nothing added", got, l.Values())
	}
	if got := sqlargs.AndEqual(l, "status", status("open")); got != " AND status = $2" {
		t.Errorf("set filter: %q, want \" AND status = $2\"", got)
	}
	if v := l.Values(); !slices.Equal(v, []any{"operator", status("open")}) {
		t.Errorf("values = %v, want [operator open]", v)
	}
}

func TestAddAll(t *testing.T) {
	l := sqlargs.Positional()
	l.Add("operator")
	if got := sqlargs.AddAll(l, []string{"a", "b", "c"}); got != "?, ?, ?" {
		t.Errorf("AddAll = %q, want \"?, ?, ?\"", got)
	}
	if v := l.Values(); !slices.Equal(v, []any{"operator", "a", "b", "c"}) {
		t.Errorf("values = %v, want [operator a b c]", v)
	}
	if got := sqlargs.AddAll(sqlargs.Numbered(), []int{7, 8}); got != "$1, $2" {
		t.Errorf("numbered AddAll = %q, want \"$1, $2\"", got)
	}
}
