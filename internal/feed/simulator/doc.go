// Package simulator is a simulated market feed: a feed.Source that offers a
// seeded, ever-changing catalog of about thirty fictional but plausible
// events in the six categories (elections, sports, crypto, economy, climate,
// technology), whose probabilities drift and whose markets close, resolve
// and now and then get cancelled on a schedule. It backs `foresight demo`
// and FORESIGHT_MARKET_FEED=simulator; feed.Sync applies what it reports
// through the same service calls as the admin API.
//
// A Source keeps no state. Poll is a pure function of the Config (Seed,
// Epoch, Period, Step, ImageBaseURL), the time Config.Now returns and the
// tracked keys: two nodes, or a node before and after a restart, with the
// same Config report the same events, keys, texts, probabilities, states
// and winners at the same time. All randomness comes from hashes of (Seed,
// Epoch, Period, Step, event, market, …) and PCG streams seeded from them;
// probabilities are computed in integers, so no platform's floating point
// can change them.
//
// # Schedule
//
// P is Config.Period (5 minutes by default) and every duration below is in
// units of it, so the whole world runs faster or slower with it.
//
//   - Waves: wave n (any integer; negative before Epoch) starts at
//     Epoch + n·P and brings two events, slots 0 and 1. Event (n, slot)
//     appears then, has key "<world>.<n>.<slot>" (world: 8 hex digits
//     derived from Seed, Epoch, Period, Step and the catalog version) and
//     category Categories[(2n + slot) mod 6], so every category gets an
//     event every three waves.
//   - Templates: the q-th event of a category (q = ⌊n/3⌋) takes that
//     category's templates in cycles, each cycle a seeded permutation of
//     them. A template fixes the event's texts, image and markets; its
//     slots draw names from the vocabulary (fictional countries, cities,
//     people, clubs and companies; real crypto assets, commodities and
//     central banks) and numbers (thresholds, price levels).
//   - Life: every fourth event of a category (q mod 4 = 0) is long, living
//     24 to 60 P (2 to 5 hours at the default pace); the others are short,
//     1 to 3 P (5 to 15 minutes), or medium, 4 to 16 P, in the ratio
//     40 : 35. Lives are whole quarters of P. So about 30 events (20 to 40) are on offer at any time,
//     every category among them, with markets closing every few minutes.
//   - Closing: a market closes (ClosesAt) at the end of the event's life,
//     which is also the event's StartsAt, except the markets a template
//     marks early, which close at 50 to 90 % of it (to the second). Texts
//     that name a time ("{close}") name the end of the life.
//   - Settlement: from ClosesAt a market is Suspended for 0.2 to 0.5 P, then
//     Cancelled with a chance of 5 % or else Resolved. The winner is drawn
//     with the probabilities the market had when it closed. A resolved or
//     cancelled market stays so, with the same winner, at every later time.
//   - Pauses: in each whole period b ≥ 1 after the event appeared, an open
//     market is Suspended with a chance of 4 % for 0.1 to 0.25 P inside
//     that period, then reopens; a pause that would reach ClosesAt does not
//     happen.
//
// # Probabilities
//
// Every outcome has a base weight from its template (Yes between the
// template's bounds, favourites first in candidate lists, a bell over price
// ranges). At price step k = ⌊(t − Epoch) / Config.Step⌋ (30 s by default)
// the weight is multiplied by (5 + 3N)/(5 − 3N), a factor from 1/4 to 4,
// where N in [−1, 1] is smooth value noise of the outcome over k (octaves of
// 4, 16, 64 and 256 steps). The weights are normalized over a floor of
// 0.01 per outcome (0.02 with two outcomes) and written with 4 decimal
// places, the rounding remainder going to the largest: every probability is
// in [0.01, 0.99) and they sum to exactly 1. They change at most once a
// step, in every state of the market, and from ClosesAt on they stay those
// of the last step before it. They are valid in every state, so an event
// first seen after some of its markets closed can still be imported.
//
// # Poll
//
// Poll reports the events that have appeared and have a market not yet
// resolved or cancelled, plus every event of tracked that has appeared,
// resolved or not, in the order they appeared. An untracked event drops out
// once all its markets are resolved or cancelled; a tracked one is reported
// for as long as it is tracked. Keys this Source did not make (another
// Seed, Epoch, Period or Step, or malformed) and keys of events that have
// not appeared yet are ignored.
//
// Every title, description, question and outcome name is in seven locales:
// en, es, pt, fr, de, nl, ru. Keys: markets "<event key>.<market id>" (the
// template's id: "winner", "runoff"), outcomes "yes" and "no", the
// template's ids ("home", "draw", "away"), the vocabulary's ids
// ("aurelia-montane") or ranges ("below-95000", "95000-to-97500",
// "105000-or-more").
//
// # Images
//
// Images serves the embedded SVG images (two per category); the server
// mounts it at ImagesPath ("/feed/simulator/images/") and sets
// Config.ImageBaseURL to that path on its https origin. Events get ImageURL
// ImageBaseURL + "/<category>-<motif>.svg"; markets have none.
package simulator
