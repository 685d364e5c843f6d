package ledger

import (
	"context"

	"github.com/foresight-dev/foresight/internal/money"
)

// The movements of a bundled operator's bet. Their idempotency keys derive
// from the bet id ("bet:ID:stake", "bet:ID:stake/post", …), so each step
// of a bet moves money at most once however often placement, settlement or
// a recovery after a crash runs it again.

// BetRef names a bet and whose it is.
type BetRef struct {
	OperatorID string
	Currency   string
	BettorID   string
	BetID      string
}

func (b BetRef) key(step string) string { return "bet:" + b.BetID + ":" + step }

// HoldStake holds the stake on the bettor's account for the house, at
// placement: ErrInsufficientFunds when the bettor's available balance is
// less.
func (l *Ledger) HoldStake(ctx context.Context, b BetRef, stake money.Amount) (Transfer, error) {
	t, _, err := l.Hold(ctx, TransferRequest{OperatorID: b.OperatorID, Currency: b.Currency, Key: b.key("stake"),
		Debit: Bettor(b.BettorID), Credit: House(), Amount: stake, Code: "stake", Reference: b.BetID})
	return t, err
}

// ConfirmStake moves the held stake to the house when the bet is
// confirmed. After ReleaseStake it is ErrAlreadyResolved.
func (l *Ledger) ConfirmStake(ctx context.Context, b BetRef) (Transfer, error) {
	t, _, err := l.Post(ctx, ResolveRequest{OperatorID: b.OperatorID, Key: b.key("stake/post"), PendingKey: b.key("stake")})
	return t, err
}

// ReleaseStake releases the held stake when the bet is rejected. After
// ConfirmStake it is ErrAlreadyResolved.
func (l *Ledger) ReleaseStake(ctx context.Context, b BetRef) (Transfer, error) {
	t, _, err := l.Void(ctx, ResolveRequest{OperatorID: b.OperatorID, Key: b.key("stake/void"), PendingKey: b.key("stake")})
	return t, err
}

// PayWin pays a won bet's payout from the house to the bettor.
func (l *Ledger) PayWin(ctx context.Context, b BetRef, payout money.Amount) (Transfer, error) {
	t, _, err := l.Transfer(ctx, TransferRequest{OperatorID: b.OperatorID, Currency: b.Currency, Key: b.key("payout"),
		Debit: House(), Credit: Bettor(b.BettorID), Amount: payout, Code: "payout", Reference: b.BetID})
	return t, err
}

// RefundStake returns a confirmed bet's stake from the house when the bet
// is voided (a cancelled market).
func (l *Ledger) RefundStake(ctx context.Context, b BetRef, stake money.Amount) (Transfer, error) {
	t, _, err := l.Transfer(ctx, TransferRequest{OperatorID: b.OperatorID, Currency: b.Currency, Key: b.key("refund"),
		Debit: House(), Credit: Bettor(b.BettorID), Amount: stake, Code: "refund", Reference: b.BetID})
	return t, err
}

// TakeStake moves the stake from the bettor to the house in one posted
// transfer (key "bet:ID:stake"), at placement: ErrInsufficientFunds when
// the bettor's available balance is less. It is what the placement calls
// (docs/decisions.md, "The bundled path's bets and sessions"); HoldStake
// and ConfirmStake are the same movement in two phases.
func (l *Ledger) TakeStake(ctx context.Context, b BetRef, stake money.Amount) (Transfer, error) {
	t, _, err := l.Transfer(ctx, TransferRequest{OperatorID: b.OperatorID, Currency: b.Currency, Key: b.key("stake"),
		Debit: Bettor(b.BettorID), Credit: House(), Amount: stake, Code: "stake", Reference: b.BetID})
	return t, err
}

// ReturnStake gives the stake TakeStake took back from the house when a
// debited bet could not stand (a rejection after the debit, such as a
// market that closed meanwhile), under its own key and code "rollback",
// so that a statement tells it apart from a cancelled market's refund.
// When no stake was taken it moves nothing and is ErrNotFound.
func (l *Ledger) ReturnStake(ctx context.Context, b BetRef) (Transfer, error) {
	taken, err := l.store.TransferByKey(ctx, b.OperatorID, b.key("stake"))
	if err != nil {
		return Transfer{}, err
	}
	if taken.Kind != Posted {
		return Transfer{}, errorf(ErrInvalid, "the stake of bet %s is %s, not taken", b.BetID, taken.Kind)
	}
	t, _, err := l.Transfer(ctx, TransferRequest{OperatorID: b.OperatorID, Currency: taken.Currency, Key: b.key("rollback"),
		Debit: House(), Credit: Bettor(b.BettorID), Amount: taken.Amount, Code: "rollback", Reference: b.BetID})
	return t, err
}

// Available returns the available balance (balance less held stakes) of
// a bettor's account, zero for an account never opened.
func (l *Ledger) Available(ctx context.Context, operatorID, currency, bettorID string) (money.Amount, error) {
	acc, err := l.store.Account(ctx, AccountID(operatorID, currency, Bettor(bettorID)))
	if CodeOf(err) == ErrNotFound {
		return money.Zero(), nil
	}
	if err != nil {
		return money.Amount{}, err
	}
	return acc.Available(), nil
}
