package casino

import (
	"github.com/foresight-dev/foresight/internal/sandbox/faults"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// kindOmitRoundID is the casino's own fault: a BetWin 200 without
// round_id (OmitRoundIDNext).
const kindOmitRoundID = "omit_round_id"

// protocol is what the casino's faults differ by from the operator's: its
// endpoints, its api_codes and the omit_round_id fault.
var protocol = faults.Protocol{
	Sandbox:         "casino",
	Subject:         "account",
	SubjectField:    "account_id",
	CodeField:       "api_code",
	DefaultCode:     "100",
	Endpoints:       []string{EndpointBalance, EndpointBetWin, EndpointFinish, EndpointRollback},
	MinFailStatus:   200,
	DescribeRefusal: func(code string) string { return "answer api_code " + code },
	Extras: []faults.Extra{{
		Kind: kindOmitRoundID, Endpoint: EndpointBetWin,
		Describe: "be answered without round_id when they succeed",
		Label:    "omit_round_id: a BetWin 200 without round_id",
	}},
	Kinds: []sandboxweb.Option{
		{Value: faults.KindReject, Label: "reject: a wallet error with an api_code (a retry gets its first answer)"},
		{Value: faults.KindRefuseRetry, Label: "refuse_retry: a wallet error to a retry, ignoring its first answer (non-conforming wallet)"},
		{Value: faults.KindMalformed},
		{Value: faults.KindFail, Label: "fail: an HTTP status without a wallet body"},
	},
	CodeLabel: "api_code",
	Codes: []sandboxweb.Option{
		{Value: "100", Label: "100 insufficient funds"},
		{Value: "105", Label: "105 bet limit"},
		{Value: "106", Label: "106 max bet limit"},
		{Value: "110", Label: "110 player disabled"},
		{Value: "404", Label: "404 not found"},
		{Value: "503", Label: "503 service unavailable (retryable)"},
		{Value: "500", Label: "500 unknown error (retryable)"},
		{Value: "not-a-number", Label: "non-numeric (treated as temporary)"},
	},
	Endpoint: EndpointBetWin,
}

// Faults arms failure injection for one account. Get it with ForAccount;
// the same methods on Casino arm faults for every account. A request takes
// each kind of fault from its account's scope when one is armed there, and
// from the every-account scope otherwise; the two counters are separate.
//
// The endpoints are EndpointBalance, EndpointBetWin, EndpointFinish and
// EndpointRollback; every fault acts after authentication. FailNext takes
// a status from 200 to 599 and answers {"error":"injected_failure"}, which
// is not a wallet error body (no api_code): the case of a proxy or
// crashed server in front of the wallet. RejectNext and RefuseRetryNext
// answer the wallet error body with meta.api_code code, with the status
// and code the casino uses for that api_code: 403 permission_denied for
// "403", 500 internal for "500" to "599" (503: the retryable "service
// unavailable"), 400 invalid_argument for anything else, including a
// non-numeric code such as "oops" (which the platform must treat as a
// temporary error); for "100", "105" and "106" meta.balance carries the
// account's balance when the account exists in the request's currency. A
// request is a retry when its id_provider (a Round/Finish: its round)
// already has an answer. On a malformed answer the platform sends the
// same request again.
type Faults struct{ *faults.Scope }

// ForAccount returns the fault switches that apply only to requests whose
// account_id is accountID. It panics on an empty accountID.
func (c *Casino) ForAccount(accountID string) *Faults {
	return &Faults{c.Faults.Only("ForAccount", accountID)}
}

// everyAccount is the every-account scope, whose switches the Casino
// carries as its own methods (FailNext, RejectNext, …; see Faults).
type everyAccount = faults.Scope

// OmitRoundIDNext makes the next n Round/BetWin answers of 200, for every
// account, leave out round_id; see Faults.OmitRoundIDNext.
func (c *Casino) OmitRoundIDNext(n int) { c.everyAccount.ArmExtra(kindOmitRoundID, n) }

// OmitRoundIDNext makes the next n Round/BetWin requests that are
// processed with a 200 (money moved) be answered without round_id. Replays,
// refusals and invalid requests do not use it up. The answer stored for the
// id_provider is the one sent, so a replay lacks round_id too; the
// platform is expected to roll the transaction back instead. It replaces an
// earlier OmitRoundIDNext of the scope; n ≤ 0 disarms it.
func (f *Faults) OmitRoundIDNext(n int) { f.ArmExtra(kindOmitRoundID, n) }

// takeFault consumes the armed faults for one request, whose body is
// peeked at: whether its id_provider (a Round/Finish: its round) already
// has an answer decides between RejectNext and RefuseRetryNext.
func (c *Casino) takeFault(endpoint string, w who) faults.Fault {
	if c.Faults.Empty() {
		return faults.Fault{}
	}
	c.mu.Lock()
	retry := c.answeredLocked(endpoint, w)
	c.mu.Unlock()
	return c.Faults.Take(endpoint, w.AccountID, retry)
}

// answeredLocked says whether the request w peeked at is a retry: its
// id_provider (a Round/Finish: its round) already has a stored answer.
func (c *Casino) answeredLocked(endpoint string, w who) bool {
	switch endpoint {
	case EndpointFinish:
		return w.RoundID != "" && c.finishes[w.RoundID] != nil
	case EndpointBetWin, EndpointRollback:
		return len(w.Transactions) == 1 && w.Transactions[0].IDProvider != "" && c.txs[w.Transactions[0].IDProvider] != nil
	}
	return false
}

// omitRoundIDLocked says whether the 200 of a BetWin of accountID leaves
// round_id out: live, it consumes an armed OmitRoundIDNext (and notes it in
// x, for the journal); replayed, it is what the record says.
func (c *Casino) omitRoundIDLocked(x *walletOp, accountID string) bool {
	if x.Replay {
		return x.omitRoundID
	}
	x.omitRoundID = c.Faults.TakeExtra(kindOmitRoundID, accountID)
	return x.omitRoundID
}

// injectedRejection is the answer of an armed RejectNext.
func (c *Casino) injectedRejection(apiCode string, w who) response {
	var balance string
	switch apiCode {
	case "100", "105", "106":
		c.mu.Lock()
		if acct := c.accounts[w.AccountID]; acct != nil && acct.currency == w.Currency {
			balance = c.format(acct.balance, acct.currency)
		}
		c.mu.Unlock()
	}
	return walletError(apiCode, "injected rejection", balance)
}
