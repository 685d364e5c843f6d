package casino

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxcore"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxledger"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// GameID is the only game_id the casino accepts: the platform's game.
const GameID = "prediction-markets"

// MaxBodyBytes bounds a request body (64 KiB).
const MaxBodyBytes = 64 << 10

// DefaultDecimals is the number of decimals of a currency that is neither
// in Config.Decimals nor an ISO 4217 currency with minor units.
const DefaultDecimals = 2

// MaxDecimals is the largest number of decimals a currency may have, and the
// most an amount may carry (aggregator-api.md: 12 after the point).
const MaxDecimals = money.MaxFractionalDigits

// SignatureHeader carries the request signature.
const SignatureHeader = "X-REQUEST-SIGN"

// Wallet paths served by Handler, below the wallet base URL.
const (
	PathBalance  = "/v2/provider_agg.Player/Balance"
	PathBetWin   = "/v2/provider_agg.Round/BetWin"
	PathFinish   = "/v2/provider_agg.Round/Finish"
	PathRollback = "/v2/provider_agg.Round/Rollback"
)

// Endpoint names, for fault injection.
const (
	EndpointBalance  = "balance"
	EndpointBetWin   = "betwin"
	EndpointFinish   = "finish"
	EndpointRollback = "rollback"
)

// Config configures a Casino.
type Config struct {
	// SigningSecret is the secret shared with the platform: the key of the
	// HMAC-SHA256 in X-REQUEST-SIGN. Required without a Journal. With a
	// Journal, an empty SigningSecret means the secret recorded in the
	// journal, or a new random one (read it with SigningSecret) that is
	// recorded there and so survives a restart.
	SigningSecret string
	// StartingBalance, when not empty, makes unknown accounts exist: an
	// account first named by a wallet request is created, in that
	// request's currency, with this balance (a non-negative decimal string
	// with at most 12 decimals, kept exactly). When empty, a request for an
	// unknown account is refused with api_code 404 and accounts are created
	// by SetBalance.
	StartingBalance string
	// Decimals sets the decimals balances are written with, per currency
	// code (3 to 7 upper-case letters or digits) → 0 to MaxDecimals. Codes
	// not listed use their ISO 4217 minor units (USD 2, JPY 0, KWD 3) and
	// other codes (BTC, USDT) DefaultDecimals.
	Decimals map[string]int32
	// BetLimit, when not empty, is the largest stake of one bet for every
	// account (a positive decimal string); SetBetLimit overrides it per
	// account. A larger bet is refused with api_code 105.
	BetLimit string
	// Now is the casino's clock, used for ledger times. Default time.Now.
	Now func() time.Time
	// Journal, when set, keeps the casino's state: every change is
	// appended to it before it is answered, and New replays it (see the
	// package documentation, "Persistence"). The caller opens and closes
	// it; one journal serves one Casino at a time. Nil keeps everything in
	// memory.
	Journal *journal.Journal
}

// Casino is an in-memory sandbox aggregator wallet. Create it with New;
// serve Handler. Its methods are safe for concurrent use.
type Casino struct {
	// The every-account fault switches: FailNext, RejectNext,
	// RefuseRetryNext, MalformedNext, DelayNext, StallNext and
	// DropResponseNext (see Faults).
	*everyAccount
	// The journal's setup and keeper and the armed faults, with
	// SigningSecret, Close and ClearFaults.
	sandboxcore.Core[configRecord]

	cfg Config

	mu sync.Mutex
	// State replayed from the journal, replaced as one after a failed
	// append (see install).
	replayed
}

// replayed is the casino's state that its journal keeps.
type replayed struct {
	decimals   map[string]int32
	starting   *money.Amount
	betLimit   *money.Amount
	accounts   map[string]*account
	blocked    map[string]bool
	limits     map[string]money.Amount
	txs        map[string]*record      // id_provider → first definitive answer
	processed  map[string]*transaction // id_provider of a bet or win that moved money
	tombstones map[string]string       // original_id_provider never seen → rollback id_provider
	rounds     map[string]*round       // platform round_id → round
	finishes   map[string]*record      // platform round_id → first Finish answer
	ledger     sandboxledger.Ledger[Entry, *Entry]
	txSeq      int64
	roundSeq   int64
	storeSeq   int64 // stored answers, in order
}

// account is one wallet: one balance in one currency.
type account struct {
	currency string
	balance  money.Amount
}

// round is a platform round (a bet) as the casino knows it.
type round struct {
	seq      int64  // the n of id
	id       string // the casino's round id
	account  string
	currency string
	finished bool
}

// transaction is a bet or win that was processed.
type transaction struct {
	kind       string // "bet" or "win"
	account    string
	roundID    string // the platform's round_id
	amount     money.Amount
	casinoTxID string
	reversedBy string // id_provider of the rollback that reversed it
}

// record is a stored answer.
type record struct {
	seq         int64 // order of storage, from 1
	at          time.Time
	account     string
	endpoint    string
	fingerprint string
	resp        response
}

// EntryType is the kind of a ledger entry.
type EntryType string

// Ledger entry types.
const (
	// EntryBet is a stake debited by Round/BetWin (type bet).
	EntryBet EntryType = "bet"
	// EntryWin is a win credited by Round/BetWin (type win), also a void
	// or refund sent as a win of the stake.
	EntryWin EntryType = "win"
	// EntryRollback is a Round/Rollback answered 200: it credits a bet's
	// stake back, debits a win (not below zero), or moves nothing when the
	// original was never processed or already reversed.
	EntryRollback EntryType = "rollback"
	// EntryFinish is the first Round/Finish of a round; no money moves.
	EntryFinish EntryType = "finish"
)

// Entry is one transaction the casino processed. Replays, refusals and
// balance changes made with SetBalance or StartingBalance are not entries.
type Entry struct {
	// Stamp numbers the entry and holds the casino's clock when it was
	// made.
	sandboxledger.Stamp
	// Type is what made the entry.
	Type EntryType `json:"type"`
	// Account and Currency name the wallet.
	Account  string `json:"account_id"`
	Currency string `json:"currency"`
	// Amount is the signed change of the balance, written like balances:
	// "-10.00" for a bet, "25.50" for a win, "10.00" for the rollback of a
	// bet, "0.00" for a finish or a rollback that moved nothing.
	Amount string `json:"amount"`
	// BalanceAfter is the balance after the entry.
	BalanceAfter string `json:"balance_after"`
	// IDProvider is the platform's id_provider; empty for a finish.
	IDProvider string `json:"id_provider,omitempty"`
	// OriginalIDProvider is, for a rollback, the id_provider it reverses.
	OriginalIDProvider string `json:"original_id_provider,omitempty"`
	// RoundID is the platform's round_id (round_id_provider of a
	// rollback).
	RoundID string `json:"round_id"`
	// CasinoRoundID is the casino's id of the round, the round_id of its
	// answers.
	CasinoRoundID string `json:"casino_round_id"`
	// CasinoTxID is the casino's id of the transaction, the id of its
	// answer; empty for a finish and for a rollback whose original was
	// never processed.
	CasinoTxID string `json:"casino_tx_id,omitempty"`
}

// Round describes a round the casino knows.
type Round struct {
	// RoundID is the platform's round_id.
	RoundID string
	// CasinoRoundID is the casino's own id, the round_id of its answers.
	CasinoRoundID string
	Account       string
	Currency      string
	// Finished is set by Round/Finish or a Round/BetWin with finished true.
	Finished bool
}

// currencies are the currency codes the casino accepts.
var currencies = sandboxweb.CurrencyCodes{
	Pattern:     regexp.MustCompile(`^[A-Z0-9]{3,7}$`),
	Described:   "3 to 7 upper-case letters or digits",
	MaxDecimals: MaxDecimals,
}

// New checks cfg and returns a Casino. Without Config.Journal it has no
// accounts. With one, New replays it (see "Persistence" in the package
// documentation) and fails if a record cannot be applied; it appends the
// configuration and a generated signing secret when the journal lacks
// them.
func New(cfg Config) (*Casino, error) {
	c, err := build(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Journal == nil {
		if cfg.SigningSecret == "" {
			return nil, errors.New("casino: Config.SigningSecret is required")
		}
		return c, nil
	}
	if err := c.Keeper.Open(c.applyRecord, c.lacking); err != nil {
		return nil, err
	}
	return c, nil
}

// build checks cfg and returns a Casino with no state.
func build(cfg Config) (*Casino, error) {
	c := &Casino{
		Core: sandboxcore.New(configOf(cfg), cfg.SigningSecret, protocol),
		cfg:  cfg,
		replayed: replayed{
			accounts:   make(map[string]*account),
			blocked:    make(map[string]bool),
			limits:     make(map[string]money.Amount),
			txs:        make(map[string]*record),
			processed:  make(map[string]*transaction),
			tombstones: make(map[string]string),
			rounds:     make(map[string]*round),
			finishes:   make(map[string]*record),
		},
	}
	c.everyAccount = c.Faults.Every()
	rebuild := func() (*Casino, error) { return build(cfg) }
	c.Keeper = journal.NewKeeper(cfg.Journal, cfg.Now, "casino", ErrJournal, journal.Rebuild(rebuild, (*Casino).applyRecord, c.install))
	if err := c.applyConfig(configOf(cfg)); err != nil {
		return nil, fmt.Errorf("casino: %w", err)
	}
	return c, nil
}

// applyConfig sets the configuration that decides how operations apply:
// decimals, the starting balance and the bet limit. Errors name the Config
// field.
func (c *Casino) applyConfig(r configRecord) error {
	decimals, err := currencies.Decimals(r.Decimals)
	if err != nil {
		return err
	}
	var starting, betLimit *money.Amount
	if r.StartingBalance != "" {
		a, err := money.ParseNonNegative(r.StartingBalance)
		if err != nil {
			return fmt.Errorf("Config.StartingBalance: %w", err)
		}
		starting = &a
	}
	if r.BetLimit != "" {
		a, err := money.ParsePositive(r.BetLimit)
		if err != nil {
			return fmt.Errorf("Config.BetLimit: %w", err)
		}
		betLimit = &a
	}
	c.decimals, c.starting, c.betLimit = decimals, starting, betLimit
	return nil
}

// SetBalance sets an account's balance, creating the account in currency
// if it does not exist. amount is a non-negative decimal string with at most
// 12 decimals, kept exactly. An account's currency never changes: another
// currency than the account's is an error. SetBalance makes no ledger
// entry. With a journal the change is recorded in it (an error appending
// changes nothing).
func (c *Casino) SetBalance(accountID, currency, amount string) error {
	return c.adjust(&walletOp{}, accountID, currency, amount, false)
}

// Credit adds a positive amount (at most 12 decimals, kept exactly) to an
// account's balance, creating the account in currency with a zero balance
// first if needed; currency rules and the journal as for SetBalance.
// Credit makes no ledger entry.
func (c *Casino) Credit(accountID, currency, amount string) error {
	return c.adjust(&walletOp{}, accountID, currency, amount, true)
}

func (c *Casino) adjust(x *walletOp, accountID, currency, amount string, add bool) error {
	if err := sandboxweb.CheckID("account id", accountID); err != nil {
		return fmt.Errorf("casino: %w", err)
	}
	if err := currencies.Check(currency); err != nil {
		return fmt.Errorf("casino: %w", err)
	}
	parse := money.ParseNonNegative
	if add {
		parse = money.ParsePositive
	}
	a, err := parse(amount)
	if err != nil {
		return fmt.Errorf("casino: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.Keeper.Begin(&x.Op); err != nil {
		return err
	}
	acct := c.accounts[accountID]
	if acct != nil && acct.currency != currency {
		return fmt.Errorf("casino: account %q holds %s, not %s", accountID, acct.currency, currency)
	}
	if acct == nil {
		acct = &account{currency: currency}
		c.accounts[accountID] = acct
	}
	kind := kindSetBalance
	if add {
		kind = kindCredit
		acct.balance = acct.balance.Add(a)
	} else {
		acct.balance = a
	}
	return c.Keeper.Commit(&x.Op, kind, accountRecord{AccountID: accountID, Currency: currency, Amount: amount})
}

// Balance returns an account's balance as the casino writes it in answers
// ("89.50"; "1000" in JPY), and false if the account does not exist or
// holds another currency than currency.
func (c *Casino) Balance(accountID, currency string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	acct := c.accounts[accountID]
	if acct == nil || acct.currency != currency {
		return "", false
	}
	return c.format(acct.balance, acct.currency), true
}

// Block makes bets of accountID fail with api_code 110 (player disabled),
// whether or not the account exists yet. Wins, finishes, rollbacks and
// balance reads still go through. The only error is a failure of the
// journal, which changes nothing.
func (c *Casino) Block(accountID string) error { return c.setBlocked(&walletOp{}, accountID, true) }

// Unblock undoes Block; errors as for Block.
func (c *Casino) Unblock(accountID string) error { return c.setBlocked(&walletOp{}, accountID, false) }

func (c *Casino) setBlocked(x *walletOp, accountID string, blocked bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Keeper.SetBlocked(&x.Op, c.blocked, accountID, blocked, accountRecord{AccountID: accountID})
}

// SetBetLimit sets the largest stake of one bet of accountID (a positive
// decimal string), overriding Config.BetLimit; "" removes the account's own
// limit. A larger bet is refused with api_code 105. With a journal the
// change is recorded in it (an error appending changes nothing).
func (c *Casino) SetBetLimit(accountID, limit string) error {
	return c.setBetLimit(&walletOp{}, accountID, limit)
}

func (c *Casino) setBetLimit(x *walletOp, accountID, limit string) error {
	var a money.Amount
	if limit != "" {
		var err error
		if a, err = money.ParsePositive(limit); err != nil {
			return fmt.Errorf("casino: bet limit: %w", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.Keeper.Begin(&x.Op); err != nil {
		return err
	}
	if limit == "" {
		delete(c.limits, accountID)
	} else {
		c.limits[accountID] = a
	}
	return c.Keeper.Commit(&x.Op, kindBetLimit, accountRecord{AccountID: accountID, Amount: limit})
}

// Ledger returns a copy of every entry so far, oldest first.
func (c *Casino) Ledger() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ledger.All()
}

// Round returns the round the platform calls roundID, and false if the
// casino has not seen it (a round is created by its first bet or win, or by
// a rollback naming it).
func (c *Casino) Round(roundID string) (Round, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rounds[roundID]
	if r == nil {
		return Round{}, false
	}
	return Round{RoundID: roundID, CasinoRoundID: r.id, Account: r.account, Currency: r.currency, Finished: r.finished}, true
}

// currencyDecimals returns the decimals balances of code are written with.
func (c *Casino) currencyDecimals(code string) int32 {
	if d, ok := c.decimals[code]; ok {
		return d
	}
	if d, ok := money.CurrencyDecimals(code); ok && d <= MaxDecimals {
		return d
	}
	return DefaultDecimals
}

// format writes a with the currency's decimals, or with more when a has
// more significant decimals: no digit is ever lost ("10.00", "9.875",
// "0.000000000001").
func (c *Casino) format(a money.Amount, currency string) string {
	return formatAmount(a, c.currencyDecimals(currency))
}

func formatAmount(a money.Amount, decimals int32) string {
	exact := a.String() // trailing zeros removed, no rounding
	places := int32(0)
	if i := strings.IndexByte(exact, '.'); i >= 0 {
		places = int32(len(exact) - i - 1)
	}
	return a.StringFixed(max(decimals, places))
}

// ensureAccountLocked returns the account, creating it in currency with
// Config.StartingBalance if that is configured; nil for an unknown account
// otherwise.
func (c *Casino) ensureAccountLocked(accountID, currency string) *account {
	if acct := c.accounts[accountID]; acct != nil || c.starting == nil {
		return acct
	}
	acct := &account{currency: currency, balance: *c.starting}
	c.accounts[accountID] = acct
	return acct
}

// betLimitLocked returns the bet limit of an account, if any.
func (c *Casino) betLimitLocked(accountID string) (money.Amount, bool) {
	if l, ok := c.limits[accountID]; ok {
		return l, true
	}
	if c.betLimit != nil {
		return *c.betLimit, true
	}
	return money.Amount{}, false
}

// roundLocked returns the round roundID, creating it for the account.
func (c *Casino) roundLocked(roundID, accountID, currency string) *round {
	if r := c.rounds[roundID]; r != nil {
		return r
	}
	c.roundSeq++
	r := &round{seq: c.roundSeq, id: "casino-round-" + strconv.FormatInt(c.roundSeq, 10), account: accountID, currency: currency}
	c.rounds[roundID] = r
	return r
}

// nextTxIDLocked returns a fresh casino transaction id.
func (c *Casino) nextTxIDLocked() string {
	c.txSeq++
	return "casino-tx-" + strconv.FormatInt(c.txSeq, 10)
}

// recordLocked appends a ledger entry made at time at; its Stamp,
// Currency, Amount and BalanceAfter are filled in here.
func (c *Casino) recordLocked(at time.Time, e Entry, acct *account, delta money.Amount) {
	e.Currency = acct.currency
	e.Amount = c.format(delta, acct.currency)
	e.BalanceAfter = c.format(acct.balance, acct.currency)
	c.ledger.Append(at, e)
}
