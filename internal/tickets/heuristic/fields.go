package heuristic

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The functions of this file answer what strings.Fields would, splitting
// at the same white space (unicode.IsSpace), without making the slice;
// fieldAfter is strings.FieldsSeq with the fields' positions, which
// collapseSpaces and lastFieldStart need.

// asciiSpace holds the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// fieldAfter returns the bounds of the first field of s that starts at
// byte i or later, or start -1 when there is none. It tests an ASCII byte
// inline and decodes only other runes.
func fieldAfter(s string, i int) (start, end int) {
	start = -1
	for i < len(s) {
		space, size := asciiSpace[s[i]&0x7f], 1
		if s[i] >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			space, size = unicode.IsSpace(r), n
		}
		if space {
			if start >= 0 {
				return start, i
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	return start, len(s)
}

// fieldCount is len(strings.Fields(s)).
func fieldCount(s string) int {
	n := 0
	for range strings.FieldsSeq(s) {
		n++
	}
	return n
}

// firstField is strings.Fields(s)[0], or "" when s has no field.
func firstField(s string) string {
	for f := range strings.FieldsSeq(s) {
		return f
	}
	return ""
}

// collapseSpaces is strings.Join(strings.Fields(s), " "): s without
// leading and trailing white space, each run of white space inside it one
// space. It returns s itself when s is already so.
func collapseSpaces(s string) string {
	next := 0 // where the next field starts when s is collapsed
	for start, end := fieldAfter(s, 0); start >= 0; start, end = fieldAfter(s, end) {
		if start != next || start > 0 && s[start-1] != ' ' {
			return strings.Join(strings.Fields(s), " ")
		}
		next = end + 1
	}
	if next != len(s)+1 { // white space at the end, or no field
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// lastFieldStart is where the last field of s begins when s, without
// white space at its ends, has two fields or more; otherwise -1.
func lastFieldStart(s string) int {
	last, n := -1, 0
	for start, end := fieldAfter(s, 0); start >= 0; start, end = fieldAfter(s, end) {
		last, n = start, n+1
	}
	if n < 2 {
		return -1
	}
	return last
}
