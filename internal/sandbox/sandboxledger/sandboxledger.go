// Package sandboxledger is the sandboxes' one ledger: the balance
// movements a sandbox wallet made, oldest first, each numbered from 1 and
// timed by the core, with its protocol's own fields beside.
package sandboxledger

import (
	"slices"
	"time"
)

// Stamp is what every ledger entry starts with. A protocol's entry type
// embeds it first, so that its JSON starts with seq and time.
type Stamp struct {
	// Seq numbers the entries from 1, in order.
	Seq int64 `json:"seq"`
	// Time is the sandbox's clock when the entry was made.
	Time time.Time `json:"time"`
}

// stamp lets Ledger number and time an entry that embeds Stamp.
func (s *Stamp) stamp() *Stamp { return s }

// Entry is a protocol's entry type E through its pointer: a struct that
// embeds Stamp.
type Entry[E any] interface {
	*E
	stamp() *Stamp
}

// Ledger is a sandbox's entries, oldest first. The zero Ledger is empty.
// It is not safe for concurrent use: the sandbox's lock guards it, and its
// journal's replay rebuilds it.
type Ledger[E any, P Entry[E]] struct {
	entries []E
}

// Append appends e made at time at, numbered after the last entry; what
// e's Stamp held is replaced.
func (l *Ledger[E, P]) Append(at time.Time, e E) {
	*P(&e).stamp() = Stamp{Seq: int64(len(l.entries)) + 1, Time: at}
	l.entries = append(l.entries, e)
}

// Entries returns the entries, oldest first, for reading under the
// sandbox's lock; the caller must not change them.
func (l *Ledger[E, P]) Entries() []E { return l.entries }

// From returns a copy of the entries after the first n (all of them when n
// is 0 or less), oldest first: what a reader that has seen n entries has
// not seen yet; nil when there are none.
func (l *Ledger[E, P]) From(n int) []E {
	if n >= len(l.entries) {
		return nil
	}
	return slices.Clone(l.entries[max(n, 0):])
}

// All returns a copy of every entry, oldest first (empty, not nil, when
// there are none).
func (l *Ledger[E, P]) All() []E {
	out := make([]E, len(l.entries))
	copy(out, l.entries)
	return out
}
