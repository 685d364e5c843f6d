package chaos

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

// Bet is a bet as the admin API lists it (GET /admin/v1/bets), with what
// the reconciliation reads.
type Bet struct {
	ID                  string        `json:"id"`
	OperatorID          string        `json:"operator_id"`
	BettorID            string        `json:"bettor_id"`
	Status              string        `json:"status"`
	Stake               money.Amount  `json:"stake"`
	Currency            string        `json:"currency"`
	RejectionCode       *string       `json:"rejection_code"`
	PayoutAmount        *money.Amount `json:"payout_amount"`
	CreatedAt           time.Time     `json:"created_at"`
	SettledAt           *time.Time    `json:"settled_at"`
	DepositConfirmedAt  *time.Time    `json:"deposit_confirmed_at"`
	RollbackConfirmedAt *time.Time    `json:"rollback_confirmed_at"`
}

// Final reports whether the bet's status can no longer change by itself
// before the market's resolution: anything but pending.
func (b Bet) Final() bool { return b.Status != "pending" }

// WalletTransaction is one of a bet's transactions as the admin API shows
// it (GET /admin/v1/bets/{id}/wallet-transactions).
type WalletTransaction struct {
	TransactionID string          `json:"transaction_id"`
	Kind          string          `json:"kind"`
	Amount        money.Amount    `json:"amount"`
	ConfirmedAt   *time.Time      `json:"confirmed_at"`
	Attempts      []WalletAttempt `json:"attempts"`
}

// WalletAttempt is one request the platform sent for a transaction.
type WalletAttempt struct {
	Result     string `json:"result"`
	Code       string `json:"code"`
	HTTPStatus int    `json:"http_status"`
	Error      string `json:"error"`
}

// WalletKind is the protocol of an operator's wallet, which decides how a
// settled bet's payout shows in its ledger.
type WalletKind int

const (
	// StandaloneWallet is an operator's wallet (bettor-and-operator-api.md):
	// every settled bet gets one deposit, zero for a lost bet.
	StandaloneWallet WalletKind = iota
	// AggregatorWallet is an aggregator's wallet (aggregator-api.md): a won
	// or voided bet gets one win, a lost bet closes its round with a
	// Round/Finish and moves no money.
	AggregatorWallet
	// BundledWallet is the platform's own ledger (the bundled path): a
	// won bet gets one payout, a voided bet one refund of its stake, a
	// lost bet nothing.
	BundledWallet
)

// MovementKind is what a ledger entry did for a bet.
type MovementKind string

// Movement kinds.
const (
	// Debit took a stake (a withdrawal; a Round/BetWin bet).
	Debit MovementKind = "debit"
	// Refund gave a stake back (a rollback), possibly nothing.
	Refund MovementKind = "refund"
	// Payout credited a settled bet (a deposit, zero for a lost bet; a
	// Round/BetWin win).
	Payout MovementKind = "payout"
	// Close finished a lost bet's round (Round/Finish); no money moves.
	Close MovementKind = "close"
)

// Movement is one entry of a sandbox wallet's ledger, read for the bet it
// belongs to.
type Movement struct {
	// Wallet names the ledger ("operator", "casino").
	Wallet string
	Seq    int64
	Time   time.Time
	Kind   MovementKind
	// TransactionID is the platform's id of the transaction ("wd-", "dp-"
	// or "rb-" and the bet id); empty for a Close.
	TransactionID string
	// BetID is the bet the entry names, "" when it names none the platform
	// would send.
	BetID string
	// Amount is the money moved, never negative.
	Amount money.Amount
}

// transactionPrefixes are the prefixes of the platform's transaction ids
// ("wd-" and the bet id), by the kind of movement the transaction makes.
var transactionPrefixes = map[MovementKind]string{Debit: "wd-", Refund: "rb-", Payout: "dp-"}

// newMovement is the movement of kind of wallet's ledger entry seq, made
// at at for the platform's transaction txID, of amount (a decimal string,
// of either sign). Its bet is the one txID names: none when txID is not
// the platform's for kind, or for a Close.
func newMovement(wallet string, seq int64, at time.Time, kind MovementKind, txID, amount string) (Movement, error) {
	m := Movement{Wallet: wallet, Seq: seq, Time: at, Kind: kind, TransactionID: txID}
	if prefix, ok := transactionPrefixes[kind]; ok {
		if id, ok := strings.CutPrefix(txID, prefix); ok && id != "" {
			m.BetID = id
		}
	}
	a, err := money.ParseAmount(amount)
	if err != nil {
		return Movement{}, fmt.Errorf("%s ledger entry %d: %w", wallet, seq, err)
	}
	m.Amount = a.Abs()
	return m, nil
}

// noMovement is, in a table of entry kinds, the kind of an entry that moves
// no bet's money: readLedger leaves it out.
const noMovement MovementKind = ""

// readLedger reads the movements of a wallet ledger's entries: kindOf says
// what an entry did for a bet (noMovement for nothing, an error for an
// entry it cannot read) and move makes the entry's movement of that kind.
func readLedger[E any](entries []E, kindOf func(E) (MovementKind, error), move func(E, MovementKind) (Movement, error)) ([]Movement, error) {
	var out []Movement
	for _, e := range entries {
		kind, err := kindOf(e)
		if err != nil {
			return nil, err
		}
		if kind == noMovement {
			continue
		}
		m, err := move(e, kind)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// operatorKinds are the movements of a sandbox operator's entries; its
// adjustments are the test's own balance changes.
var operatorKinds = map[operator.EntryType]MovementKind{
	operator.EntryAdjustment: noMovement,
	operator.EntryWithdrawal: Debit,
	operator.EntryRollback:   Refund,
	operator.EntryDeposit:    Payout,
}

// OperatorMovements reads a sandbox operator's ledger; adjustments (the
// test's own balance changes) are left out.
func OperatorMovements(ledger []operator.Entry) ([]Movement, error) {
	kindOf := func(e operator.Entry) (MovementKind, error) {
		if kind, ok := operatorKinds[e.Type]; ok {
			return kind, nil
		}
		return "", fmt.Errorf("operator ledger entry %d: unknown type %q", e.Seq, e.Type)
	}
	return readLedger(ledger, kindOf, func(e operator.Entry, kind MovementKind) (Movement, error) {
		return newMovement("operator", e.Seq, e.Time, kind, e.TransactionID, e.Amount)
	})
}

// casinoKinds are the movements of a sandbox casino's entries.
var casinoKinds = map[casino.EntryType]MovementKind{
	casino.EntryBet:      Debit,
	casino.EntryRollback: Refund,
	casino.EntryWin:      Payout,
	casino.EntryFinish:   Close,
}

// CasinoMovements reads a sandbox casino's ledger.
func CasinoMovements(ledger []casino.Entry) ([]Movement, error) {
	kindOf := func(e casino.Entry) (MovementKind, error) {
		if kind, ok := casinoKinds[e.Type]; ok {
			return kind, nil
		}
		return "", fmt.Errorf("casino ledger entry %d: unknown type %q", e.Seq, e.Type)
	}
	return readLedger(ledger, kindOf, func(e casino.Entry, kind MovementKind) (Movement, error) {
		m, err := newMovement("casino", e.Seq, e.Time, kind, e.IDProvider, e.Amount)
		if err != nil {
			return Movement{}, err
		}
		switch {
		case kind == Close:
			// The platform's round_id is the bet id.
			m.BetID = e.RoundID
		case m.BetID != "" && e.RoundID != m.BetID:
			// A bet's entries name its round: one that does not is not
			// the platform's.
			m.BetID = ""
		}
		return m, nil
	})
}

// Discrepancy is one way the platform's account of a bet and a wallet's
// ledger disagree.
type Discrepancy struct {
	// BetID is the bet concerned; "" for a ledger entry no bet explains.
	BetID string
	What  string
}

func (d Discrepancy) String() string {
	if d.BetID == "" {
		return d.What
	}
	return "bet " + d.BetID + ": " + d.What
}

// Books are what the reconciliation compares: the platform's bets with
// their wallet transactions, and the wallets' ledgers.
type Books struct {
	// Bets are every bet of the operators reconciled.
	Bets []Bet
	// Transactions are each bet's wallet transactions, by bet id.
	Transactions map[string][]WalletTransaction
	// Movements are the entries of every ledger.
	Movements []Movement
	// Wallets gives each operator's wallet protocol, by operator id.
	Wallets map[string]WalletKind
	// Resolved is set once the market was resolved and every bet should
	// be settled or rejected.
	Resolved bool
}

// Reconcile checks every bet against the ledgers and every ledger entry
// against the bets:
//   - a bet is final (not pending), and after the resolution not
//     confirmed either (settled, or rejected);
//   - a rejected bet moved no money net (every debit rolled back) and got
//     no payout;
//   - a confirmed, settled or voided bet was debited exactly its stake net
//     of rollbacks;
//   - a settled or voided bet's payout reached its wallet exactly once, for
//     the amount the platform says it paid (standalone: one deposit, zero
//     for a lost bet; aggregator: one win, or for a lost bet no win and its
//     round finished), and the platform recorded its confirmation;
//   - a deposit the platform marks confirmed is in the ledger;
//   - every ledger entry names a bet of the platform.
//
// It returns the discrepancies, by bet then entry.
func Reconcile(b Books) []Discrepancy {
	byBet := map[string][]Movement{}
	var out []Discrepancy
	known := map[string]bool{}
	for _, bet := range b.Bets {
		known[bet.ID] = true
	}
	for _, m := range b.Movements {
		if m.BetID == "" || !known[m.BetID] {
			out = append(out, Discrepancy{What: fmt.Sprintf("%s ledger entry %d (%s %s, %s) names no bet of the platform",
				m.Wallet, m.Seq, m.Kind, m.TransactionID, m.Amount)})
			continue
		}
		byBet[m.BetID] = append(byBet[m.BetID], m)
	}
	bets := append([]Bet(nil), b.Bets...)
	sort.Slice(bets, func(i, j int) bool { return bets[i].ID < bets[j].ID })
	for _, bet := range bets {
		for _, what := range reconcileBet(bet, byBet[bet.ID], b.Transactions[bet.ID], b.Wallets[bet.OperatorID], b.Resolved) {
			out = append(out, Discrepancy{BetID: bet.ID, What: what})
		}
	}
	return out
}

// reconcileBet lists what is wrong with one bet.
func reconcileBet(bet Bet, moves []Movement, txs []WalletTransaction, kind WalletKind, resolved bool) []string {
	var debited, refunded money.Amount
	var debits, closes int
	var payouts []money.Amount
	for _, m := range moves {
		switch m.Kind {
		case Debit:
			debited = debited.Add(m.Amount)
			debits++
		case Refund:
			refunded = refunded.Add(m.Amount)
		case Payout:
			payouts = append(payouts, m.Amount)
		case Close:
			closes++
		}
	}
	net := debited.Sub(refunded)
	var out []string
	switch bet.Status {
	case "pending":
		out = append(out, fmt.Sprintf("still pending (debited %s net of rollbacks)", net))
		return out
	case "rejected":
		if !net.IsZero() {
			out = append(out, fmt.Sprintf("rejected (%s) but debited %s net of rollbacks (%d debits, %s rolled back): the stake is lost",
				code(bet.RejectionCode), net, debits, refunded))
		}
		if len(payouts) > 0 {
			out = append(out, fmt.Sprintf("rejected but paid %d times", len(payouts)))
		}
		return out
	}
	if !net.Equal(bet.Stake) {
		out = append(out, fmt.Sprintf("%s with stake %s but debited %s net of rollbacks (%d debits, %s rolled back)",
			bet.Status, bet.Stake, net, debits, refunded))
	}
	switch bet.Status {
	case "confirmed":
		if resolved {
			out = append(out, "still confirmed after the market's resolution: never settled")
		}
		if len(payouts) > 0 || closes > 0 {
			out = append(out, "confirmed but already paid")
		}
	case "settled", "voided":
		out = append(out, checkPayout(bet, payouts, closes, kind)...)
	default:
		out = append(out, fmt.Sprintf("unknown status %q", bet.Status))
	}
	for _, tx := range txs {
		lostInLedger := kind == BundledWallet && bet.PayoutAmount != nil && bet.PayoutAmount.IsZero()
		if tx.Kind == "deposit" && tx.ConfirmedAt != nil && len(payouts) == 0 && closes == 0 && !lostInLedger {
			out = append(out, fmt.Sprintf("the platform confirmed deposit %s but the wallet never recorded it", tx.TransactionID))
		}
	}
	return out
}

// checkPayout checks a settled or voided bet's payout.
func checkPayout(bet Bet, payouts []money.Amount, closes int, kind WalletKind) []string {
	var out []string
	if bet.PayoutAmount == nil {
		return append(out, bet.Status+" without a payout amount")
	}
	want := *bet.PayoutAmount
	if bet.DepositConfirmedAt == nil {
		out = append(out, fmt.Sprintf("payout %s never confirmed by the platform", want))
	}
	wantPayouts := 1
	if kind == AggregatorWallet && want.IsZero() {
		// A lost aggregator bet sends no win: its round is finished.
		wantPayouts = 0
		if closes == 0 && bet.DepositConfirmedAt != nil {
			out = append(out, "lost, but its round was never finished at the wallet")
		}
	}
	if kind == BundledWallet && want.IsZero() {
		wantPayouts = 0 // the ledger refuses a transfer of nothing
	}
	switch {
	case len(payouts) == 0 && wantPayouts == 1:
		out = append(out, fmt.Sprintf("payout %s never reached the wallet", want))
	case len(payouts) != wantPayouts:
		out = append(out, fmt.Sprintf("paid %d times (want %d): %v", len(payouts), wantPayouts, payouts))
	}
	for _, p := range payouts {
		if !p.Equal(want) {
			out = append(out, fmt.Sprintf("the wallet was paid %s, the platform says %s", p, want))
		}
	}
	return out
}

func code(c *string) string {
	if c == nil {
		return "no code"
	}
	return *c
}

// CheckTotals checks the bets' totals as the platform sums them (GET
// /admin/v1/bets/totals) against the bets it lists: per status and
// currency the same count, stakes, payouts and confirmed payouts. Nil
// totals (never read) check nothing.
func CheckTotals(totals BetTotals, bets []Bet) []Discrepancy {
	if totals == nil {
		return nil
	}
	type key struct{ status, currency string }
	listed := map[key]*BetTotal{}
	for _, b := range bets {
		k := key{b.Status, b.Currency}
		t := listed[k]
		if t == nil {
			t = &BetTotal{Status: b.Status, Currency: b.Currency}
			listed[k] = t
		}
		t.Bets++
		t.Stake = t.Stake.Add(b.Stake)
		if b.PayoutAmount != nil {
			t.Payout = t.Payout.Add(*b.PayoutAmount)
		}
		if b.DepositConfirmedAt != nil && (b.Status == "settled" || b.Status == "voided") {
			t.PayoutsConfirmed++
		}
	}
	var out []Discrepancy
	for _, t := range totals {
		k := key{t.Status, t.Currency}
		l := listed[k]
		delete(listed, k)
		if l == nil {
			l = &BetTotal{}
		}
		if t.Bets != l.Bets || !t.Stake.Equal(l.Stake) || !t.Payout.Equal(l.Payout) || t.PayoutsConfirmed != l.PayoutsConfirmed {
			out = append(out, Discrepancy{What: fmt.Sprintf("bet totals, %s %s: %d bets, stakes %s, payouts %s, %d confirmed; the list has %d, %s, %s, %d",
				t.Status, t.Currency, t.Bets, t.Stake, t.Payout, t.PayoutsConfirmed, l.Bets, l.Stake, l.Payout, l.PayoutsConfirmed)})
		}
	}
	for k, l := range listed {
		out = append(out, Discrepancy{What: fmt.Sprintf("bet totals: no %s %s, the list has %d bets", k.status, k.currency, l.Bets)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].What < out[j].What })
	return out
}
