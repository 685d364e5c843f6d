package jwk_test

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/foresight-dev/foresight/internal/jwk"
)

// rfc7638N is the modulus of the example key of RFC 7638 §3.1 (e is
// AQAB).
const rfc7638N = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"

func rfc7638Key(t *testing.T) *rsa.PublicKey {
	t.Helper()
	n, err := base64.RawURLEncoding.DecodeString(rfc7638N)
	if err != nil {
		t.Fatal(err)
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: 65537}
}

// TestThumbprint: the RFC 7638 example key's thumbprint is the one the RFC
// gives, and a key named without a kid is named by it.
func TestThumbprint(t *testing.T) {
	pub := rfc7638Key(t)
	const want = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
	if got := jwk.Thumbprint(pub); got != want {
		t.Errorf("Thumbprint = %s, want %s", got, want)
	}
	if got := jwk.RSA(pub, "").Kid; got != want {
		t.Errorf("RSA(pub, \"\").Kid = %s, want %s", got, want)
	}
}

// TestSet: a set of one named key, as a JWK Set document.
func TestSet(t *testing.T) {
	got, err := json.Marshal(jwk.Set{Keys: []jwk.Key{jwk.RSA(rfc7638Key(t), "k1")}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"keys":[{"kty":"RSA","kid":"k1","use":"sig","alg":"RS256","n":"` + rfc7638N + `","e":"AQAB"}]}`
	if string(got) != want {
		t.Errorf("set = %s, want %s", got, want)
	}
}
