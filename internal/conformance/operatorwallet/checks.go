package operatorwallet

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/money"
)

// Spec references.
const (
	specEndpoints  = "bettor-and-operator-api.md › Endpoints › Operator-hosted endpoints"
	specWithdrawal = "bettor-and-operator-api.md › Resources › Operator wallet: withdrawal; Endpoints › Operator-hosted endpoints"
	specAuth       = "bettor-and-operator-api.md › Authentication (wallet calls from the platform)"
	specIdempotent = "bettor-and-operator-api.md › Operator-hosted endpoints: \"idempotent by transaction_id\""
	specRollback   = "docs/decisions.md › Contract details: Rollback; bettor-and-operator-api.md › Operator-hosted endpoints"
	specDeposit    = "bettor-and-operator-api.md › Operator-hosted endpoints: POST /v1/deposits; docs/decisions.md › Contract details: Deposits"
	specFunds      = "docs/decisions.md › Contract details: Standalone wallet answers; bettor-and-operator-api.md › Errors (insufficient_funds)"
)

// Checks returns the checks of the operator wallet, in the order Run runs
// them, with a Run that does nothing: for listings.
func Checks() []conformance.Check { return conformance.Listing((&suite{}).checks()) }

func (s *suite) checks() []conformance.Check {
	cs := []conformance.Check{
		{Name: "withdrawal", Spec: specWithdrawal,
			Rule: "a signed withdrawal is answered 200 {transaction_id, balance} and debits exactly the amount",
			Run:  s.checkWithdrawal},
		{Name: "rollback", Spec: specRollback,
			Rule: "a rollback of a debited withdrawal is answered 200 and credits the stake back once, also when replayed",
			Run:  s.checkRollback},
	}
	cs = append(cs, conformance.RefusalChecks(specAuth, s.refusals(), s.checkRefusal)...)
	return append(cs,
		conformance.Check{Name: "replayed-nonce", Spec: specAuth,
			Rule: "a request reusing an X-Nonce may be refused 401 (optional), and then moves nothing",
			Run:  s.checkReplayedNonce},
		conformance.Check{Name: "replay", Spec: specIdempotent,
			Rule: "a replayed withdrawal (same transaction_id and body, new nonce) returns the first answer and debits once",
			Run:  s.checkReplay},
		conformance.Check{Name: "replay-other-body", Spec: specIdempotent,
			Rule: "a processed transaction_id sent with another amount returns the first answer or is refused, and moves nothing",
			Run:  s.checkReplayOtherBody},
		conformance.Check{Name: "rollback-unknown", Spec: specRollback,
			Rule: "a rollback of a withdrawal never seen is answered 200, moves nothing, and that withdrawal is refused when it arrives late",
			Run:  s.checkRollbackUnknown},
		conformance.Check{Name: "deposit-lost", Spec: specDeposit,
			Rule: "a zero-amount deposit (lost bet) is answered 200, credits nothing, and a replay returns the first answer",
			Run:  s.checkDepositLost},
		conformance.Check{Name: "deposit-won", Spec: specDeposit,
			Rule: "a won bet's deposit is answered 200 and credits exactly the payout once, also when replayed",
			Run:  s.checkDepositWon},
		conformance.Check{Name: "insufficient-funds", Spec: specFunds,
			Rule: "a withdrawal above the balance is refused 4xx {\"error\": \"insufficient_funds\"} (or 409 with no body) and moves nothing",
			Run:  s.checkInsufficientFunds},
		conformance.Check{Name: "balance-format", Spec: "bettor-and-operator-api.md › Resources › Operator wallet: withdrawal (balance: string, decimal)",
			Rule: "every balance in a 2xx answer is a JSON string holding a plain decimal (a warning when not in the currency's decimals)",
			Run:  s.checkBalanceFormat},
		conformance.Check{Name: "content-type", Spec: "not in the spec (a warning only)",
			Rule: "answers with a body say Content-Type: application/json",
			Run:  conformance.CheckContentType},
	)
}

// checkWithdrawal: two fresh withdrawals; the first answer has the spec's
// fields, the second balance is the first minus the stake.
func (s *suite) checkWithdrawal(ctx context.Context, t *conformance.T) {
	first := conformance.NewID("wd")
	ex := s.withdraw(ctx, t, "withdrawal", s.withdrawalBody(first, s.stake), nil)
	if !ok2xx(ex) {
		if insufficientFunds(ex) {
			t.Skipf("the test bettor %q cannot cover one stake of %s %s: credit the test account", s.bettor, s.amount(s.stake), s.currency)
		}
		t.Fatalf(&ex, "a correctly signed withdrawal of %s %s was answered %s; the spec answers 200 with transaction_id and balance",
			s.amount(s.stake), s.currency, ex.Outcome())
	}
	s.undoLater(t, first, s.stake)
	if ex.Response.Status != http.StatusOK {
		t.Warnf(&ex, "the withdrawal was answered %d; the spec says 200 (the platform accepts any 2xx)", ex.Response.Status)
	}
	o, err := conformance.ParseObject(ex.Response.Body)
	if err != nil {
		t.Fatalf(&ex, "the withdrawal's 2xx answer cannot be read: %v; the spec's answer is {transaction_id, balance}", err)
	}
	if id, ok := o.Text("transaction_id"); !ok || id == "" {
		t.Fatalf(&ex, "the withdrawal's answer has no transaction_id string (the operator's own id of the debit); the platform treats the bet as unknown and rolls it back")
	}
	b1, err := conformance.AnswerBalance(ex)
	if err != nil {
		t.Fatalf(&ex, "the withdrawal's answer has no readable balance (%v); the platform treats the bet as unknown and rolls it back", err)
	}
	second := conformance.NewID("wd")
	ex2 := s.withdraw(ctx, t, "second withdrawal", s.withdrawalBody(second, s.stake), nil)
	if !ok2xx(ex2) {
		t.Fatalf(&ex2, "a second correctly signed withdrawal of %s %s (balance %s) was answered %s; the spec answers 200",
			s.amount(s.stake), s.currency, s.v(b1), ex2.Outcome())
	}
	s.undoLater(t, second, s.stake)
	b2, err := conformance.AnswerBalance(ex2)
	if err != nil {
		t.Fatalf(&ex2, "the withdrawal's answer has no readable balance (%v)", err)
	}
	if want := b1.Sub(s.stake.Decimal()); !b2.Equal(want) {
		t.Fatalf(&ex2, "after a balance of %s, a withdrawal of %s left %s, not %s: a withdrawal must debit exactly its amount",
			s.v(b1), s.amount(s.stake), s.v(b2), s.v(want))
	}
}

// checkRollback: debit, roll back, replay the rollback; the stake is back
// once.
func (s *suite) checkRollback(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	wdID, _, _, p := s.debit(ctx, t, "withdrawal to roll back", s.stake)
	body := s.rollbackBody(conformance.NewID("rb"), s.stake)
	ex := s.rollback(ctx, t, "rollback of the withdrawal", wdID, body)
	if !ok2xx(ex) {
		t.Fatalf(&ex, "the rollback of a debited withdrawal was answered %s; the spec answers 200 and credits the stake back", ex.Outcome())
	}
	p.Settle()
	if b, ok := optionalBalance(ex); ok && !b.Equal(before) {
		t.Fatalf(&ex, "the rollback answered balance %s; with the stake back it is %s", s.v(b), s.v(before))
	}
	replay := s.rollback(ctx, t, "the same rollback again", wdID, body)
	after := s.balance(ctx, t, "after")
	if !after.Equal(before) {
		t.Fatalf(&replay, "the balance is %s after a withdrawal of %s and its rollback sent twice; it should be back at %s (%s)",
			s.v(after), s.amount(s.stake), s.v(before), movedBy(after.Sub(before), s.stake.Decimal(), "stake"))
	}
	requireReplay(t, ex, replay, "rollback")
}

// refusals are the requests whose authentication is wrong.
func (s *suite) refusals() []conformance.Refusal {
	return []conformance.Refusal{
		{Name: "wrong-signature", Step: "withdrawal signed with another secret",
			Rule: "a withdrawal with a wrong X-Payload-Signature is refused 401 and moves nothing",
			Alter: func(h http.Header, body []byte) {
				h.Set(wallet.HeaderSignature, wallet.Sign(conformance.WrongSecret(s.secret), body))
			}},
		{Name: "missing-signature", Step: "withdrawal without X-Payload-Signature",
			Rule:  "a withdrawal without X-Payload-Signature is refused 401 and moves nothing",
			Alter: func(h http.Header, _ []byte) { h.Del(wallet.HeaderSignature) }},
		{Name: "missing-timestamp", Step: "withdrawal without X-Timestamp",
			Rule:  "a withdrawal without X-Timestamp is refused 401 and moves nothing",
			Alter: func(h http.Header, _ []byte) { h.Del(wallet.HeaderTimestamp) }},
		{Name: "missing-nonce", Step: "withdrawal without X-Nonce",
			Rule:  "a withdrawal without X-Nonce is refused 401 and moves nothing",
			Alter: func(h http.Header, _ []byte) { h.Del(wallet.HeaderNonce) }},
		{Name: "stale-timestamp", Step: "withdrawal with an X-Timestamp 10 minutes old",
			Rule: "a withdrawal whose X-Timestamp is older than 5 minutes is refused 401 and moves nothing",
			Alter: func(h http.Header, _ []byte) {
				h.Set(wallet.HeaderTimestamp, time.Now().Add(-10*time.Minute).UTC().Format(time.RFC3339))
			}},
		{Name: "malformed-nonce", Step: "withdrawal whose X-Nonce is not a UUID",
			Rule:     "a withdrawal whose X-Nonce is not a UUID v4 is refused 401 and moves nothing (a warning only: the spec names the format, not the refusal)",
			Alter:    func(h http.Header, _ []byte) { h.Set(wallet.HeaderNonce, "conformance-not-a-uuid") },
			Optional: "the spec wants X-Nonce to be a UUID v4, and the platform always sends one, but does not say that another value is refused"},
	}
}

// checkRefusal sends a withdrawal with bad authentication headers between
// two balance reads.
func (s *suite) checkRefusal(ctx context.Context, t *conformance.T, r conformance.Refusal) {
	before := s.balance(ctx, t, "before")
	wdID := conformance.NewID("wd")
	ex := s.withdraw(ctx, t, r.Step, s.withdrawalBody(wdID, s.stake), r.Alter)
	want := before
	switch {
	case ex.Answered() && ex.Response.Status == http.StatusUnauthorized:
	case ok2xx(ex):
		s.undoLater(t, wdID, s.stake)
		if r.Optional == "" {
			t.Fatalf(&ex, "the %s was accepted (%d); the spec answers it 401 and processes nothing", r.Step, ex.Response.Status)
		}
		t.Warnf(&ex, "the %s was accepted (%d); %s", r.Step, ex.Response.Status, r.Optional)
		want = before.Sub(s.stake.Decimal())
	case r.Optional == "":
		t.Fatalf(&ex, "the %s was answered %s; the spec answers a missing header, an old timestamp or a wrong signature with 401", r.Step, ex.Outcome())
	default:
		t.Warnf(&ex, "the %s was answered %s; failed header checks are answered 401 in the spec", r.Step, ex.Outcome())
	}
	after := s.balance(ctx, t, "after")
	if !after.Equal(want) {
		t.Fatalf(&ex, "the balance went from %s to %s around the refused %s: a refused request must change nothing (%s)",
			s.v(before), s.v(after), r.Step, movedBy(after.Sub(want), s.stake.Decimal(), "stake"))
	}
}

// checkReplayedNonce sends two different withdrawals with one nonce.
func (s *suite) checkReplayedNonce(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	nonce := uuid.NewString()
	setNonce := func(h http.Header, _ []byte) { h.Set(wallet.HeaderNonce, nonce) }
	first := conformance.NewID("wd")
	ex1 := s.withdraw(ctx, t, "withdrawal with a fresh X-Nonce", s.withdrawalBody(first, s.stake), setNonce)
	if !ok2xx(ex1) {
		t.Skipf("not checked: a correctly signed withdrawal was answered %s (see the check withdrawal)", ex1.Outcome())
	}
	s.undoLater(t, first, s.stake)
	second := conformance.NewID("wd")
	ex2 := s.withdraw(ctx, t, "another withdrawal with the same X-Nonce", s.withdrawalBody(second, s.stake), setNonce)
	want := before.Sub(s.stake.Decimal())
	switch {
	case ex2.Answered() && ex2.Response.Status == http.StatusUnauthorized:
	case ok2xx(ex2):
		s.undoLater(t, second, s.stake)
		want = want.Sub(s.stake.Decimal())
		t.Warnf(&ex2, "a request reusing the X-Nonce of request #%d was accepted; de-duplication is optional in the spec, but refusing a nonce seen in the last 10 minutes (401) stops the replay of a captured request",
			ex1.Seq)
	default:
		t.Warnf(&ex2, "a request reusing an X-Nonce was answered %s; failed header checks are answered 401 in the spec", ex2.Outcome())
	}
	after := s.balance(ctx, t, "after")
	if !after.Equal(want) {
		t.Fatalf(&ex2, "the balance is %s, not %s, after one accepted withdrawal of %s from %s and one refused: a refused request must change nothing",
			s.v(after), s.v(want), s.amount(s.stake), s.v(before))
	}
}

// checkReplay sends one withdrawal twice.
func (s *suite) checkReplay(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	wdID := conformance.NewID("wd")
	body := s.withdrawalBody(wdID, s.stake)
	ex1 := s.withdraw(ctx, t, "withdrawal", body, nil)
	if !ok2xx(ex1) {
		t.Skipf("not checked: a correctly signed withdrawal was answered %s (see the check withdrawal)", ex1.Outcome())
	}
	s.undoLater(t, wdID, s.stake)
	replay := s.withdraw(ctx, t, "the same withdrawal again (new nonce and timestamp)", body, nil)
	after := s.balance(ctx, t, "after")
	if want := before.Sub(s.stake.Decimal()); !after.Equal(want) {
		t.Fatalf(&replay, "the balance is %s after one withdrawal of %s from %s sent twice, not %s: %s; a processed transaction_id must move no money again",
			s.v(after), s.amount(s.stake), s.v(before), s.v(want), movedBy(after.Sub(want), s.stake.Decimal(), "stake"))
	}
	requireReplay(t, ex1, replay, "withdrawal")
}

// checkReplayOtherBody sends a processed transaction_id with twice the
// amount.
func (s *suite) checkReplayOtherBody(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	wdID := conformance.NewID("wd")
	ex1 := s.withdraw(ctx, t, "withdrawal", s.withdrawalBody(wdID, s.stake), nil)
	if !ok2xx(ex1) {
		t.Skipf("not checked: a correctly signed withdrawal was answered %s (see the check withdrawal)", ex1.Outcome())
	}
	s.undoLater(t, wdID, s.stake)
	double := s.stake.Add(s.stake)
	ex2 := s.withdraw(ctx, t, "the same transaction_id with amount "+s.amount(double), s.withdrawalBody(wdID, double), nil)
	after := s.balance(ctx, t, "after")
	if want := before.Sub(s.stake.Decimal()); !after.Equal(want) {
		t.Fatalf(&ex2, "the balance is %s, not %s, after a withdrawal of %s and a second request under its transaction_id: %s; a processed transaction_id must move no money again",
			s.v(after), s.v(want), s.amount(s.stake), movedBy(after.Sub(want), s.stake.Decimal(), "stake"))
	}
	switch {
	case ok2xx(ex2) && conformance.SameJSON(ex1.Response.Body, ex2.Response.Body):
	case ok2xx(ex2):
		t.Fatalf(&ex2, "the request was accepted with another answer than the first (#%d: %s): a processed transaction_id returns the first answer, or the request is refused",
			ex1.Seq, conformance.Snippet(ex1.Response.Body))
	case ex2.Answered() && ex2.Response.Status >= 400 && ex2.Response.Status < 500:
	default:
		t.Warnf(&ex2, "the request was answered %s; the spec returns the first answer for a processed transaction_id (a refusal with a 4xx is fine too)", ex2.Outcome())
	}
}

// checkRollbackUnknown rolls back a withdrawal that was never sent, then
// sends it.
func (s *suite) checkRollbackUnknown(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	wdID := conformance.NewID("wd")
	ex := s.rollback(ctx, t, "rollback of a withdrawal never sent", wdID, s.rollbackBody(conformance.NewID("rb"), s.stake))
	if !ok2xx(ex) {
		t.Fatalf(&ex, "the rollback of a withdrawal the wallet never saw was answered %s; the operator answers 200 even when it never saw the withdrawal (otherwise the platform retries the rollback for ever)",
			ex.Outcome())
	}
	if mid := s.balance(ctx, t, "after the rollback"); !mid.Equal(before) {
		t.Fatalf(&ex, "the rollback of a withdrawal never seen moved the balance from %s to %s; there is nothing to credit back", s.v(before), s.v(mid))
	}
	late := s.withdraw(ctx, t, "the rolled-back withdrawal arriving late", s.withdrawalBody(wdID, s.stake), nil)
	switch {
	case ok2xx(late):
		s.undoLater(t, wdID, s.stake)
		t.Fatalf(&late, "the withdrawal named by an earlier rollback (#%d) was accepted (%d); the operator must remember the rolled-back transaction_id and refuse that withdrawal when it arrives late",
			ex.Seq, late.Response.Status)
	case !late.Answered() || late.Response.Status < 400 || late.Response.Status > 499:
		t.Fatalf(&late, "the withdrawal named by an earlier rollback was answered %s; it must be refused with a 4xx (anything else leaves the debit unknown to the platform)", late.Outcome())
	}
	if after := s.balance(ctx, t, "after the late withdrawal"); !after.Equal(before) {
		t.Fatalf(&late, "the refused late withdrawal moved the balance from %s to %s; a refused request must change nothing", s.v(before), s.v(after))
	}
}

// checkDepositLost settles a test bet as lost.
func (s *suite) checkDepositLost(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	wdID, _, _, p := s.debit(ctx, t, "withdrawal of the bet's stake", s.stake)
	body := s.depositBody(conformance.NewID("dp"), wdID, money.Zero(), wallet.ResultLost)
	ex := s.deposit(ctx, t, "deposit of 0 for the lost bet", body)
	if !ok2xx(ex) {
		t.Fatalf(&ex, "a deposit of amount %s (a lost bet) was answered %s; the spec: \"the amount can be zero for a lost bet\", and the platform resends it until a 2xx",
			s.amount(money.Zero()), ex.Outcome())
	}
	p.Settle()
	want := before.Sub(s.stake.Decimal())
	if b, ok := optionalBalance(ex); ok && !b.Equal(want) {
		t.Fatalf(&ex, "the zero deposit answered balance %s; after the stake of %s from %s it is %s", s.v(b), s.amount(s.stake), s.v(before), s.v(want))
	}
	replay := s.deposit(ctx, t, "the same deposit again", body)
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&replay, "the balance is %s, not %s, after a stake of %s and a deposit of 0 sent twice: a lost bet's deposit credits nothing",
			s.v(after), s.v(want), s.amount(s.stake))
	}
	requireReplay(t, ex, replay, "deposit")
}

// checkDepositWon settles a test bet as won, paying two stakes.
func (s *suite) checkDepositWon(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	wdID, _, _, p := s.debit(ctx, t, "withdrawal of the bet's stake", s.stake)
	payout := s.stake.Add(s.stake)
	body := s.depositBody(conformance.NewID("dp"), wdID, payout, wallet.ResultWon)
	ex := s.deposit(ctx, t, "deposit of the won bet's payout", body)
	if !ok2xx(ex) {
		t.Fatalf(&ex, "the deposit of a won bet's payout %s was answered %s; the spec answers 200, and the platform resends it until a 2xx", s.amount(payout), ex.Outcome())
	}
	p.Settle()
	want := before.Sub(s.stake.Decimal()).Add(payout.Decimal())
	if b, ok := optionalBalance(ex); ok && !b.Equal(want) {
		t.Fatalf(&ex, "the deposit answered balance %s; %s minus the stake %s plus the payout %s is %s: a deposit credits exactly its amount",
			s.v(b), s.v(before), s.amount(s.stake), s.amount(payout), s.v(want))
	}
	replay := s.deposit(ctx, t, "the same deposit again", body)
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&replay, "the balance is %s, not %s, after a stake of %s and a deposit of %s sent twice: %s; a deposit is paid exactly once",
			s.v(after), s.v(want), s.amount(s.stake), s.amount(payout), movedBy(after.Sub(want), payout.Decimal(), "payout"))
	}
	requireReplay(t, ex, replay, "deposit")
}

// checkInsufficientFunds asks for the balance plus one stake.
func (s *suite) checkInsufficientFunds(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	amount, err := money.ParsePositive(before.Add(s.stake.Decimal()).RoundCeil(s.decimals).StringFixed(s.decimals))
	if err != nil {
		t.Skipf("not checked: the balance %s plus one stake is not an amount the platform can send: %v", s.v(before), err)
	}
	wdID := conformance.NewID("wd")
	ex := s.withdraw(ctx, t, "withdrawal above the balance", s.withdrawalBody(wdID, amount), nil)
	switch {
	case insufficientFunds(ex):
	case ok2xx(ex):
		s.undoLater(t, wdID, amount)
		t.Fatalf(&ex, "a withdrawal of %s, above the balance %s, was accepted; it must be refused with a 4xx {\"error\": \"insufficient_funds\"}", s.amount(amount), s.v(before))
	case ex.Answered() && ex.Response.Status >= 400 && ex.Response.Status < 500:
		t.Fatalf(&ex, "a withdrawal above the balance was refused %d with error %q; the platform reads only {\"error\": \"insufficient_funds\"} (or a 409 with no body) as insufficient funds, and would tell the bettor \"bet rejected\" instead of \"balance too low\"",
			ex.Response.Status, errorCode(ex))
	default:
		t.Fatalf(&ex, "a withdrawal above the balance was answered %s; insufficient funds is a final refusal, a 4xx {\"error\": \"insufficient_funds\"} (the platform reads anything else as unknown, resends it and rolls it back)",
			ex.Outcome())
	}
	if after := s.balance(ctx, t, "after"); !after.Equal(before) {
		t.Fatalf(&ex, "the refused withdrawal moved the balance from %s to %s; a refused request must change nothing", s.v(before), s.v(after))
	}
}

// checkBalanceFormat reads every balance the wallet answered during the
// run.
func (s *suite) checkBalanceFormat(_ context.Context, t *conformance.T) {
	var bad, odd conformance.Tally
	seen := 0
	for _, ex := range t.History() {
		if !ok2xx(ex) {
			continue
		}
		o, err := conformance.ParseObject(ex.Response.Body)
		if err != nil || !o.Has("balance") {
			continue
		}
		seen++
		text, err := conformance.PlainDecimal(o["balance"])
		if err == nil {
			_, err = money.ParseAmount(text)
		}
		if err != nil {
			bad.Add(ex, "balance is "+err.Error())
			continue
		}
		if n := conformance.FractionDigits(text); n != int(s.decimals) {
			odd.Add(ex, fmt.Sprintf("balance %q has %d decimals; %s has %d", text, n, s.currency, s.decimals))
		}
	}
	if seen == 0 {
		t.Skipf("no 2xx answer of the run carried a balance")
	}
	odd.Warn(t, "the spec only says \"string, decimal\", but the platform writes amounts with exactly the currency's decimals, and so should balances")
	bad.Fail(t, "the spec's balance is a decimal string (\"90.00\"), and the platform reads a 2xx without one as an unknown outcome: it resends the bet and rolls it back")
}

// requireReplay fails the check unless replay got the same answer as
// first.
func requireReplay(t *conformance.T, first, replay conformance.Exchange, what string) {
	if !ok2xx(replay) {
		t.Fatalf(&replay, "the replayed %s (same transaction_id and body, new nonce and timestamp) was answered %s; the spec returns the first answer (#%d, %d) for a processed transaction_id, and the platform resends after time-outs",
			what, replay.Outcome(), first.Seq, first.Response.Status)
	}
	conformance.RequireSameAnswer(t, first, replay, what, "a processed transaction_id returns the first answer")
}

// movedBy describes an unexpected difference of the balance, in stakes
// when it is a whole number of them.
func movedBy(diff, unit decimal.Decimal, unitName string) string {
	switch {
	case diff.IsZero():
		return "no difference"
	case !unit.IsZero() && diff.Equal(unit):
		return "one " + unitName + " too high"
	case !unit.IsZero() && diff.Equal(unit.Neg()):
		return "one " + unitName + " too low"
	case diff.IsPositive():
		return diff.String() + " too high"
	}
	return diff.Neg().String() + " too low"
}
