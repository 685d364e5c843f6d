package aggregator

import (
	"context"
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

// errRoundNotFound: no round of this aggregator has that id.
var errRoundNotFound = betting.Errorf(betting.ErrNotFound, "no such round")

// RoundDetails is the answer of Round/Details. Every field is present;
// Payout, SettledAt and RejectionCode can be null.
type RoundDetails struct {
	RoundID string       `json:"round_id"`
	Details RoundSummary `json:"round_details"`
}

// RoundSummary is round_details.
type RoundSummary struct {
	AccountID     string                 `json:"account_id"`
	BetType       string                 `json:"bet_type"`
	Status        string                 `json:"status"`
	Event         Named                  `json:"event"`
	Market        Named                  `json:"market"`
	Selection     Named                  `json:"selection"`
	Stake         string                 `json:"stake"`
	Currency      string                 `json:"currency"`
	Odds          string                 `json:"odds"`
	PlacedAt      time.Time              `json:"placed_at"`
	Payout        *string                `json:"payout"`
	SettledAt     *time.Time             `json:"settled_at"`
	RejectionCode *betting.RejectionCode `json:"rejection_code"`
}

// Named is an event, market or selection: its id and its text in the
// resolved locale, as a one-entry map keyed by that locale.
type Named struct {
	ID       string            `json:"id"`
	Title    map[string]string `json:"title,omitempty"`
	Question map[string]string `json:"question,omitempty"`
	Name     map[string]string `json:"name,omitempty"`
}

// Details returns a round (a bet) of the aggregator op in locale, in the
// state the aggregator has confirmed (see roundState): while a wallet call
// of the round waits for its 200, the round reads as before it. Texts are
// read from the catalog now, so later edits show. Errors: betting.ErrNotFound
// (unknown id, a bet of another operator, or a round the aggregator has
// not opened yet: its stake's Round/BetWin not answered 200); any other
// error means the round could not be read.
func (s *Service) Details(ctx context.Context, op betting.Operator, roundID, locale string) (RoundDetails, error) {
	b, err := s.bets.GetBet(ctx, op.ID, "", roundID)
	if betting.IsNotFound(err) {
		return RoundDetails{}, errRoundNotFound
	}
	if err != nil {
		return RoundDetails{}, err
	}
	var calls walletCalls
	if needsWalletCalls(b) {
		attempts, err := s.bets.WalletAttempts(ctx, b.ID)
		if err != nil {
			return RoundDetails{}, err
		}
		calls = walletCallsOf(attempts)
	}
	status := roundState(b, calls)
	if status == "" {
		return RoundDetails{}, errRoundNotFound
	}
	e, err := s.catalog.CachedEvent(ctx, b.EventID)
	if err != nil {
		return RoundDetails{}, err
	}
	sum := RoundSummary{
		AccountID: b.BettorID, BetType: "single", Status: status,
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

// walletCalls is what a rejected bet's recorded wallet attempts say of its
// stake's Round/BetWin.
type walletCalls struct {
	// stakeAnswered: the aggregator answered it 200 (the round opened).
	stakeAnswered bool
}

func walletCallsOf(attempts []betting.WalletAttempt) walletCalls {
	var c walletCalls
	for _, a := range attempts {
		if a.Kind == betting.TxWithdrawal && a.Result == betting.AttemptDone {
			c.stakeAnswered = true
		}
	}
	return c
}

// needsWalletCalls: roundState needs the bet's wallet calls, those of a
// rejected bet whose stake's reversal is owed and not confirmed.
func needsWalletCalls(b betting.Bet) bool {
	return b.Status == betting.BetRejected && b.RollbackOwed && b.RollbackConfirmedAt == nil
}

// roundState is the state of b's round as the aggregator has confirmed it
// (aggregator-api.md, "States and transitions": a state changes only once
// the aggregator has answered 200 the call that makes it; until that 200
// is recorded the round reads as before the call):
//
//   - no round ("") until the stake's Round/BetWin is answered 200: a bet
//     being placed, or rejected with a Round/Rollback to come while its
//     debit was never answered 200;
//   - pending once it is: a confirmed bet, a settled or voided bet whose
//     credit (Round/BetWin win, Round/Finish) is not confirmed yet, a
//     rejected bet whose debit stood and whose Round/Rollback is not
//     confirmed yet;
//   - won, lost or voided once the credit is confirmed;
//   - rejected once the Round/Rollback is confirmed, or at once for a bet
//     refused without one (a check before the debit, a refusal of the
//     debit that names its reason).
//
// calls matters only for a rejected bet whose Round/Rollback placement
// owes (Bet.RollbackOwed) and the aggregator has not confirmed yet.
func roundState(b betting.Bet, calls walletCalls) string {
	switch b.Status {
	case betting.BetConfirmed:
		return RoundPending
	case betting.BetSettled, betting.BetVoided:
		switch {
		case b.DepositConfirmedAt == nil:
			return RoundPending
		case b.Status == betting.BetVoided:
			return RoundVoided
		case b.PayoutAmount != nil && b.PayoutAmount.IsPositive():
			return RoundWon
		}
		return RoundLost
	case betting.BetRejected:
		if b.RollbackConfirmedAt != nil || !b.RollbackOwed {
			return RoundRejected
		}
		if calls.stakeAnswered {
			return RoundPending
		}
	case betting.BetPending:
	}
	return ""
}
