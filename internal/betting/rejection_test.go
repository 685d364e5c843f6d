package betting_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
)

// TestRejectionCodes: the seven codes of the specs are the whole set.
func TestRejectionCodes(t *testing.T) {
	t.Parallel()
	want := []string{"validation_failed", "bettor_blocked", "insufficient_funds", "bet_limit_reached",
		"bet_rejected_other", "wallet_rolled_back", "wallet_provider_unavailable"}
	got := betting.RejectionCodes()
	if len(got) != len(want) {
		t.Fatalf("RejectionCodes() = %v, want %v", got, want)
	}
	for i, c := range got {
		if string(c) != want[i] || !c.Valid() {
			t.Errorf("code %d = %q (valid %v), want %q", i, c, c.Valid(), want[i])
		}
	}
	for _, c := range []betting.RejectionCode{"", "insufficient_fund", "Insufficient_Funds", "invalid"} {
		if c.Valid() {
			t.Errorf("%q is valid", c)
		}
	}
}
