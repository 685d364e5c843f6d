package bettorauth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
)

// handMinted builds a token from raw header and payload JSON, exactly as
// written (so a member can appear twice), signed RS256 with key: no JWT
// library is involved.
func handMinted(t *testing.T, key *rsa.PrivateKey, header, payload string) string {
	t.Helper()
	input := base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + base64.RawURLEncoding.EncodeToString([]byte(payload))
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestRawTokenRules: tokens written by hand that the JWT library alone
// would accept, and that are refused: an aud naming someone else, a crit
// header, a time claim as a string or null, no iat, a member of the header
// or the payload twice (or a claim's name in another case).
func TestRawTokenRules(t *testing.T) {
	t.Parallel()
	k := testKeys()
	s := newJWKSServer(t, true, jwk{"k1", &k[0].PublicKey})
	v := bettorauth.New(bettorauth.Options{HTTPClient: s.srv.Client(), Audience: "https://foresight.example/"})
	t.Cleanup(v.Close)
	op := bettorauth.Operator{ID: "op-a", JWKSURL: s.url()}
	now := time.Now().Unix()
	iat, exp, past := now, now+900, now-3600
	const header = `{"alg":"RS256","kid":"k1","typ":"JWT"}`
	claims := func(extra string) string {
		return fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","iat":%d,"exp":%d%s}`, iat, exp, extra)
	}

	accepted := map[string][2]string{
		"the contract's claims":         {header, claims("")},
		"aud naming the platform":       {header, claims(`,"aud":"https://foresight.example"`)},
		"aud list naming the platform":  {header, claims(`,"aud":["https://casino.example","https://foresight.example"]`)},
		"numeric nbf in the past":       {header, claims(fmt.Sprintf(`,"nbf":%d`, past))},
		"unknown claim in another case": {header, claims(`,"Nickname":"p","nickname":"q"`)},
	}
	for name, tok := range accepted {
		if _, err := v.Validate(context.Background(), op, handMinted(t, k[0], tok[0], tok[1])); err != nil {
			t.Errorf("%s: Validate = %v, want accepted", name, err)
		}
	}

	refused := map[string][2]string{
		"aud of another service":    {header, claims(`,"aud":"https://payments.example"`)},
		"aud list without us":       {header, claims(`,"aud":["https://payments.example","op-a"]`)},
		"empty aud":                 {header, claims(`,"aud":""`)},
		"crit with an unknown name": {`{"alg":"RS256","kid":"k1","crit":["x-bound"],"x-bound":true}`, claims("")},
		"crit empty":                {`{"alg":"RS256","kid":"k1","crit":[]}`, claims("")},
		"exp a string":              {header, fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","iat":%d,"exp":"%d"}`, iat, exp)},
		"iat a string":              {header, fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","iat":"%d","exp":%d}`, iat, exp)},
		"nbf a string":              {header, claims(fmt.Sprintf(`,"nbf":"%d"`, past))},
		"nbf null":                  {header, claims(`,"nbf":null`)},
		"no iat":                    {header, fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","exp":%d}`, exp)},
		"iat null":                  {header, fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","iat":null,"exp":%d}`, exp)},
		"alg twice":                 {`{"alg":"HS256","kid":"k1","alg":"RS256"}`, claims("")},
		"kid twice":                 {`{"alg":"RS256","kid":"k9","kid":"k1"}`, claims("")},
		"sub twice":                 {header, claims(`,"sub":"bettor-2"`)},
		"exp twice":                 {header, fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","iat":%d,"exp":%d,"exp":%d}`, iat, past, exp)},
		"sub again in another case": {header, claims(`,"SUB":"bettor-2"`)},
		"currency in another case":  {header, claims(`,"Currency":"EUR"`)},
		"iss again in another case": {header, claims(`,"Iss":"op-a"`)},
	}
	for name, tok := range refused {
		_, err := v.Validate(context.Background(), op, handMinted(t, k[0], tok[0], tok[1]))
		if !errors.Is(err, bettorauth.ErrInvalidToken) {
			t.Errorf("%s: Validate = %v, want ErrInvalidToken", name, err)
		}
	}

	// Without an Audience, any aud is another service's.
	bare := bettorauth.New(bettorauth.Options{HTTPClient: s.srv.Client()})
	t.Cleanup(bare.Close)
	if _, err := bare.Validate(context.Background(), op, handMinted(t, k[0], header, claims(`,"aud":"https://foresight.example"`))); !errors.Is(err, bettorauth.ErrInvalidToken) {
		t.Errorf("aud with no Audience configured: Validate = %v, want ErrInvalidToken", err)
	}
}

// TestOneSpellingPerToken: base64url leaves the unused low bits of a
// segment's last character free, so decoders that ignore them read one
// token under several spellings (a 256-byte signature under 16). Only the
// canonical spelling is accepted: another would count as a different
// token wherever tokens are counted (the streams per token).
func TestOneSpellingPerToken(t *testing.T) {
	t.Parallel()
	k, _, v, op := newOperatorA(t, time.Hour)
	header := `{"alg":"RS256","kid":"k1","typ":"JWT"}`
	now := time.Now().Unix()
	payload := fmt.Sprintf(`{"sub":"bettor-1","currency":"USD","iss":"op-a","iat":%d,"exp":%d}`, now, now+900)
	token := handMinted(t, k[0], header, payload)
	if _, err := v.Validate(context.Background(), op, token); err != nil {
		t.Fatalf("canonical token: %v", err)
	}
	parts := strings.Split(token, ".")
	for i, name := range []string{"header", "payload", "signature"} {
		decoded, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(decoded)%3 == 0 {
			continue // every bit of the last character carries data
		}
		respelled := slices.Clone(parts)
		respelled[i] = flipLowestBit(parts[i])
		if again, err := base64.RawURLEncoding.DecodeString(respelled[i]); err != nil || !bytes.Equal(again, decoded) {
			t.Fatalf("%s respelled %q does not decode leniently to the same bytes (%v)", name, respelled[i], err)
		}
		_, err = v.Validate(context.Background(), op, strings.Join(respelled, "."))
		if !errors.Is(err, bettorauth.ErrInvalidToken) {
			t.Errorf("token with its %s respelled: Validate = %v, want ErrInvalidToken", name, err)
		}
	}
}

// flipLowestBit flips the lowest bit of seg's last base64url character.
func flipLowestBit(seg string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, seg[len(seg)-1])
	return seg[:len(seg)-1] + string(alphabet[i^1])
}
