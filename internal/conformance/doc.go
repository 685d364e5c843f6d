// Package conformance is the machinery shared by the black-box checkers of
// partners' wallets (`foresight conformance operator-wallet` and
// `foresight conformance aggregator-wallet`): the checks themselves live in
// the subpackages operatorwallet (bettor-and-operator-api.md,
// "Operator-hosted endpoints") and aggregatorwallet (aggregator-api.md, the
// provider_agg wallet).
//
// A Check is a named rule and a function that sends crafted requests to the
// wallet through a T: T.Do sends one Request exactly as built (bytes,
// headers, signature or the lack of one) and records the Exchange (request
// and answer). A check ends PASS unless it calls T.Fatalf (FAIL, with the
// one-line reason and the exchange that showed it), T.Skipf (SKIP: the check
// could not be set up, for example the test account holds too little) or
// T.Warnf (WARN: something the spec leaves open, reported without failing).
// Fatalf and Skipf stop the check at once, like testing.T's FailNow;
// functions registered with T.Cleanup run afterwards in every case, so a
// check can always undo the money it moved.
//
// A Runner runs checks one after another (they share the partner's test
// account, so they never overlap) and keeps every exchange of the run, which
// checks that judge the answers as a whole (number formats, api_codes,
// Content-Type) read with T.History. A Report collects the Results and
// writes them as text: one line per check, the reason and the exact request
// and answer of each finding indented below, a summary line. A run passes
// when no check failed or was skipped; warnings do not fail it.
package conformance
