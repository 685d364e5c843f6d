// Package casino is the sandbox aggregator ("casino") wallet: a reference
// implementation of the aggregator side of the wallet protocol of
// aggregator-api.md ("Wallet requests and responses", "Behaviour rules",
// "Authentication", "Errors"), the SoftSwiss Game Aggregator v2 provider
// API with the namespace agg. It backs `foresight sandbox casino` and the
// demo's casino, and is the fake partner of the platform's tests, so it is
// strict: it refuses every request the protocol does not allow, and its
// answers are those a careful real aggregator gives. A Site adds the
// casino's pages (a lobby that launches the game, the ledger) and a control
// API.
//
// A Casino serves, from Handler (paths below the wallet base URL; mount the
// handler under a prefix with http.StripPrefix):
//
//	POST /v2/provider_agg.Player/Balance    read a balance
//	POST /v2/provider_agg.Round/BetWin      debit a stake (bet) or credit a win (win)
//	POST /v2/provider_agg.Round/Finish      close a round; no money moves
//	POST /v2/provider_agg.Round/Rollback    reverse a bet or win
//
// Another method on these paths is 405 and any other path 404, both with
// the wallet error body (code "bad_route"). All state (accounts, balances,
// rounds, stored answers, tombstones, the ledger, armed faults) is in
// memory behind one mutex; a Casino is safe for concurrent use. With
// Config.Journal it also survives a restart (see Persistence).
//
// # Request authentication
//
// The body is read first, at most 64 KiB (MaxBodyBytes); a larger body is
// 400 api_code 400. Then, before anything else (before the body is parsed
// as JSON), the header X-REQUEST-SIGN must hold, exactly once, the
// lowercase hex HMAC-SHA256 of the exact raw body keyed with
// Config.SigningSecret; it is compared in constant time. Upper-case hex is
// refused: the documented form is lowercase. A missing, repeated or wrong
// signature is HTTP 403
//
//	{"code":"permission_denied","msg":"…","meta":{"api_code":"403","api_message":"Forbidden"}}
//
// and changes nothing (no fault is used up, no id_provider consumed). There
// is no timestamp and no nonce: replay protection is idempotency by
// id_provider. After the signature, Content-Type must be application/json
// (parameters such as charset allowed), else 400 api_code 400. Sign computes
// the header for a body, for tests of the calling side.
//
// # Error body and api_codes
//
// Every error of a wallet endpoint has the body
//
//	{"code": string, "msg": string, "meta": {"api_code": "<number>", "api_message": string, "balance": "<decimal>"}}
//
// with meta.balance only for 100 and 105 (also 106 when injected). Business
// rejections are HTTP 400 with code "invalid_argument"; server-side
// failures (api_code 500 to 599, e.g. 503 "Service is unavailable") are HTTP
// 500 with code "internal"; a bad signature is HTTP 403 "permission_denied".
// The api_codes the casino answers itself:
//
//	100  insufficient funds: a bet above the balance; meta.balance is the balance,
//	     unchanged (stored)
//	105  bet limit: a bet above Config.BetLimit or the account's SetBetLimit;
//	     meta.balance is the balance (stored)
//	110  player disabled: a bet of an account blocked with Block (stored)
//	154  currency not allowed: a request in another currency than the
//	     account's (not stored)
//	400  bad request: body too large, not JSON, trailing data, wrong JSON types,
//	     missing or empty required fields, an id longer than 255 bytes or with
//	     control characters, currency not ^[A-Z0-9]{3,7}$, game_id other than
//	     "prediction-markets", transactions not exactly one item, a type other
//	     than bet/win (BetWin) or rollback (Rollback), an amount that is not a
//	     JSON string matching ^\d{1,18}(\.\d{1,12})?$ or is zero, a rollback with
//	     finished true or naming itself, a rollback naming a rollback, a
//	     transaction or round of another account, a rollback naming a
//	     transaction of another round, an id_provider (or a finished round)
//	     reused for a different request, a wrong Content-Type (not stored)
//	403  bad signature (HTTP 403; not stored)
//	404  unknown account without Config.StartingBalance (stored for BetWin and
//	     Rollback); unknown round in Finish (not stored: the bet may still be
//	     on its way)
//	409  a bet or win whose id_provider a rollback reached first (stored)
//
// # Requests
//
// Bodies are JSON objects; unknown fields are ignored, trailing data is
// refused. Required in every request: account_id, currency and session_id
// (non-empty strings; session_id is never checked against a session: a
// settlement may come long after the session ended). game_id is required in
// Balance, BetWin and Rollback and, when present in Finish, checked too; it
// must be "prediction-markets". BetWin needs round_id and finished (a JSON
// boolean); Rollback needs round_id_provider and finished, which must be
// false. Each BetWin and Rollback carries exactly one transaction: {id_provider,
// type "bet"|"win", amount} or {id_provider, type "rollback",
// original_id_provider}. An amount is a JSON string of at most 18 integer
// and 12 fractional digits, no sign, no exponent, above zero (leading zeros
// are allowed by the grammar and read as written: "007.5" is 7.5).
//
// # Answers
//
//	Balance   200 {"balance"}
//	BetWin    200 {"round_id", "balance", "transactions": [{"id_provider", "id"}]}
//	Finish    200 {"balance"}
//	Rollback  200 {"balance", "round_id", "transactions": [{"id_provider", "id"}]}
//
// round_id is the casino's own id of the round ("casino-round-<n>"), one per
// platform round_id; id is the casino's id of the transaction
// ("casino-tx-<n>"), "" in a rollback whose original transaction was never
// processed. transactions has one item, with id_provider copied. balance is
// the balance after the request. Amounts are kept exactly; balances are
// written with the currency's decimals (Config.Decimals, else the ISO 4217
// minor units, else 2) or with more when the exact value needs more (a 12
// decimal stake leaves a 12 decimal balance): digits are never lost, and
// zeros beyond the currency's decimals are not written ("90.00", "99.5" in
// JPY, "99.876543210988" in USD).
//
// # Accounts
//
// An account has one balance in one currency, fixed when it is created: by
// SetBalance, or, when Config.StartingBalance is set, on the first Balance,
// BetWin or Rollback naming it, with that balance in the request's currency
// (a Finish needs a known round, hence a known account). A request in another currency is
// refused with api_code 154. Without Config.StartingBalance a request for an
// unknown account is refused with api_code 404. Block refuses the account's
// bets (110), whether it exists or not (a blocked unknown account is not
// created by its bet); its wins, finishes, rollbacks and balance reads go
// through. Balances never go below zero.
//
// # Idempotency
//
// id_provider is one namespace across BetWin and Rollback. The first
// definitive answer for an id_provider (a 200, or a 100, 105, 110, 404 or
// 409 refusal) is stored with its exact bytes; the same request again
// returns those bytes and moves no money, even if the state changed since
// (a replayed bet that was rolled back in between still answers its first
// 200; a bet refused for funds still gets the refusal after a deposit).
// "The same request" means the same endpoint and JSON value: key order and
// white space do not matter, any other difference (another amount, round,
// session_id, type) is 400 api_code 400 and not stored. Answers that do not
// consume an id_provider: 400, 403, 154 and injected faults. Finish is
// idempotent by round_id in the same way: the first 200 is stored and
// replayed byte for byte; a different Finish of that round is 400.
//
// Dedupe comes first, then the currency and round-owner checks, then the
// tombstone, then blocking, the account, the bet limit and the funds.
//
// # Rounds
//
// A round is created by its first bet or win (or by a rollback naming it)
// and belongs to that account. A player may hold any number of open rounds;
// a round is never closed on a timer. A win for a round without a bet is
// credited; a bet or win in a finished round is accepted ("do not reject a
// transaction because the round is already closed"). A void or refund is a
// win of the stake. A BetWin with finished true, or a Round/Finish, marks
// the round finished; no money moves on Finish. Finish of a round the casino
// never saw is 404 (not stored).
//
// # Rollbacks
//
// A rollback names the transaction it reverses by original_id_provider and
// its round by round_id_provider (the platform's round_id). A processed bet
// is credited back exactly once; a processed win is debited, but not below
// zero (the debit is clamped to the balance). A rollback of a transaction
// already reversed by another rollback answers 200 with a new id and moves
// nothing. A rollback of an original never processed (never seen, or
// refused) answers 200 with id "" and moves nothing; when the original was
// never seen a tombstone is recorded, and a later BetWin with that
// id_provider (bet or win) is refused with api_code 409 and moves nothing.
// The tombstone is recorded even when the rollback is refused 404 for an
// unknown account. Rollbacks are accepted for blocked accounts.
//
// # Ledger and helpers
//
// Ledger lists every processed transaction: bet, win, rollback (also those
// that moved nothing) and the first Finish of each round, with the signed
// amount, the balance after, the platform's id_provider and round_id and
// the casino's ids. Replays, refusals, SetBalance and Credit are not in it.
// Balance, SetBalance, Credit, Block, Unblock, SetBetLimit and Round read
// and set state for tests.
//
// # Fault injection
//
// Faults are armed per endpoint name (EndpointBalance "balance",
// EndpointBetWin "betwin", EndpointFinish "finish", EndpointRollback
// "rollback"), for every account with the Casino's methods or for one
// account with ForAccount(id). They apply to requests that passed the body
// limit, the signature and the Content-Type check (a forged request uses
// nothing up); the account is read from the body's account_id. For each kind
// of fault a request uses the account's armed counter if any, else the
// every-account one. For each request, in order:
//   - FailNext(endpoint, n, status): answer status with {"error":
//     "injected_failure"} (not a wallet error body) at once; nothing is
//     processed and the delay and drop counters are left alone;
//   - MalformedNext(endpoint, n, shape): answer 200 with a body that is not
//     the protocol's answer (malformed.Garbage, HTML, Truncated, Empty,
//     Foreign) at once, as a proxy in front of the wallet would; nothing is
//     processed;
//   - RejectNext(endpoint, n, apiCode), for a new transaction: answer the
//     wallet error body with that api_code at once (HTTP 403 for "403", 500
//     "internal" for 500 to 599, 400 "invalid_argument" otherwise,
//     non-numeric codes included; meta.balance for 100, 105 and 106 when
//     the account exists); nothing is processed and the id_provider stays
//     unused. A retry of an id_provider (a Round/Finish: a round) already
//     answered gets its stored answer and uses nothing up (idempotency
//     holds);
//   - RefuseRetryNext(endpoint, n, apiCode), for a retry of an id_provider
//     (a round) already answered: the non-conforming wallet, which refuses
//     it afresh as RejectNext would instead of answering its stored answer;
//   - StallNext(endpoint, n): hold the request, unprocessed, until the client
//     gives up; it is never answered (the time-out with no effect);
//   - DelayNext(endpoint, n, d): sleep d, then process the request even if the
//     client gave up (the slow-wallet case);
//   - DropResponseNext(endpoint, n): process the request (its answer is
//     stored for the id_provider) and close the connection without answering
//     (the answer-lost case);
//   - OmitRoundIDNext(n): the next n BetWin requests processed with a 200 (money
//     moved; replays and refusals do not count) are answered without round_id,
//     and that answer is the one stored; the platform must roll back.
//
// Each call replaces the earlier one of its kind, scope and endpoint; n ≤ 0
// disarms it and ClearFaults disarms all. An unknown endpoint panics.
// Faults are never journalled, except that a BetWin answer shaped by
// OmitRoundIDNext is recorded as such. Close ends every wait of DelayNext
// and StallNext, then and later (the request ends unprocessed, unanswered),
// so that a server can shut down.
//
// # Persistence
//
// With Config.Journal, every operation that changes the state or stores an
// answer is appended to the journal (internal/sandbox/journal, SQLite)
// before it is answered, under the casino's mutex, so records are in the
// order the operations applied: BetWin, Rollback and Finish requests that
// stored an answer and Balance requests that created an account (their
// exact body), SetBalance, Credit, Block, Unblock (when they change
// something), SetBetLimit, a generated signing secret, and the
// configuration that decides how the others apply (Decimals,
// StartingBalance, BetLimit), recorded again when it changes. Requests that
// store nothing (400, 403, 154, a Finish of an unknown round, replays of a
// stored answer, injected faults) are not journalled.
//
// New replays the journal through the code that first applied each record,
// at the record's time and without the signature check (it was checked when
// the request came), so the restarted casino has the same accounts,
// balances, rounds, ledger (times included: with a journal, times are UTC
// and whole microseconds), stored answers (a repeated id_provider or Finish
// gets the same bytes), tombstones, blocks and limits whatever the clock or
// the configuration now says. A record that no longer applies makes New
// fail.
//
// If an append fails, the request is answered api_code 503 (HTTP 500
// internal, retryable; a helper returns an error) and the casino rebuilds
// its state by replaying the journal: the state is then exactly what the
// journal holds, so the failed operation left no trace (had the append
// reached the disk after all, the state and the journal would still agree,
// and the retry would get the stored answer). If the journal cannot be read
// either, every later operation fails the same way until the casino is
// restarted. Without a journal nothing of this costs anything.
//
// # Site: lobby, pages and control API
//
// OpenSite wraps a Casino, its journal (SiteConfig.DatabasePath) and a web
// site into a Site, which `foresight sandbox casino` and the demo serve.
// Site.Handler serves the wallet paths above and, under /sandbox/ (a prefix
// the protocol never uses):
//
//	GET  /                        302 to /sandbox/lobby
//	GET  /sandbox/lobby           the game (prediction-markets) with a form: player account,
//	                              currency, language (en, es, nl, fr, de, ru), real or demo
//	POST /sandbox/lobby           launches: calls the platform's
//	                              POST <PlatformURL>/v2/agg_provider.Launcher/Real (or /Demo)
//	                              from the server, {casino_id, game, locale, ip, client_type,
//	                              session_id (a new UUID), urls: {return_url}, account: {id,
//	                              currency}} signed with X-REQUEST-SIGN and the shared
//	                              secret, and shows the lobby with the returned launch_url in
//	                              an iframe, or the platform's refusal
//	GET  /sandbox/lobby/balance   {account_id, currency, balance, blocked, bet_limit} of
//	                              ?account_id=
//	GET  /sandbox/ledger          accounts, rounds, the ledger (newest first, 50 a page,
//	                              ?before=<seq>), stored answers; ?account_id= for one account
//	GET  /sandbox/controls        forms over the control API, armed faults, the API's
//	                              documentation
//	POST /sandbox/login           form admin_token: sets the admin cookie
//	GET  /sandbox/static/…        style sheet and script
//
// The lobby's script reads the game's messages (postMessage) only from the
// launch URL's origin and the game's frame: foresight:height resizes the
// iframe, foresight:balance reads the balance again. foresight:session_expired
// changes nothing: the aggregator protocol gives the lobby no way to renew a
// game's session (a new Launcher/Real is a new game session), so the game
// itself tells the player to relaunch it, which "Launch the game" does. Pages send a Content-Security-Policy that allows framing
// the game's origin only and no inline script.
//
// The control API (sandboxweb states the body, answer and admission rules:
// JSON or form bodies, the admin token as a bearer token or cookie, loopback
// clients only without a token, no foreign Origin):
//
//	GET  /sandbox/api/state         {aggregator_id, casino_id, accounts, blocked, rounds
//	                                (the last 100), faults, ledger (the last 100, newest
//	                                first)}
//	POST /sandbox/api/balance       {account_id, amount, currency?}: SetBalance (currency:
//	                                the account's, else SiteConfig.Currency)
//	POST /sandbox/api/credit        {account_id, amount, currency?}: Credit
//	POST /sandbox/api/block         {account_id}: Block
//	POST /sandbox/api/unblock       {account_id}: Unblock
//	POST /sandbox/api/bet-limit     {account_id, limit}: SetBetLimit ("" removes it)
//	POST /sandbox/api/faults        {account_id?, endpoint, kind, count?, status?, api_code?,
//	                                shape?, delay?}: kind reject or refuse_retry (api_code,
//	                                default 100: also 105, 503, a non-numeric code…),
//	                                malformed (shape, default html), fail (status, default 503),
//	                                delay (delay, default 2s), stall, drop or omit_round_id
//	                                (betwin), for the next count (default 1) requests of
//	                                account_id or, without it, of every account; count 0
//	                                disarms
//	POST /sandbox/api/faults/clear  ClearFaults
//
// Site.Registration is the body of the platform's POST /admin/v1/operators
// for this casino's aggregator; Site.Serve serves until its context ends,
// then stops cleanly (delays and stalls ended, graceful HTTP shutdown,
// journal closed).
package casino
