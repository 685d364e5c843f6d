package operator

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxcore"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxledger"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// DefaultCurrency is the currency of bettors created without one when
// Config.Currency is empty.
const DefaultCurrency = "USD"

// DefaultTokenLifetime is the lifetime of session JWTs when
// Config.TokenLifetime is zero.
const DefaultTokenLifetime = time.Hour

// SessionRequestTTL is how long a session_request_id can be exchanged.
const SessionRequestTTL = 2 * time.Minute

// MaxClockSkew is how far X-Timestamp may lie from the operator's clock, in
// either direction.
const MaxClockSkew = 5 * time.Minute

// NonceRetention is how long a nonce is remembered: twice MaxClockSkew, so a
// request cannot be replayed for as long as its timestamp is acceptable.
const NonceRetention = 10 * time.Minute

// KeyBits is the size of the RSA keys the operator generates.
const KeyBits = 2048

// maxBodyBytes bounds a request body.
const maxBodyBytes = 1 << 20

// Config configures an Operator.
type Config struct {
	// ID is the operator's identifier (OPERATOR_ID), the iss claim of its
	// session JWTs. Required.
	ID string
	// SigningSecret is PLATFORM_HMAC_SECRET, shared with the platform, which
	// signs every wallet call with it. Required without a Journal. With a
	// Journal, an empty SigningSecret means the secret recorded in the
	// journal, or a new random one (read it with SigningSecret) that is
	// recorded there and so survives a restart.
	SigningSecret string
	// Currency is the currency of bettors created by a helper called with
	// currency "" (SetBalance, Credit, CreateSessionRequest, MintToken).
	// Default DefaultCurrency (USD).
	Currency string
	// Decimals adds currencies, or overrides the ISO 4217 minor units of
	// one: code (3 to 5 upper-case letters) → decimal places, 0 to
	// money.MaxScale. Currencies outside ISO 4217 (BTC, USDT) are refused
	// unless listed here.
	Decimals map[string]int32
	// StartingBalance, when not empty, makes unknown bettors exist: a bettor
	// first named by a withdrawal, a session request or MintToken is created
	// with this balance (a non-negative decimal string, rounded to the
	// currency's decimals). When empty, such a withdrawal is 404
	// bettor_not_found and bettors are created by SetBalance or Credit.
	StartingBalance string
	// PrivateKey signs session JWTs. When nil, a KeyBits-bit key is
	// generated. Keys below 2048 bits are refused. With a Journal, the keys
	// are the ones recorded in it (created and rotated keys are recorded):
	// PrivateKey, or the generated key, is used and recorded only when the
	// journal holds no key yet.
	PrivateKey *rsa.PrivateKey
	// KeyID is the kid of PrivateKey. Default: its RFC 7638 thumbprint.
	KeyID string
	// TokenLifetime is the lifetime of session JWTs. Default
	// DefaultTokenLifetime (1 hour). SetTokenLifetime overrides it at run
	// time.
	TokenLifetime time.Duration
	// AllowedOrigins are the browser origins ("https://widget.example")
	// allowed to call POST /v1/session cross-origin. Empty allows any
	// origin.
	AllowedOrigins []string
	// Now is the operator's clock. Default time.Now.
	Now func() time.Time
	// Journal, when set, keeps the operator's state: every change is
	// appended to it before it is answered, and New replays it (see the
	// package documentation, "Persistence"). The caller opens and closes
	// it; one journal serves one Operator at a time. Nil keeps everything
	// in memory.
	Journal *journal.Journal
}

// Operator is an in-memory sandbox operator. Create it with New; serve
// Handler. Its methods are safe for concurrent use.
type Operator struct {
	// The every-bettor fault switches: FailNext, RejectNext,
	// RefuseRetryNext, MalformedNext, DelayNext, StallNext and
	// DropResponseNext (see Faults).
	*everyBettor
	// The journal's setup and keeper and the armed faults, with
	// SigningSecret, Close and ClearFaults.
	sandboxcore.Core[configRecord]

	id       string
	lifetime time.Duration // Config.TokenLifetime or its default
	origins  map[string]bool
	now      func() time.Time
	cfg      Config

	mu sync.Mutex
	// State replayed from the journal, replaced as one after a failed
	// append (see install).
	replayed
	// Live state, never journalled.
	nonces     map[uuid.UUID]time.Time
	nonceSweep time.Time
	sessions   map[string]*sessionRequest
}

// replayed is the operator's state that its journal keeps.
type replayed struct {
	currency    string
	decimals    map[string]int32
	starting    *money.Amount
	keys        []*signingKey // oldest first; the last one signs
	lifetimeSet time.Duration // SetTokenLifetime's override of lifetime; 0 when none
	bettors     map[string]*bettor
	blocked     map[string]bool
	txs         map[string]*txRecord
	withdrawals map[string]*withdrawalState
	tombstones  map[string]bool
	ledger      sandboxledger.Ledger[Entry, *Entry]
	opSeq       int64
	txSeq       int64
}

// bettor is one wallet.
type bettor struct {
	currency string
	balance  money.Amount
}

// txRecord is the stored first answer of a transaction_id.
type txRecord struct {
	seq         int64 // order of storage, from 1
	at          time.Time
	kind        string // endpoint name
	pathID      string // a rollback's withdrawal id
	bettorID    string
	fingerprint string
	status      int
	body        []byte
}

// withdrawalState is a withdrawal that debited a stake.
type withdrawalState struct {
	bettorID   string
	currency   string
	amount     money.Amount
	marketID   string
	reversedBy string // transaction_id of the rollback that reversed it
	settledBy  string // transaction_id of the deposit that settled it
}

// EntryType is the kind of a ledger entry.
type EntryType string

// Ledger entry types.
const (
	// EntryWithdrawal is a stake debited by POST /v1/withdrawals.
	EntryWithdrawal EntryType = "withdrawal"
	// EntryDeposit is a payout credited by POST /v1/deposits, zero for a
	// lost bet.
	EntryDeposit EntryType = "deposit"
	// EntryRollback is a stake credited back by DELETE /v1/rollbacks/{id}.
	EntryRollback EntryType = "rollback"
	// EntryAdjustment is a change made with SetBalance or Credit.
	EntryAdjustment EntryType = "adjustment"
)

// Entry is one movement of a bettor's balance.
type Entry struct {
	// Stamp numbers the entry and holds the operator's clock when it was
	// made.
	sandboxledger.Stamp
	// Type is what made the entry.
	Type EntryType `json:"type"`
	// TransactionID is the platform's transaction_id; empty for
	// adjustments.
	TransactionID string `json:"transaction_id"`
	// OperatorTransactionID is the operator's own id ("op-tx-<n>"), the
	// transaction_id of its answer.
	OperatorTransactionID string `json:"operator_transaction_id"`
	// Reference is the withdrawal's transaction_id for a deposit
	// (metadata.withdrawal_transaction_id) and for a rollback (its path
	// id); empty otherwise.
	Reference string `json:"reference,omitempty"`
	// BettorID is the bettor whose balance moved.
	BettorID string `json:"bettor_id"`
	// Currency is the bettor's currency.
	Currency string `json:"currency"`
	// Amount is the signed change of the balance with the currency's
	// decimals: "-10.50" for a withdrawal, "0.00" for a lost bet's deposit.
	Amount string `json:"amount"`
	// BalanceAfter is the balance after the entry, with the currency's
	// decimals.
	BalanceAfter string `json:"balance_after"`
}

// currencies are the currency codes the operator accepts.
var currencies = sandboxweb.CurrencyCodes{
	Pattern:     regexp.MustCompile(`^[A-Z]{3,5}$`),
	Described:   "3 to 5 upper-case letters",
	MaxDecimals: money.MaxScale,
}

// New checks cfg and returns an Operator. Without Config.Journal it has no
// bettors. With one, New replays it (see "Persistence" in the package
// documentation) and fails if a record cannot be applied; it appends the
// configuration, the first key and a generated signing secret when the
// journal lacks them.
func New(cfg Config) (*Operator, error) {
	o, err := build(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Journal == nil {
		if cfg.SigningSecret == "" {
			return nil, errors.New("operator: Config.SigningSecret (PLATFORM_HMAC_SECRET) is required")
		}
		key, err := initialKey(cfg)
		if err != nil {
			return nil, err
		}
		o.keys = []*signingKey{key}
		return o, nil
	}
	if err := o.Keeper.Open(o.applyRecord, o.lacking); err != nil {
		return nil, err
	}
	return o, nil
}

// build checks cfg and returns an Operator with no state and no key.
func build(cfg Config) (*Operator, error) {
	if cfg.ID == "" {
		return nil, errors.New("operator: Config.ID (OPERATOR_ID) is required")
	}
	o := &Operator{
		id:       cfg.ID,
		Core:     sandboxcore.New(configOf(cfg), cfg.SigningSecret, protocol),
		lifetime: cfg.TokenLifetime,
		now:      cfg.Now,
		cfg:      cfg,
		replayed: replayed{
			bettors:     make(map[string]*bettor),
			blocked:     make(map[string]bool),
			txs:         make(map[string]*txRecord),
			withdrawals: make(map[string]*withdrawalState),
			tombstones:  make(map[string]bool),
		},
		nonces:   make(map[uuid.UUID]time.Time),
		sessions: make(map[string]*sessionRequest),
	}
	o.everyBettor = o.Faults.Every()
	if o.now == nil {
		o.now = time.Now
	}
	rebuild := func() (*Operator, error) { return build(cfg) }
	o.Keeper = journal.NewKeeper(cfg.Journal, o.now, "operator", ErrJournal, journal.Rebuild(rebuild, (*Operator).applyRecord, o.install))
	if err := o.applyConfig(configOf(cfg)); err != nil {
		return nil, fmt.Errorf("operator: %w", err)
	}
	switch {
	case o.lifetime == 0:
		o.lifetime = DefaultTokenLifetime
	case o.lifetime < time.Second:
		return nil, fmt.Errorf("operator: Config.TokenLifetime %v must be at least a second", o.lifetime)
	}
	if len(cfg.AllowedOrigins) > 0 {
		o.origins = make(map[string]bool, len(cfg.AllowedOrigins))
		for _, origin := range cfg.AllowedOrigins {
			o.origins[origin] = true
		}
	}
	return o, nil
}

// applyConfig sets the configuration that decides how operations apply:
// the default currency, the currencies' decimals and the starting
// balance. Errors name the Config field.
func (o *Operator) applyConfig(c configRecord) error {
	decimals, err := currencies.Decimals(c.Decimals)
	if err != nil {
		return err
	}
	var starting *money.Amount
	if c.StartingBalance != "" {
		a, err := money.ParseNonNegative(c.StartingBalance)
		if err != nil {
			return fmt.Errorf("Config.StartingBalance: %w", err)
		}
		starting = &a
	}
	currency := c.Currency
	if currency == "" {
		currency = DefaultCurrency
	}
	prev := o.decimals
	o.decimals = decimals
	if _, err := o.currencyDecimals(currency); err != nil {
		o.decimals = prev
		return fmt.Errorf("Config.Currency: %w", err)
	}
	o.currency, o.starting = currency, starting
	return nil
}

// initialKey is Config.PrivateKey, or a new key.
func initialKey(cfg Config) (*signingKey, error) {
	priv := cfg.PrivateKey
	if priv == nil {
		var err error
		if priv, err = rsa.GenerateKey(rand.Reader, KeyBits); err != nil {
			return nil, fmt.Errorf("operator: generating the signing key: %w", err)
		}
	}
	return newSigningKey(priv, cfg.KeyID)
}

// ID returns Config.ID, the iss claim of the operator's tokens.
func (o *Operator) ID() string { return o.id }

// Handler returns the operator's HTTP API (see the package documentation).
func (o *Operator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/withdrawals", o.endpoint(endpointWithdrawals, true, o.withdraw))
	mux.Handle("POST /v1/deposits", o.endpoint(endpointDeposits, true, o.deposit))
	mux.Handle("DELETE /v1/rollbacks/{id}", o.endpoint(endpointRollbacks, true, o.rollback))
	mux.Handle("POST /v1/session", o.endpoint(endpointSession, false, o.exchangeSession))
	mux.HandleFunc("OPTIONS /v1/session", o.sessionPreflight)
	mux.HandleFunc("GET /.well-known/jwks.json", o.serveJWKS)
	return mux
}

// SetBalance sets a bettor's balance, creating the bettor with that
// currency if it does not exist (currency "" means the bettor's currency,
// or Config.Currency for a new bettor). amount is a non-negative decimal
// string with at most the currency's decimals. A bettor's currency never
// changes: another currency than the bettor's is an error. The change is
// recorded in the ledger as an adjustment, and in the journal if any (an
// error appending changes nothing).
func (o *Operator) SetBalance(bettorID, currency, amount string) error {
	return o.adjust(&journal.Op{}, bettorID, currency, amount, false)
}

// Credit adds a positive amount to a bettor's balance, creating the bettor
// with a zero balance first if needed; currency as for SetBalance. The
// change is recorded in the ledger as an adjustment, and in the journal if
// any (an error appending changes nothing).
func (o *Operator) Credit(bettorID, currency, amount string) error {
	return o.adjust(&journal.Op{}, bettorID, currency, amount, true)
}

func (o *Operator) adjust(x *journal.Op, bettorID, currency, amount string, add bool) error {
	if err := sandboxweb.CheckID("bettor id", bettorID); err != nil {
		return fmt.Errorf("operator: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	b, currency, decimals, err := o.beginBettorLocked(x, bettorID, currency)
	if err != nil {
		return err
	}
	a, err := parseAmount(amount, currency, decimals, add)
	if err != nil {
		return fmt.Errorf("operator: %w", err)
	}
	if b == nil {
		b = &bettor{currency: currency}
		o.bettors[bettorID] = b
	}
	delta := a
	if !add {
		delta = a.Sub(b.balance)
	}
	b.balance = b.balance.Add(delta)
	o.record(x.At, EntryAdjustment, "", "", "", bettorID, b, delta, decimals)
	kind := kindSetBalance
	if add {
		kind = kindCredit
	}
	return o.Keeper.Commit(x, kind, bettorRecord{BettorID: bettorID, Currency: currency, Amount: amount})
}

// beginBettorLocked starts the helper call x on bettorID
// (journal.Keeper.Begin) and resolves its currency: currency, or when ""
// the bettor's (Config.Currency for a new bettor), which must be supported
// and, for an existing bettor, its own. It returns the bettor (nil for a
// new one), the currency and its decimals.
func (o *Operator) beginBettorLocked(x *journal.Op, bettorID, currency string) (*bettor, string, int32, error) {
	if err := o.Keeper.Begin(x); err != nil {
		return nil, "", 0, err
	}
	b := o.bettors[bettorID]
	if currency == "" {
		currency = o.currency
		if b != nil {
			currency = b.currency
		}
	}
	decimals, err := o.currencyDecimals(currency)
	if err != nil {
		return nil, "", 0, fmt.Errorf("operator: %w", err)
	}
	if b != nil && b.currency != currency {
		return nil, "", 0, fmt.Errorf("operator: bettor %q holds %s, not %s", bettorID, b.currency, currency)
	}
	return b, currency, decimals, nil
}

// Block makes withdrawals for bettorID fail with 403 bettor_blocked, whether
// or not the bettor exists yet. Deposits and rollbacks still go through.
// The only error is a failure of the journal, which changes nothing.
func (o *Operator) Block(bettorID string) error { return o.setBlocked(&journal.Op{}, bettorID, true) }

// Unblock undoes Block; errors as for Block.
func (o *Operator) Unblock(bettorID string) error {
	return o.setBlocked(&journal.Op{}, bettorID, false)
}

func (o *Operator) setBlocked(x *journal.Op, bettorID string, blocked bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.Keeper.SetBlocked(x, o.blocked, bettorID, blocked, bettorRecord{BettorID: bettorID})
}

// Balance returns a bettor's balance written with the currency's decimals
// ("89.50", "1000" in JPY), and false if the bettor does not exist.
func (o *Operator) Balance(bettorID string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.bettors[bettorID]
	if b == nil {
		return "", false
	}
	return o.format(b.balance, b.currency), true
}

// Ledger returns a copy of every balance movement so far, oldest first.
func (o *Operator) Ledger() []Entry {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ledger.All()
}

// LedgerFrom returns a copy of the balance movements after the first n,
// oldest first: what a reader that has seen n entries has not seen yet.
func (o *Operator) LedgerFrom(n int) []Entry {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ledger.From(n)
}

// currencyDecimals returns the decimal places of a currency code:
// Config.Decimals first, then ISO 4217.
func (o *Operator) currencyDecimals(code string) (int32, error) {
	if err := currencies.Check(code); err != nil {
		return 0, err
	}
	if d, ok := o.decimals[code]; ok {
		return d, nil
	}
	if d, ok := money.CurrencyDecimals(code); ok {
		return d, nil
	}
	return 0, fmt.Errorf("currency %s is not supported (not an ISO 4217 currency with minor units, and not in Config.Decimals)", code)
}

// format writes a with the decimals of currency. The currency was checked
// when the amount entered the operator.
func (o *Operator) format(a money.Amount, currency string) string {
	d, err := o.currencyDecimals(currency)
	if err != nil {
		return a.String()
	}
	return a.StringFixed(d)
}

// ensureBettorLocked returns the bettor, creating it at time at with
// Config.StartingBalance in currency if that is configured (created is then
// true). It returns nil for an unknown bettor otherwise.
func (o *Operator) ensureBettorLocked(at time.Time, bettorID, currency string, decimals int32) (b *bettor, created bool) {
	if b := o.bettors[bettorID]; b != nil || o.starting == nil {
		return b, false
	}
	b = &bettor{currency: currency}
	o.bettors[bettorID] = b
	start := o.starting.RoundToCurrency(decimals)
	b.balance = start
	o.record(at, EntryAdjustment, "", "", "", bettorID, b, start, decimals)
	return b, true
}

// nextOpTxIDLocked returns a fresh operator transaction id.
func (o *Operator) nextOpTxIDLocked() string {
	o.opSeq++
	return "op-tx-" + strconv.FormatInt(o.opSeq, 10)
}

// record appends a ledger entry made at time at for a change delta of b's
// balance (already applied).
func (o *Operator) record(at time.Time, typ EntryType, txID, opTxID, ref, bettorID string, b *bettor, delta money.Amount, decimals int32) {
	o.ledger.Append(at, Entry{
		Type:                  typ,
		TransactionID:         txID,
		OperatorTransactionID: opTxID,
		Reference:             ref,
		BettorID:              bettorID,
		Currency:              b.currency,
		Amount:                delta.StringFixed(decimals),
		BalanceAfter:          b.balance.StringFixed(decimals),
	})
}

// parseAmount reads a decimal amount of currency: non-negative (positive
// when positive is set), with at most decimals decimal places written.
func parseAmount(s, currency string, decimals int32, positive bool) (money.Amount, error) {
	var (
		a   money.Amount
		err error
	)
	if positive {
		a, err = money.ParsePositive(s)
	} else {
		a, err = money.ParseNonNegative(s)
	}
	if err != nil {
		return money.Amount{}, err
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			if places := len(s) - i - 1; places > int(decimals) {
				return money.Amount{}, fmt.Errorf("amount %q has %d decimal places; %s has %d", s, places, currency, decimals)
			}
			break
		}
	}
	return a, nil
}
