// Package walletcalltest reads what the partner guides show of the wallet
// calls, for the tests of both protocol clients.
package walletcalltest

import (
	"os"
	"regexp"
	"testing"
)

// signatureExample is the sentence each integration guide gives its worked
// signature example in.
var signatureExample = regexp.MustCompile("the secret\\s+`([^`]+)`\\s+and the body\\s+`([^`]+)`\\s+give\\s+`([0-9a-f]{64})`")

// GuideSignatureExample returns the worked signature example of the guide
// at path ("the secret `…` and the body `…` give `…`"): its secret, its
// body and the signature it shows. The test fails at once when the guide
// cannot be read or shows no example.
func GuideSignatureExample(t *testing.T, path string) (secret string, body []byte, signature string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := signatureExample.FindSubmatch(doc)
	if m == nil {
		t.Fatalf("%s has no signature example (the secret `…` and the body `…` give `…`)", path)
	}
	return string(m[1]), m[2], string(m[3])
}
