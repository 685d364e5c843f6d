// Package wallet is the platform's client of an aggregator's wallet
// (aggregator-api.md, "Wallet requests and responses"): Player/Balance,
// Round/BetWin (a bet's stake, a win or a void's refund), Round/Finish (a
// lost bet) and Round/Rollback (the reversal of a failed debit), each a JSON
// body signed with X-REQUEST-SIGN (lowercase hex HMAC-SHA256 of the exact
// bytes) under the operator's wallet base URL.
//
// Bodies are built from the bet alone (Go struct order, no timestamps), so
// every attempt and every retry after a crash sends the same bytes, and the
// aggregator's idempotency by id_provider holds. A bet's transactions use
// our ids: the stake "wd-<bet id>" (the bet's withdrawal id), the credit
// "dp-<bet id>", the rollback "rb-<bet id>"; round_id is the bet id.
//
// Every answer's meta.api_code is read, on 200 too, and parsed as a number:
// 100 is insufficient_funds, 105 and 106 bet_limit_reached, 110 (player
// disabled) bettor_blocked, any other 1xx or 4xx a final bet_rejected_other;
// 503 and every other number or a non-numeric code are temporary, as are
// 5xx answers, time-outs, unreadable bodies (not a JSON object, a meta
// that is not one, or a 200 whose round_id or balance is not a string) and
// a 200 to a credit (a win, a Round/Finish, a Round/Rollback) without a
// decimal-string balance, which is not the protocol's answer. An HTTP 403
// without an api_code (a refused signature) is final. meta.api_code is read
// on its own: another member of an unexpected type (a numeric id, a
// numeric balance) does not hide it. Each step then decodes only the
// members it needs: a bet's 200 is a debit only with a round_id and a
// decimal-string balance; the aggregator's transaction id, kept for the
// records, is taken as a string or a JSON number's digits.
//
// The transport (the guarded HTTP client, time-outs, body limit, retry
// schedule and its cancellation rule, attempt records) is
// internal/betting/walletcall's, shared with the standalone wallet client;
// this package holds the protocol.
package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// BetAttempts is how many Round/BetWin requests a stake's debit sends at
// most while the answers are temporary (walletcall.DebitRetries).
const BetAttempts = walletcall.DebitAttempts

// Endpoint paths under the wallet base URL.
const (
	PathBalance  = "/v2/provider_agg.Player/Balance"
	PathBetWin   = "/v2/provider_agg.Round/BetWin"
	PathFinish   = "/v2/provider_agg.Round/Finish"
	PathRollback = "/v2/provider_agg.Round/Rollback"
)

// ErrConfig is wrapped by errors of calls that cannot be made: the wallet
// URL is not an absolute https URL (http needs Options.AllowInsecure) or the
// secret is empty. Nothing was sent.
var ErrConfig = errors.New("aggregator wallet: invalid call")

// Options configure a Client, as walletcall.Options describes them:
// AllowInsecure also permits http:// wallet URLs, and Now is not used (the
// protocol sends no time).
type Options = walletcall.Options

// Client calls aggregators' wallets; it is a betting.Wallet for operators
// of integration "aggregator" and the aggregator.BalanceReader of session
// starts. It is safe for concurrent use.
type Client struct {
	calls *walletcall.Client
}

var (
	_ betting.Wallet           = (*Client)(nil)
	_ aggregator.BalanceReader = (*Client)(nil)
)

// New returns a Client.
func New(opts Options) *Client {
	return &Client{calls: walletcall.New(opts)}
}

// Sign returns the X-REQUEST-SIGN of body: the lowercase hex HMAC-SHA256
// of the raw bytes, keyed with secret.
func Sign(secret string, body []byte) string {
	return walletcall.Sign(secret, body)
}

// Player is the player and game session every wallet request names.
type Player struct {
	// AccountID is the player's account.id at the aggregator.
	AccountID string
	// Currency is the player's currency code.
	Currency string
	// SessionID is the game session's session_id.
	SessionID string
}

// The request bodies below are the protocol's wire form, shared by the
// platform's calls and the conformance checker
// (internal/conformance/aggregatorwallet), so the two cannot drift: the
// spec's fields in the order of its table, game_id aggregator.GameID, one
// transaction, amounts written exactly (money.Amount.String: no rounding,
// trailing zeros removed). They depend on their arguments alone, so a retry
// sends the same bytes.

// BalanceBody returns the Player/Balance request of p.
func BalanceBody(p Player) []byte {
	return encode(balanceRequest{AccountID: p.AccountID, Currency: p.Currency, GameID: aggregator.GameID, SessionID: p.SessionID})
}

// BetBody returns the Round/BetWin request that debits amount from p in
// round roundID under id_provider idProvider: a transaction of type bet,
// finished false.
func BetBody(p Player, roundID, idProvider string, amount money.Amount) []byte {
	return encode(betWinRequest{AccountID: p.AccountID, Currency: p.Currency, GameID: aggregator.GameID, RoundID: roundID,
		SessionID: p.SessionID, Transactions: []transaction{{IDProvider: idProvider, Type: "bet", Amount: amount.String()}}})
}

// WinBody returns the Round/BetWin request that credits amount to p in
// round roundID under id_provider idProvider and closes the round: a
// transaction of type win, finished true.
func WinBody(p Player, roundID, idProvider string, amount money.Amount) []byte {
	return encode(betWinRequest{AccountID: p.AccountID, Currency: p.Currency, GameID: aggregator.GameID, RoundID: roundID,
		Finished: true, SessionID: p.SessionID, Transactions: []transaction{{IDProvider: idProvider, Type: "win", Amount: amount.String()}}})
}

// FinishBody returns the Round/Finish request that closes round roundID of
// p without a win (a lost round).
func FinishBody(p Player, roundID string) []byte {
	return encode(finishRequest{AccountID: p.AccountID, Currency: p.Currency, RoundID: roundID, SessionID: p.SessionID})
}

// RollbackBody returns the Round/Rollback request, under id_provider
// idProvider, that reverses transaction originalIDProvider of round
// roundID.
func RollbackBody(p Player, roundID, idProvider, originalIDProvider string) []byte {
	return encode(rollbackRequest{AccountID: p.AccountID, Currency: p.Currency, GameID: aggregator.GameID, RoundIDProvider: roundID,
		SessionID: p.SessionID, Transactions: []transaction{{IDProvider: idProvider, Type: "rollback", OriginalIDProvider: originalIDProvider}}})
}

// The wire forms, in the field order of the spec's table.
type (
	transaction struct {
		IDProvider         string `json:"id_provider"`
		Type               string `json:"type"`
		Amount             string `json:"amount,omitempty"`
		OriginalIDProvider string `json:"original_id_provider,omitempty"`
	}
	balanceRequest struct {
		AccountID string `json:"account_id"`
		Currency  string `json:"currency"`
		GameID    string `json:"game_id"`
		SessionID string `json:"session_id"`
	}
	betWinRequest struct {
		AccountID    string        `json:"account_id"`
		Currency     string        `json:"currency"`
		GameID       string        `json:"game_id"`
		RoundID      string        `json:"round_id"`
		Finished     bool          `json:"finished"`
		SessionID    string        `json:"session_id"`
		Transactions []transaction `json:"transactions"`
	}
	finishRequest struct {
		AccountID string `json:"account_id"`
		Currency  string `json:"currency"`
		RoundID   string `json:"round_id"`
		SessionID string `json:"session_id"`
	}
	rollbackRequest struct {
		AccountID       string        `json:"account_id"`
		Currency        string        `json:"currency"`
		GameID          string        `json:"game_id"`
		RoundIDProvider string        `json:"round_id_provider"`
		Finished        bool          `json:"finished"`
		SessionID       string        `json:"session_id"`
		Transactions    []transaction `json:"transactions"`
	}
)

// encode marshals a wire form, which holds only strings and booleans and so
// always marshals.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("aggregator wallet: encoding %T: %v", v, err))
	}
	return b
}

// player is the Player of bet b.
func player(b betting.Bet) Player {
	return Player{AccountID: b.BettorID, Currency: b.Currency, SessionID: b.SessionID}
}

// Transaction ids of a bet.
func creditID(b betting.Bet) string   { return "dp-" + b.ID }
func rollbackID(b betting.Bet) string { return "rb-" + b.ID }

// kind classifies an answer.
type kind int

const (
	temporary kind = iota // resend the identical request
	done                  // 200 without an api_code
	final                 // a definite refusal
)

// answer is what one call established.
type answer struct {
	sent   walletcall.Answer
	kind   kind
	code   betting.RejectionCode // the rejection code of a final answer
	detail string                // for logs: status and api_code
	// malformed: an answer arrived that is not the protocol's.
	malformed bool
	// raw is the answer's body; each step decodes only the members it
	// needs, so a member of an unexpected type hides no other.
	raw []byte
}

// classify reads meta.api_code of every answer, whatever the answer's other
// members hold; see the package comment.
func classify(status int, raw []byte) answer {
	a := answer{raw: raw}
	code, readable := apiCode(raw)
	if len(code) > 0 {
		text := string(code)
		if unq, err := strconv.Unquote(text); err == nil {
			text = unq
		}
		a.detail = fmt.Sprintf("HTTP %d, api_code %q", status, text)
		n, err := strconv.Atoi(strings.TrimSpace(text))
		switch {
		case err != nil:
			a.kind = temporary
		case n == 100:
			a.kind, a.code = final, betting.RejectInsufficientFund
		case n == 105 || n == 106:
			a.kind, a.code = final, betting.RejectBetLimitReached
		case n == 110:
			a.kind, a.code = final, betting.RejectBettorBlocked
		case (n >= 100 && n <= 199) || (n >= 400 && n <= 499):
			a.kind, a.code = final, betting.RejectOther
		default:
			a.kind = temporary
		}
		return a
	}
	a.detail = fmt.Sprintf("HTTP %d", status)
	switch {
	case status == http.StatusOK && readable && protocolTypes(raw):
		a.kind = done
	case status == http.StatusOK:
		// Not a JSON object, a meta that is not one, or a round_id or a
		// balance that is not a string.
		a.kind, a.malformed = temporary, true
	case status == http.StatusForbidden:
		a.kind, a.code = final, betting.RejectOther
	default:
		a.kind = temporary
	}
	return a
}

// apiCode returns meta.api_code of body, decoding nothing else: code is
// empty when the answer has none (no meta, no api_code, or null), and
// readable is false when body is not a JSON object (or null) or its meta
// is not one, so that whether it carries an api_code cannot be told.
func apiCode(body []byte) (code json.RawMessage, readable bool) {
	var top struct {
		Meta json.RawMessage `json:"meta"`
	}
	if json.Unmarshal(body, &top) != nil {
		return nil, false
	}
	var meta struct {
		APICode json.RawMessage `json:"api_code"`
	}
	if len(top.Meta) > 0 && json.Unmarshal(top.Meta, &meta) != nil {
		return nil, false
	}
	if string(meta.APICode) == "null" {
		return nil, true
	}
	return meta.APICode, true
}

// protocolTypes reports whether the round_id and the balance of body, when
// present, are strings (or null), as the protocol writes them; an answer
// with a numeric one is not the protocol's, whatever its other members.
func protocolTypes(body []byte) bool {
	var m struct {
		RoundID *string `json:"round_id"`
		Balance *string `json:"balance"`
	}
	return json.Unmarshal(body, &m) == nil
}

// balance returns the answer's balance: readable only as a decimal string.
func (a answer) balance() (money.Amount, bool) {
	var m struct {
		Balance *string `json:"balance"`
	}
	if json.Unmarshal(a.raw, &m) != nil || m.Balance == nil {
		return money.Amount{}, false
	}
	b, err := money.ParseAmount(*m.Balance)
	return b, err == nil
}

// hasRoundID reports whether the answer carries a round_id: a non-empty
// string.
func (a answer) hasRoundID() bool {
	var m struct {
		RoundID *string `json:"round_id"`
	}
	return json.Unmarshal(a.raw, &m) == nil && m.RoundID != nil && *m.RoundID != ""
}

// transactionID returns the aggregator's id of the answer's first
// transaction, kept for the records only: a string, or the digits of a
// JSON number; empty when it is missing or of another type.
func (a answer) transactionID() string {
	var m struct {
		Transactions []struct {
			ID json.RawMessage `json:"id"`
		} `json:"transactions"`
	}
	if json.Unmarshal(a.raw, &m) != nil || len(m.Transactions) == 0 {
		return ""
	}
	var id string
	if json.Unmarshal(m.Transactions[0].ID, &id) == nil {
		return id
	}
	var n json.Number
	if json.Unmarshal(m.Transactions[0].ID, &n) == nil {
		return n.String()
	}
	return ""
}

// call sends body once.
func (c *Client) call(ctx context.Context, op betting.Operator, path string, body []byte) (answer, error) {
	u, err := url.Parse(strings.TrimRight(op.WalletURL, "/") + path)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(c.calls.AllowsInsecure() && u.Scheme == "http")) {
		return answer{}, fmt.Errorf("%w: operator %s's wallet URL must be an absolute https URL", ErrConfig, op.ID)
	}
	if op.SigningSecret == "" {
		return answer{}, fmt.Errorf("%w: operator %s has no signing secret", ErrConfig, op.ID)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-REQUEST-SIGN", Sign(op.SigningSecret, body))
	sent := c.calls.Send(ctx, http.MethodPost, u.String(), body, h)
	switch {
	case sent.Status == 0 && errors.Is(sent.Err, netguard.ErrForbiddenAddress):
		return answer{}, sent.Err
	case sent.Status == 0:
		return answer{sent: sent, kind: temporary, detail: "no answer"}, nil
	case sent.Err != nil:
		return answer{sent: sent, kind: temporary, detail: "answer cut short", malformed: true}, nil
	}
	a := classify(sent.Status, sent.Body)
	a.sent = sent
	return a, nil
}

// attempt records the call as an attempt of tx.
func (a answer) attempt(tx walletcall.Transaction) betting.WalletAttempt {
	switch a.kind {
	case done:
		return tx.Attempt(a.sent, betting.AttemptDone, "", false)
	case final:
		return tx.Attempt(a.sent, betting.AttemptRefused, string(a.code), false)
	case temporary:
	}
	return tx.Attempt(a.sent, betting.AttemptUnknown, "", a.malformed)
}

// Withdraw debits the bet's stake: a Player/Balance first (its answer does
// not stop the bet), then Round/BetWin with the bet, resent while the
// answers are temporary (BetAttempts, backoff). A 200 without round_id or
// balance is a failure whose debit is reversed (wallet_rolled_back); no
// definite answer is wallet_provider_unavailable with a rollback. When ctx
// ends before a definite answer, Withdraw stops at once and returns
// ctx.Err() with the attempts sent (walletcall's cancellation rule).
func (c *Client) Withdraw(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	if _, err := c.Balance(ctx, op, b.BettorID, b.Currency, b.SessionID); errors.Is(err, ErrConfig) {
		return betting.WalletAnswer{}, err
	}
	body := BetBody(player(b), b.ID, b.WithdrawalTxID, b.Stake)
	tx := walletcall.Transaction{Bet: b, Kind: betting.TxWithdrawal, ID: b.WithdrawalTxID, Amount: b.Stake}
	var last answer
	var attempts []betting.WalletAttempt
	err := walletcall.DebitRetries.Retry(ctx, func(int) (bool, error) {
		a, err := c.call(ctx, op, PathBetWin, body)
		if err != nil {
			return false, err
		}
		last = a
		attempts = append(attempts, a.attempt(tx))
		return a.kind != temporary, nil
	})
	if err != nil {
		// Nothing sent, or stopped by ctx (walletcall's cancellation rule):
		// the placement runs again with the same bytes.
		return betting.WalletAnswer{Attempts: attempts}, err
	}
	switch last.kind {
	case final:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: last.code, Detail: last.detail, Attempts: attempts}, nil
	case done:
		balance, ok := last.balance()
		if !ok || !last.hasRoundID() {
			// Not the answer the protocol requires: the debit is reversed.
			attempts[len(attempts)-1].Result, attempts[len(attempts)-1].Error = betting.AttemptUnknown, betting.FailureUnreadableAnswer
			return betting.WalletAnswer{Status: betting.WalletUnknown, Code: betting.RejectWalletRolledBack,
				Detail: "Round/BetWin answered 200 without round_id or balance", Attempts: attempts}, nil
		}
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: last.transactionID(), Balance: &balance, Attempts: attempts}, nil
	case temporary:
	}
	return betting.WalletAnswer{Status: betting.WalletUnknown, Code: betting.RejectWalletUnavailable, Detail: last.detail, Attempts: attempts}, nil
}

// Rollback reverses the bet's stake (Round/Rollback naming the stake's
// id_provider), one attempt; Done only on a 200 without an api_code and
// with a decimal-string balance (anything else is sent again).
func (c *Client) Rollback(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	body := RollbackBody(player(b), b.ID, rollbackID(b), b.WithdrawalTxID)
	return c.credit(ctx, op, PathRollback, body, walletcall.Transaction{Bet: b, Kind: betting.TxRollback, ID: rollbackID(b), Amount: b.Stake})
}

// Deposit closes a settled or voided bet's round, one attempt: a win
// (payout rounded to 12 decimals, trailing zeros removed: settlement
// rounds it so already, and the wire allows no more) or a void (the stake)
// is a Round/BetWin win with finished true; a loss is Round/Finish. The
// amount recorded with the attempt is the amount sent.
// Done only on a 200 without an api_code and with a decimal-string
// balance: a 200 without one is not the protocol's answer, and is sent
// again.
func (c *Client) Deposit(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	if b.PayoutAmount == nil {
		return betting.WalletCredit{}, fmt.Errorf("bet %s has no payout", b.ID)
	}
	var path string
	var body []byte
	paid := *b.PayoutAmount
	switch {
	case b.Status == betting.BetVoided || b.PayoutAmount.IsPositive():
		paid = b.PayoutAmount.RoundToCurrency(money.AggregatorDecimals)
		if b.Status == betting.BetVoided {
			paid = b.Stake
		}
		path, body = PathBetWin, WinBody(player(b), b.ID, creditID(b), paid)
	default:
		path, body = PathFinish, FinishBody(player(b), b.ID)
	}
	return c.credit(ctx, op, path, body, walletcall.Transaction{Bet: b, Kind: betting.TxDeposit, ID: creditID(b), Amount: paid})
}

// credit sends a deposit's or a rollback's body once (walletcall.CreditOnce);
// the attempt is recorded as one of tx. When ctx ends before a definite
// answer, it returns ctx.Err() with the attempt (walletcall's cancellation
// rule).
func (c *Client) credit(ctx context.Context, op betting.Operator, path string, body []byte, tx walletcall.Transaction) (betting.WalletCredit, error) {
	var out betting.WalletCredit
	err := walletcall.CreditOnce.Retry(ctx, func(int) (bool, error) {
		a, err := c.call(ctx, op, path, body)
		if err != nil {
			return false, err
		}
		balance, ok := a.balance()
		if a.kind == done && !ok {
			// A 200 without the balance every answer of the protocol
			// carries is not the aggregator's answer (a proxy's, a
			// stub's): the credit may not have been applied, so it is
			// sent again, idempotently.
			a.kind, a.malformed = temporary, true
		}
		out.Attempts = []betting.WalletAttempt{a.attempt(tx)}
		if a.kind == done {
			out.Done, out.Balance = true, &balance
		}
		return a.kind != temporary, nil
	})
	return out, err
}

// Balance reads a player's balance (Player/Balance), one attempt.
func (c *Client) Balance(ctx context.Context, op betting.Operator, accountID, currency, sessionID string) (money.Amount, error) {
	a, err := c.call(ctx, op, PathBalance, BalanceBody(Player{AccountID: accountID, Currency: currency, SessionID: sessionID}))
	if err != nil {
		return money.Amount{}, err
	}
	if a.kind != done {
		return money.Amount{}, fmt.Errorf("Player/Balance: %s", a.detail)
	}
	balance, ok := a.balance()
	if !ok {
		return money.Amount{}, errors.New("Player/Balance: no readable balance")
	}
	return balance, nil
}
