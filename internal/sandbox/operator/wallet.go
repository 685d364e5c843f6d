package operator

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/sandbox/wire"
)

// Wallet request bodies. Amounts are raw so that a JSON number can be told
// from a string.
// movementRequest is what every wallet body names: the transaction, the
// bettor and the amount in a currency.
type movementRequest struct {
	TransactionID string          `json:"transaction_id"`
	BettorID      string          `json:"bettor_id"`
	Amount        json.RawMessage `json:"amount"`
	Currency      string          `json:"currency"`
}

type withdrawalRequest struct {
	movementRequest
	Metadata *struct {
		MarketID string `json:"market_id"`
	} `json:"metadata"`
}

type depositRequest struct {
	movementRequest
	Metadata *struct {
		MarketID                string `json:"market_id"`
		BetID                   string `json:"bet_id"`
		WithdrawalTransactionID string `json:"withdrawal_transaction_id"`
		Result                  string `json:"result"`
	} `json:"metadata"`
}

type rollbackRequest struct {
	movementRequest
}

// walletAnswer is the 200 body of the wallet endpoints.
type walletAnswer struct {
	TransactionID string `json:"transaction_id"`
	Balance       string `json:"balance,omitempty"`
	Result        string `json:"result,omitempty"`
}

// Rollback results.
const (
	rollbackReversed        = "reversed"
	rollbackAlreadyReversed = "already_reversed"
	rollbackNotDebited      = "not_debited"
	rollbackNotFound        = "not_found"
)

// movement is the validated common part of a wallet body.
type movement struct {
	txID     string
	bettorID string
	amount   money.Amount
	currency string
	decimals int32
}

// decodeMovement decodes body into req, whose movement is r, strictly
// (wire.Decode), and validates the movement (the amount positive when
// positive is set).
func (o *Operator) decodeMovement(body []byte, req any, r *movementRequest, positive bool) (movement, error) {
	if err := wire.Decode(body, req); err != nil {
		return movement{}, err
	}
	txID, bettorID, currency := r.TransactionID, r.BettorID, r.Currency
	if err := sandboxweb.CheckID("transaction_id", txID); err != nil {
		return movement{}, err
	}
	if err := sandboxweb.CheckID("bettor_id", bettorID); err != nil {
		return movement{}, err
	}
	if currency == "" {
		return movement{}, errors.New("currency is required")
	}
	decimals, err := o.currencyDecimals(currency)
	if err != nil {
		return movement{}, err
	}
	s, err := amountString(r.Amount)
	if err != nil {
		return movement{}, err
	}
	a, err := parseAmount(s, currency, decimals, positive)
	if err != nil {
		return movement{}, err
	}
	return movement{txID: txID, bettorID: bettorID, amount: a, currency: currency, decimals: decimals}, nil
}

// transact answers a transaction_id: the stored first answer for the same
// request, 409 transaction_conflict for a different one, or run's answer,
// which is stored and, with a journal, appended to it (kind, pathID and
// body) before it is answered. run is called with o.mu held.
func (o *Operator) transact(x *journal.Op, kind, txID, pathID, bettorID string, body []byte, fingerprint string, run func() response) response {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.Keeper.Begin(x); err != nil {
		return unavailable()
	}
	if rec := o.txs[txID]; rec != nil {
		if rec.kind == kind && rec.fingerprint == fingerprint {
			return response{status: rec.status, body: rec.body}
		}
		return errorResponse(http.StatusConflict, "transaction_conflict",
			"transaction_id "+txID+" was already used for a different request")
	}
	resp := run()
	o.txSeq++
	o.txs[txID] = &txRecord{
		seq: o.txSeq, at: x.At, kind: kind, pathID: pathID, bettorID: bettorID,
		fingerprint: fingerprint, status: resp.status, body: resp.body,
	}
	x.Applied = true
	if err := o.Keeper.Commit(x, kind, walletRecord{PathID: pathID, Body: string(body)}); err != nil {
		return unavailable()
	}
	return resp
}

func refusal(status int, code string) response {
	return response{status: status, body: errorBody(code, "")}
}

func (o *Operator) ok(opTxID string, b *bettor, result string) response {
	a := walletAnswer{TransactionID: opTxID, Result: result}
	if b != nil {
		a.Balance = o.format(b.balance, b.currency)
	}
	return response{status: http.StatusOK, body: wire.MustJSON(a)}
}

// withdraw handles POST /v1/withdrawals.
func (o *Operator) withdraw(x *journal.Op, _ string, body []byte) response {
	var req withdrawalRequest
	m, err := o.decodeMovement(body, &req, &req.movementRequest, true)
	if err != nil {
		return invalid(err)
	}
	if req.Metadata == nil {
		return invalid(errors.New("metadata is required (an object with market_id)"))
	}
	if err := sandboxweb.CheckID("metadata.market_id", req.Metadata.MarketID); err != nil {
		return invalid(err)
	}
	return o.transact(x, endpointWithdrawals, m.txID, "", m.bettorID, body, wire.Canonical(body), func() response {
		if o.tombstones[m.txID] {
			return refusal(http.StatusConflict, "withdrawal_rolled_back")
		}
		if o.blocked[m.bettorID] {
			return refusal(http.StatusForbidden, "bettor_blocked")
		}
		b, _ := o.ensureBettorLocked(x.At, m.bettorID, m.currency, m.decimals)
		if b == nil {
			return refusal(http.StatusNotFound, "bettor_not_found")
		}
		if b.currency != m.currency {
			return refusal(http.StatusConflict, "currency_mismatch")
		}
		if b.balance.LessThan(m.amount) {
			return refusal(http.StatusConflict, "insufficient_funds")
		}
		b.balance = b.balance.Sub(m.amount)
		opTxID := o.nextOpTxIDLocked()
		o.withdrawals[m.txID] = &withdrawalState{
			bettorID: m.bettorID,
			currency: m.currency,
			amount:   m.amount,
			marketID: req.Metadata.MarketID,
		}
		o.record(x.At, EntryWithdrawal, m.txID, opTxID, "", m.bettorID, b, m.amount.Neg(), m.decimals)
		return o.ok(opTxID, b, "")
	})
}

// deposit handles POST /v1/deposits.
func (o *Operator) deposit(x *journal.Op, _ string, body []byte) response {
	var req depositRequest
	m, err := o.decodeMovement(body, &req, &req.movementRequest, false)
	if err != nil {
		return invalid(err)
	}
	md := req.Metadata
	if md == nil {
		return invalid(errors.New("metadata is required (an object with market_id, bet_id, withdrawal_transaction_id and result)"))
	}
	for _, f := range [][2]string{
		{"metadata.market_id", md.MarketID},
		{"metadata.bet_id", md.BetID},
		{"metadata.withdrawal_transaction_id", md.WithdrawalTransactionID},
	} {
		if err := sandboxweb.CheckID(f[0], f[1]); err != nil {
			return invalid(err)
		}
	}
	switch md.Result {
	case "lost":
		if !m.amount.IsZero() {
			return invalid(errors.New("the amount of a lost bet's deposit must be 0"))
		}
	case "won", "voided":
		if !m.amount.IsPositive() {
			return invalid(fmt.Errorf("the amount of a %s bet's deposit must be positive", md.Result))
		}
	default:
		return invalid(errors.New("metadata.result must be won, lost or voided"))
	}
	wdID := md.WithdrawalTransactionID
	return o.transact(x, endpointDeposits, m.txID, "", m.bettorID, body, wire.Canonical(body), func() response {
		w := o.withdrawals[wdID]
		switch {
		case w == nil && o.tombstones[wdID]:
			return refusal(http.StatusConflict, "withdrawal_rolled_back")
		case w == nil:
			return refusal(http.StatusConflict, "withdrawal_not_found")
		case w.reversedBy != "":
			return refusal(http.StatusConflict, "withdrawal_rolled_back")
		case w.bettorID != m.bettorID || w.currency != m.currency || w.marketID != md.MarketID,
			md.Result == "voided" && !w.amount.Equal(m.amount):
			return refusal(http.StatusConflict, "withdrawal_mismatch")
		case w.settledBy != "":
			return refusal(http.StatusConflict, "already_settled")
		}
		b := o.bettors[m.bettorID]
		b.balance = b.balance.Add(m.amount)
		w.settledBy = m.txID
		opTxID := o.nextOpTxIDLocked()
		o.record(x.At, EntryDeposit, m.txID, opTxID, wdID, m.bettorID, b, m.amount, m.decimals)
		return o.ok(opTxID, b, "")
	})
}

// rollback handles DELETE /v1/rollbacks/{id}; wdID is {id}.
func (o *Operator) rollback(x *journal.Op, wdID string, body []byte) response {
	if err := sandboxweb.CheckID("the withdrawal transaction_id in the path", wdID); err != nil {
		return invalid(err)
	}
	var req rollbackRequest
	m, err := o.decodeMovement(body, &req, &req.movementRequest, true)
	if err != nil {
		return invalid(err)
	}
	if m.txID == wdID {
		return invalid(errors.New("a rollback's transaction_id must be its own, not the withdrawal's"))
	}
	fingerprint := wdID + "\n" + wire.Canonical(body)
	return o.transact(x, endpointRollbacks, m.txID, wdID, m.bettorID, body, fingerprint, func() response {
		w := o.withdrawals[wdID]
		if w == nil {
			if rec := o.txs[wdID]; rec != nil {
				if rec.kind != endpointWithdrawals {
					return refusal(http.StatusConflict, "withdrawal_mismatch")
				}
				// The withdrawal was refused (or refused late after a
				// rollback): nothing was debited.
				return o.ok(o.nextOpTxIDLocked(), o.bettors[m.bettorID], rollbackNotDebited)
			}
			o.tombstones[wdID] = true
			return o.ok(o.nextOpTxIDLocked(), o.bettors[m.bettorID], rollbackNotFound)
		}
		if w.bettorID != m.bettorID || w.currency != m.currency || !w.amount.Equal(m.amount) {
			return refusal(http.StatusConflict, "withdrawal_mismatch")
		}
		if w.settledBy != "" {
			return refusal(http.StatusConflict, "withdrawal_settled")
		}
		b := o.bettors[m.bettorID]
		opTxID := o.nextOpTxIDLocked()
		if w.reversedBy != "" {
			return o.ok(opTxID, b, rollbackAlreadyReversed)
		}
		b.balance = b.balance.Add(m.amount)
		w.reversedBy = m.txID
		o.record(x.At, EntryRollback, m.txID, opTxID, wdID, m.bettorID, b, m.amount, m.decimals)
		return o.ok(opTxID, b, rollbackReversed)
	})
}
