package aggregatorwallet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/money"
)

// Spec references (aggregator-api.md).
const (
	specTable      = "aggregator-api.md › Wallet requests and responses"
	specBetWin     = "aggregator-api.md › Wallet requests and responses; Behaviour rules 2"
	specAuth       = "aggregator-api.md › Authentication"
	specIdempotent = "aggregator-api.md › Behaviour rules 4 (idempotency by id_provider)"
	specRollback   = "aggregator-api.md › Behaviour rules 3 (Round/Rollback)"
	specStates     = "aggregator-api.md › States and transitions"
	specErrors     = "aggregator-api.md › Errors (wallet rejections, api_code)"
	specItems      = "aggregator-api.md › Wallet requests and responses: \"one item per transaction, in the same order, with id_provider copied\""
	specDecimals   = "aggregator-api.md › Wallet requests and responses: \"decimal strings with at most 18 digits before and 12 after the point; never JSON numbers\""
)

// Checks returns the checks of the aggregator wallet, in the order Run runs
// them, with a Run that does nothing: for listings.
func Checks() []conformance.Check { return conformance.Listing((&suite{}).checks()) }

func (s *suite) checks() []conformance.Check {
	cs := []conformance.Check{
		{Name: "balance", Spec: specTable,
			Rule: "Player/Balance is answered 200 {balance} without meta.api_code",
			Run:  s.checkBalance},
		{Name: "bet", Spec: specBetWin,
			Rule: "a bet is answered 200 {round_id, balance, transactions} and debits exactly the stake",
			Run:  s.checkBet},
		{Name: "rollback", Spec: specRollback,
			Rule: "a rollback of a bet is answered 200 {balance, round_id, transactions} and credits the stake back once, also when replayed",
			Run:  s.checkRollback},
	}
	cs = append(cs, conformance.RefusalChecks(specAuth, s.refusals(), s.checkRefusal)...)
	return append(cs,
		conformance.Check{Name: "replay", Spec: specIdempotent,
			Rule: "a replayed bet (same id_provider and body) returns the first answer and debits once",
			Run:  s.checkReplay},
		conformance.Check{Name: "replay-other-body", Spec: specIdempotent,
			Rule: "a processed id_provider sent with another amount returns the first answer or is refused, and moves nothing",
			Run:  s.checkReplayOtherBody},
		conformance.Check{Name: "rollback-unknown", Spec: specRollback,
			Rule: "a rollback of a bet never seen is answered 200 with id \"\", moves nothing, and the late bet is not processed",
			Run:  s.checkRollbackUnknown},
		conformance.Check{Name: "win", Spec: specStates,
			Rule: "a win (finished true) credits exactly its amount once, also when replayed",
			Run:  s.checkWin},
		conformance.Check{Name: "finish", Spec: specStates,
			Rule: "Round/Finish of a lost bet is answered 200 {balance}, moves nothing, and a replay is answered 200",
			Run:  s.checkFinish},
		conformance.Check{Name: "closed-round", Spec: specBetWin,
			Rule: "a win in a round already finished is accepted and credited (no rejection because the round is closed)",
			Run:  s.checkClosedRound},
		conformance.Check{Name: "win-without-bet", Spec: specStates,
			Rule: "a win for a round without a debit is accepted and credited exactly",
			Run:  s.checkWinWithoutBet},
		conformance.Check{Name: "insufficient-funds", Spec: specErrors,
			Rule: "a bet above the balance is refused with api_code \"100\" (with meta.balance) and moves nothing",
			Run:  s.checkInsufficientFunds},
		conformance.Check{Name: "api-codes", Spec: specErrors,
			Rule: "every meta.api_code is a decimal number inside a JSON string; every 4xx error body carries one",
			Run:  checkAPICodes},
		conformance.Check{Name: "transaction-items", Spec: specItems,
			Rule: "BetWin and Rollback answers hold one item per request transaction, in order, with id_provider copied and a string id",
			Run:  checkTransactionItems},
		conformance.Check{Name: "decimal-format", Spec: specDecimals,
			Rule: "every balance (and meta.balance) is a JSON string with at most 18 digits before and 12 after the point",
			Run:  checkDecimalFormat},
		conformance.Check{Name: "content-type", Spec: "not in the spec for answers (a warning only)",
			Rule: "answers with a body say Content-Type: application/json",
			Run:  conformance.CheckContentType},
	)
}

// checkBalance reads the balance once.
func (s *suite) checkBalance(ctx context.Context, t *conformance.T) {
	ex := s.post(ctx, t, "Player/Balance", wallet.PathBalance, s.balanceBody(), nil)
	if ex.Answered() && ex.Response.Status == http.StatusNotFound {
		s.checkPathCase(ctx, t, ex)
	}
	if !ex.Answered() || ex.Response.Status != http.StatusOK {
		t.Fatalf(&ex, "Player/Balance was answered %s; the spec answers 200 {balance} (an error at session start keeps the player out of the game)", describe(ex))
	}
	o, err := conformance.ParseObject(ex.Response.Body)
	if err != nil {
		t.Fatalf(&ex, "the answer cannot be read: %v", err)
	}
	if code, ok := apiCode(o); ok {
		t.Fatalf(&ex, "the 200 answer carries meta.api_code %s; the platform reads api_code in every answer, 200 included, so this is a refusal", code)
	}
	if _, err := conformance.AnswerBalance(ex); err != nil {
		t.Fatalf(&ex, "%v; the spec's answer is {balance}", err)
	}
}

// checkPathCase explains a 404 at the spec's Player/Balance path when the
// wallet serves the same path in lower case, as some aggregator SDKs do.
func (s *suite) checkPathCase(ctx context.Context, t *conformance.T, ex conformance.Exchange) {
	lower := strings.ToLower(wallet.PathBalance)
	probe := s.post(ctx, t, "Player/Balance at the lower-case path", lower, s.balanceBody(), nil)
	if !probe.Answered() || probe.Response.Status == http.StatusNotFound {
		return
	}
	t.Fatalf(&probe, "deviation paths-lower-case: %s answers 404 but %s answers HTTP %d, so the wallet serves lower-case paths. "+
		"The platform calls only the spec's paths (aggregator-api.md: no setting changes a path), so every wallet call would answer 404: "+
		"no session could start and every bet would be rejected. Serve the spec's paths, or map them to yours in front of the wallet "+
		"(docs/aggregator-integration.md, \"Wallets built on an SDK\")", wallet.PathBalance, lower, probe.Response.Status)
}

// checkBet places a bet and follows the money.
func (s *suite) checkBet(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID := conformance.NewID("bet"), conformance.NewID("round")
	ex := s.post(ctx, t, "bet", wallet.PathBetWin, s.betBody(idProvider, roundID, s.stake), nil)
	if !success(ex) {
		t.Fatalf(&ex, "a signed bet of %s (balance %s) was answered %s; the spec answers 200 {round_id, balance, transactions}", s.stake, before, describe(ex))
	}
	s.undoLater(t, "bet", idProvider, roundID)
	o, _ := conformance.ParseObject(ex.Response.Body)
	if id, ok := o.Text("round_id"); !ok || id == "" {
		t.Fatalf(&ex, "the bet's answer has no round_id string; the platform treats such a bet as failed and rolls it back")
	}
	want := before.Sub(s.stake.Decimal())
	got, err := conformance.AnswerBalance(ex)
	if err != nil {
		t.Fatalf(&ex, "%v; the platform treats such a bet as failed and rolls it back", err)
	}
	if !got.Equal(want) {
		t.Fatalf(&ex, "the bet answered balance %s; %s minus the stake %s is %s: a bet debits exactly its amount", got, before, s.stake, want)
	}
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&ex, "Player/Balance says %s after the bet, not %s", after, want)
	}
}

// checkRollback rolls back a bet, twice.
func (s *suite) checkRollback(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID, _, p := s.bet(ctx, t)
	body := s.rollbackBody(conformance.NewID("rb"), roundID, idProvider)
	ex := s.post(ctx, t, "rollback of the bet", wallet.PathRollback, body, nil)
	if !success(ex) {
		t.Fatalf(&ex, "the rollback of a processed bet was answered %s; the spec answers 200 {balance, round_id, transactions} and credits the stake back", describe(ex))
	}
	p.Settle()
	o, _ := conformance.ParseObject(ex.Response.Body)
	if id, ok := o.Text("round_id"); !ok || id == "" {
		t.Fatalf(&ex, "the rollback's answer has no round_id string; the spec's answer is {balance, round_id, transactions}")
	}
	got, err := conformance.AnswerBalance(ex)
	if err != nil {
		t.Fatalf(&ex, "%v; the spec's answer is {balance, round_id, transactions}", err)
	}
	if !got.Equal(before) {
		t.Fatalf(&ex, "the rollback answered balance %s; with the stake back it is %s", got, before)
	}
	if items, ok := o.Array("transactions"); ok && len(items) == 1 {
		var item struct {
			ID *string `json:"id"`
		}
		if json.Unmarshal(items[0], &item) == nil && item.ID != nil && *item.ID == "" {
			t.Warnf(&ex, "the rollback of a processed bet answered id \"\"; the spec keeps the empty id for a rollback whose original does not exist")
		}
	}
	replay := s.post(ctx, t, "the same rollback again", wallet.PathRollback, body, nil)
	if after := s.balance(ctx, t, "after"); !after.Equal(before) {
		t.Fatalf(&replay, "Player/Balance says %s after a bet of %s and its rollback sent twice, not %s (%s)", after, s.stake, before, movedBy(after.Sub(before), s.stake))
	}
	requireReplay(t, ex, replay, "rollback")
}

// refusals are the requests whose authentication is wrong.
func (s *suite) refusals() []conformance.Refusal {
	wrong := conformance.WrongSecret(string(s.secret))
	return []conformance.Refusal{
		{Name: "wrong-signature", Step: "bet signed with another secret",
			Rule:  "a bet with a wrong X-REQUEST-SIGN is answered 403, moves nothing and does not use up its id_provider",
			Alter: func(h http.Header, body []byte) { h.Set(signatureHeader, wallet.Sign(wrong, body)) }},
		{Name: "missing-signature", Step: "bet without X-REQUEST-SIGN",
			Rule:  "a bet without X-REQUEST-SIGN is answered 403, moves nothing and does not use up its id_provider",
			Alter: func(h http.Header, _ []byte) { h.Del(signatureHeader) }},
	}
}

// checkRefusal sends a badly signed bet, reads the balance, then sends the
// same bet signed.
func (s *suite) checkRefusal(ctx context.Context, t *conformance.T, r conformance.Refusal) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID := conformance.NewID("bet"), conformance.NewID("round")
	body := s.betBody(idProvider, roundID, s.stake)
	ex := s.post(ctx, t, r.Step, wallet.PathBetWin, body, r.Alter)
	if ex.Answered() && ex.Response.Status == http.StatusBadRequest && answerCode(ex) == "403" {
		t.Warnf(&ex, "deviation signature-400: the %s was answered HTTP 400 with meta.api_code 403 (the convention of some aggregator SDKs), "+
			"not the spec's HTTP 403. The platform signs every request; were the secrets to differ, it would read api_code 403 (400 to 499) "+
			"as a final rejection of each bet, as it reads a 403, so no money is at risk. Answer HTTP 403 to follow the spec "+
			"(docs/aggregator-integration.md, \"Wallets built on an SDK\")", r.Step)
	} else if ex.Response.Status != http.StatusForbidden || !ex.Answered() {
		if success(ex) {
			s.undoLater(t, "bet", idProvider, roundID)
			t.Fatalf(&ex, "the %s was accepted; the spec answers a missing or wrong signature 403 and processes nothing", r.Step)
		}
		t.Fatalf(&ex, "the %s was answered %s; the spec answers a missing or wrong signature with HTTP 403", r.Step, describe(ex))
	}
	if mid := s.balance(ctx, t, "after the refused bet"); !mid.Equal(before) {
		s.undoLater(t, "bet", idProvider, roundID)
		t.Fatalf(&ex, "the refused bet moved the balance from %s to %s; a refused request must change nothing", before, mid)
	}
	signed := s.post(ctx, t, "the same bet, correctly signed", wallet.PathBetWin, body, nil)
	if !success(signed) {
		t.Fatalf(&signed, "the same bet correctly signed was answered %s after the refusal (#%d); the refused request must not use up its id_provider",
			describe(signed), ex.Seq)
	}
	s.undoLater(t, "bet", idProvider, roundID)
	if after := s.balance(ctx, t, "after the signed bet"); !after.Equal(before.Sub(s.stake.Decimal())) {
		t.Fatalf(&signed, "Player/Balance says %s after the signed bet of %s from %s (%s)", after, s.stake, before,
			movedBy(after.Sub(before.Sub(s.stake.Decimal())), s.stake))
	}
}

// checkReplay sends one bet twice.
func (s *suite) checkReplay(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID := conformance.NewID("bet"), conformance.NewID("round")
	body := s.betBody(idProvider, roundID, s.stake)
	ex := s.post(ctx, t, "bet", wallet.PathBetWin, body, nil)
	if !success(ex) {
		t.Skipf("not checked: a bet of %s was answered %s (see the check bet)", s.stake, describe(ex))
	}
	s.undoLater(t, "bet", idProvider, roundID)
	replay := s.post(ctx, t, "the same bet again", wallet.PathBetWin, body, nil)
	want := before.Sub(s.stake.Decimal())
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&replay, "Player/Balance says %s after one bet of %s from %s sent twice, not %s (%s); a processed id_provider moves no money again",
			after, s.stake, before, want, movedBy(after.Sub(want), s.stake))
	}
	requireReplay(t, ex, replay, "bet")
}

// requireReplay fails the check unless replay got the same answer as
// first.
func requireReplay(t *conformance.T, first, replay conformance.Exchange, what string) {
	if !success(replay) {
		t.Fatalf(&replay, "the replayed %s (same id_provider and body) was answered %s; an id_provider already processed returns the first answer (#%d), and the platform resends after time-outs",
			what, describe(replay), first.Seq)
	}
	conformance.RequireSameAnswer(t, first, replay, what, "an id_provider already processed returns the first answer")
}

// checkReplayOtherBody sends a processed id_provider with twice the
// amount.
func (s *suite) checkReplayOtherBody(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID := conformance.NewID("bet"), conformance.NewID("round")
	ex := s.post(ctx, t, "bet", wallet.PathBetWin, s.betBody(idProvider, roundID, s.stake), nil)
	if !success(ex) {
		t.Skipf("not checked: a bet of %s was answered %s (see the check bet)", s.stake, describe(ex))
	}
	s.undoLater(t, "bet", idProvider, roundID)
	double := s.stake.Add(s.stake)
	ex2 := s.post(ctx, t, "the same id_provider with amount "+double.String(), wallet.PathBetWin, s.betBody(idProvider, roundID, double), nil)
	want := before.Sub(s.stake.Decimal())
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&ex2, "Player/Balance says %s, not %s, after a bet of %s and a second request under its id_provider (%s); a processed id_provider moves no money again",
			after, want, s.stake, movedBy(after.Sub(want), s.stake))
	}
	switch {
	case success(ex2) && conformance.SameJSON(ex.Response.Body, ex2.Response.Body):
	case success(ex2):
		t.Fatalf(&ex2, "the request was accepted with another answer than the first (#%d: %s); a processed id_provider returns the first answer, or the request is refused",
			ex.Seq, conformance.Snippet(ex.Response.Body))
	case ex2.Answered() && (answerCode(ex2) != "" || ex2.Response.Status < 500):
	default:
		t.Warnf(&ex2, "the request was answered %s; the spec returns the first answer for a processed id_provider (a refusal with an api_code is fine too)", describe(ex2))
	}
}

// checkRollbackUnknown rolls back a bet never sent, then sends it.
func (s *suite) checkRollbackUnknown(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID := conformance.NewID("bet"), conformance.NewID("round")
	ex := s.post(ctx, t, "rollback of a bet never sent", wallet.PathRollback, s.rollbackBody(conformance.NewID("rb"), roundID, idProvider), nil)
	if !success(ex) {
		t.Fatalf(&ex, "the rollback of a bet the wallet never saw was answered %s; the spec: process it even if it arrives before the bet, and answer a valid response with id \"\" (the platform resends it until a 200)",
			describe(ex))
	}
	o, _ := conformance.ParseObject(ex.Response.Body)
	items, _ := o.Array("transactions")
	var item struct {
		ID *string `json:"id"`
	}
	if len(items) != 1 || json.Unmarshal(items[0], &item) != nil || item.ID == nil {
		t.Fatalf(&ex, "the answer has no transactions[0].id; for a rollback whose original does not exist the spec answers transactions [{id_provider, id: \"\"}]")
	}
	if *item.ID != "" {
		t.Fatalf(&ex, "the answer's transactions[0].id is %q; for a rollback whose original does not exist the spec sets id to an empty string", *item.ID)
	}
	if mid := s.balance(ctx, t, "after the rollback"); !mid.Equal(before) {
		t.Fatalf(&ex, "the rollback of a bet never seen moved the balance from %s to %s; there is nothing to reverse", before, mid)
	}
	late := s.post(ctx, t, "the rolled-back bet arriving late", wallet.PathBetWin, s.betBody(idProvider, roundID, s.stake), nil)
	after := s.balance(ctx, t, "after the late bet")
	if !after.Equal(before) {
		s.undoLater(t, "late bet", idProvider, roundID)
		t.Fatalf(&late, "the late bet named by an earlier rollback (#%d) was processed: the balance went from %s to %s; after reversing, the wallet must not process a late copy of the original bet",
			ex.Seq, before, after)
	}
	if success(late) {
		t.Warnf(&late, "the late bet named by an earlier rollback was answered 200 as if debited, though no money moved; refuse it with an api_code (the sandbox casino answers 409)")
	}
}

// checkWin places a bet and pays twice its stake.
func (s *suite) checkWin(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	_, roundID, _, p := s.bet(ctx, t)
	payout := s.stake.Add(s.stake)
	body := s.winBody(conformance.NewID("win"), roundID, payout)
	ex := s.post(ctx, t, "win of the round (finished true)", wallet.PathBetWin, body, nil)
	if !success(ex) {
		t.Fatalf(&ex, "a win of %s was answered %s; the spec answers 200 {round_id, balance, transactions}, and the platform resends it until a 200", payout, describe(ex))
	}
	p.Settle()
	want := before.Sub(s.stake.Decimal()).Add(payout.Decimal())
	if got, err := conformance.AnswerBalance(ex); err != nil || !got.Equal(want) {
		t.Fatalf(&ex, "the win answered balance %s (%v); %s minus the stake %s plus the win %s is %s: a win credits exactly its amount",
			got, err, before, s.stake, payout, want)
	}
	replay := s.post(ctx, t, "the same win again", wallet.PathBetWin, body, nil)
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&replay, "Player/Balance says %s after a bet of %s and a win of %s sent twice, not %s (%s); a win is paid once",
			after, s.stake, payout, want, movedBy(after.Sub(want), payout))
	}
	requireReplay(t, ex, replay, "win")
}

// checkFinish places a bet and finishes its round as lost.
func (s *suite) checkFinish(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	_, roundID, _, p := s.bet(ctx, t)
	body := s.finishBody(roundID)
	ex := s.post(ctx, t, "Round/Finish of the lost round", wallet.PathFinish, body, nil)
	if !success(ex) {
		t.Fatalf(&ex, "Round/Finish of a lost bet's round was answered %s; the spec answers 200 {balance}, and the platform resends it until a 200", describe(ex))
	}
	p.Settle()
	want := before.Sub(s.stake.Decimal())
	got, err := conformance.AnswerBalance(ex)
	if err != nil {
		t.Fatalf(&ex, "%v; the spec's Round/Finish answer is {balance}", err)
	}
	if !got.Equal(want) {
		t.Fatalf(&ex, "Round/Finish answered balance %s; after the stake of %s from %s it is %s: Finish moves no money", got, s.stake, before, want)
	}
	replay := s.post(ctx, t, "the same Round/Finish again", wallet.PathFinish, body, nil)
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&replay, "Player/Balance says %s, not %s, after a bet of %s and its Round/Finish sent twice: Finish moves no money", after, want, s.stake)
	}
	if !success(replay) {
		t.Fatalf(&replay, "a repeated Round/Finish was answered %s; the platform resends Finish after a time-out, until a 200", describe(replay))
	}
	if !conformance.SameJSON(ex.Response.Body, replay.Response.Body) {
		t.Warnf(&replay, "the repeated Round/Finish was answered %s; the first answer (#%d) was %s", conformance.Snippet(replay.Response.Body), ex.Seq, conformance.Snippet(ex.Response.Body))
	}
}

// checkClosedRound finishes a round, then pays a win in it.
func (s *suite) checkClosedRound(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	_, roundID, _, p := s.bet(ctx, t)
	fin := s.post(ctx, t, "Round/Finish", wallet.PathFinish, s.finishBody(roundID), nil)
	if !success(fin) {
		t.Skipf("not checked: Round/Finish was answered %s (see the check finish)", describe(fin))
	}
	ex := s.post(ctx, t, "win in the finished round", wallet.PathBetWin, s.winBody(conformance.NewID("win"), roundID, s.stake), nil)
	if !success(ex) {
		t.Fatalf(&ex, "a win in a round already finished was answered %s; the spec: do not reject a transaction because the round is already closed", describe(ex))
	}
	p.Settle()
	if after := s.balance(ctx, t, "after"); !after.Equal(before) {
		t.Fatalf(&ex, "Player/Balance says %s after a bet of %s and a win of %s in its finished round, not %s (%s)", after, s.stake, s.stake, before, movedBy(after.Sub(before), s.stake))
	}
}

// checkWinWithoutBet pays a win in a round that has no bet, then rolls it
// back.
func (s *suite) checkWinWithoutBet(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	idProvider, roundID := conformance.NewID("win"), conformance.NewID("round")
	ex := s.post(ctx, t, "win in a round without a bet", wallet.PathBetWin, s.winBody(idProvider, roundID, s.stake), nil)
	if !success(ex) {
		t.Fatalf(&ex, "a win in a round without a debit was answered %s; the spec: a win for a round without a debit must still be accepted", describe(ex))
	}
	s.undoLater(t, "win", idProvider, roundID)
	want := before.Add(s.stake.Decimal())
	if after := s.balance(ctx, t, "after"); !after.Equal(want) {
		t.Fatalf(&ex, "Player/Balance says %s after a win of %s from %s, not %s (%s)", after, s.stake, before, want, movedBy(after.Sub(want), s.stake))
	}
}

// checkInsufficientFunds bets the balance plus one stake.
func (s *suite) checkInsufficientFunds(ctx context.Context, t *conformance.T) {
	before := s.balance(ctx, t, "before")
	amount, err := money.ParsePositive(before.Add(s.stake.Decimal()).String())
	if err != nil {
		t.Skipf("not checked: the balance %s plus one stake is not an amount the platform can send: %v", before, err)
	}
	idProvider, roundID := conformance.NewID("bet"), conformance.NewID("round")
	ex := s.post(ctx, t, "bet above the balance", wallet.PathBetWin, s.betBody(idProvider, roundID, amount), nil)
	if success(ex) {
		s.undoLater(t, "bet", idProvider, roundID)
		t.Fatalf(&ex, "a bet of %s, above the balance %s, was accepted; it must be refused with api_code \"100\"", amount, before)
	}
	code := answerCode(ex)
	if strings.Trim(code, `"`) != "100" {
		what := "no api_code"
		if code != "" {
			what = "api_code " + code
		}
		t.Fatalf(&ex, "a bet above the balance was answered %s with %s; the spec's code for \"player lacks money\" is api_code \"100\" (the platform then tells the player the balance is too low)",
			ex.Outcome(), what)
	}
	o, _ := conformance.ParseObject(ex.Response.Body)
	meta, _ := o.Object("meta")
	if !meta.Has("balance") {
		t.Warnf(&ex, "the refusal has no meta.balance; the spec makes it optional, but the platform shows it to the player with the refusal")
	} else if b, err := conformance.ReadDecimal(meta["balance"]); err != nil || !b.Equal(before) {
		t.Fatalf(&ex, "the refusal's meta.balance is %s; the balance is %s", conformance.Snippet(meta["balance"]), before)
	}
	if after := s.balance(ctx, t, "after"); !after.Equal(before) {
		t.Fatalf(&ex, "the refused bet moved the balance from %s to %s; a refused request must change nothing", before, after)
	}
}

// checkAPICodes reads the api_code of every answer of the run.
func checkAPICodes(_ context.Context, t *conformance.T) {
	var bad, missing, shape conformance.Tally
	seen := 0
	for _, ex := range t.History() {
		if !ex.Answered() {
			continue
		}
		seen++
		st := ex.Response.Status
		o, err := conformance.ParseObject(ex.Response.Body)
		meta, hasMeta := o.Object("meta")
		switch {
		case err == nil && hasMeta && meta.Has("api_code"):
			if why := apiCodeProblem(meta["api_code"]); why != "" {
				bad.Add(ex, "meta.api_code is "+why)
			}
			_, hasCode := o.Text("code")
			_, hasMsg := o.Text("msg")
			if !hasCode || !hasMsg {
				shape.Add(ex, errorShape)
			}
		case st >= 400 && st < 500 && st != http.StatusForbidden:
			missing.Add(ex, fmt.Sprintf("an HTTP %d answer without meta.api_code", st))
		case st == http.StatusForbidden:
			shape.Add(ex, errorShape)
		}
	}
	if seen == 0 {
		t.Skipf("no request of the run was answered")
	}
	shape.Warn(t, "")
	bad.Fail(t, "the spec wants a decimal number inside a string (\"100\"): the platform parses it as a number, and a code it cannot read is a temporary error, retried for ever")
	missing.Fail(t, "business rejections are signalled through meta.api_code, and the platform resends a 4xx without one as a temporary error")
}

// errorShape is the fault of an error answer without the spec's error
// body.
const errorShape = "an error answer without the spec's error body {code, msg, meta: {api_code, api_message}}"

// apiCodeProblem says what is wrong with an api_code value, "" when it is
// a JSON string holding a decimal number.
func apiCodeProblem(raw json.RawMessage) string {
	text := strings.TrimSpace(string(raw))
	if text == "" || text[0] != '"' {
		return "the JSON value " + conformance.Snippet(raw) + ", not a string"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" {
		return conformance.Snippet(raw)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Sprintf("%q, not a decimal number", s)
		}
	}
	return ""
}

// checkTransactionItems compares the transactions of every BetWin and
// Rollback answer with its request.
func checkTransactionItems(_ context.Context, t *conformance.T) {
	var bad conformance.Tally
	seen := 0
	for _, ex := range t.History() {
		path := ex.Path()
		isBetWin := strings.HasSuffix(path, wallet.PathBetWin)
		if (!isBetWin && !strings.HasSuffix(path, wallet.PathRollback)) || !success(ex) {
			continue
		}
		seen++
		if why := itemsProblem(ex, isBetWin); why != "" {
			bad.Add(ex, why)
		}
	}
	if seen == 0 {
		t.Skipf("no Round/BetWin or Round/Rollback of the run succeeded")
	}
	bad.Fail(t, "the answer carries one item per request transaction, in the same order, with id_provider copied")
}

func itemsProblem(ex conformance.Exchange, betWin bool) string {
	var req struct {
		Transactions []struct {
			IDProvider string `json:"id_provider"`
		} `json:"transactions"`
	}
	if json.Unmarshal(ex.Request.Body, &req) != nil {
		return ""
	}
	o, _ := conformance.ParseObject(ex.Response.Body)
	items, ok := o.Array("transactions")
	if !ok {
		return "the answer has no transactions array"
	}
	if len(items) != len(req.Transactions) {
		return fmt.Sprintf("the answer has %d transaction items for the request's %d", len(items), len(req.Transactions))
	}
	for i, raw := range items {
		var item conformance.Object
		if json.Unmarshal(raw, &item) != nil || item == nil {
			return fmt.Sprintf("transactions[%d] is not an object", i)
		}
		idp, _ := item.Text("id_provider")
		if idp != req.Transactions[i].IDProvider {
			return fmt.Sprintf("transactions[%d].id_provider is %q; the request's transactions[%d] is %q", i, idp, i, req.Transactions[i].IDProvider)
		}
		id, ok := item.Text("id")
		if !ok {
			return fmt.Sprintf("transactions[%d].id is not a string", i)
		}
		if betWin && id == "" {
			return fmt.Sprintf("transactions[%d].id is empty; a processed bet or win carries the wallet's transaction id", i)
		}
	}
	return ""
}

// checkDecimalFormat reads every balance the wallet answered during the
// run.
func checkDecimalFormat(_ context.Context, t *conformance.T) {
	var bad, odd conformance.Tally
	seen := 0
	for _, ex := range t.History() {
		if !ex.Answered() {
			continue
		}
		o, err := conformance.ParseObject(ex.Response.Body)
		if err != nil {
			continue
		}
		fields := map[string]json.RawMessage{}
		if ex.Response.Status == http.StatusOK && o.Has("balance") {
			fields["balance"] = o["balance"]
		}
		if meta, ok := o.Object("meta"); ok && meta.Has("balance") {
			fields["meta.balance"] = meta["balance"]
		}
		for name, raw := range fields {
			seen++
			text, err := conformance.PlainDecimal(raw)
			switch {
			case err != nil:
			case conformance.IntegerDigits(text) > money.MaxIntegerDigits || conformance.FractionDigits(text) > money.MaxFractionalDigits:
				err = fmt.Errorf("%q, with more than %d digits before or %d after the point", text, money.MaxIntegerDigits, money.MaxFractionalDigits)
			}
			if err != nil {
				bad.Add(ex, name+" is "+err.Error())
				continue
			}
			if _, err := money.ParseAmount(text); err != nil {
				odd.Add(ex, fmt.Sprintf("%s %q: %v", name, text, err))
			}
		}
	}
	if seen == 0 {
		t.Skipf("no answer of the run carried a balance")
	}
	odd.Warn(t, "the spec allows it, but the platform reads balances without leading zeros")
	bad.Fail(t, "amounts and balances are decimal strings with at most 18 digits before and 12 after the point, never JSON numbers")
}

// movedBy describes an unexpected difference of the balance, in units of
// amount when it is one of them.
func movedBy(diff decimal.Decimal, amount money.Amount) string {
	unit := amount.Decimal()
	switch {
	case diff.IsZero():
		return "no difference"
	case diff.Equal(unit):
		return amount.String() + " too high"
	case diff.Equal(unit.Neg()):
		return amount.String() + " too low"
	case diff.IsPositive():
		return diff.String() + " too high"
	}
	return diff.Neg().String() + " too low"
}
