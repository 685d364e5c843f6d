package bettorhttp

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
	"github.com/foresight-dev/foresight/internal/money"
)

// errBadToken is every authentication failure; the answer is a bare 401.
var errBadToken = errors.New("invalid bettor token")

// Platform is what the authenticator needs of the paths whose tokens the
// platform mints (aggregator and bundled): the platform's own token keys
// and the bettor's balance.
type Platform struct {
	// Keys returns the public key of a token the platform minted.
	Keys func(ctx context.Context, kid string) (*rsa.PublicKey, error)
	// Balance reads an aggregator player's balance (Player/Balance), or a
	// bundled bettor's available balance in the ledger.
	Balance func(ctx context.Context, op betting.Operator, accountID, currency, sessionID string) (money.Amount, error)
}

// TokenAuthenticator authenticates bettors' JWTs: the token's iss names the
// operator; a standalone operator's JWKS, or the platform's own keys for an
// aggregator or a bundled operator (tokens minted by POST /api/v1/sessions
// and POST /admin/v1/operators/{op}/sessions), validate the token (RS256,
// iss, exp). The profile of an aggregator's or a bundled bettor reads the
// balance at each request (Player/Balance, the ledger). The bettor is created on first sight with the token's
// currency, which must be one the operator offers. A demo token (aggregator
// path) has no bettor. The Bettor has no balance (Placement.KnownBettor).
func TokenAuthenticator(svc *betting.Service, placement *betting.Placement, v *bettorauth.Validator, platform Platform) Authenticator {
	return func(ctx context.Context, token string) (Bettor, error) {
		iss, ok := issuer(token)
		if !ok {
			return Bettor{}, errBadToken
		}
		op, err := svc.CachedOperator(ctx, iss)
		if betting.IsNotFound(err) {
			return Bettor{}, errBadToken
		}
		if err != nil {
			return Bettor{}, err
		}
		who := bettorauth.Operator{ID: op.ID, JWKSURL: op.JWKSURL}
		aggregated, bundled := op.Integration == betting.IntegrationAggregator, op.Integration == betting.IntegrationBundled
		if aggregated || bundled {
			if platform.Keys == nil {
				return Bettor{}, errBadToken
			}
			who.Keys = platform.Keys
		}
		claims, err := v.Validate(ctx, who, token)
		if errors.Is(err, bettorauth.ErrInvalidToken) {
			return Bettor{}, errBadToken
		}
		if err != nil {
			return Bettor{}, err
		}
		if _, ok := op.Currency(claims.Currency); !ok {
			return Bettor{}, errBadToken
		}
		if claims.Demo && bundled {
			return Bettor{}, errBadToken // the platform mints no demo token for a bundled operator
		}
		if claims.Demo && aggregated {
			return Bettor{Operator: op, Bettor: betting.Bettor{OperatorID: op.ID, Currency: claims.Currency}, Demo: true,
				SessionID: claims.SessionID, ExpiresAt: claims.ExpiresAt}, nil
		}
		b, err := placement.KnownBettor(ctx, op.ID, claims.BettorID, claims.Currency)
		if err != nil {
			return Bettor{}, err
		}
		if b.Currency != claims.Currency {
			return Bettor{}, errBadToken // a bettor plays in the currency they were first seen with
		}
		out := Bettor{Operator: op, Bettor: b, ExpiresAt: claims.ExpiresAt}
		if aggregated {
			out.SessionID = claims.SessionID
		}
		if aggregated || bundled {
			if platform.Balance != nil {
				out.ReadBalance = func(ctx context.Context) (money.Amount, error) {
					return platform.Balance(ctx, op, b.ID, b.Currency, claims.SessionID)
				}
			}
		}
		return out, nil
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
