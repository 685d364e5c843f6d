package heuristic

import (
	"regexp"
	"testing"
)

// prose drops the same code spans as the pattern `[^`]*`.
func TestProseDropsCodeSpansLikeThePattern(t *testing.T) {
	codeSpan := regexp.MustCompile("`[^`]*`")
	for _, s := range []string{"", "plain", "`a`", "x `a` y `b` z", "open ` only", "``", "a ``` b", "`a\nb` c", "`é`\xff`", "end `"} {
		if got, want := prose(s), codeSpan.ReplaceAllString(s, ""); got != want {
			t.Errorf("prose(%q) = %q, want %q", s, got, want)
		}
	}
}
