package quality

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// uniqueness fails tickets whose titles repeat another's, exactly or
// nearly (trigram similarity above 0.8).
func uniqueness(ts []tickets.Ticket) Check {
	c := Check{Name: "unique"}
	dups := 0
	for i := range ts {
		for j := 0; j < i; j++ {
			a, b := normalise(ts[i].Title), normalise(ts[j].Title)
			if a == b || similarity(a, b) > 0.8 {
				dups++
				c.Findings = append(c.Findings, fmt.Sprintf("%s repeats %s (%q)", ts[i].ExternalID, ts[j].ExternalID, ts[i].Title))
				break
			}
		}
	}
	c.Score = ratio(len(ts)-dups, len(ts))
	return c
}

func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// similarity is the Jaccard index of the character trigrams of a and b.
func similarity(a, b string) float64 {
	ta, tb := trigrams(a), trigrams(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	both := 0
	for g := range ta {
		if tb[g] {
			both++
		}
	}
	return float64(both) / float64(len(ta)+len(tb)-both)
}

func trigrams(s string) map[string]bool {
	r := []rune(s)
	out := map[string]bool{}
	for i := 0; i+3 <= len(r); i++ {
		out[string(r[i:i+3])] = true
	}
	return out
}
