// Package polymarket is the feed.Source of Polymarket's Gamma API
// (docs/market-feeds.md): it reads events and their markets, prices,
// closing and resolution, and reports them as feed.Events that feed.Sync
// applies to the catalog through the admin API's own service calls, so a
// fed market is settled exactly as one resolved by hand. It only reads;
// nothing is written to Polymarket.
//
// # Requests
//
// Poll lists the open events, then fetches by id every tracked event the
// listing did not return:
//
//	GET /events?closed=false&active=true&limit=L&offset=O&order=F&ascending=B[&tag_id=T]
//	GET /events/{id}
//
// closed=false and active=true are always sent: Gamma's /events defaults
// to closed=true whatever its documentation says. L is Config.PageSize
// (50), O is 0, L, 2L, …, F is Config.Order (volume24hr, descending), T is
// Config.TagID. Paging stops at the first of: MaxEvents events offered
// (50), a page shorter than L (an empty one included), a page with no
// event not seen on an earlier page (Gamma repeating a page because it
// ignored the offset: logged, the events already read are kept, no error),
// or Config.MaxPages requests (20). An event seen twice is taken once.
//
// Every request waits for a token-bucket limiter (10 requests a second,
// burst 5; Gamma allows 500 /events requests in 10 s) and carries Poll's
// context, so its deadline and cancellation reach the connection; each
// attempt also has its own timeout, Config.RequestTimeout (20 s), whatever
// the HTTP client's. A request is tried up to
// Config.MaxAttempts times (4) when it gets HTTP 429, HTTP 5xx (Gamma's
// intermittent 500 "cannot get the information") or a transport error.
// Before the next attempt it waits Backoff × 2^(n−1) after attempt n
// (500 ms, then 1 s, 2 s, …, at most MaxBackoff, 10 s), or the answer's
// Retry-After (seconds or an HTTP date) when that is longer; a Retry-After
// above MaxRetryAfter (1 min) fails the request at once. Any other status,
// a body over MaxBodyBytes (32 MiB) and a listing page that is not a JSON
// array fail the request without a retry. Up to Config.Concurrency (4)
// tracked events are fetched at once.
//
// A failed request fails Poll (feed.Source: nothing is applied this
// round), except these, which only leave an event out of the answer:
//   - a tracked event answered 404: it is gone from Gamma, and is reported
//     as not visible (not in the answer), round after round;
//   - an event whose JSON does not decode (a tracked one is then not
//     visible this round; one bad record must not stop the feed), or a
//     by-id answer carrying another id.
//
// # Parsing
//
// Only the fields used are decoded; unknown ones are ignored. Ids are JSON
// strings or numbers. outcomes, outcomePrices and clobTokenIds are JSON
// arrays that Gamma encodes inside a JSON string ("[\"Yes\", \"No\"]");
// both that and a real array are accepted, and every item may be a string
// or a number. Prices are parsed as decimals from their text, never through
// float64; a price longer than 64 characters or with an exponent beyond
// ±40 is unreadable. Times are RFC 3339 or Postgres' "2006-01-02
// 15:04:05+00".
//
// # Events
//
// Event key is Gamma's event id. Category: the first Config.Categories
// rule (DefaultCategories: sport, crypto, climate and technology tags
// first, then economy, then elections and politics) whose tag is one of the
// event's tag slugs or its legacy category field ("Pop Culture" is read as
// pop-culture), case-insensitively; else Config.DefaultCategory. Title is
// title, Description description, each trimmed and cut to 2000 bytes, in
// locale "en" (Polymarket is English only). ImageURL is image, else icon,
// only when it is an absolute https URL. StartsAt is startTime when set.
//
// An event of the listing that is not tracked is offered when it is not
// closed, its category is known (an event no rule maps is skipped when
// DefaultCategory is empty), it has a title, and it has 1 to 50 markets
// after the skips below, at least one of them Open. Its markets skip:
//   - the "Other" market of a negRisk event (negRiskOther): its meaning
//     changes each time a placeholder is named, so a fixed-odds bet on it
//     would change meaning too;
//   - negRisk placeholders ("Person A", "Candidate B"): markets of a
//     negRisk event that are neither active nor closed.
//
// A tracked event (one in Poll's tracked argument, from the listing or
// fetched by id) is reported with every market that can be mapped, Other
// and placeholders included and with no 50-market limit: skipping one
// could hide the closing or resolution of a market fed earlier, and Sync
// ignores markets it never imported. Its category follows the same rules
// but may be empty when no rule matches (Sync reads the category only when
// it imports). A tracked event without a title or with no market that can
// be mapped is left out.
//
// # Markets
//
// Market key is Gamma's market id. Question is question, or "<event
// title>: <groupItemTitle>" when question is empty. Outcomes come from
// outcomes, in order; each outcome's key is its clobTokenIds entry (the
// CLOB token, stable and unique), its name the label. A market is left out
// when it has no id or question, its outcomes or token ids are missing or
// unreadable, not 2 to 20, not one token per outcome, or a token repeats.
// ImageURL is image, else icon, when https. ClosesAt is gameStartTime when
// set (sports): bets stop at kick-off, because taking in-play bets at
// prices polled seconds late would give bettors an edge. endDate is never
// used: markets stay open long past it, and only closed ends a market.
//
// State, in this order (status is umaResolutionStatus, lower-cased):
//   - closed, status "resolved", one price per outcome, one price exactly
//     1 and every other exactly 0: Resolved; Winner is the token of the
//     outcome at the index of the 1 (never matched by label).
//   - closed, status "resolved", two prices both exactly 0.5 (Polymarket's
//     50-50 result): Cancelled, every stake is returned.
//   - closed in any other case (status "", "proposed", "disputed", …, or a
//     resolved market with prices that are neither one-hot nor 50-50):
//     Suspended. The result is not final, or needs a person: the market is
//     held until Gamma shows a final result, or an operator settles it
//     through the admin API. active is not read here: it lags resolution.
//   - not closed, and the event is closed, or status is not empty (a
//     result proposed or disputed), or active is false, or acceptingOrders
//     is false, or spread is above Config.MaxSpread (0.1: the book is too
//     thin for its price to mean much, as on a new market quoted 0.5/0.5
//     with a spread of 1), or the prices are not usable: Suspended.
//   - otherwise Open.
//
// Prices are usable when there is one per outcome, each strictly between
// 0 and 1, and the catalog can price them (odds.Price with no margin
// accepts them: no outcome at or above 1/1.01). When they do not sum to
// exactly 1 they are renormalised first: each is divided by the sum and
// rounded half away from zero to 6 decimals, except the largest (the first
// of equal ones), which takes 1 minus the others, so the sum is exactly 1.
// An Open or Suspended market's outcomes carry the usable prices as their
// Probability (so a Suspended market with usable prices can be imported
// suspended); when the prices are not usable, and for every Resolved or
// Cancelled market (a final market has no price), every Probability is 0.
package polymarket
