package bettorhttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
)

// errBadToken is every authentication failure; the answer is a bare 401.
var errBadToken = errors.New("invalid bettor token")

// TokenAuthenticator authenticates operator-minted JWTs: the token's iss
// names the operator, whose JWKS then validates the token (RS256, iss,
// exp); the bettor is created on first sight with the token's currency,
// which must be one the operator offers.
func TokenAuthenticator(svc *betting.Service, placement *betting.Placement, v *bettorauth.Validator) Authenticator {
	return func(ctx context.Context, token string) (Bettor, error) {
		iss, ok := issuer(token)
		if !ok {
			return Bettor{}, errBadToken
		}
		op, err := svc.CachedOperator(ctx, iss)
		if betting.IsNotFound(err) || (err == nil && op.Integration != betting.IntegrationStandalone) {
			return Bettor{}, errBadToken
		}
		if err != nil {
			return Bettor{}, err
		}
		claims, err := v.Validate(ctx, bettorauth.Operator{ID: op.ID, JWKSURL: op.JWKSURL}, token)
		if errors.Is(err, bettorauth.ErrInvalidToken) {
			return Bettor{}, errBadToken
		}
		if err != nil {
			return Bettor{}, err
		}
		if _, ok := op.Currency(claims.Currency); !ok {
			return Bettor{}, errBadToken
		}
		b, err := placement.Bettor(ctx, op.ID, claims.BettorID, claims.Currency)
		if err != nil {
			return Bettor{}, err
		}
		if b.Currency != claims.Currency {
			return Bettor{}, errBadToken // a bettor plays in the currency they were first seen with
		}
		return Bettor{Operator: op, Bettor: b}, nil
	}
}

// issuer reads the iss claim of a token without verifying it, to choose
// the operator whose keys verify it.
func issuer(token string) (string, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(token) > 8<<10 {
		return "", false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", false
	}
	var claims struct {
		Iss string `json:"iss"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Iss == "" {
		return "", false
	}
	return claims.Iss, true
}
