package llm

import (
	"slices"
	"strings"
	"testing"
)

func TestShareOut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n     int
		sizes []int
		want  []int
	}{
		{6, []int{1111, 1109}, []int{3, 3}},
		{5, []int{100, 100}, []int{3, 2}},
		{3, []int{1000, 1, 1}, []int{1, 1, 1}},
		{20, []int{700, 200, 100}, []int{14, 4, 2}},
		{2, []int{5, 5}, []int{1, 1}},
	} {
		parts := make([]string, len(tt.sizes))
		for i, n := range tt.sizes {
			parts[i] = strings.Repeat("x", n)
		}
		got := shareOut(tt.n, parts)
		sum := 0
		for _, s := range got {
			sum += s
		}
		if !slices.Equal(got, tt.want) || sum != tt.n {
			t.Errorf("shareOut(%d, %v) = %v, want %v", tt.n, tt.sizes, got, tt.want)
		}
	}
}

func TestSplitSpec(t *testing.T) {
	t.Parallel()
	spec := "# A\n" + strings.Repeat("a", 50) + "\n# B\n" + strings.Repeat("b", 50) + "\n# C\n" + strings.Repeat("c", 50) + "\n"
	parts, ok := splitSpec(spec, 120)
	if !ok || len(parts) != 2 || !strings.HasPrefix(parts[1], "# C") || strings.Join(parts, "") != spec {
		t.Errorf("splitSpec = %q, %v", parts, ok)
	}
	if _, ok := splitSpec(strings.Repeat("x", 200), 120); ok {
		t.Error("a paragraph larger than the budget was split")
	}
}
