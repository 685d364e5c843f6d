// Package operatorwallet is the black-box conformance checker of a
// standalone operator's wallet (bettor-and-operator-api.md, "Operator-hosted
// endpoints" and "Authentication"; docs/decisions.md "Contract details" for what
// the spec leaves open). It backs `foresight conformance operator-wallet --url U
// --secret S`: Run sends crafted requests to the wallet at Config.URL, as
// the platform would and as it never would (bad signatures, replays), and
// returns a conformance.Report.
//
// Requests are built with the platform's own encoders (wallet.WithdrawalBody,
// DepositBody, RollbackBody: amounts written with exactly the currency's
// decimals) and signed with wallet.Sign; every request has a fresh
// transaction_id ("conformance-wd-<uuid>", "conformance-rb-…",
// "conformance-dp-…"), a fresh X-Nonce and the current X-Timestamp unless a
// check says otherwise, so runs can be repeated against the same wallet.
//
// # Reading the balance
//
// The protocol has no balance read. A check that must know the balance
// debits one stake with a fresh withdrawal and rolls it back at once: the
// balance is the withdrawal's answer plus the stake. When that fails, the
// check is skipped (the checks withdrawal and rollback say why), and so is
// a check whose bettor holds less than MinStakes stakes. The checks assume
// nothing else moves the test bettor's money during the run.
//
// # Checks
//
// In the order they run; "moves nothing" is verified by reading the balance
// before and after.
//
//	withdrawal          a signed withdrawal is answered 200 (any 2xx passes with a
//	                    warning) with a JSON object holding transaction_id (a non-empty
//	                    string) and balance; a second one leaves the first balance minus
//	                    exactly the stake (Resources: Operator wallet: withdrawal)
//	rollback            DELETE /v1/rollbacks/{id} of a debited withdrawal is answered 2xx,
//	                    its balance (when it has one) is the stake back, the same rollback
//	                    again returns the same JSON answer, and the stake came back once
//	                    (Operator-hosted endpoints; decisions.md, Contract details: Rollback)
//	wrong-signature     X-Payload-Signature keyed with another secret: 401, moves nothing
//	missing-signature   no X-Payload-Signature: 401, moves nothing
//	missing-timestamp   no X-Timestamp: 401, moves nothing
//	missing-nonce       no X-Nonce: 401, moves nothing
//	stale-timestamp     X-Timestamp 10 minutes old, correctly signed: 401, moves nothing
//	                    ("requests older than 5 minutes are rejected")
//	malformed-nonce     X-Nonce that is not a UUID: 401 passes; another refusal or an
//	                    acceptance is a warning (the spec names the format, not a
//	                    refusal); a refusal must move nothing
//	replayed-nonce      a second, different withdrawal reusing the first one's X-Nonce: 401
//	                    passes, acceptance is a warning ("operator-side de-duplication is
//	                    optional"); a refusal must move nothing
//	replay              the same withdrawal (same bytes) again with a new nonce and
//	                    timestamp returns the first answer (same JSON value) and debits once
//	                    ("idempotent by transaction_id: … returns the first response and
//	                    moves no money a second time")
//	replay-other-body   the same transaction_id with twice the amount moves nothing; the first
//	                    answer or a 4xx refusal passes, a 2xx with another answer fails, a
//	                    5xx is a warning (the spec does not name this case)
//	rollback-unknown    a rollback of a withdrawal never sent is answered 2xx and moves
//	                    nothing; that withdrawal sent afterwards is refused with a 4xx and
//	                    moves nothing (decisions.md, Contract details, Rollback: "answers 200 even when it never saw
//	                    the withdrawal, and must then refuse that withdrawal if it arrives late")
//	deposit-lost        a stake, then a deposit of 0 with result "lost" naming it: 2xx, its
//	                    balance (when given) is the balance minus the stake, a replay returns
//	                    the same answer, nothing is credited ("the amount can be zero for a
//	                    lost bet")
//	deposit-won         a stake, then a deposit of twice the stake with result "won": 2xx,
//	                    credits exactly the payout, once, a replay returns the same answer
//	insufficient-funds  a withdrawal of the balance plus one stake is refused with a 4xx
//	                    {"error": "insufficient_funds"} or a 409 without a body, and moves
//	                    nothing (decisions.md, Contract details, wallet answers; any other refusal makes
//	                    the platform reject the bet bet_rejected_other)
//	balance-format      every balance of a 2xx answer in the run is a JSON string the platform
//	                    can read (plain decimal, at most 18 digits before and 12 after the
//	                    point, no exponent, no leading zero); a number of decimals other than
//	                    the currency's is a warning (the spec says only "string, decimal")
//	content-type        answers with a body say application/json; a warning only (the spec
//	                    is silent)
//
// # What a run leaves in the operator's ledger
//
// Every withdrawal a check makes is undone by a rollback (also when the
// check fails, from its cleanup), except the two bets that are settled:
// deposit-lost leaves one stake debited, deposit-won credits two stakes for
// one, so a run that passes ends with the balance it started with. The
// ledger keeps the entries: pairs of withdrawal and rollback, two deposits
// (one of zero), a refused withdrawal above the balance and a rollback of a
// withdrawal never sent (whose id the operator remembers). The report's
// notes give the balance before and after the run. A wallet that breaks a
// rule can end elsewhere (a withdrawal accepted twice is rolled back once).
package operatorwallet
