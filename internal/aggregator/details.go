package aggregator

import (
	"context"
	"errors"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
)

// Round states of Round/Details.
const (
	RoundPending  = "pending"
	RoundRejected = "rejected"
	RoundWon      = "won"
	RoundLost     = "lost"
	RoundVoided   = "voided"
)

// ErrRoundNotFound: no round of this aggregator has that id.
var ErrRoundNotFound = errors.New("no such round")

// RoundDetails is the answer of Round/Details. Every field is present;
// Payout, SettledAt and RejectionCode can be null.
type RoundDetails struct {
	RoundID string       `json:"round_id"`
	Details RoundSummary `json:"round_details"`
}

// RoundSummary is round_details.
type RoundSummary struct {
	AccountID     string     `json:"account_id"`
	BetType       string     `json:"bet_type"`
	Status        string     `json:"status"`
	Event         Named      `json:"event"`
	Market        Named      `json:"market"`
	Selection     Named      `json:"selection"`
	Stake         string     `json:"stake"`
	Currency      string     `json:"currency"`
	Odds          string     `json:"odds"`
	PlacedAt      time.Time  `json:"placed_at"`
	Payout        *string    `json:"payout"`
	SettledAt     *time.Time `json:"settled_at"`
	RejectionCode *string    `json:"rejection_code"`
}

// Named is an event, market or selection: its id and its text in the
// resolved locale, as a one-entry map keyed by that locale.
type Named struct {
	ID       string            `json:"id"`
	Title    map[string]string `json:"title,omitempty"`
	Question map[string]string `json:"question,omitempty"`
	Name     map[string]string `json:"name,omitempty"`
}

// Details returns a round (a bet) of the aggregator op in locale. Texts
// are read from the catalog now, so later edits show. Errors:
// ErrRoundNotFound (unknown id, or a bet of another operator); any other
// error means the round could not be read.
func (s *Service) Details(ctx context.Context, op betting.Operator, roundID, locale string) (RoundDetails, error) {
	b, err := s.bets.GetBet(ctx, op.ID, "", roundID)
	if betting.IsNotFound(err) {
		return RoundDetails{}, ErrRoundNotFound
	}
	if err != nil {
		return RoundDetails{}, err
	}
	e, err := s.catalog.CachedEvent(ctx, b.EventID)
	if err != nil {
		return RoundDetails{}, err
	}
	sum := RoundSummary{
		AccountID: b.BettorID, BetType: "single", Status: roundStatus(b),
		Event:  Named{ID: e.ID, Title: map[string]string{locale: e.Title.Resolve(locale)}},
		Market: Named{ID: b.MarketID}, Selection: Named{ID: b.OutcomeID},
		Stake: b.Stake.String(), Currency: b.Currency, Odds: b.EntryOdds.Display().Decimal().StringFixed(2), PlacedAt: b.CreatedAt,
	}
	if m, ok := e.Market(b.MarketID); ok {
		sum.Market.Question = map[string]string{locale: m.Question.Resolve(locale)}
		if o, _, ok := m.Outcome(b.OutcomeID); ok {
			sum.Selection.Name = map[string]string{locale: o.Name.Resolve(locale)}
		}
	}
	switch sum.Status {
	case RoundWon:
		p := b.PayoutAmount.StringTrimmed()
		sum.Payout = &p
	case RoundLost:
		p := "0.00"
		sum.Payout = &p
	case RoundVoided:
		p := b.Stake.String()
		sum.Payout = &p
	case RoundRejected:
		code := betting.RejectOther
		if b.RejectionCode != nil {
			code = *b.RejectionCode
		}
		sum.RejectionCode = &code
	}
	if sum.Status != RoundPending && sum.Status != RoundRejected {
		sum.SettledAt = b.SettledAt
	}
	return RoundDetails{RoundID: b.ID, Details: sum}, nil
}

// roundStatus is the round state of a bet: pending while it is being
// placed or open, then rejected, won, lost or voided.
func roundStatus(b betting.Bet) string {
	switch b.Status {
	case betting.BetRejected:
		return RoundRejected
	case betting.BetVoided:
		return RoundVoided
	case betting.BetSettled:
		if b.PayoutAmount != nil && b.PayoutAmount.IsPositive() {
			return RoundWon
		}
		return RoundLost
	}
	return RoundPending
}
