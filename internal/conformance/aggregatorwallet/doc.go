// Package aggregatorwallet is the black-box conformance checker of a casino
// aggregator's wallet: the provider_agg endpoints of aggregator-api.md
// (Player/Balance, Round/BetWin, Round/Finish, Round/Rollback with
// X-REQUEST-SIGN, api_codes and idempotency by id_provider). It backs
// `foresight conformance aggregator-wallet --url U --secret S`: Run sends
// crafted requests to the wallet at Config.URL, as the platform would and
// as it never would (bad signatures, replays), and returns a
// conformance.Report.
//
// Requests are built with the platform's own encoders (wallet.BalanceBody,
// BetBody, WinBody, FinishBody, RollbackBody of internal/aggregator/wallet:
// the spec's fields in the order of its table, game_id
// "prediction-markets", one transaction each, amounts as exact decimal
// strings such as "1" and "2"), so they are byte for byte what the platform
// sends, and are signed with wallet.Sign over the exact bytes.
// Every run uses fresh id_providers ("conformance-bet-<uuid>",
// "conformance-win-…", "conformance-rb-…") and round ids
// ("conformance-round-…"), and by default a session_id the wallet never saw
// (the spec: never authorise with it), so runs can be repeated against the
// same wallet. "Success" below is what the platform reads as success: HTTP
// 200 with a JSON object without meta.api_code. Balances are read with
// Player/Balance before and after each step that must (or must not) move
// money; the checks assume nothing else moves the test account's money
// during the run, and skip when it holds less than MinStakes stakes.
//
// # Checks
//
// In the order they run:
//
//	balance             Player/Balance: HTTP 200, a JSON object with a readable balance
//	                    and no meta.api_code (the platform reads api_code in every answer);
//	                    a 404 where the lower-case path answers fails as "deviation
//	                    paths-lower-case"
//	bet                 a bet (finished false): success with a non-empty round_id string and
//	                    balance = before − stake, confirmed by Player/Balance (Behaviour rule 2:
//	                    without round_id or balance the platform rolls the bet back)
//	rollback            a rollback of that bet: success with round_id and balance = before;
//	                    the same rollback again returns the same JSON answer; the stake came
//	                    back once (a processed original answered with id "" is a warning)
//	wrong-signature     a bet whose X-REQUEST-SIGN is keyed with another secret: HTTP 403,
//	                    moves nothing, and the same bet correctly signed afterwards is
//	                    processed (the refusal did not use up the id_provider); HTTP 400
//	                    with api_code 403 (an SDK's convention) is the warning "deviation
//	                    signature-400"
//	missing-signature   the same without X-REQUEST-SIGN
//	replay              the same bet (same bytes) again returns the first answer (same JSON
//	                    value) and debits once (Behaviour rule 4)
//	replay-other-body   the same id_provider with twice the amount moves nothing; the first
//	                    answer or an error answer passes, a success with another answer
//	                    fails, a 5xx without api_code is a warning (the spec does not name
//	                    this case)
//	rollback-unknown    a rollback naming a bet never sent: success, transactions[0].id is
//	                    "", moves nothing; that bet sent afterwards moves nothing (a success
//	                    answer to it is a warning: refuse it, e.g. api_code 409) (Behaviour
//	                    rule 3)
//	win                 a bet, then a win of twice the stake (finished true): success, balance
//	                    = before − stake + win; the same win again returns the first answer
//	                    and pays once
//	finish              a bet, then Round/Finish: success with balance = before − stake (no
//	                    money moves); a repeated Finish is a success and moves nothing (a
//	                    different answer is a warning)
//	closed-round        a bet, Round/Finish, then a win of the stake in that finished round:
//	                    success and credited (Behaviour rule 2: do not reject a transaction
//	                    because the round is already closed)
//	win-without-bet     a win in a round without a bet: success and credited exactly (States:
//	                    "a win for a round without a debit must still be accepted"); it is
//	                    rolled back afterwards
//	insufficient-funds  a bet of the balance plus one stake: meta.api_code 100 (read leniently
//	                    here; its form is api-codes' business), meta.balance equal to the
//	                    balance when present (a warning when absent: the spec makes it
//	                    optional), moves nothing. The HTTP status is not judged: the
//	                    platform reads api_code whatever the status
//	api-codes           over every answer of the run: meta.api_code is a JSON string holding
//	                    a decimal number ("100", never 100 or "insufficient_funds"); a 4xx
//	                    other than 403 carries one (the platform retries a 4xx without one as
//	                    temporary); an error body without code and msg, or a 403 without
//	                    api_code, is a warning
//	transaction-items   over every successful BetWin and Rollback answer: a transactions
//	                    array with one item per request transaction, in the same order, each
//	                    id_provider copied and id a string (non-empty for a bet or win)
//	decimal-format      over every answer: balance (of a 200) and meta.balance are JSON
//	                    strings of plain decimals with at most 18 digits before and 12 after
//	                    the point (no number, no exponent); a leading zero is a warning (the
//	                    grammar allows it, the platform's reader does not)
//	content-type        answers with a body say application/json; a warning only (the spec
//	                    names the requests' Content-Type, not the answers')
//
// # What a run leaves in the aggregator's ledger
//
// Every bet a check makes is rolled back (also when the check fails, from
// its cleanup) unless the check settles it: finish leaves one stake lost,
// win pays two stakes for one, closed-round pays back its stake, and
// win-without-bet's win is rolled back, so a run that passes ends with the
// balance it started with. The ledger keeps the rounds and transactions
// (bets, wins, rollbacks, finishes), a refused bet above the balance, and a
// rollback of a bet never sent with its tombstone. The report's notes give
// the balance before and after the run.
package aggregatorwallet
