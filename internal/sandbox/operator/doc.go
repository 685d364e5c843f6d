// Package operator is the sandbox operator: a reference implementation of
// the operator side of Foresight's standalone integration
// (bettor-and-operator-api.md, "Operator-hosted endpoints"; docs/decisions.md,
// "Contract details"). It backs `foresight sandbox operator`, the demo's operator,
// and is the fake partner of the platform's tests, so it is strict: it
// refuses every request the protocol does not allow, and its answers are the
// ones a careful real operator gives. A Site adds the operator's pages
// (a host page embedding the widget, the ledger) and a control API.
//
// An Operator serves, from Handler:
//
//	POST   /v1/withdrawals         debit a stake (signed)
//	POST   /v1/deposits            credit a payout, zero for a lost bet (signed)
//	DELETE /v1/rollbacks/{id}      reverse the withdrawal whose transaction_id is {id} (signed)
//	POST   /v1/session             exchange a session_request_id for an RS256 JWT
//	GET    /.well-known/jwks.json  the public keys of those JWTs
//
// All state (bettors, balances, transactions, nonces, session requests,
// keys) is in memory behind one mutex; an Operator is safe for concurrent
// use. With Config.Journal it also survives a restart (see Persistence).
//
// # Request authentication (wallet endpoints)
//
// Before anything else, a wallet call must carry:
//   - X-Payload-Signature: the lowercase hex HMAC-SHA256 of the raw body,
//     keyed with Config.SigningSecret, compared in constant time. Upper-case
//     hex is refused: the documented form is lowercase.
//   - X-Timestamp: an RFC 3339 (ISO 8601) time in UTC ("Z" or "+00:00"),
//     fractional seconds allowed, at most 5 minutes before or after the
//     operator's clock (exactly 5 minutes is accepted).
//   - X-Nonce: a UUID v4 in its canonical 36-character form, not seen in the
//     last 10 minutes (case-insensitively). A request is remembered only once
//     it passed the signature and timestamp checks, so a forged request
//     cannot burn a nonce. A retry must therefore carry a fresh nonce and
//     timestamp; the body (and its transaction_id) stays the same, which is
//     what makes it idempotent.
//
// Any failure is 401 with {"error": code, "message": text} (codes
// missing_header, invalid_signature, invalid_timestamp, stale_timestamp,
// invalid_nonce, nonce_replayed) and changes nothing. The signature covers
// the body only, as the spec says; the DELETE path of a rollback is not
// signed, so the rollback's path id is checked against the withdrawal it
// names (bettor, amount, currency). After authentication the Content-Type
// must be application/json (415 unsupported_media_type otherwise). Bodies are
// limited to 1 MiB (413 request_too_large).
//
// # Request bodies
//
// Bodies are JSON objects; unknown fields are ignored (the platform may add
// some), trailing data after the object is refused. Ids (transaction_id,
// bettor_id, market_id, …) are 1 to 255 bytes of UTF-8 without control
// characters. currency is 3 to 5 upper-case letters with known minor units:
// money.CurrencyDecimals, or Config.Decimals for other codes (crypto). amount
// must be a JSON string in the plain decimal grammar of money.ParseAmount
// (a JSON number, an exponent, a sign or a '+' is refused), with at most as
// many decimals written as the currency has (2 for USD and EUR, 0 for JPY, 3
// for KWD: "10.500" is refused in USD even though its value is exact). A
// withdrawal or rollback amount must be positive; a deposit amount must be
// zero for result "lost" and positive for "won" and "voided". Every such
// error is 400 {"error": "invalid_request", "message": …} and changes
// nothing.
//
// # Answers
//
// Success is 200 {"transaction_id": "op-tx-<n>", "balance": "<fixed
// decimals>"}: the operator's own id of the transaction and the bettor's
// balance after it, written with the currency's decimals. A rollback's
// answer adds "result": "reversed" (the stake was credited back),
// "already_reversed" (another rollback reversed it before: nothing moved),
// "not_debited" (the withdrawal was refused: nothing to return) or
// "not_found" (the withdrawal was never seen; balance is omitted when the
// bettor is unknown too). Refusals carry exactly {"error": code}:
//
//	403 bettor_blocked          withdrawal from a bettor blocked with Block
//	404 bettor_not_found        withdrawal for an unknown bettor (without Config.StartingBalance)
//	409 insufficient_funds      balance below the stake
//	409 currency_mismatch       the bettor's wallet holds another currency
//	409 withdrawal_rolled_back  a withdrawal that a rollback reached first; a deposit
//	                            for a rolled-back withdrawal
//	409 withdrawal_not_found    a deposit whose withdrawal_transaction_id was never debited
//	409 withdrawal_mismatch     a deposit or rollback whose bettor, currency or amount
//	                            (a void must return the stake exactly), or a deposit
//	                            whose market_id, differs from the withdrawal's; a
//	                            rollback naming a deposit or rollback
//	409 already_settled         a second deposit (another transaction_id) for a withdrawal
//	409 withdrawal_settled      a rollback of a withdrawal that a deposit already settled
//	409 transaction_conflict    a transaction_id reused with a different request
//
// The platform maps insufficient_funds, bettor_blocked and bettor_not_found to
// its rejection codes and every other 4xx to bet_rejected_other.
//
// # Idempotency
//
// Transaction ids share one namespace across the three wallet endpoints. The
// first definitive answer for a transaction_id (a 200, or a 403, 404 or 409
// refusal of the transaction itself) is stored with its exact bytes; the same
// request again returns those bytes and moves no money, even if the state
// changed since (a replayed withdrawal that was rolled back in between still
// answers its original 200; a bettor credited after an insufficient_funds
// refusal still gets the refusal for that transaction_id). "The same request"
// means the same endpoint, path and JSON value: key order and white space do
// not matter, any other difference does and is answered 409
// transaction_conflict (not stored). Answers that do not consume the
// transaction_id: 400, 401, 413, 415 and injected failures.
//
// # Rollbacks
//
// DELETE /v1/rollbacks/{id} names the withdrawal's transaction_id in the path
// and carries its own transaction_id in the body (it must differ from {id}).
// A rollback of a withdrawal that was debited credits the stake back exactly
// once. A rollback of a withdrawal never seen answers 200 (result not_found)
// and records the id: if that withdrawal arrives later, it is refused 409
// withdrawal_rolled_back and moves nothing. A rollback after a deposit
// settled the withdrawal is refused (409 withdrawal_settled): once a bet has
// been paid its stake cannot come back.
//
// # Deposits
//
// A deposit must name, in metadata.withdrawal_transaction_id, a withdrawal
// this operator debited and that was not rolled back, for the same bettor,
// currency and market; each withdrawal is settled by at most one deposit.
// Zero-amount deposits (lost bets) are recorded in the ledger: they close the
// bet. Deposits are accepted for blocked bettors (blocking stops betting,
// never payment).
//
// # Bettors
//
// A bettor has one wallet in one currency, fixed when the bettor is created:
// by SetBalance or Credit, or, when Config.StartingBalance is set, on first
// reference (a withdrawal, CreateSessionRequest, NewSessionRequest or
// MintToken) with that balance rounded to the currency's decimals. Without
// Config.StartingBalance, a withdrawal for an unknown bettor is 404
// bettor_not_found. Block refuses withdrawals (403 bettor_blocked) for a
// bettor, known or not; Unblock lifts it.
//
// # Sessions and keys
//
// CreateSessionRequest (and NewSessionRequest) issue an opaque, random,
// single-use session_request_id valid for 2 minutes. POST /v1/session
// {"session_request_id"} exchanges it for {"auth_token", "expires_at",
// "balance"} (balance: the bettor's, with the currency's decimals, for the
// widget to show before any wallet call; absent for an unknown bettor): an
// RS256 JWT with header kid and claims sub (bettor id), currency, iss
// (Config.ID), iat and exp (iat + the token lifetime, whole seconds), and
// expires_at = exp in RFC 3339 UTC. The lifetime is Config.TokenLifetime
// (default an hour) unless SetTokenLifetime overrides it for the tokens
// minted after it (tests make tokens short-lived to see the widget renew
// its session). An unknown id is 401
// session_request_not_found, an expired one 401 session_request_expired, one
// already exchanged 401 session_request_used (the first exchange consumed it
// even if its answer was lost). The session endpoint is not HMAC-signed (the
// widget calls it from the browser); it answers CORS requests from
// Config.AllowedOrigins (any origin when empty: the session_request_id is
// the credential, and no cookies are used). GET /.well-known/jwks.json serves
// every key (current and rotated-out) as an RFC 7517 JWK Set. RotateKey adds
// a key and signs new tokens with it; old tokens stay valid until RemoveKey.
// Key ids default to the RFC 7638 thumbprint of the key.
//
// # Failure injection
//
// Faults are armed per endpoint ("withdrawals", "deposits", "rollbacks",
// "session"), for every bettor with the Operator's methods or for one bettor
// with ForBettor(id): the bettor of a wallet request is its body's
// bettor_id, that of a session exchange the bettor of its
// session_request_id. For each kind of fault a request uses its bettor's
// armed counter if any, else the every-bettor one. For each request, in
// order:
//   - FailNext(endpoint, n, status): answer status with {"error":
//     "injected_failure"} at once, before anything is verified; nothing is
//     processed and the other counters are left alone;
//   - MalformedNext(endpoint, n, shape): answer 200 with a body that is not
//     the protocol's answer (malformed.Garbage, HTML, Truncated, Empty,
//     Foreign) at once, as a proxy in front of the wallet would; nothing is
//     processed;
//   - RejectNext(endpoint, n, code), wallet endpoints only, for a new
//     transaction: once the request is authenticated, answer the refusal
//     {"error": code} (403 bettor_blocked, 404 bettor_not_found, 409
//     insufficient_funds and any other code); nothing is processed and the
//     transaction_id stays unused. A retry of a transaction already
//     answered gets its stored answer and uses nothing up (idempotency
//     holds);
//   - RefuseRetryNext(endpoint, n, code), wallet endpoints only, for a retry
//     of a transaction already answered: the non-conforming wallet, which
//     refuses it afresh as RejectNext would instead of answering its stored
//     answer;
//   - StallNext(endpoint, n): hold the request, unverified and unprocessed,
//     until the client gives up; it is never answered (the time-out with no
//     effect);
//   - DelayNext(endpoint, n, d): sleep d after the body is read and before it
//     is verified, then process the request even if the client gave up (the
//     slow-wallet case);
//   - DropResponseNext(endpoint, n): process the request and then close the
//     connection without answering (the answer-lost case).
//
// Each call replaces the earlier one of its kind, scope and endpoint; n ≤ 0
// disarms it and ClearFaults disarms all. An unknown endpoint panics.
// Faults are never journalled. Close ends every wait of DelayNext and
// StallNext, then and later (the request ends unprocessed, unanswered), so
// that a server can shut down.
//
// # Persistence
//
// With Config.Journal, every operation that changes the state or stores an
// answer is appended to the journal (internal/sandbox/journal, SQLite)
// before it is answered, under the operator's mutex, so records are in the
// order the operations applied: wallet requests that stored an answer
// (their endpoint, path id and exact body), bettors created by a session
// request or MintToken, SetBalance, Credit, Block, Unblock and
// SetTokenLifetime (when they change something), keys created, rotated (the private key, PKCS #8) and removed,
// a generated signing secret, and the configuration that decides how the
// others apply (Currency, Decimals, StartingBalance), recorded again when
// it changes. Requests that store nothing (400, 401, 409
// transaction_conflict, replays of a stored answer, injected faults) are
// not journalled; neither are nonces, session requests (they live two
// minutes; after a restart an old session_request_id is unknown) or faults.
//
// New replays the journal through the code that first applied each record,
// at the record's time and without authentication (it was checked when the
// request came), so the restarted operator has the same bettors, balances,
// ledger (times included: with a journal, times are UTC and whole
// microseconds), stored answers (a repeated transaction gets the same
// bytes), tombstones, blocks and keys (tokens signed before the restart
// verify against the JWKS after it) whatever the clock or the
// configuration now says. The journal's keys win over Config.PrivateKey,
// which only seeds an empty journal. A record that no longer applies makes
// New fail.
//
// If an append fails, the request is answered 503 {"error":
// "storage_unavailable"} (a helper returns an error) and the operator
// rebuilds its state by replaying the journal: the state is then exactly
// what the journal holds, so the failed operation left no trace (had the
// append reached the disk after all, the state and the journal would still
// agree, and the retry would get the stored answer). If the journal cannot
// be read either, every later operation fails the same way until the
// operator is restarted. Without a journal nothing of this costs anything.
//
// # Site: pages and control API
//
// OpenSite wraps an Operator, its journal (SiteConfig.DatabasePath) and a
// web site into a Site, which `foresight sandbox operator` and the demo
// serve. Site.Handler serves the protocol paths above and, under /sandbox/
// (a prefix the protocol never uses):
//
//	GET  /                          302 to /sandbox/host (query kept)
//	GET  /sandbox/host              the operator's page: logs in the bettor of ?bettor_id=
//	                                (default SiteConfig.DemoBettor, created with the
//	                                starting balance), makes a new session_request_id on
//	                                every load and embeds the widget in an iframe,
//	                                <PlatformURL>/widget/?session_request_id=…&operator=<ID>
//	                                &locale=<en|es|pt|fr|de|nl|ru>&theme=<light|dark>
//	GET  /sandbox/host/balance      {bettor_id, currency, balance, blocked} of ?bettor_id=
//	POST /sandbox/host/session      a new session_request_id for ?bettor_id=, made as a
//	                                load of the host page makes it: {session_request_id};
//	                                the page's own origin only (403 otherwise)
//	GET  /sandbox/ledger            bettors, the ledger (newest first, 50 a page,
//	                                ?before=<seq>), stored answers; ?bettor_id= for one bettor
//	GET  /sandbox/controls          forms over the control API, armed faults, the API's
//	                                documentation
//	POST /sandbox/login             form admin_token: sets the admin cookie
//	GET  /sandbox/static/…          style sheet and script
//
// The host page's script reads the widget's messages (postMessage), only
// from the platform's origin and the widget's frame: {type:
// "foresight:height", height} resizes the iframe, {type:
// "foresight:balance", …} reads the balance again from /sandbox/host/balance,
// {type: "foresight:session_expired"} asks POST /sandbox/host/session for a
// new session_request_id and posts {type: "foresight:session",
// session_request_id} to the widget, at the platform's origin only: the
// widget exchanges it and carries on (its bet slip, a bet being sent or
// polled, the odds stream).
// Pages send a Content-Security-Policy that allows framing the platform's
// origin only and no inline script.
//
// The control API (sandboxweb states the body, answer and admission rules:
// JSON or form bodies, the admin token as a bearer token or cookie, loopback
// clients only without a token, no foreign Origin):
//
//	GET  /sandbox/api/state             {operator_id, currency, token_lifetime_seconds,
//	                                    bettors, blocked, faults, ledger (the last 100,
//	                                    newest first)}
//	POST /sandbox/api/balance           {bettor_id, amount, currency?}: SetBalance
//	POST /sandbox/api/credit            {bettor_id, amount, currency?}: Credit
//	POST /sandbox/api/block             {bettor_id}: Block
//	POST /sandbox/api/unblock           {bettor_id}: Unblock
//	POST /sandbox/api/faults            {bettor_id?, endpoint, kind, count?, status?, code?,
//	                                    shape?, delay?}: kind fail (status, default 503),
//	                                    reject or refuse_retry (code, default
//	                                    insufficient_funds), malformed (shape, default html),
//	                                    delay (delay, default 2s), stall or drop, for the
//	                                    next count (default 1)
//	                                    requests of bettor_id or, without it, of every bettor;
//	                                    count 0 disarms
//	POST /sandbox/api/faults/clear      ClearFaults
//	POST /sandbox/api/session-requests  {bettor_id, currency?} → {session_request_id,
//	                                    widget_url}
//	POST /sandbox/api/token-lifetime    {seconds}: SetTokenLifetime (0: the configured
//	                                    lifetime) → {token_lifetime_seconds}
//
// Site.Registration is the body of the platform's POST /admin/v1/operators
// for this operator; Site.Serve serves until its context ends, then stops
// cleanly (delays and stalls ended, graceful HTTP shutdown, journal
// closed).
package operator
