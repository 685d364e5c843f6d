package betting

import (
	"context"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

// BetStatus is the state of a bet, as stored (the API writes it upper or
// lower case). A bet is created pending; placement makes it confirmed or
// rejected; settlement makes a confirmed bet settled or voided.
type BetStatus string

// Bet statuses.
const (
	BetPending   BetStatus = "pending"
	BetConfirmed BetStatus = "confirmed"
	BetRejected  BetStatus = "rejected"
	BetSettled   BetStatus = "settled"
	BetVoided    BetStatus = "voided"
)

// RejectionCode is the rejection_code of a rejected bet
// (bettor-and-operator-api.md and aggregator-api.md, "Errors"). A rejection
// whose debit outcome is unknown on the standalone path has none (null).
type RejectionCode string

// The rejection codes, all of them: the platform's checks, the wallets'
// refusals and the outcomes of a debit that could not stand.
const (
	// RejectValidationFailed: the market no longer takes the bet (gone,
	// not open, not priceable) or its price moved beyond the operator's
	// tolerance.
	RejectValidationFailed RejectionCode = "validation_failed"
	// RejectBettorBlocked: the wallet refused a blocked or unknown bettor.
	RejectBettorBlocked RejectionCode = "bettor_blocked"
	// RejectInsufficientFund: the wallet refused for want of funds.
	RejectInsufficientFund RejectionCode = "insufficient_funds"
	// RejectBetLimitReached: a stake, payout or exposure limit (the
	// operator's here, or the wallet's).
	RejectBetLimitReached RejectionCode = "bet_limit_reached"
	// RejectOther: the wallet refused for a reason of no code of its own.
	RejectOther RejectionCode = "bet_rejected_other"
	// RejectWalletRolledBack: the debit stood but the bet could not; the
	// stake is given back.
	RejectWalletRolledBack RejectionCode = "wallet_rolled_back"
	// RejectWalletUnavailable: on the aggregator path, the debit got no
	// definite answer; a Round/Rollback follows.
	RejectWalletUnavailable RejectionCode = "wallet_provider_unavailable"
)

// RejectionCodes returns every rejection code, in the order above.
func RejectionCodes() []RejectionCode {
	return []RejectionCode{RejectValidationFailed, RejectBettorBlocked, RejectInsufficientFund, RejectBetLimitReached,
		RejectOther, RejectWalletRolledBack, RejectWalletUnavailable}
}

// Valid reports whether c is one of RejectionCodes.
func (c RejectionCode) Valid() bool {
	return slices.Contains(RejectionCodes(), c)
}

// Bettor is a bettor of an operator, created the first time a valid token
// names them.
type Bettor struct {
	OperatorID string `json:"operator_id"`
	ID         string `json:"id"`
	Currency   string `json:"currency"`
	// Balance is the last balance the operator's wallet reported, if any.
	Balance   *money.Amount `json:"balance"`
	CreatedAt time.Time     `json:"created_at"`
}

// Bet is one bet on one outcome.
type Bet struct {
	ID                 string          `json:"id"`
	OperatorID         string          `json:"operator_id"`
	BettorID           string          `json:"bettor_id"`
	IdempotencyKey     string          `json:"-"`
	EventID            string          `json:"event_id"`
	MarketID           string          `json:"market_id"`
	OutcomeID          string          `json:"outcome_id"`
	OutcomeIndex       int             `json:"outcome_index"`
	Stake              money.Amount    `json:"stake"`
	Currency           string          `json:"currency"`
	EntryOdds          odds.Odds       `json:"entry_odds"`
	PotentialPayout    money.Amount    `json:"potential_payout"`
	DisplayProbability decimal.Decimal `json:"display_probability"`
	Status             BetStatus       `json:"status"`
	// RejectionCode is nil for a rejection whose debit outcome is unknown.
	RejectionCode   *RejectionCode `json:"rejection_code"`
	RejectionReason string         `json:"rejection_reason"`
	// WithdrawalTxID is our transaction id of the stake's debit; the
	// operator's own id of it is OperatorTxID.
	WithdrawalTxID string `json:"-"`
	OperatorTxID   string `json:"-"`
	// RollbackOwed is set, in the transaction that rejects the bet, when
	// placement queues the reversal of its withdrawal (the debit may have
	// been made); it stays set once the reversal is confirmed. Round/Details
	// reads it to tell a round whose Round/Rollback is still to come.
	RollbackOwed bool `json:"-"`
	// Reserved is set once the bet's exposure is reserved, right before
	// its withdrawal is sent: a pending bet with Reserved may have been
	// debited.
	Reserved     bool          `json:"-"`
	PayoutAmount *money.Amount `json:"payout_amount,omitempty"`
	SettledAt    *time.Time    `json:"settled_at,omitempty"`
	// DepositConfirmedAt is when the operator confirmed the settled or
	// voided bet's deposit; nil until then.
	DepositConfirmedAt *time.Time `json:"deposit_confirmed_at,omitempty"`
	// RollbackConfirmedAt is when the operator confirmed the reversal of
	// the rejected bet's withdrawal; nil until then, and for a bet that
	// needs none.
	RollbackConfirmedAt *time.Time `json:"rollback_confirmed_at,omitempty"`
	// SessionID is the aggregator's session the bet was placed in
	// (aggregator-api.md: stored with the bet, repeated in every wallet
	// call of its round); empty for standalone operators.
	SessionID string `json:"-"`
	// Accepted is the exact body of the 202 answer, replayed for a
	// repeated Idempotency-Key.
	Accepted  []byte    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// BetFilter selects an operator's bets, newest first.
type BetFilter struct {
	OperatorID string
	// BettorID and MarketID, when set, keep that bettor's or market's bets.
	BettorID string
	MarketID string
	// Statuses, when not empty, keeps bets in one of them.
	Statuses        []BetStatus
	BeforeCreatedAt time.Time
	BeforeID        string
	Limit           int
}

// BetTotal counts and sums an operator's bets of one status and currency:
// what a finance team reconciles against the wallet or the ledger without
// reading every bet.
type BetTotal struct {
	Status   BetStatus
	Currency string
	Bets     int
	// Stake is the sum of the bets' stakes.
	Stake money.Amount
	// Payout is the sum of the settled and voided bets' payouts (zero for
	// a lost bet, the stake for a voided one); zero in other statuses.
	Payout money.Amount
	// PayoutsConfirmed counts the bets whose payout the wallet confirmed
	// (a lost bet's too, though it moves nothing), and
	// LastPayoutConfirmedAt is the latest confirmation, nil without one.
	PayoutsConfirmed      int
	LastPayoutConfirmedAt *time.Time
}

// BetUpdate is a conditional change of a bet, applied by
// BetStore.UpdateBet when its status is From.
type BetUpdate struct {
	From            BetStatus
	Status          BetStatus
	RejectionCode   *RejectionCode
	RejectionReason string
	OperatorTxID    string
	// Release gives back the bet's exposure reservation, if it holds one.
	Release bool
	// Rollback enqueues the reversal of the bet's withdrawal in the same
	// transaction.
	Rollback bool
	// Balance, when set, records the bettor's balance the wallet reported,
	// unless a balance reported after At is already recorded.
	Balance *money.Amount
	// Attempts are the wallet attempts that led to the update, recorded
	// with it when it applies.
	Attempts []WalletAttempt
	At       time.Time
}

// BetStore keeps bettors, bets and exposure. Errors as Store's; ErrLimit
// when a reservation would pass the limit.
type BetStore interface {
	// EnsureBettor creates the bettor unless it exists and returns it.
	EnsureBettor(ctx context.Context, b Bettor) (Bettor, error)
	GetBettor(ctx context.Context, operatorID, bettorID string) (Bettor, error)
	// ListBettors returns an operator's bettors ordered by id, after
	// afterID.
	ListBettors(ctx context.Context, operatorID, afterID string, limit int) ([]Bettor, error)
	// CreateBet inserts b and, in the same transaction, enqueues its
	// placement when the store has a placement queue (PostgreSQL); a
	// store without one (SQLite) leaves the bet to a Dispatcher. When the
	// bettor already used b.IdempotencyKey it inserts nothing and returns
	// that bet with created false.
	CreateBet(ctx context.Context, b Bet) (bet Bet, created bool, err error)
	// PendingBets returns up to limit pending bets after the bet after
	// names, in the order of their creation (the zero BetRef starts with
	// the oldest).
	PendingBets(ctx context.Context, after BetRef, limit int) ([]BetRef, error)
	// GetBetByKey returns the bettor's bet with an idempotency key.
	GetBetByKey(ctx context.Context, operatorID, bettorID, key string) (Bet, error)
	// GetBet returns a bet; empty operatorID and bettorID match any.
	GetBet(ctx context.Context, operatorID, bettorID, id string) (Bet, error)
	ListBets(ctx context.Context, f BetFilter) ([]Bet, error)
	// BetTotals returns an operator's bets counted and summed by status
	// and currency (of one market when marketID is set), ordered by
	// status then currency; none for an operator without bets.
	BetTotals(ctx context.Context, operatorID, marketID string) ([]BetTotal, error)
	// BettorPortfolio counts a bettor's bets in every status and sums the
	// stakes of the confirmed ones (a bettor bets in one currency).
	BettorPortfolio(ctx context.Context, operatorID, bettorID string) (confirmedStake money.Amount, bets int, err error)
	// ReserveExposure adds the bet's potential payout to its outcome's
	// exposure when the total stays within limit, once per bet: a bet
	// that already holds its reservation is left as it is. A bet without
	// one that is no longer pending (decided meanwhile) is ErrConflict,
	// and nothing is reserved.
	ReserveExposure(ctx context.Context, b Bet, limit money.Amount) error
	// UpdateBet applies u when the bet's status is u.From; ErrConflict
	// otherwise, ErrNotFound when there is no such bet.
	UpdateBet(ctx context.Context, id string, u BetUpdate) error
	// Exposure returns the reserved exposure of an outcome.
	Exposure(ctx context.Context, operatorID, outcomeID, currency string) (money.Amount, error)
	// MarketBets returns up to limit bets of a market in status, oldest
	// first.
	MarketBets(ctx context.Context, marketID string, status BetStatus, limit int) ([]Bet, error)
	// SettleBets moves the confirmed bets among settlements to their
	// status (settled or voided) with their payouts, gives back their
	// exposure and enqueues their deposits, all in one transaction. A bet
	// that is no longer confirmed is left alone. It returns how many bets
	// it settled.
	SettleBets(ctx context.Context, settlements []Settlement, at time.Time) (int, error)
	// BetsByID returns the bets with the ids that exist, in any order.
	BetsByID(ctx context.Context, ids []string) ([]Bet, error)
	// ConfirmCredits records, in one transaction, each confirmed deposit
	// or rollback on its bet (the first confirmation's time is kept), the
	// balance it reported on the bettor (of several balances of one
	// bettor, the last in credits is kept) and attempts, the wallet
	// attempts of these credits and of any others sent with them.
	ConfirmCredits(ctx context.Context, credits []CreditConfirmation, attempts []WalletAttempt) error
	// AppendWalletAttempts records, in one transaction, wallet attempts
	// that no other write carries (a credit the operator has not
	// confirmed yet, a placement that stopped).
	AppendWalletAttempts(ctx context.Context, attempts []WalletAttempt) error
	// WalletAttempts returns a bet's recorded wallet attempts, oldest
	// first (by start, then in the order they were recorded); none for an
	// unknown bet.
	WalletAttempts(ctx context.Context, betID string) ([]WalletAttempt, error)
}

// BetRef names a bet and orders it by creation.
type BetRef struct {
	ID        string
	CreatedAt time.Time
}

// Settlement is how one confirmed bet of a closed market settles.
type Settlement struct {
	BetID string
	// Status is BetSettled or BetVoided.
	Status BetStatus
	Payout money.Amount
}

// CreditKind is what a CreditConfirmation confirms.
type CreditKind string

// Credit kinds.
const (
	CreditDeposit  CreditKind = "deposit"
	CreditRollback CreditKind = "rollback"
)

// CreditConfirmation is the operator's confirmation of a bet's deposit or
// rollback.
type CreditConfirmation struct {
	BetID string
	Kind  CreditKind
	// Balance is the balance the answer reported, if any. It is recorded as
	// the bettor's unless a balance reported after At is already recorded:
	// credits confirmed out of order leave the latest answer's balance.
	Balance *money.Amount
	// At is when the answer came.
	At time.Time
}
