package casino

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/sandbox/wire"
)

// Transaction types.
const (
	typeBet      = "bet"
	typeWin      = "win"
	typeRollback = "rollback"
)

// Wallet request bodies. Pointers tell a missing field from a zero value;
// amounts are raw so that a JSON number can be told from a string.
// party is what every wallet request names: the account, its currency,
// the game and the session.
type party struct {
	AccountID string  `json:"account_id"`
	Currency  string  `json:"currency"`
	GameID    *string `json:"game_id"`
	SessionID string  `json:"session_id"`
}

type balanceRequest struct {
	party
}

type betWinRequest struct {
	party
	RoundID      string          `json:"round_id"`
	Finished     *bool           `json:"finished"`
	Transactions []txRequestItem `json:"transactions"`
}

type finishRequest struct {
	party
	RoundID string `json:"round_id"`
}

type rollbackRequest struct {
	party
	RoundIDProvider string          `json:"round_id_provider"`
	Finished        *bool           `json:"finished"`
	Transactions    []txRequestItem `json:"transactions"`
}

type txRequestItem struct {
	IDProvider         string          `json:"id_provider"`
	Type               string          `json:"type"`
	Amount             json.RawMessage `json:"amount"`
	OriginalIDProvider string          `json:"original_id_provider"`
}

// Answers.
type balanceAnswer struct {
	Balance string `json:"balance"`
}

type betWinAnswer struct {
	RoundID      string         `json:"round_id,omitempty"` // empty only under OmitRoundIDNext
	Balance      string         `json:"balance"`
	Transactions []txAnswerItem `json:"transactions"`
}

type rollbackAnswer struct {
	Balance      string         `json:"balance"`
	RoundID      string         `json:"round_id"`
	Transactions []txAnswerItem `json:"transactions"`
}

type txAnswerItem struct {
	IDProvider string `json:"id_provider"`
	ID         string `json:"id"`
}

var amountPattern = regexp.MustCompile(`^\d{1,18}(\.\d{1,12})?$`)

// check validates the fields every wallet request carries. game_id is
// checked when present, and must be present when gameRequired.
func (p *party) check(gameRequired bool) error {
	if err := sandboxweb.CheckID("account_id", p.AccountID); err != nil {
		return err
	}
	if p.Currency == "" {
		return errors.New("currency is required")
	}
	if err := currencies.Check(p.Currency); err != nil {
		return err
	}
	switch {
	case p.GameID == nil && gameRequired:
		return errors.New("game_id is required")
	case p.GameID != nil && *p.GameID != GameID:
		return fmt.Errorf("game_id %q is not a game of this casino (want %q)", *p.GameID, GameID)
	}
	return sandboxweb.CheckID("session_id", p.SessionID)
}

// decodeRequest decodes body into req, whose party is p, strictly
// (wire.Decode), and checks the party.
func decodeRequest(body []byte, req any, p *party, gameRequired bool) error {
	if err := wire.Decode(body, req); err != nil {
		return err
	}
	return p.check(gameRequired)
}

// oneTransaction returns the single item of transactions.
func oneTransaction(items []txRequestItem) (txRequestItem, error) {
	if len(items) != 1 {
		return txRequestItem{}, fmt.Errorf("transactions must hold exactly one item, not %d", len(items))
	}
	tx := items[0]
	if err := sandboxweb.CheckID("transactions[0].id_provider", tx.IDProvider); err != nil {
		return txRequestItem{}, err
	}
	return tx, nil
}

// parseAmount reads a transaction amount: a JSON string matching
// ^\d{1,18}(\.\d{1,12})?$, above zero.
func parseAmount(raw json.RawMessage) (money.Amount, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return money.Amount{}, errors.New("transactions[0].amount is required")
	}
	if raw[0] != '"' {
		return money.Amount{}, errors.New("transactions[0].amount must be a JSON string holding a decimal such as \"10.50\", not a number or another JSON type")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return money.Amount{}, errors.New("transactions[0].amount must be a JSON string")
	}
	if !amountPattern.MatchString(s) {
		return money.Amount{}, fmt.Errorf("transactions[0].amount %q must be a plain decimal with at most 18 digits before and 12 after the point", s)
	}
	// The grammar allows leading zeros ("007.5"); money does not.
	intPart, frac, hasPoint := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	if hasPoint {
		intPart += "." + frac
	}
	a, err := money.ParsePositive(intPart)
	if err != nil {
		return money.Amount{}, fmt.Errorf("transactions[0].amount %q must be greater than zero", s)
	}
	return a, nil
}

// refusal is a definitive business refusal: stored for the id_provider.
func (c *Casino) refusal(apiCode, msg string, acct *account) response {
	balance := ""
	if acct != nil {
		balance = c.format(acct.balance, acct.currency)
	}
	return walletError(apiCode, msg, balance)
}

// currencyLocked refuses (api_code 154, not stored) a request in another
// currency than an existing account's.
func (c *Casino) currencyLocked(accountID, currency string) (response, bool) {
	if acct := c.accounts[accountID]; acct != nil && acct.currency != currency {
		return walletError("154", fmt.Sprintf("account %s plays in %s, not %s", accountID, acct.currency, currency), ""), false
	}
	return response{}, true
}

// roundOwnerLocked refuses (400, not stored) a request naming a round of
// another account.
func (c *Casino) roundOwnerLocked(roundID, accountID string) (response, bool) {
	if r := c.rounds[roundID]; r != nil && r.account != accountID {
		return badRequest(fmt.Sprintf("round %s belongs to another account", roundID)), false
	}
	return response{}, true
}

// storeLocked makes the stored answer of a request that was applied.
func (c *Casino) storeLocked(x *walletOp, accountID, endpoint, fingerprint string, resp response) *record {
	x.Applied = true
	c.storeSeq++
	return &record{seq: c.storeSeq, at: x.At, account: accountID, endpoint: endpoint, fingerprint: fingerprint, resp: resp}
}

// onceCall is a wallet request answered once, its answer stored and
// replayed (Round/BetWin, Round/Finish, Round/Rollback).
type onceCall struct {
	endpoint string
	body     []byte
	// stored holds the answers under key (*stored is replaced by a
	// reload, so it is read under the lock); what names key in the
	// refusal of a different request under it.
	stored    *map[string]*record
	key, what string
	// account, currency and roundID are the request's.
	account, currency, roundID string
}

// answerOnce answers call under the lock, once the journal's operation has
// begun: a key answered before gets its stored answer again (replay); a
// request in another currency than the account's or naming another
// account's round is refused (not stored); else process answers it. An
// answer process marks definitive is stored under the key and the request
// journalled; any other is answered as it is.
func (c *Casino) answerOnce(x *walletOp, call onceCall, process func() (resp response, definitive bool)) response {
	fingerprint := wire.Canonical(call.body)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.Keeper.Begin(&x.Op); err != nil {
		return unavailable()
	}
	if rec := (*call.stored)[call.key]; rec != nil {
		return replay(rec, call.endpoint, fingerprint, call.what)
	}
	if resp, ok := c.currencyLocked(call.account, call.currency); !ok {
		return resp
	}
	if resp, ok := c.roundOwnerLocked(call.roundID, call.account); !ok {
		return resp
	}
	resp, definitive := process()
	if !definitive {
		return resp
	}
	(*call.stored)[call.key] = c.storeLocked(x, call.account, call.endpoint, fingerprint, resp)
	// Only a BetWin's answer sets x.omitRoundID.
	if err := c.Keeper.Commit(&x.Op, call.endpoint, walletRecord{Body: string(call.body), OmitRoundID: x.omitRoundID}); err != nil {
		return unavailable()
	}
	return resp
}

// replay answers an id_provider or round that already has a stored
// answer: the same bytes for the same request, 400 (not stored) otherwise.
func replay(rec *record, endpoint, fingerprint, what string) response {
	if rec.endpoint == endpoint && rec.fingerprint == fingerprint {
		return rec.resp
	}
	return badRequest(what + " was already used for a different request")
}

// balance handles Player/Balance. It changes the state only when it
// creates the account (Config.StartingBalance): that is journalled.
func (c *Casino) balance(x *walletOp, body []byte) response {
	var req balanceRequest
	if err := decodeRequest(body, &req, &req.party, true); err != nil {
		return badRequest(err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.Keeper.Begin(&x.Op); err != nil {
		return unavailable()
	}
	if resp, ok := c.currencyLocked(req.AccountID, req.Currency); !ok {
		return resp
	}
	known := c.accounts[req.AccountID] != nil
	acct := c.ensureAccountLocked(req.AccountID, req.Currency)
	if acct == nil {
		return walletError("404", "unknown account "+req.AccountID, "")
	}
	resp := okJSON(balanceAnswer{Balance: c.format(acct.balance, acct.currency)})
	if !known {
		x.Applied = true
		if err := c.Keeper.Commit(&x.Op, EndpointBalance, walletRecord{Body: string(body)}); err != nil {
			return unavailable()
		}
	}
	return resp
}

// betWin handles Round/BetWin.
func (c *Casino) betWin(x *walletOp, body []byte) response {
	var req betWinRequest
	if err := decodeRequest(body, &req, &req.party, true); err != nil {
		return badRequest(err.Error())
	}
	if err := sandboxweb.CheckID("round_id", req.RoundID); err != nil {
		return badRequest(err.Error())
	}
	if req.Finished == nil {
		return badRequest("finished is required (a JSON boolean)")
	}
	tx, err := oneTransaction(req.Transactions)
	if err != nil {
		return badRequest(err.Error())
	}
	if tx.Type != typeBet && tx.Type != typeWin {
		return badRequest(fmt.Sprintf("transactions[0].type %q must be bet or win", tx.Type))
	}
	amount, err := parseAmount(tx.Amount)
	if err != nil {
		return badRequest(err.Error())
	}
	return c.answerOnce(x, onceCall{
		endpoint: EndpointBetWin, body: body,
		stored: &c.txs, key: tx.IDProvider, what: "id_provider " + tx.IDProvider,
		account: req.AccountID, currency: req.Currency, roundID: req.RoundID,
	}, func() (response, bool) {
		return c.applyBetWinLocked(x, &req, tx, amount), true
	})
}

// applyBetWinLocked processes a valid, new BetWin transaction. Its answer
// is definitive (stored).
func (c *Casino) applyBetWinLocked(x *walletOp, req *betWinRequest, tx txRequestItem, amount money.Amount) response {
	if by, ok := c.tombstones[tx.IDProvider]; ok {
		return walletError("409", fmt.Sprintf("transaction %s was rolled back (by %s) before it arrived", tx.IDProvider, by), "")
	}
	bet := tx.Type == typeBet
	if bet && c.blocked[req.AccountID] {
		return walletError("110", "account "+req.AccountID+" is disabled", "")
	}
	acct := c.ensureAccountLocked(req.AccountID, req.Currency)
	if acct == nil {
		return walletError("404", "unknown account "+req.AccountID, "")
	}
	delta := amount
	if bet {
		if limit, ok := c.betLimitLocked(req.AccountID); ok && amount.GreaterThan(limit) {
			return c.refusal("105", fmt.Sprintf("stake %s is above the bet limit %s", c.format(amount, acct.currency), c.format(limit, acct.currency)), acct)
		}
		if acct.balance.LessThan(amount) {
			return c.refusal("100", fmt.Sprintf("stake %s is above the balance %s", c.format(amount, acct.currency), c.format(acct.balance, acct.currency)), acct)
		}
		delta = amount.Neg()
	}
	acct.balance = acct.balance.Add(delta)
	r := c.roundLocked(req.RoundID, req.AccountID, req.Currency)
	if *req.Finished {
		r.finished = true
	}
	txID := c.nextTxIDLocked()
	c.processed[tx.IDProvider] = &transaction{
		kind:       tx.Type,
		account:    req.AccountID,
		roundID:    req.RoundID,
		amount:     amount,
		casinoTxID: txID,
	}
	typ := EntryWin
	if bet {
		typ = EntryBet
	}
	c.recordLocked(x.At, Entry{
		Type:          typ,
		Account:       req.AccountID,
		IDProvider:    tx.IDProvider,
		RoundID:       req.RoundID,
		CasinoRoundID: r.id,
		CasinoTxID:    txID,
	}, acct, delta)
	answer := betWinAnswer{
		RoundID:      r.id,
		Balance:      c.format(acct.balance, acct.currency),
		Transactions: []txAnswerItem{{IDProvider: tx.IDProvider, ID: txID}},
	}
	if c.omitRoundIDLocked(x, req.AccountID) {
		answer.RoundID = ""
	}
	return okJSON(answer)
}

// finish handles Round/Finish.
func (c *Casino) finish(x *walletOp, body []byte) response {
	var req finishRequest
	if err := decodeRequest(body, &req, &req.party, false); err != nil {
		return badRequest(err.Error())
	}
	if err := sandboxweb.CheckID("round_id", req.RoundID); err != nil {
		return badRequest(err.Error())
	}
	return c.answerOnce(x, onceCall{
		endpoint: EndpointFinish, body: body,
		stored: &c.finishes, key: req.RoundID, what: "round " + req.RoundID + " was finished before; its round_id",
		account: req.AccountID, currency: req.Currency, roundID: req.RoundID,
	}, func() (response, bool) {
		r := c.rounds[req.RoundID]
		if r == nil {
			// Not stored: the bet may still be on its way.
			return walletError("404", "unknown round "+req.RoundID, ""), false
		}
		acct := c.accounts[req.AccountID] // exists: the round was made for it
		r.finished = true
		c.recordLocked(x.At, Entry{
			Type:          EntryFinish,
			Account:       req.AccountID,
			RoundID:       req.RoundID,
			CasinoRoundID: r.id,
		}, acct, money.Amount{})
		return okJSON(balanceAnswer{Balance: c.format(acct.balance, acct.currency)}), true
	})
}

// rollback handles Round/Rollback.
func (c *Casino) rollback(x *walletOp, body []byte) response {
	var req rollbackRequest
	if err := decodeRequest(body, &req, &req.party, true); err != nil {
		return badRequest(err.Error())
	}
	if err := sandboxweb.CheckID("round_id_provider", req.RoundIDProvider); err != nil {
		return badRequest(err.Error())
	}
	if req.Finished == nil {
		return badRequest("finished is required (a JSON boolean, false)")
	}
	if *req.Finished {
		return badRequest("finished must be false in a rollback")
	}
	tx, err := oneTransaction(req.Transactions)
	if err != nil {
		return badRequest(err.Error())
	}
	if tx.Type != typeRollback {
		return badRequest(fmt.Sprintf("transactions[0].type %q must be rollback", tx.Type))
	}
	if err := sandboxweb.CheckID("transactions[0].original_id_provider", tx.OriginalIDProvider); err != nil {
		return badRequest(err.Error())
	}
	if tx.OriginalIDProvider == tx.IDProvider {
		return badRequest("a rollback's id_provider must be its own, not original_id_provider")
	}
	return c.answerOnce(x, onceCall{
		endpoint: EndpointRollback, body: body,
		stored: &c.txs, key: tx.IDProvider, what: "id_provider " + tx.IDProvider,
		account: req.AccountID, currency: req.Currency, roundID: req.RoundIDProvider,
	}, func() (response, bool) {
		orig := c.processed[tx.OriginalIDProvider]
		switch {
		case orig != nil && orig.account != req.AccountID:
			return badRequest(fmt.Sprintf("transaction %s belongs to another account", tx.OriginalIDProvider)), false
		case orig != nil && orig.roundID != req.RoundIDProvider:
			return badRequest(fmt.Sprintf("transaction %s belongs to round %s, not %s", tx.OriginalIDProvider, orig.roundID, req.RoundIDProvider)), false
		case orig == nil && c.txs[tx.OriginalIDProvider] != nil && c.txs[tx.OriginalIDProvider].endpoint == EndpointRollback:
			return badRequest(fmt.Sprintf("transaction %s is a rollback; a rollback cannot be rolled back", tx.OriginalIDProvider)), false
		}
		return c.applyRollbackLocked(x, &req, tx, orig), true
	})
}

// applyRollbackLocked processes a valid, new rollback. Its answer is
// definitive (stored).
func (c *Casino) applyRollbackLocked(x *walletOp, req *rollbackRequest, tx txRequestItem, orig *transaction) response {
	if orig == nil && c.txs[tx.OriginalIDProvider] == nil {
		// Never seen: whatever arrives later under that id is refused.
		if _, ok := c.tombstones[tx.OriginalIDProvider]; !ok {
			c.tombstones[tx.OriginalIDProvider] = tx.IDProvider
		}
	}
	acct := c.ensureAccountLocked(req.AccountID, req.Currency)
	if acct == nil {
		return walletError("404", "unknown account "+req.AccountID, "")
	}
	r := c.roundLocked(req.RoundIDProvider, req.AccountID, req.Currency)
	var (
		txID  string
		delta money.Amount
	)
	switch {
	case orig == nil:
		// Never processed (unseen, or refused): nothing to reverse, id "".
	case orig.reversedBy != "":
		txID = c.nextTxIDLocked() // reversed before: nothing moves
	case orig.kind == typeBet:
		txID = c.nextTxIDLocked()
		delta = orig.amount
	default: // a win: take it back, but not below zero
		txID = c.nextTxIDLocked()
		take := orig.amount
		if acct.balance.LessThan(take) {
			take = acct.balance
		}
		delta = take.Neg()
	}
	if orig != nil && orig.reversedBy == "" {
		orig.reversedBy = tx.IDProvider
	}
	acct.balance = acct.balance.Add(delta)
	c.recordLocked(x.At, Entry{
		Type:               EntryRollback,
		Account:            req.AccountID,
		IDProvider:         tx.IDProvider,
		OriginalIDProvider: tx.OriginalIDProvider,
		RoundID:            req.RoundIDProvider,
		CasinoRoundID:      r.id,
		CasinoTxID:         txID,
	}, acct, delta)
	return okJSON(rollbackAnswer{
		Balance:      c.format(acct.balance, acct.currency),
		RoundID:      r.id,
		Transactions: []txAnswerItem{{IDProvider: tx.IDProvider, ID: txID}},
	})
}
