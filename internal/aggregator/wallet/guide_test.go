package wallet_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/betting/walletcall/walletcalltest"
)

// TestAggregatorGuideSignatureExample: the worked example of
// X-REQUEST-SIGN in docs/aggregator-integration.md is what Sign gives.
func TestAggregatorGuideSignatureExample(t *testing.T) {
	t.Parallel()
	secret, body, want := walletcalltest.GuideSignatureExample(t, "../../../docs/aggregator-integration.md")
	if got := wallet.Sign(secret, body); got != want {
		t.Errorf("Sign(%q, %s) = %s, the guide says %s", secret, body, got, want)
	}
}
