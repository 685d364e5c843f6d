package betting

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
)

// ResolveMarket records the market's winning outcome and starts the
// settlement of its bets, in one transaction. Resolving again with the same
// outcome does nothing more; with another outcome, or after a
// cancellation, it is ErrConflict.
func (s *Service) ResolveMarket(ctx context.Context, marketID, winningOutcomeID string) (Event, error) {
	return s.closeMarket(ctx, marketID, func(m *Market) (bool, error) {
		if m.Status == StatusResolved && m.WinningOutcomeID == winningOutcomeID {
			return false, nil
		}
		if m.Status == StatusResolved || m.Status == StatusCancelled {
			return false, &Error{Code: ErrConflict, Message: "the market is already " + string(m.Status)}
		}
		if _, _, ok := m.Outcome(winningOutcomeID); !ok {
			return false, invalidf("outcome %s is not an outcome of market %s", winningOutcomeID, m.ID)
		}
		m.Status, m.WinningOutcomeID = StatusResolved, winningOutcomeID
		return true, nil
	})
}

// CancelMarket cancels the market and starts voiding its bets, in one
// transaction; cancelling again does nothing more.
func (s *Service) CancelMarket(ctx context.Context, marketID string) (Event, error) {
	return s.closeMarket(ctx, marketID, func(m *Market) (bool, error) {
		switch m.Status {
		case StatusCancelled:
			return false, nil
		case StatusResolved:
			return false, &Error{Code: ErrConflict, Message: "the market is resolved"}
		case StatusOpen, StatusSuspended:
		}
		m.Status = StatusCancelled
		return true, nil
	})
}

// closeMarket applies change to the market and, when it changed, saves it
// with its settlement enqueued.
func (s *Service) closeMarket(ctx context.Context, marketID string, change func(m *Market) (bool, error)) (Event, error) {
	for attempt := 0; ; attempt++ {
		e, err := s.store.EventOfMarket(ctx, marketID)
		if err != nil {
			return Event{}, err
		}
		m, _ := e.Market(marketID)
		changed, err := change(m)
		if err != nil || !changed {
			return e, err
		}
		prev := e.UpdatedAt
		e.UpdatedAt = later(s.Now(), prev)
		err = s.store.SettleMarket(ctx, e, prev, marketID)
		var be *Error
		if errors.As(err, &be) && be.Code == ErrConflict && attempt < 5 {
			continue
		}
		if err == nil {
			s.Changed(e)
		}
		return e, err
	}
}

// settleBatch is how many bets one settlement step settles.
const settleBatch = 500

// StuckPendingAfter is how long a bet may stay pending before Settle,
// which waits for it, warns (once per market every StuckPendingAfter): a
// placement decides a bet within seconds, or its last attempt rejects it.
const StuckPendingAfter = 10 * time.Minute

// warnStuck logs that the market waits for a bet pending for longer than
// StuckPendingAfter, at most once per market in that time: its winners
// are paid only once someone decides it.
func (p *Placement) warnStuck(ctx context.Context, marketID string, oldest Bet) {
	now := p.Now()
	if p.log == nil || now.Sub(oldest.CreatedAt) < StuckPendingAfter {
		return
	}
	if last, ok := p.stuckWarned.Load(marketID); ok && now.Sub(last.(time.Time)) < StuckPendingAfter {
		return
	}
	p.stuckWarned.Store(marketID, now)
	p.log.WarnContext(ctx, "the market cannot settle: a bet is still pending", "market_id", marketID, "bet_id", oldest.ID,
		"operator_id", oldest.OperatorID, "pending_since", oldest.CreatedAt)
}

// ErrBetsPending is returned by Settle while bets of the market are still
// being placed; the caller tries again shortly.
var ErrBetsPending = errors.New("bets of the market are still pending")

// Settle settles the confirmed bets of a resolved or cancelled market: a
// bet on the winning outcome is settled with stake × entry odds rounded to
// its currency's decimals, any other with zero; a cancelled market's bets
// are voided with their stake. Bets change settleBatch at a time, each
// batch in one transaction with its deposits enqueued and conditional on
// the bets being confirmed, so Settle can stop at any point and run again:
// no bet is settled or paid twice.
func (p *Placement) Settle(ctx context.Context, marketID string) error {
	e, err := p.catalog.store.EventOfMarket(ctx, marketID)
	if err != nil {
		return err
	}
	m, _ := e.Market(marketID)
	if m.Status != StatusResolved && m.Status != StatusCancelled {
		return nil
	}
	ops := map[string]Operator{}
	if err := p.settleConfirmed(ctx, *m, ops); err != nil {
		return err
	}
	pending, err := p.bets.MarketBets(ctx, marketID, BetPending, 1)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		p.warnStuck(ctx, marketID, pending[0])
		return ErrBetsPending // they are being decided (rejected: the market is closed)
	}
	// A placement that saw the market open before it closed may have
	// confirmed its bet after the first pass read the confirmed bets and
	// before the pending bets were read. With no bet pending in a closed
	// market none can be confirmed any more, so this second pass settles
	// every bet that is left.
	return p.settleConfirmed(ctx, *m, ops)
}

// settleConfirmed settles the confirmed bets of the closed market m, a
// batch at a time, reading each bet's operator once (ops caches them).
func (p *Placement) settleConfirmed(ctx context.Context, m Market, ops map[string]Operator) error {
	for {
		bets, err := p.bets.MarketBets(ctx, m.ID, BetConfirmed, settleBatch)
		if err != nil {
			return err
		}
		settlements := make([]Settlement, 0, len(bets))
		for _, b := range bets {
			op, ok := ops[b.OperatorID]
			if !ok {
				if op, err = p.catalog.CachedOperator(ctx, b.OperatorID); err != nil {
					return err
				}
				ops[b.OperatorID] = op
			}
			status, payout, err := outcomeOf(op, m, b)
			if err != nil {
				return err
			}
			settlements = append(settlements, Settlement{BetID: b.ID, Status: status, Payout: payout})
		}
		if len(settlements) > 0 {
			if _, err := p.bets.SettleBets(ctx, settlements, p.Now()); err != nil {
				return fmt.Errorf("settle %d bets of market %s: %w", len(settlements), m.ID, err)
			}
		}
		if len(bets) < settleBatch {
			return nil
		}
	}
}

// outcomeOf is a confirmed bet's settlement in a closed market.
func outcomeOf(op Operator, m Market, b Bet) (BetStatus, money.Amount, error) {
	cur, ok := op.Currency(b.Currency)
	if !ok {
		return "", money.Amount{}, fmt.Errorf("operator %s has no currency %s", op.ID, b.Currency)
	}
	switch {
	case m.Status == StatusCancelled:
		return BetVoided, b.Stake, nil
	case b.OutcomeID == m.WinningOutcomeID:
		return BetSettled, b.Stake.MulOdds(b.EntryOdds).RoundToCurrency(op.PayoutDecimals(cur)), nil
	}
	return BetSettled, money.Zero(), nil
}
