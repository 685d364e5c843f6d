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
	walletcalltest.CheckGuideSignatureExample(t, "../../../docs/aggregator-integration.md", wallet.Sign)
}
