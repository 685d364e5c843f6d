package wallet_test

import (
	"encoding/hex"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/betting/walletcall/walletcalltest"
)

// TestOperatorGuideSignatureExample: the worked example of
// X-Payload-Signature in docs/operator-integration.md is what Sign gives,
// keyed with the secret's characters: its secret looks like hex, and
// hex-decoding it would give another signature.
func TestOperatorGuideSignatureExample(t *testing.T) {
	t.Parallel()
	secret, body, want := walletcalltest.CheckGuideSignatureExample(t, "../../../docs/operator-integration.md", wallet.Sign)
	decoded, err := hex.DecodeString(secret)
	if err != nil {
		t.Fatalf("the guide's secret %q does not look like hex, so it does not show that the key is not hex-decoded", secret)
	}
	if wallet.Sign(string(decoded), body) == want {
		t.Errorf("the guide's signature is also the hex-decoded key's")
	}
}
