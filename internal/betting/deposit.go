package betting

import (
	"cmp"
	"context"
	"fmt"
	"sync"
)

// DepositCallsPerOperator bounds the deposit calls in flight to one
// operator's wallet from one process, every Deposit running at once
// included: a wallet gets at most this many, and a slow one holds at most
// this many calls waiting.
const DepositCallsPerOperator = 128

// Deposit credits settled or voided bets through their operators'
// wallets and records the confirmed credits on their bets in one
// transaction, with the wallet attempts of every deposit sent (without a
// confirmed one, the attempts alone). Calls to one operator's wallet are
// at most DepositCallsPerOperator at once in this process, every Deposit
// running included. One bettor's deposits are sent one after another,
// those of other Deposits running at once included (in this process), so
// that the answer that comes last reports the bettor's latest balance:
// answers to calls in flight at once may come in any order. A bet whose
// deposit is already confirmed is skipped, so a retry sends only the
// others. It returns an error while any deposit is unconfirmed, so that
// the caller retries (for days); a deposit's transaction id and bytes are
// the same on every attempt, so the operator pays it once.
func (p *Placement) Deposit(ctx context.Context, betIDs []string) error {
	todo, ops, err := p.depositsDue(ctx, betIDs)
	if err != nil {
		return err
	}
	confirmed, attempts, failed, firstErr := p.sendDeposits(ctx, todo, ops)
	if len(confirmed) > 0 {
		if err := p.confirm(ctx, confirmed, attempts); err != nil {
			return fmt.Errorf("record %d confirmed deposits: %w", len(confirmed), err)
		}
	} else if err := p.record(ctx, attempts); err != nil {
		return fmt.Errorf("record the attempts of %d deposits: %w", len(todo), err)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d deposits not confirmed: %w", failed, len(todo), firstErr)
	}
	return nil
}

// depositsDue reads the bets of betIDs and returns those whose deposit is
// not confirmed yet, in their order, and their operators (from the
// catalog's cache). A bet to deposit that is neither settled nor voided is
// an error.
func (p *Placement) depositsDue(ctx context.Context, betIDs []string) ([]Bet, map[string]Operator, error) {
	bets, err := p.bets.BetsByID(ctx, betIDs)
	if err != nil {
		return nil, nil, err
	}
	ops := map[string]Operator{}
	var todo []Bet
	for _, b := range bets {
		if b.DepositConfirmedAt != nil {
			continue
		}
		if b.Status != BetSettled && b.Status != BetVoided {
			return nil, nil, fmt.Errorf("bet %s is %s, not settled", b.ID, b.Status)
		}
		if _, ok := ops[b.OperatorID]; !ok {
			if ops[b.OperatorID], err = p.catalog.CachedOperator(ctx, b.OperatorID); err != nil {
				return nil, nil, err
			}
		}
		todo = append(todo, b)
	}
	return todo, ops, nil
}

// sendDeposits sends the deposits of todo through their operators'
// wallets (ops): one bettor's one after another in the bettor's turn, at
// most DepositCallsPerOperator calls to a wallet at once. It returns the
// confirmed credits, the wallet attempts of every deposit, and how many
// deposits are not confirmed, with the first reason why.
func (p *Placement) sendDeposits(ctx context.Context, todo []Bet, ops map[string]Operator) (confirmed []CreditConfirmation, attempts []WalletAttempt, failed int, firstErr error) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	fail := func(n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		failed += n
		firstErr = cmp.Or(firstErr, err)
	}
	var bettors []bettorKey
	byBettor := map[bettorKey][]Bet{}
	for _, b := range todo {
		k := bettorKey{b.OperatorID, b.BettorID}
		if _, ok := byBettor[k]; !ok {
			bettors = append(bettors, k)
		}
		byBettor[k] = append(byBettor[k], b)
	}
	for _, k := range bettors {
		wg.Go(func() {
			// The bettor's turn first, then a call at a time: a goroutine
			// holding a call never waits for a bettor, so every call
			// taken is sent.
			bets := byBettor[k]
			done, err := p.credits.bettorTurn(ctx, k)
			if err != nil {
				fail(len(bets), err)
				return
			}
			defer done()
			for i, b := range bets {
				free, err := p.credits.walletCall(ctx, b.OperatorID)
				if err != nil {
					fail(len(bets)-i, err)
					return
				}
				credit, err := p.wallet.Deposit(ctx, ops[b.OperatorID], b)
				free()
				p.observe(credit.Attempts)
				if err == nil && !credit.Done {
					err = fmt.Errorf("deposit of bet %s not confirmed by the operator yet", b.ID)
				}
				mu.Lock()
				attempts = append(attempts, credit.Attempts...)
				if err != nil {
					failed++
					firstErr = cmp.Or(firstErr, err)
				} else {
					confirmed = append(confirmed, CreditConfirmation{BetID: b.ID, Kind: CreditDeposit, Balance: credit.Balance, At: p.Now()})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return confirmed, attempts, failed, firstErr
}

// bettorKey names a bettor of an operator.
type bettorKey struct{ operatorID, bettorID string }

// creditLanes order and bound the credits of every Deposit running in a
// process: one turn per bettor, DepositCallsPerOperator calls per
// operator's wallet. The zero value is ready.
type creditLanes struct {
	mu      sync.Mutex
	bettors map[bettorKey]*creditTurn
	wallets map[string]chan struct{}
}

// creditTurn is one bettor's turn, held by one Deposit at a time; users
// counts the Deposits holding or waiting for it, and the turn is forgotten
// when none is left.
type creditTurn struct {
	held  chan struct{}
	users int
}

// bettorTurn waits for the bettor's turn; done gives it to the next.
// It fails with ctx's error when ctx ends first.
func (c *creditLanes) bettorTurn(ctx context.Context, k bettorKey) (done func(), err error) {
	c.mu.Lock()
	if c.bettors == nil {
		c.bettors = map[bettorKey]*creditTurn{}
	}
	t := c.bettors[k]
	if t == nil {
		t = &creditTurn{held: make(chan struct{}, 1)}
		c.bettors[k] = t
	}
	t.users++
	c.mu.Unlock()
	leave := func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if t.users--; t.users == 0 {
			delete(c.bettors, k)
		}
	}
	select {
	case t.held <- struct{}{}:
		return func() { <-t.held; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// walletCall waits for one of the operator's DepositCallsPerOperator
// calls; free returns it. It fails with ctx's error when ctx ends first.
func (c *creditLanes) walletCall(ctx context.Context, operatorID string) (free func(), err error) {
	c.mu.Lock()
	if c.wallets == nil {
		c.wallets = map[string]chan struct{}{}
	}
	calls := c.wallets[operatorID]
	if calls == nil {
		calls = make(chan struct{}, DepositCallsPerOperator)
		c.wallets[operatorID] = calls
	}
	c.mu.Unlock()
	select {
	case calls <- struct{}{}:
		return func() { <-calls }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
