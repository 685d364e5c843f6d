package betting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
	"github.com/foresight-dev/foresight/internal/ratelimit"
)

// WalletStatus is what a wallet call established.
type WalletStatus int

// Wallet call outcomes.
const (
	// WalletDone: the operator moved the money.
	WalletDone WalletStatus = iota + 1
	// WalletRefused: the operator definitely refused; Code says why.
	WalletRefused
	// WalletUnknown: no definite answer (5xx, time-out, unreadable).
	WalletUnknown
)

// WalletAnswer is the answer to a withdrawal.
type WalletAnswer struct {
	Status WalletStatus
	// Code is the rejection code of a refusal (RejectInsufficientFund,
	// RejectBettorBlocked, RejectBetLimitReached, RejectOther); for an
	// unknown outcome, the code the bet is rejected with ("" for none: the
	// standalone rule) while its debit is reversed.
	Code         RejectionCode
	OperatorTxID string
	Balance      *money.Amount
	// Detail is an internal diagnostic (what the wallet answered, a
	// storage error): logged with the bet when the answer is unknown or
	// an unexpected refusal, never shown to the bettor.
	Detail string
	// Attempts are the requests sent, in order; also with an error when
	// requests were sent before it.
	Attempts []WalletAttempt
}

// WalletCredit is the operator's answer to a deposit or a rollback.
type WalletCredit struct {
	// Done is true for a 2xx answer: the credit is applied.
	Done bool
	// Balance is the bettor's balance the answer reported; nil when it
	// reported none (the spec does not require one).
	Balance *money.Amount
	// Attempts are the requests sent, in order; also with an error when
	// requests were sent before it.
	Attempts []WalletAttempt
}

// Wallet moves money in an operator's wallet. Withdraw debits a bet's
// stake, retrying unknown outcomes a few times with the same bytes;
// Rollback reverses a bet's withdrawal, one attempt. Each answer lists
// the requests sent (Attempts), which the placement records with the
// outcome they led to. A call whose context ends before a definite answer
// returns ctx.Err() with the attempts sent (docs/architecture.md, "Wallet
// calls": the cancellation rule), never a refusal or a credit not done
// with a nil error.
type Wallet interface {
	Withdraw(ctx context.Context, op Operator, b Bet) (WalletAnswer, error)
	Rollback(ctx context.Context, op Operator, b Bet) (WalletCredit, error)
	// Deposit credits a settled or voided bet's payout (zero for a lost
	// bet), one attempt.
	Deposit(ctx context.Context, op Operator, b Bet) (WalletCredit, error)
}

// Placement places and settles bets.
type Placement struct {
	catalog *Service
	bets    BetStore
	wallet  Wallet
	// dispatcher places the bets Place creates, when the store queues no
	// placement of its own (see NewDispatcher).
	dispatcher *Dispatcher
	// Now returns the current time; tests may replace it.
	Now func() time.Time
	// observer and log: see ObserveWalletAttempts and SetLog.
	observer func(WalletAttempt)
	log      *slog.Logger
	// bettors and prices remember what every request would otherwise
	// read or compute again (see KnownBettor and quotes).
	bettors knownBettors
	prices  priceMemo
	// credits keep one bettor's deposits of concurrent batches (two
	// markets settled at once) from being in flight together, and bound
	// the deposit calls in flight to each operator's wallet (see Deposit).
	credits creditLanes
	// bettorRate holds each bettor's bucket of new bets (see
	// LimitBettorRate).
	bettorRate *ratelimit.Limiter
	// stuckWarned is when Settle last warned of each market's bet pending
	// for too long (market id → time).
	stuckWarned sync.Map
}

// NewPlacement returns a Placement; it places any number of bets per
// bettor until LimitBettorRate.
func NewPlacement(catalog *Service, bets BetStore, wallet Wallet) *Placement {
	return &Placement{catalog: catalog, bets: bets, wallet: wallet, Now: time.Now, bettorRate: ratelimit.New(0, 0)}
}

// LimitBettorRate lets each bettor place at most burst new bets in a row,
// then perSecond a second, in this process; perSecond <= 0 lifts the
// limit. Call it before the first Place.
func (p *Placement) LimitBettorRate(perSecond float64, burst int) {
	p.bettorRate = ratelimit.New(perSecond, burst)
}

// PlaceRequest is the body of POST /api/v1/bettor/bets.
type PlaceRequest struct {
	MarketID  string
	OutcomeID string
	// Stake is the decimal string as sent.
	Stake string
	// SessionID is the aggregator session of the bettor's token, stored
	// with the bet; empty on the standalone path.
	SessionID string
}

// accepted is the 202 answer of a placement.
type accepted struct {
	ID                 string    `json:"id"`
	Status             string    `json:"status"`
	Message            string    `json:"message"`
	EntryOdds          odds.Odds `json:"entry_odds"`
	PotentialPayout    string    `json:"potential_payout"`
	DisplayProbability string    `json:"display_probability"`
	OutcomeIndex       int       `json:"outcome_index"`
}

// Place accepts a bet for processing: it checks the request, prices the
// outcome with the operator's margin, and stores the bet PENDING with its
// placement enqueued. A repeated key returns the first bet, whatever the
// request. Whether the market takes bets is decided by the placement, not
// here (the bet is then rejected validation_failed).
//
// A valid request takes one bet from the bettor's bucket (LimitBettorRate);
// with the bucket empty it stores nothing and calls no wallet, unless its
// key placed a bet already, which it returns as any repeat.
//
// Errors: ErrInvalid for a bad stake, a currency the operator does not
// offer, an outcome of another market; ErrNotFound for an unknown market;
// ErrConflict for a market that cannot be priced; ErrRateLimited, with
// its RetryAfter, for a bettor past its rate.
func (p *Placement) Place(ctx context.Context, bettor Bettor, op Operator, key string, req PlaceRequest) (Bet, error) {
	b, err := p.newBet(ctx, bettor, op, key, req)
	if err != nil {
		return p.firstBetOr(ctx, bettor, op, key, err)
	}
	if ok, wait := p.bettorRate.Allow(op.ID + "\x00" + bettor.ID); !ok {
		return p.firstBetOr(ctx, bettor, op, key, &Error{Code: ErrRateLimited, RetryAfter: wait,
			Message: "too many bets in a row; try again in a moment"})
	}
	// The insert of a key already used inserts nothing and returns the
	// first bet.
	got, created, err := p.bets.CreateBet(ctx, b)
	if err == nil && created && p.dispatcher != nil {
		p.dispatcher.Dispatch(got.ID)
	}
	return got, err
}

// firstBetOr returns the bet the key already placed, whatever is wrong
// with this request, or refused when there is none. The key is read only
// when a request is refused, so that a new bet costs no read before its
// insert.
func (p *Placement) firstBetOr(ctx context.Context, bettor Bettor, op Operator, key string, refused error) (Bet, error) {
	first, err := p.bets.GetBetByKey(ctx, op.ID, bettor.ID, key)
	switch {
	case err == nil:
		return first, nil
	case IsNotFound(err):
		return Bet{}, refused
	}
	return Bet{}, err
}

// newBet checks a placement request and prices the outcome: the bet Place
// inserts, PENDING, with its 202 answer.
func (p *Placement) newBet(ctx context.Context, bettor Bettor, op Operator, key string, req PlaceRequest) (Bet, error) {
	cur, ok := op.Currency(bettor.Currency)
	if !ok {
		return Bet{}, invalidf("the operator does not offer %s", bettor.Currency)
	}
	stake, err := money.ParsePositive(req.Stake)
	if err != nil {
		return Bet{}, invalidf("stake must be a positive decimal string")
	}
	if !stake.FitsDecimals(cur.Decimals) {
		return Bet{}, invalidf("stake has more than the %d decimals of %s", cur.Decimals, cur.Code)
	}
	if uuid.Validate(req.MarketID) != nil || uuid.Validate(req.OutcomeID) != nil {
		return Bet{}, invalidf("market_id and outcome_id must be UUIDs")
	}
	e, err := p.catalog.cachedEventOfMarket(ctx, req.MarketID)
	if err != nil {
		return Bet{}, err
	}
	m, _ := e.Market(req.MarketID)
	_, idx, ok := m.Outcome(req.OutcomeID)
	if !ok {
		return Bet{}, invalidf("outcome %s is not an outcome of market %s", req.OutcomeID, req.MarketID)
	}
	quotes, err := p.prices.quotes(op, *m)
	if err != nil {
		return Bet{}, &Error{Code: ErrConflict, Message: "the market cannot be priced now"}
	}
	q := quotes[idx]
	now := p.Now().UTC().Truncate(time.Microsecond)
	b := Bet{
		ID: uuid.NewString(), OperatorID: op.ID, BettorID: bettor.ID, IdempotencyKey: key,
		EventID: e.ID, MarketID: m.ID, OutcomeID: req.OutcomeID, OutcomeIndex: idx,
		Stake: stake, Currency: cur.Code, EntryOdds: q.Odds, PotentialPayout: stake.MulOdds(q.Odds),
		DisplayProbability: q.DisplayProbability, Status: BetPending, CreatedAt: now, UpdatedAt: now, SessionID: req.SessionID,
	}
	b.WithdrawalTxID = "wd-" + b.ID
	b.Accepted, err = json.Marshal(accepted{ID: b.ID, Status: "PENDING", Message: "The bet is accepted for processing; poll it until CONFIRMED or REJECTED.",
		EntryOdds: b.EntryOdds, PotentialPayout: b.PotentialPayout.String(), DisplayProbability: odds.FormatDisplayProbability(b.DisplayProbability), OutcomeIndex: idx})
	return b, err
}

// Process decides a pending bet: the market, its event and the outcome
// must be open and the price must not have moved against the bettor beyond
// the operator's tolerance (else validation_failed); the stake and payout
// must be within the operator's limits and the outcome's exposure must
// take the payout (else bet_limit_reached); then the stake is debited
// through the operator's wallet. A definite refusal rejects with the
// wallet's code (bet_rejected_other also sends a rollback, the debit being
// unknown); an unknown outcome rejects with no code and a rollback; a
// market that closed while the wallet answered rejects wallet_rolled_back
// with a rollback. Each outcome and its rollback commit together.
//
// Whenever an earlier attempt's outcome is unknown (OutcomeUnknown, or an
// earlier run's withdrawal), a refusal also sends a rollback, with the
// refusal's code.
//
// Process may run again after a crash or a stop: a bet whose exposure is
// reserved may already have been debited, so it skips the checks and
// resends the withdrawal with the same transaction id and bytes, which the
// operator answers as it first did. With lastAttempt, a run that cannot
// finish rejects the bet (no code, with a rollback) instead of leaving it
// pending, also when its context ended (the job's time limit, a stop) or
// the bet could not even be read: nothing runs a placement after its last
// attempt.
func (p *Placement) Process(ctx context.Context, betID string, lastAttempt bool) error {
	b, err := p.bets.GetBet(ctx, "", "", betID)
	switch {
	case IsNotFound(err):
		return nil
	case err == nil && b.Status != BetPending:
		return nil
	case err == nil:
		err = p.process(ctx, b)
	}
	if err != nil && lastAttempt {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lastRejectionTimeLimit)
		defer cancel()
		if ferr := p.finish(ctx, Bet{ID: betID}, BetUpdate{Status: BetRejected, RejectionReason: "the placement could not finish",
			Release: true, Rollback: true}); ferr != nil {
			return errors.Join(err, ferr)
		}
		return nil
	}
	return err
}

// lastRejectionTimeLimit bounds the rejection a last attempt writes once
// its own context has ended.
const lastRejectionTimeLimit = 10 * time.Second

func (p *Placement) process(ctx context.Context, b Bet) error {
	op, err := p.catalog.CachedOperator(ctx, b.OperatorID)
	if err != nil {
		return err
	}
	if !b.Reserved {
		// Before the debit the cache will do: it takes every change made
		// on this node at once, and other nodes' within moments.
		if reason, err := p.check(ctx, p.catalog.CachedEvent, op, b, true); err != nil {
			return err
		} else if reason != "" {
			return p.reject(ctx, b, RejectValidationFailed, reason)
		}
		limits := op.Limits[b.Currency]
		switch {
		case b.Stake.LessThan(limits.MinStake) || b.Stake.GreaterThan(limits.MaxStake):
			return p.reject(ctx, b, RejectBetLimitReached, fmt.Sprintf("stake %s outside %s..%s", b.Stake, limits.MinStake, limits.MaxStake))
		case b.PotentialPayout.GreaterThan(limits.MaxPayout):
			return p.reject(ctx, b, RejectBetLimitReached, "potential payout above max_payout")
		}
		if err := p.bets.ReserveExposure(ctx, b, limits.OutcomeExposure); err != nil {
			switch ErrorCodeOf(err) {
			case ErrLimit:
				return p.reject(ctx, b, RejectBetLimitReached, "outcome exposure limit")
			case ErrConflict:
				return nil // decided meanwhile by another run, before any debit of this one
			}
			return err
		}
	}
	ans, err := p.wallet.Withdraw(ctx, op, b)
	p.observe(ans.Attempts)
	p.logDetail(ctx, b, ans)
	// A bet reserved before this run had its withdrawal sent by an
	// earlier run whose outcome nobody recorded (a crash, a stop, a run
	// cut short): like an attempt of this run without a definite answer,
	// it may have debited the stake, whatever the wallet answers now.
	doubt := b.Reserved || OutcomeUnknown(ans.Attempts)
	switch {
	case err != nil && ctx.Err() != nil:
		// Stopping: the next run resends the same withdrawal.
		return errors.Join(err, p.record(ctx, ans.Attempts))
	case err != nil:
		// Nothing was sent (an unusable wallet URL or address): a refusal,
		// with a rollback when an earlier run may have debited.
		code := RejectOther
		return p.finish(ctx, b, BetUpdate{Status: BetRejected, RejectionCode: &code, RejectionReason: "the operator's wallet cannot be called",
			Release: true, Rollback: doubt, Attempts: ans.Attempts})
	}
	switch ans.Status {
	case WalletDone:
		// Whether a debited bet stands is decided on the stored event: a
		// market resolved meanwhile must not get a new bet.
		reason, err := p.check(ctx, p.catalog.GetEvent, op, b, false)
		if err != nil {
			// The event could not be read (the store failed, or the run
			// is stopping): the next run resends the withdrawal, answered
			// as the first, and decides then.
			return errors.Join(err, p.record(ctx, ans.Attempts))
		}
		if reason != "" {
			code := RejectWalletRolledBack
			return p.finish(ctx, b, BetUpdate{Status: BetRejected, RejectionCode: &code, RejectionReason: reason + " while the stake was debited",
				OperatorTxID: ans.OperatorTxID, Balance: ans.Balance, Release: true, Rollback: true, Attempts: ans.Attempts})
		}
		return p.finish(ctx, b, BetUpdate{Status: BetConfirmed, OperatorTxID: ans.OperatorTxID, Balance: ans.Balance, Attempts: ans.Attempts})
	case WalletRefused:
		// A conforming wallet answers a resent withdrawal with its first
		// answer, so a refusal after an unknown outcome means nothing was
		// debited; but a wallet that checks funds before its
		// de-duplication refuses a retry of a debit it made. The refusal's
		// code stands, and the rollback (answered not_found, harmlessly,
		// when nothing was debited) makes sure.
		code := ans.Code
		reason := "the wallet refused the debit: " + string(code)
		if doubt {
			reason += ", after an attempt whose outcome is unknown: the debit is rolled back in case it was made"
		}
		return p.finish(ctx, b, BetUpdate{Status: BetRejected, RejectionCode: &code, RejectionReason: reason,
			Release: true, Rollback: code == RejectOther || doubt, Balance: ans.Balance, Attempts: ans.Attempts})
	case WalletUnknown:
	}
	var code *RejectionCode
	if ans.Code != "" {
		code = &ans.Code
	}
	return p.finish(ctx, b, BetUpdate{Status: BetRejected, RejectionCode: code, RejectionReason: "the wallet gave no definite answer",
		Release: true, Rollback: true, Attempts: ans.Attempts})
}

// logDetail logs the diagnostic of a withdrawal that was not done as
// expected: an unknown outcome, or a refusal without one of the
// protocol's codes. Ordinary refusals (insufficient funds, limits) are not
// logged; their codes are on the bet.
func (p *Placement) logDetail(ctx context.Context, b Bet, ans WalletAnswer) {
	if p.log == nil || ans.Detail == "" || ans.Status != WalletUnknown && (ans.Status != WalletRefused || ans.Code != RejectOther) {
		return
	}
	outcome := "unknown"
	if ans.Status == WalletRefused {
		outcome = "refused"
	}
	p.log.WarnContext(ctx, "the operator's wallet did not take the stake", "bet_id", b.ID, "operator_id", b.OperatorID,
		"outcome", outcome, "code", string(ans.Code), "detail", ans.Detail)
}

// IntegrationWallets is a Wallet that sends each call to the wallet of
// the operator's integration (IntegrationStandalone, IntegrationAggregator,
// IntegrationBundled).
type IntegrationWallets map[string]Wallet

func (w IntegrationWallets) of(op Operator) (Wallet, error) {
	if wallet, ok := w[op.Integration]; ok {
		return wallet, nil
	}
	return nil, fmt.Errorf("no wallet for operator %s's integration %q", op.ID, op.Integration)
}

// Withdraw calls the operator's integration's Withdraw.
func (w IntegrationWallets) Withdraw(ctx context.Context, op Operator, b Bet) (WalletAnswer, error) {
	wallet, err := w.of(op)
	if err != nil {
		return WalletAnswer{}, err
	}
	return wallet.Withdraw(ctx, op, b)
}

// Rollback calls the operator's integration's Rollback.
func (w IntegrationWallets) Rollback(ctx context.Context, op Operator, b Bet) (WalletCredit, error) {
	wallet, err := w.of(op)
	if err != nil {
		return WalletCredit{}, err
	}
	return wallet.Rollback(ctx, op, b)
}

// Deposit calls the operator's integration's Deposit.
func (w IntegrationWallets) Deposit(ctx context.Context, op Operator, b Bet) (WalletCredit, error) {
	wallet, err := w.of(op)
	if err != nil {
		return WalletCredit{}, err
	}
	return wallet.Deposit(ctx, op, b)
}

// finish applies u to a pending bet, with the wallet attempts that led to
// it; a bet decided meanwhile is left alone, and then only the attempts
// are recorded. Except when u follows a withdrawal that may have debited
// the stake (a confirmation, or a rejection with a rollback) and another
// run rejected the bet without a rollback (before it saw any debit): the
// bet then owes a rollback, enqueued with the attempts.
func (p *Placement) finish(ctx context.Context, b Bet, u BetUpdate) error {
	u.From, u.At = BetPending, p.Now()
	err := p.bets.UpdateBet(ctx, b.ID, u)
	if ErrorCodeOf(err) != ErrConflict {
		return err
	}
	if u.Status != BetConfirmed && !u.Rollback {
		return p.record(ctx, u.Attempts)
	}
	stored, err := p.bets.GetBet(ctx, "", "", b.ID)
	if err != nil {
		return errors.Join(err, p.record(ctx, u.Attempts))
	}
	if stored.Status != BetRejected || stored.RollbackOwed {
		return p.record(ctx, u.Attempts)
	}
	return p.bets.UpdateBet(ctx, b.ID, BetUpdate{From: BetRejected, Status: BetRejected, RejectionCode: stored.RejectionCode,
		RejectionReason: stored.RejectionReason + "; another attempt's withdrawal was debited meanwhile and is rolled back",
		OperatorTxID:    u.OperatorTxID, Rollback: true, Attempts: u.Attempts, At: u.At})
}

// check returns why the bet cannot be placed now, or "": the market, its
// event (read with getEvent) and the outcome must be open, and with price
// the odds must not have moved against the bettor beyond the operator's
// tolerance. An event that cannot be read for another reason than its
// absence is an error, not a reason: the bet waits for the next run.
func (p *Placement) check(ctx context.Context, getEvent func(context.Context, string) (Event, error), op Operator, b Bet, price bool) (reason string, err error) {
	e, err := getEvent(ctx, b.EventID)
	if IsNotFound(err) {
		return "the event is gone", nil
	}
	if err != nil {
		return "", fmt.Errorf("read event %s of bet %s: %w", b.EventID, b.ID, err)
	}
	m, ok := e.Market(b.MarketID)
	if !ok {
		return "the market is gone", nil
	}
	if !e.Open(m, p.Now()) {
		return "the market is not open", nil
	}
	_, idx, ok := m.Outcome(b.OutcomeID)
	if !ok {
		return "the outcome is gone", nil
	}
	if !price {
		return "", nil
	}
	quotes, err := p.prices.quotes(op, *m)
	if err != nil {
		return "the market cannot be priced", nil
	}
	if odds.MovedAgainst(b.EntryOdds, quotes[idx].Odds, op.OddsTolerance) {
		return fmt.Sprintf("the price moved from %s to %s", b.EntryOdds, quotes[idx].Odds), nil
	}
	return "", nil
}

// reject rejects a pending bet that was not debited with code, giving back
// its exposure.
func (p *Placement) reject(ctx context.Context, b Bet, code RejectionCode, reason string) error {
	return p.finish(ctx, b, BetUpdate{Status: BetRejected, RejectionCode: &code, RejectionReason: reason, Release: true})
}

// Rollback reverses a rejected bet's withdrawal and records the
// operator's confirmation on the bet; it returns an error until the
// operator answers definitely, so that the caller retries.
func (p *Placement) Rollback(ctx context.Context, betID string) error {
	b, err := p.bets.GetBet(ctx, "", "", betID)
	if err != nil {
		return err
	}
	if b.RollbackConfirmedAt != nil {
		return nil
	}
	op, err := p.catalog.CachedOperator(ctx, b.OperatorID)
	if err != nil {
		return err
	}
	credit, err := p.wallet.Rollback(ctx, op, b)
	p.observe(credit.Attempts)
	if err != nil || !credit.Done {
		if err == nil {
			err = fmt.Errorf("rollback of bet %s not confirmed by the operator yet", b.ID)
		}
		return errors.Join(err, p.record(ctx, credit.Attempts))
	}
	return p.confirm(ctx, []CreditConfirmation{{BetID: b.ID, Kind: CreditRollback, Balance: credit.Balance, At: p.Now()}}, credit.Attempts)
}

// confirm records confirmed credits with the wallet attempts sent with
// them, even while ctx is being cancelled: the operator has applied them.
// Failing to record them fails the job, which then asks the operator
// again: credits are idempotent.
func (p *Placement) confirm(ctx context.Context, credits []CreditConfirmation, attempts []WalletAttempt) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return p.bets.ConfirmCredits(ctx, credits, attempts)
}

// Bet returns a bettor's bet; another bettor's bet is ErrNotFound.
func (p *Placement) Bet(ctx context.Context, bettor Bettor, id string) (Bet, error) {
	return p.bets.GetBet(ctx, bettor.OperatorID, bettor.ID, id)
}

// Bets returns a page of a bettor's bets, newest first.
func (p *Placement) Bets(ctx context.Context, f BetFilter) ([]Bet, error) {
	return p.bets.ListBets(ctx, f)
}

// BetTotals returns an operator's bets counted and summed by status and
// currency, of one market when marketID is set (BetStore.BetTotals).
func (p *Placement) BetTotals(ctx context.Context, operatorID, marketID string) ([]BetTotal, error) {
	return p.bets.BetTotals(ctx, operatorID, marketID)
}

// Portfolio sums a bettor's positions: the stakes of confirmed bets and
// the count of bets in every status (BetStore.BettorPortfolio).
func (p *Placement) Portfolio(ctx context.Context, bettor Bettor) (money.Amount, int, error) {
	return p.bets.BettorPortfolio(ctx, bettor.OperatorID, bettor.ID)
}

// Bettor returns the bettor a token names, creating them on first sight
// with the token's currency.
func (p *Placement) Bettor(ctx context.Context, operatorID, bettorID, currency string) (Bettor, error) {
	if b, err := p.bets.GetBettor(ctx, operatorID, bettorID); err == nil || !IsNotFound(err) {
		return b, err // a read on every request; the insert only on first sight
	}
	return p.bets.EnsureBettor(ctx, Bettor{OperatorID: operatorID, ID: bettorID, Currency: currency, CreatedAt: p.Now().UTC().Truncate(time.Microsecond)})
}

// KnownBettor returns the bettor a token names as Bettor does, but
// without the balance (Balance nil): a bettor once seen is remembered by
// this process, since a bettor is never deleted and keeps the currency of
// its first sight, so that an authenticated request reads nothing.
func (p *Placement) KnownBettor(ctx context.Context, operatorID, bettorID, currency string) (Bettor, error) {
	if b, ok := p.bettors.get(operatorID, bettorID); ok {
		return b, nil
	}
	b, err := p.Bettor(ctx, operatorID, bettorID, currency)
	if err != nil {
		return b, err
	}
	b.Balance = nil
	p.bettors.put(b)
	return b, nil
}

// knownBettorsMax bounds the bettors a process remembers; past it the
// memory starts again empty.
const knownBettorsMax = 1 << 17

// knownBettors are the bettors KnownBettor has seen, without balances.
type knownBettors struct {
	mu   sync.RWMutex
	seen map[[2]string]Bettor
}

func (k *knownBettors) get(operatorID, bettorID string) (Bettor, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	b, ok := k.seen[[2]string{operatorID, bettorID}]
	return b, ok
}

func (k *knownBettors) put(b Bettor) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.seen == nil || len(k.seen) >= knownBettorsMax {
		k.seen = map[[2]string]Bettor{}
	}
	k.seen[[2]string{b.OperatorID, b.ID}] = b
}

// priceMemoMax bounds the prices a process remembers; past it the memory
// starts again empty.
const priceMemoMax = 4096

// priceMemo remembers Quotes' answers by what they are computed from (the
// margin and the market's probabilities), so that the bets of one price
// price it once: a placement prices its outcome at the request and again
// before the debit, and odds ratio, power and Shin solve a curve each
// time.
type priceMemo struct {
	mu      sync.RWMutex
	byInput map[string]pricing
}

type pricing struct {
	quotes []odds.Quote
	err    error
}

// quotes returns Quotes(op, m); the slice is shared: callers only read it.
func (pm *priceMemo) quotes(op Operator, m Market) ([]odds.Quote, error) {
	var key strings.Builder
	key.WriteString(string(op.Margin.Method))
	key.WriteByte(' ')
	key.WriteString(op.Margin.Value.String())
	for _, o := range m.Outcomes {
		key.WriteByte(' ')
		key.WriteString(o.Probability.String())
	}
	k := key.String()
	pm.mu.RLock()
	got, ok := pm.byInput[k]
	pm.mu.RUnlock()
	if ok {
		return got.quotes, got.err
	}
	q, err := Quotes(op, m)
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.byInput == nil || len(pm.byInput) >= priceMemoMax {
		pm.byInput = map[string]pricing{}
	}
	pm.byInput[k] = pricing{quotes: q, err: err}
	return q, err
}

// Bettors returns an operator's bettors ordered by id, after afterID.
func (p *Placement) Bettors(ctx context.Context, operatorID, afterID string, limit int) ([]Bettor, error) {
	return p.bets.ListBettors(ctx, operatorID, afterID, limit)
}

// OutcomeExposure is what an operator stands to pay on one outcome.
type OutcomeExposure struct {
	OutcomeID string `json:"outcome_id"`
	Currency  string `json:"currency"`
	// OpenStake and PotentialPayout sum the pending and confirmed bets.
	OpenStake       money.Amount `json:"open_stake"`
	PotentialPayout money.Amount `json:"potential_payout"`
	Limit           money.Amount `json:"limit"`
	Headroom        money.Amount `json:"headroom"`
}

// Exposure returns, per outcome of a market and currency of the operator,
// the open stake, the potential payout, the limit and the headroom left.
func (p *Placement) Exposure(ctx context.Context, operatorID, marketID string) ([]OutcomeExposure, error) {
	op, err := p.catalog.CachedOperator(ctx, operatorID)
	if err != nil {
		return nil, err
	}
	e, err := p.catalog.store.EventOfMarket(ctx, marketID)
	if err != nil {
		return nil, err
	}
	m, _ := e.Market(marketID)
	type key struct{ outcome, currency string }
	sums := map[key]*OutcomeExposure{}
	var out []OutcomeExposure
	for _, o := range m.Outcomes {
		for _, c := range op.Currencies {
			limit := op.Limits[c.Code].OutcomeExposure
			out = append(out, OutcomeExposure{OutcomeID: o.ID, Currency: c.Code, Limit: limit, Headroom: limit})
		}
	}
	for i := range out {
		sums[key{out[i].OutcomeID, out[i].Currency}] = &out[i]
	}
	f := BetFilter{OperatorID: operatorID, MarketID: marketID, Statuses: []BetStatus{BetPending, BetConfirmed}, Limit: 500}
	for {
		page, err := p.bets.ListBets(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, b := range page {
			if x := sums[key{b.OutcomeID, b.Currency}]; x != nil {
				x.OpenStake = x.OpenStake.Add(b.Stake)
				x.PotentialPayout = x.PotentialPayout.Add(b.PotentialPayout)
				x.Headroom = x.Limit.Sub(x.PotentialPayout)
			}
		}
		if len(page) < f.Limit {
			return out, nil
		}
		f.BeforeCreatedAt, f.BeforeID = page[len(page)-1].CreatedAt, page[len(page)-1].ID
	}
}
