// Package sqlargs collects the arguments of a query that the SQLite and
// PostgreSQL stores build clause by clause, such as a list whose filters
// are each optional: every argument added gives the placeholder to write
// in its place, "?" on SQLite and $1, $2, … on PostgreSQL. The SQL
// itself, which differs by engine, stays in each store.
package sqlargs

import (
	"strconv"
	"strings"
)

// List is the arguments of a query being built, in the order added.
type List struct {
	values   []any
	numbered bool
}

// Numbered returns an empty list whose placeholders are numbered from 1:
// $1, $2, … (PostgreSQL).
func Numbered() *List { return &List{numbered: true} }

// Positional returns an empty list whose placeholders are all "?", each
// standing for the next argument (SQLite).
func Positional() *List { return &List{} }

// Add appends v and returns its placeholder.
func (l *List) Add(v any) string {
	l.values = append(l.values, v)
	if !l.numbered {
		return "?"
	}
	return "$" + strconv.Itoa(len(l.values))
}

// Values returns the arguments, in the order added.
func (l *List) Values() []any { return l.values }

// AndEqual returns the condition " AND column = p", p the placeholder of
// value added to l, when value is set, and "" when it is empty (the filter
// is not set; nothing is added).
func AndEqual[S ~string](l *List, column string, value S) string {
	if value == "" {
		return ""
	}
	return " AND " + column + " = " + l.Add(value)
}

// AddAll appends each of values and returns their placeholders joined by
// ", ", for an IN list.
func AddAll[T any](l *List, values []T) string {
	ps := make([]string, len(values))
	for i, v := range values {
		ps[i] = l.Add(v)
	}
	return strings.Join(ps, ", ")
}
