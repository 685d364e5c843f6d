package heuristic

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The functions of this file answer what strings.Fields would, splitting
// at the same white space (unicode.IsSpace), without making the slice.

// spaceRuneAt reports whether s has a white-space rune at byte i, and
// the rune's length; the loops below test ASCII bytes themselves, inline,
// with asciiSpace.
func spaceRuneAt(s string, i int) (bool, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), size
}

// asciiSpace holds the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// fieldCount is len(strings.Fields(s)).
func fieldCount(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		space, size := asciiSpace[s[i]&0x7f], 1
		if s[i] >= utf8.RuneSelf {
			space, size = spaceRuneAt(s, i)
		}
		if space {
			in = false
		} else if !in {
			in = true
			n++
		}
		i += size
	}
	return n
}

// firstField is strings.Fields(s)[0], or "" when s has no field.
func firstField(s string) string {
	start := -1
	for i := 0; i < len(s); {
		space, size := asciiSpace[s[i]&0x7f], 1
		if s[i] >= utf8.RuneSelf {
			space, size = spaceRuneAt(s, i)
		}
		if space {
			if start >= 0 {
				return s[start:i]
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start < 0 {
		return ""
	}
	return s[start:]
}

// collapseSpaces is strings.Join(strings.Fields(s), " "): s without
// leading and trailing white space, each run of white space inside it one
// space. It returns s itself when s is already so.
func collapseSpaces(s string) string {
	prevSpace := true // no white space at the start
	for i := 0; i < len(s); {
		space, size := asciiSpace[s[i]&0x7f], 1
		if s[i] >= utf8.RuneSelf {
			space, size = spaceRuneAt(s, i)
		}
		if space && (prevSpace || size > 1 || s[i] != ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = space
		i += size
	}
	if prevSpace && s != "" {
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// lastFieldStart is where the last field of s begins when s, without
// white space at its ends, has two fields or more; otherwise -1.
func lastFieldStart(s string) int {
	last := -1
	for i := 0; i < len(s); {
		space, size := asciiSpace[s[i]&0x7f], 1
		if s[i] >= utf8.RuneSelf {
			space, size = spaceRuneAt(s, i)
		}
		i += size
		if space {
			last = i
		}
	}
	return last
}
