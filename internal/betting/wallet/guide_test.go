package wallet_test

import (
	"encoding/hex"
	"os"
	"regexp"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
)

// TestOperatorGuideSignatureExample: the worked example of
// X-Payload-Signature in docs/operator-integration.md is what Sign gives,
// keyed with the secret's characters: its secret looks like hex, and
// hex-decoding it would give another signature.
func TestOperatorGuideSignatureExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/operator-integration.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("the secret\\s+`([^`]+)`\\s+and the body\\s+`([^`]+)`\\s+give\\s+`([0-9a-f]{64})`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/operator-integration.md has no signature example (the secret `…` and the body `…` give `…`)")
	}
	secret, body, want := string(m[1]), m[2], string(m[3])
	if got := wallet.Sign(secret, body); got != want {
		t.Errorf("Sign(%q, %s) = %s, the guide says %s", secret, body, got, want)
	}
	decoded, err := hex.DecodeString(secret)
	if err != nil {
		t.Fatalf("the guide's secret %q does not look like hex, so it does not show that the key is not hex-decoded", secret)
	}
	if wallet.Sign(string(decoded), body) == want {
		t.Errorf("the guide's signature is also the hex-decoded key's")
	}
}
