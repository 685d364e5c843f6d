package cursor

import (
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
