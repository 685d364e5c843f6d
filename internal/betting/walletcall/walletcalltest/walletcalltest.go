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

// CheckGuideSignatureExample checks the worked signature example of the
// guide at path ("the secret `…` and the body `…` give `…`"): sign, given
// its secret and body, must give the signature it shows. It returns the
// example for further checks. The test fails at once when the guide cannot
// be read or shows no example.
func CheckGuideSignatureExample(t *testing.T, path string, sign func(secret string, body []byte) string) (secret string, body []byte, signature string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := signatureExample.FindSubmatch(doc)
	if m == nil {
		t.Fatalf("%s has no signature example (the secret `…` and the body `…` give `…`)", path)
	}
	secret, body, signature = string(m[1]), m[2], string(m[3])
	if got := sign(secret, body); got != signature {
		t.Errorf("Sign(%q, %s) = %s, %s says %s", secret, body, got, path, signature)
	}
	return secret, body, signature
}
