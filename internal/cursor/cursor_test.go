package cursor

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	gotAt, gotID, ok := Decode(Encode(at, "123e4567-e89b-12d3-a456-426614174000"))
	if !ok || !gotAt.Equal(at) || gotID != "123e4567-e89b-12d3-a456-426614174000" {
		t.Errorf("round trip = %v %q %v", gotAt, gotID, ok)
	}
	for _, bad := range []string{"", "!!", "bm90IGEgY3Vyc29y", Encode(at, "not-a-uuid")} {
		if _, _, ok := Decode(bad); ok {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
}

func TestPage(t *testing.T) {
	t.Parallel()
	last := func(n int) string { return "after " + strconv.Itoa(n) }
	for _, tt := range []struct {
		rows     []int
		limit    int
		want     []int
		wantNext string
	}{
		{nil, 2, nil, ""},
		{[]int{1}, 2, []int{1}, ""},
		{[]int{1, 2}, 2, []int{1, 2}, ""},
		{[]int{1, 2, 3}, 2, []int{1, 2}, "after 2"},
		{[]int{1, 2}, 1, []int{1}, "after 1"},
	} {
		got, next := Page(tt.rows, tt.limit, last)
		if !slices.Equal(got, tt.want) || next != tt.wantNext {
			t.Errorf("Page(%v, %d) = %v, %q; want %v, %q", tt.rows, tt.limit, got, next, tt.want, tt.wantNext)
		}
	}
}
