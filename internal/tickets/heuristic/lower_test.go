package heuristic

import (
	"strings"
	"testing"
)

// containsLower answers what strings.Contains over the lower-cased text
// would, on ASCII and other text.
func TestContainsLowerAgreesWithToLower(t *testing.T) {
	texts := []string{"", "a", "Priority", "PRIORITY", "User Story", "To State", "#", "İd", "\u212a" + "ey", "Éstado", "a\xffB", "[Z]@`{"}
	subs := []string{"", "a", "priority", "story", "to state", "#", "id", "key", "é", "[z]", "@", "`", "{"}
	for _, s := range texts {
		for _, sub := range subs {
			if got, want := containsLower(s, sub), strings.Contains(strings.ToLower(s), sub); got != want {
				t.Errorf("containsLower(%q, %q) = %v, want %v", s, sub, got, want)
			}
		}
	}
}

// mayBeStopWord holds for every stop word, whatever its letters.
func TestMayBeStopWordHoldsForEveryStopWord(t *testing.T) {
	for w := range stopWords {
		if !mayBeStopWord(w) {
			t.Errorf("mayBeStopWord(%q) = false", w)
		}
	}
	if mayBeStopWord("requirement") || mayBeStopWord("webhook") || mayBeStopWord("zq") {
		t.Error("mayBeStopWord holds for words no stop word resembles")
	}
}
