package heuristic

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// appendUnique appends the items that are not blank and not already in
// list, compared without regard to case (strings.EqualFold).
func appendUnique(list []string, items ...string) []string {
	if len(items) >= 8 && len(list)*len(items) > 256 { // one set beats the pairwise comparisons
		sets := listSets{}
		sets.add(&list, items...)
		return list
	}
	for _, it := range items {
		dup := false
		for _, l := range list {
			if strings.EqualFold(l, it) {
				dup = true
				break
			}
		}
		if !dup && strings.TrimSpace(it) != "" {
			list = append(list, it)
		}
	}
	return list
}

// listSets does appendUnique on lists that grow by many appends (a draft
// that absorbs hundreds of others, a long list of criteria) in time linear
// in their length: it keeps the folded members of each list it has seen.
// The lists must change only through add while the listSets is in use. A
// nil listSets falls back to appendUnique.
type listSets map[*[]string]map[string]bool

// newListSets returns a listSets for about n appends to a list, or nil
// (appendUnique) when n is small enough for pairwise comparisons.
func newListSets(n int) listSets {
	if n > 16 {
		return listSets{}
	}
	return nil
}

func (s listSets) add(list *[]string, items ...string) {
	if s == nil {
		*list = appendUnique(*list, items...)
		return
	}
	set, ok := s[list]
	if !ok && len(*list)*len(items) <= 64 {
		*list = appendUnique(*list, items...) // short lists: no set yet
		return
	}
	if !ok {
		set = make(map[string]bool, len(*list)+len(items))
		for _, l := range *list {
			set[foldKey(l)] = true
		}
		s[list] = set
	}
	for _, it := range items {
		if strings.TrimSpace(it) == "" {
			continue
		}
		k := foldKey(it)
		if set[k] {
			continue
		}
		set[k] = true
		*list = append(*list, it)
	}
}

// foldKey maps s to a key that two strings share exactly when
// strings.EqualFold holds for them: every rune becomes the smallest rune of
// its case-folding orbit.
func foldKey(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
		default:
			least := r
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				least = min(least, f)
			}
			r = least
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
