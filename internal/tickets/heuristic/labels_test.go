package heuristic

import (
	"os"
	"strings"
	"testing"
)

// TestCriteriaLabelsOfAnOutsideReader checks isContext against sentences
// of public specs that an outside reader labelled, blind to the engine, as
// a check a tester would make of the work or as context
// (testdata/criteria-labels.tsv): no sentence labelled a check may leave
// the criteria, and at least contextFloor of those labelled context must
// (the count when the labels were made; raise it as rules improve).
func TestCriteriaLabelsOfAnOutsideReader(t *testing.T) {
	const contextFloor = 17
	data, err := os.ReadFile("testdata/criteria-labels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var checks, contexts, found int
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 4 {
			t.Fatalf("malformed line %q", line)
		}
		isCheck := !isContext(f[3])
		switch f[1] {
		case "check":
			checks++
			if !isCheck {
				t.Errorf("%s: a check read as context: %q", f[0], f[3])
			}
		case "context":
			contexts++
			if !isCheck {
				found++
			}
		default:
			t.Fatalf("unknown label %q", f[1])
		}
	}
	t.Logf("%d checks kept; %d of %d context sentences found", checks, found, contexts)
	if found < contextFloor {
		t.Errorf("%d of %d context sentences found, want at least %d", found, contexts, contextFloor)
	}
}
