package chaos

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/money"
)

// The bundled path: a bundled operator whose bettors' balances are in the
// platform's own ledger. Its bettors are funded and given sessions through
// the admin API; during placement the operator's cashier deposits and
// withdraws at random, and the reconciliation reads every bettor's
// statement and the ledger's Verify.

// bundledID is the run's bundled operator.
const bundledID = "chaosbun"

// meanStake is the mean stake of sender.place (1 to 20, and 0, 0.25,
// 0.50 or 0.75).
var meanStake = decimal.RequireFromString("10.875")

// BundledFunds is what each of the bundled operator's bettors is credited
// with before the load: the stakes its share of the bets will take on
// average (rate × duration / bettors × the mean stake), rounded up to
// whole tens. Most bets are accepted and settle; a bettor who drew more
// or larger bets than the mean runs short near the end, so that a few
// are still refused for want of funds, as are some of the cashier's
// withdrawals.
func BundledFunds(rate float64, d time.Duration, bettors int) money.Amount {
	bets := int64(math.Ceil(rate * d.Seconds() / float64(bettors)))
	ten := decimal.NewFromInt(10)
	funds := decimal.Max(meanStake.Mul(decimal.NewFromInt(bets)).Div(ten).Ceil().Mul(ten), ten)
	return money.MustParse(funds.String())
}

// setUpBundled creates the bundled operator (USD, the standalone
// operator's limits).
func (p *platform) setUpBundled(ctx context.Context) error {
	return p.admin(ctx, "POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Chaos bundled","integration":"bundled",
		"currencies":[{"code":"USD","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":{"USD":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},"odds_tolerance":"0.05"}`,
		bundledID), nil)
}

// bundledBettorID is the id of the bundled operator's bettor i.
func bundledBettorID(i int) string { return fmt.Sprint("bettor-", i) }

// bundledFundingKey is the cashier key of bettor's first deposit.
func bundledFundingKey(bettor string) string { return "chaos-funds-" + bettor }

// bundledBettors credits n bettors of the bundled operator with funds
// and opens a session of each, as the operator's server does.
func (p *platform) bundledBettors(ctx context.Context, n int, funds money.Amount) ([]bettor, error) {
	out := make([]bettor, n)
	for i := range out {
		id := bundledBettorID(i)
		if err := p.do(ctx, 2*time.Minute, "POST", "/admin/v1/operators/"+bundledID+"/bettors/"+id+"/deposits",
			`{"currency":"USD","amount":"`+funds.String()+`"}`, p.adminHeader(bundledFundingKey(id)), nil); err != nil {
			return nil, err
		}
		var s struct {
			AuthToken string `json:"auth_token"`
		}
		if err := p.admin(ctx, "POST", "/admin/v1/operators/"+bundledID+"/sessions", `{"bettor_id":"`+id+`","currency":"USD"}`, &s); err != nil {
			return nil, err
		}
		out[i] = bettor{operator: bundledID, token: s.AuthToken}
	}
	return out, nil
}

// adminHeader is the admin API's header, with an Idempotency-Key when key
// is not empty.
func (p *platform) adminHeader(key string) http.Header {
	h := http.Header{"Authorization": {"Bearer " + p.adminToken}}
	if key != "" {
		h.Set("Idempotency-Key", key)
	}
	return h
}

// CashierMove is a deposit or withdrawal the run asked the cashier for.
type CashierMove struct {
	Key    string
	Bettor string
	// Kind is "deposit" or "withdrawal".
	Kind   string
	Amount money.Amount
}

// cashierLoad deposits and withdraws at random for the bundled operator's
// bettors while bets are placed, each request with its own
// Idempotency-Key, sent again with it when its node died under it.
type cashierLoad struct {
	p       *platform
	bettors int

	mu sync.Mutex
	// Accepted were answered 200 or 201; Refused 409 (a withdrawal
	// beyond the available balance); Unanswered never got an answer
	// within the retry limit (each may have moved once, or not at all).
	accepted, refused, unanswered map[string]CashierMove
	errs                          []error

	// inFlight counts the movements sent and not yet answered; at each
	// kill, killsInFlight counts the kill when some were, and
	// movesAtKills adds them up.
	inFlight                    atomic.Int64
	killsInFlight, movesAtKills int
}

// atKill records how many movements are in flight as a node is killed.
func (c *cashierLoad) atKill() {
	n := int(c.inFlight.Load())
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > 0 {
		c.killsInFlight++
		c.movesAtKills += n
	}
}

// kills returns the kills that came while movements were in flight, and
// the movements in flight at those kills.
func (c *cashierLoad) kills() (int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killsInFlight, c.movesAtKills
}

func newCashierLoad(p *platform, bettors int) *cashierLoad {
	return &cashierLoad{p: p, bettors: bettors, accepted: map[string]CashierMove{}, refused: map[string]CashierMove{},
		unanswered: map[string]CashierMove{}}
}

// run sends rate movements per second for d, at most 32 at once.
func (c *cashierLoad) run(ctx context.Context, rate float64, d time.Duration) {
	paced(ctx, rate, d, 32, c.move)
}

// move sends one deposit (three in five) or withdrawal of 1 to 100.
func (c *cashierLoad) move(ctx context.Context) {
	m := CashierMove{Key: "chaos-" + uuid.NewString(), Bettor: bundledBettorID(rand.IntN(c.bettors)), Kind: "deposit",
		Amount: money.MustParse(fmt.Sprintf("%d.%02d", 1+rand.IntN(100), rand.IntN(100)))}
	if rand.IntN(5) >= 3 {
		m.Kind = "withdrawal"
	}
	c.inFlight.Add(1)
	err := c.p.do(ctx, 2*time.Minute, "POST", "/admin/v1/operators/"+bundledID+"/bettors/"+m.Bettor+"/"+m.Kind+"s",
		`{"currency":"USD","amount":"`+m.Amount.String()+`"}`, c.p.adminHeader(m.Key), nil)
	c.inFlight.Add(-1)
	c.mu.Lock()
	defer c.mu.Unlock()
	var se *statusError
	switch {
	case err == nil:
		c.accepted[m.Key] = m
	case errors.As(err, &se) && se.status == http.StatusConflict:
		c.refused[m.Key] = m
	case errors.As(err, &se):
		c.errs = append(c.errs, fmt.Errorf("%s %s: %w", m.Kind, m.Key, err))
	default:
		c.unanswered[m.Key] = m
	}
}

// StatementLine is one line of a bettor's statement as the admin API
// answers it.
type StatementLine struct {
	Bettor         string       `json:"-"`
	Seq            int64        `json:"seq"`
	Kind           string       `json:"kind"`
	Reference      string       `json:"reference"`
	IdempotencyKey string       `json:"idempotency_key"`
	Amount         money.Amount `json:"amount"`
}

// statement reads every line of a bundled bettor's statement.
func (p *platform) statement(ctx context.Context, bettorID string) ([]StatementLine, error) {
	var out []StatementLine
	cursor := ""
	for {
		q := url.Values{"currency": {"USD"}, "limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			Items      []StatementLine `json:"items"`
			NextCursor *string         `json:"next_cursor"`
		}
		if err := p.admin(ctx, "GET", "/admin/v1/operators/"+bundledID+"/bettors/"+bettorID+"/statement?"+q.Encode(), "", &page); err != nil {
			return nil, err
		}
		for _, l := range page.Items {
			l.Bettor = bettorID
			out = append(out, l)
		}
		if page.NextCursor == nil || *page.NextCursor == "" {
			return out, nil
		}
		cursor = *page.NextCursor
	}
}

// verifyLedger runs the ledger's Verify (what `foresight admin ledger
// verify` asks) and returns its discrepancies.
func (p *platform) verifyLedger(ctx context.Context) ([]Discrepancy, error) {
	var rep struct {
		OK            bool `json:"ok"`
		Discrepancies []struct {
			Check      string `json:"check"`
			AccountID  string `json:"account_id"`
			TransferID string `json:"transfer_id"`
			Detail     string `json:"detail"`
		} `json:"discrepancies"`
	}
	if err := p.admin(ctx, "GET", "/admin/v1/ledger/verify", "", &rep); err != nil {
		return nil, err
	}
	var out []Discrepancy
	for _, d := range rep.Discrepancies {
		out = append(out, Discrepancy{What: fmt.Sprintf("ledger verify: %s (account %s, transfer %s): %s", d.Check, d.AccountID, d.TransferID, d.Detail)})
	}
	if !rep.OK && len(out) == 0 {
		out = append(out, Discrepancy{What: "ledger verify: not ok, without a discrepancy listed"})
	}
	return out, nil
}

// LedgerMovements reads the bets' movements in the bundled bettors'
// statements: a stake is the bet's debit, a rollback its refund, a payout
// or a voided bet's refund its payout. Deposits and withdrawals are the
// cashier's (ReconcileCashier).
func LedgerMovements(lines []StatementLine) ([]Movement, error) {
	kindOf := func(l StatementLine) (MovementKind, error) {
		if kind, ok := statementKinds[l.Kind]; ok {
			return kind, nil
		}
		return "", fmt.Errorf("statement of %s, entry %d: unknown kind %q", l.Bettor, l.Seq, l.Kind)
	}
	return readLedger(lines, kindOf, func(l StatementLine, kind MovementKind) (Movement, error) {
		return Movement{Wallet: "ledger of " + l.Bettor, Seq: l.Seq, Kind: kind, TransactionID: l.IdempotencyKey, BetID: l.Reference, Amount: l.Amount.Abs()}, nil
	})
}

// statementKinds are the movements of a bundled bettor's statement lines;
// its deposits and withdrawals are the cashier's.
var statementKinds = map[string]MovementKind{
	"deposit":    noMovement,
	"withdrawal": noMovement,
	"stake":      Debit,
	"rollback":   Refund,
	"payout":     Payout,
	"refund":     Payout,
}

// ReconcileCashier checks the statements' deposits and withdrawals
// against what the cashier was asked: every accepted movement is in its
// bettor's statement exactly once, for its amount and direction; a
// refused one is not; one never answered is there at most once; and
// every cashier line is one the run asked for (funding is the bettors'
// first deposits' amount, by bettor).
func ReconcileCashier(lines []StatementLine, accepted, refused, unanswered map[string]CashierMove, funding map[string]money.Amount) []Discrepancy {
	var out []Discrepancy
	seen := map[string][]StatementLine{}
	for _, l := range lines {
		if l.Kind != "deposit" && l.Kind != "withdrawal" {
			continue
		}
		seen[l.IdempotencyKey] = append(seen[l.IdempotencyKey], l)
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ls := seen[k]
		if len(ls) > 1 {
			out = append(out, Discrepancy{What: fmt.Sprintf("cashier key %s moved money %d times", k, len(ls))})
		}
		l := ls[0]
		want, asked := accepted[k]
		if !asked {
			want, asked = unanswered[k]
		}
		if !asked {
			if a, ok := funding[l.Bettor]; ok && k == bundledFundingKey(l.Bettor) {
				want, asked = CashierMove{Key: k, Bettor: l.Bettor, Kind: "deposit", Amount: a}, true
			}
		}
		switch {
		case !asked && refused[k].Key != "":
			out = append(out, Discrepancy{What: fmt.Sprintf("cashier %s %s was refused (409) but moved %s for %s", refused[k].Kind, k, l.Amount, l.Bettor)})
		case !asked:
			out = append(out, Discrepancy{What: fmt.Sprintf("statement of %s: %s %s of %s that the run never asked for", l.Bettor, l.Kind, k, l.Amount)})
		default:
			signed := want.Amount
			if want.Kind == "withdrawal" {
				signed = signed.Neg()
			}
			if l.Kind != want.Kind || l.Bettor != want.Bettor || !l.Amount.Equal(signed) {
				out = append(out, Discrepancy{What: fmt.Sprintf("cashier key %s: asked %s %s for %s, the statement has %s %s for %s",
					k, want.Kind, want.Amount, want.Bettor, l.Kind, l.Amount, l.Bettor)})
			}
		}
	}
	acceptedKeys := make([]string, 0, len(accepted))
	for k := range accepted {
		acceptedKeys = append(acceptedKeys, k)
	}
	sort.Strings(acceptedKeys)
	for _, k := range acceptedKeys {
		if len(seen[k]) == 0 {
			m := accepted[k]
			out = append(out, Discrepancy{What: fmt.Sprintf("cashier %s %s of %s for %s was accepted but is not in the statement", m.Kind, k, m.Amount, m.Bettor)})
		}
	}
	return out
}

// reconcileBundled reads every bundled bettor's statement and returns its
// bets' movements (for Reconcile), what ReconcileCashier and the ledger's
// Verify found, and the cashier's counts in r.
func (p *platform) reconcileBundled(ctx context.Context, bettors int, funds money.Amount, cash *cashierLoad, r *Report) ([]Movement, []Discrepancy, error) {
	var lines []StatementLine
	funding := map[string]money.Amount{}
	for i := range bettors {
		id := bundledBettorID(i)
		ls, err := p.statement(ctx, id)
		if err != nil {
			return nil, nil, fmt.Errorf("statement of %s: %w", id, err)
		}
		lines = append(lines, ls...)
		funding[id] = funds
	}
	moves, err := LedgerMovements(lines)
	if err != nil {
		return nil, nil, err
	}
	cash.mu.Lock()
	found := ReconcileCashier(lines, cash.accepted, cash.refused, cash.unanswered, funding)
	for _, err := range cash.errs {
		found = append(found, Discrepancy{What: "cashier: " + err.Error()})
	}
	r.CashierAccepted, r.CashierRefused, r.CashierUnanswered = len(cash.accepted), len(cash.refused), len(cash.unanswered)
	cash.mu.Unlock()
	verified, err := p.verifyLedger(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger verify: %w", err)
	}
	r.LedgerVerified = len(verified) == 0
	return moves, append(found, verified...), nil
}
