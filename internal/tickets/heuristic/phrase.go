package heuristic

import "strings"

// phraseIndex speeds up the search of many short phrases in one text (the
// terms of every risk category in every sentence of the spec): it records
// which pairs of neighbouring bytes the text holds, hashed into 1024 bits,
// so that a phrase with a pair the text lacks is rejected without a search.
type phraseIndex struct {
	text  string
	pairs [16]uint64
}

func newPhraseIndex(text string) *phraseIndex {
	ix := &phraseIndex{text: text}
	for i := 0; i+1 < len(text); i++ {
		h := pairHash(text[i], text[i+1])
		ix.pairs[h>>6] |= 1 << (h & 63)
	}
	return ix
}

func pairHash(a, b byte) uint { return (uint(a)*131 + uint(b)) & 1023 }

// contains reports whether the text contains phrase.
func (ix *phraseIndex) contains(phrase string) bool {
	for i := 0; i+1 < len(phrase); i++ {
		h := pairHash(phrase[i], phrase[i+1])
		if ix.pairs[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return strings.Contains(ix.text, phrase)
}

// count is countLower over the indexed text: how many of the phrases it
// contains.
func (ix *phraseIndex) count(phrases ...string) int {
	n := 0
	for _, p := range phrases {
		if ix.contains(p) {
			n++
		}
	}
	return n
}
