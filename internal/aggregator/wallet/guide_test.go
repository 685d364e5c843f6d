package wallet_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
)

// TestAggregatorGuideSignatureExample: the worked example of
// X-REQUEST-SIGN in docs/aggregator-integration.md is what Sign gives.
func TestAggregatorGuideSignatureExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/aggregator-integration.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("the secret\\s+`([^`]+)`\\s+and the body\\s+`([^`]+)`\\s+give\\s+`([0-9a-f]{64})`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/aggregator-integration.md has no signature example (the secret `…` and the body `…` give `…`)")
	}
	if got := wallet.Sign(string(m[1]), m[2]); got != string(m[3]) {
		t.Errorf("Sign(%q, %s) = %s, the guide says %s", m[1], m[2], got, m[3])
	}
}
