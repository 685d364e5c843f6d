// The bet slip: one selection, a stake, the payout preview and the whole
// life of a placement attempt, as bettor-and-operator-api.md's client
// obligations require:
//   1–2  before a bet exists the preview is stake × the outcome's
//        display_odds, as obligation 1 says, rounded to the currency's
//        decimals: the least the bet will pay, since display_odds is its
//        entry_odds rounded down (docs/decisions.md); after placement,
//        potential_payout rounded; a stake outside the operator's limits
//        is refused before sending
//   3    the event is read again immediately before submitting
//   4    one fresh Idempotency-Key per intended bet, kept across replays
//   5–6  a 202 is "accepted", not placed: the bet is read on the poll
//        schedule until confirmed or rejected (status case-insensitive)
//   7    at the 60 s ceiling: "still processing, check your bets", no retry
//   8–9  a 5xx, network error or unreadable answer is replayed with the
//        same key; never resubmitted with a new one; a call that meets an
//        expired session waits for its renewal and goes again as it was
//        (api.js), key included
//   and the rejection table: messages from rejection_code only, the
//   balance re-read before a new attempt where required.

import { clock } from "./clock.js";
import { priceChart } from "./chart.js";
import { add, compare, stakeError } from "./decimal.js";
import { h } from "./elements.js";
import * as fmt from "./format.js";
import { t } from "./i18n.js";
import { isPlaced, limitError, newIdempotencyKey, pollWaits, rejection, statusIs } from "./rules.js";
import { exactly, figure, isOpen, money, oddsText } from "./views.js";

// REPLAY_WAITS_MS are the waits before replaying a place-bet call whose
// answer was lost (same Idempotency-Key): 3 calls in all.
const REPLAY_WAITS_MS = [1000, 2000];

// STAKE_BACK_WAIT_MS is the wait between balance reads after
// wallet_rolled_back, until the balance shows the stake back; after
// STAKE_BACK_READS reads the bettor re-checks with a button.
const STAKE_BACK_WAIT_MS = 2000;
const STAKE_BACK_READS = 30;

// entryOf is the price a bet on an outcome (or an odds change) gets:
// entry_odds, else display_odds (a server that sends no entry_odds).
function entryOf(o) {
  return o.entry_odds ?? o.display_odds;
}

// exactPayout is stake × odds before rounding, for the title of the
// preview.
function exactPayout(stake, odds) {
  return fmt.payout(stake, odds, 16)?.replace(/\.?0+$/, "") ?? "";
}

export class Slip {
  constructor(root, deps) {
    this.d = deps;
    this.$ = (id) => root.querySelector(`#${id}`);
    this.sel = null; // {event, market, outcome, odds}
    this.busy = false;
    this.locks = new Set(); // "terminal", "session", "balance", "stake-back"
    this.blockedStake = null; // the stake a bet_limit_reached refused
    this.pending = null; // an attempt whose answer was lost: {key, bet}
    this.$("slip-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.place();
    });
    this.$("stake").addEventListener("input", () => this.render());
    this.$("slip-remove").addEventListener("click", () => this.clear());
    this.render();
  }

  // select puts an outcome on the slip (a new intended bet).
  select(event, market, outcome) {
    if (this.busy || this.pending) return;
    this.sel = { event, market, outcome, odds: outcome.display_odds, entry: entryOf(outcome) };
    this.say("");
    this.actions();
    this.render();
    this.d.onSelection(outcome.id);
    this.$("stake").focus();
    this.d.loadPrices?.(market.id, outcome.id).then((came) => {
      if (came && this.sel?.outcome.id === outcome.id) this.render();
    });
  }

  clear() {
    if (this.busy) return;
    this.sel = null;
    this.pending = null;
    this.actions();
    this.render();
    this.d.onSelection(null);
  }

  // odds applies a change of the real-time channel to the selection.
  odds(change) {
    if (this.sel && this.sel.outcome.id === change.outcome_id && change.display_odds) {
      this.sel.odds = change.display_odds;
      this.sel.entry = entryOf(change);
      this.render();
    }
  }

  // lockSession stops placing for good: the session ended (a session
  // being renewed locks nothing: its calls wait for the new token).
  lockSession() {
    this.locks.add("session");
    this.render();
  }

  // stake is the typed stake; a decimal comma ("10,50") is read as a
  // point.
  stake() {
    const v = this.$("stake").value.trim();
    return /^\d+,\d+$/.test(v) ? v.replace(",", ".") : v;
  }

  render() {
    const s = this.sel;
    this.$("slip-empty").hidden = !!s;
    this.$("slip-form").hidden = !s;
    if (!s) return;
    const { currency, decimals } = this.d;
    this.$("slip-event").textContent = s.event.title;
    this.$("slip-market").textContent = s.market.question;
    this.$("slip-outcome").textContent = s.outcome.name;
    exactly(this.$("slip-odds"), fmt.exactOdds(s.entry)).textContent = oddsText(s.odds);
    const stake = this.stake();
    const err = stake === "" ? null : stakeError(stake, decimals) ?? limitError(stake, s.odds, this.d.limits);
    this.$("stake-error").textContent = err ? this.stakeMessage(err) : "";
    this.$("stake").setAttribute("aria-invalid", err ? "true" : "false");
    const p = stake !== "" && !err ? fmt.payout(stake, s.odds, decimals) : null;
    exactly(this.$("slip-payout"), p === null ? "" : fmt.exactMoney(exactPayout(stake, s.odds), currency)).textContent =
      p === null ? "—" : money(p, currency, decimals);
    this.$("slip-chart").replaceChildren(...priceChart(this.d.prices?.(s.outcome.id) ?? { points: [], history: false }));
    const blocked = this.blockedStake !== null && compare(stake, this.blockedStake) === 0;
    const locked = this.busy || !!this.pending || this.locks.size > 0;
    this.$("stake").disabled = this.busy || !!this.pending || this.locks.has("terminal") || this.locks.has("session");
    this.$("place").disabled = locked || blocked || stake === "" || !!err;
    this.$("slip-remove").disabled = this.busy;
    this.$("place").textContent = t("slip.place");
  }

  // stakeMessage is the text of a stake error (stakeError, limitError).
  stakeMessage(err) {
    const { currency, decimals } = this.d;
    const l = this.d.limits ?? {};
    switch (err) {
      case "format": return t("stake.format");
      case "decimals": return t("stake.decimals", { currency, decimals });
      case "min": return t("stake.min", { min: figure(l.min_stake, decimals), currency });
      case "max": return t("stake.max", { max: figure(l.max_stake, decimals), currency });
      case "payout": return t("stake.max_payout", { max: figure(l.max_payout, decimals), currency });
    }
    return "";
  }

  // say shows a message in the slip's live region (announced politely);
  // tone (ok, warn, error) only styles it: the words carry the meaning.
  say(text, tone = "") {
    this.$("slip-status").textContent = text;
    this.$("slip-status").removeAttribute("title");
    this.$("slip-status").dataset.tone = tone;
  }

  // actions replaces the buttons under the message.
  actions(...buttons) {
    this.$("slip-actions").replaceChildren(...buttons);
  }

  button(key, onclick, id) {
    return h("button", { type: "button", id, class: "secondary", onclick }, t(key));
  }

  // place starts an attempt for the bet on the slip.
  async place() {
    const s = this.sel;
    const stake = this.stake();
    if (!s || this.busy || this.pending || this.locks.size > 0 || stakeError(stake, this.d.decimals) || limitError(stake, s.odds, this.d.limits)) return;
    if (this.blockedStake !== null && compare(stake, this.blockedStake) === 0) return;
    this.busy = true;
    this.actions();
    this.render();
    this.$("slip-status").focus();
    try {
      // Obligation 3: read the event again; the stream carries odds, not
      // availability.
      this.say(t("bet.checking"));
      const fresh = await this.d.api.event(s.event.id);
      if (!this.stillOpen(fresh)) return;
      const outcome = this.sel.outcome;
      if (this.repriced(outcome)) return;
      // Obligation 4: one fresh key for this intended bet, kept for the
      // whole attempt.
      const attempt = { key: newIdempotencyKey(), stake, bet: { market_id: s.market.id, outcome_id: outcome.id, stake },
        balanceBefore: this.d.balance() };
      await this.submit(attempt);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  // repriced takes a fresh read of the selected outcome: true (and the new
  // price shown, to be confirmed by placing again) when its price is no
  // longer the one the preview used; the message is said after before.
  repriced(outcome, before = "", tone = "warn") {
    const s = this.sel;
    const entry = entryOf(outcome);
    if (compare(entry, s.entry) === 0 && outcome.display_odds === s.odds) return false;
    const [oldEntry, oldOdds] = [s.entry, s.odds];
    s.odds = outcome.display_odds;
    s.entry = entry;
    // Two prices that show alike at 2 decimals are told apart exactly.
    const alike = oddsText(oldOdds) === oddsText(s.odds);
    const old = alike ? fmt.exactOdds(oldEntry) : oddsText(oldOdds);
    const now = alike ? fmt.exactOdds(entry) : oddsText(s.odds);
    this.say(`${before} ${t("bet.price_changed", { old, new: now })}`.trim(), tone);
    this.render();
    return true;
  }

  // stillOpen applies a fresh event read to the selection: false (and the
  // selection dropped, said after before) when the market no longer takes
  // bets.
  stillOpen(fresh, before = "") {
    if (!fresh.ok || !fresh.data) {
      if (fresh.status === 404) {
        this.drop(before);
      } else {
        this.say(`${before} ${t("bet.check_failed")}`.trim(), "warn");
      }
      return false;
    }
    const ev = fresh.data;
    this.d.freshEvent(ev);
    const market = ev.markets.find((m) => m.id === this.sel.market.id);
    const outcome = market?.outcomes.find((o) => o.id === this.sel.outcome.id);
    if (!market || !isOpen(ev, market, outcome)) {
      this.drop(before);
      return false;
    }
    Object.assign(this.sel, { event: ev, market, outcome });
    return true;
  }

  drop(before = "") {
    this.sel = null;
    this.pending = null;
    this.d.onSelection(null);
    this.say(`${before} ${t("bet.closed")}`.trim(), "warn");
    this.render();
  }

  // submit sends the attempt, replaying the same key while the answer is
  // lost (obligations 8 and 9), then polls the accepted bet.
  async submit(attempt) {
    this.say(t("bet.sending"));
    let accepted = null;
    for (let i = 0; ; i++) {
      const a = await this.d.api.placeBet(attempt.bet, attempt.key);
      if (a.status === 202 && typeof a.data?.id === "string") {
        accepted = a.data;
        break;
      }
      const lost = a.status === 0 || a.status >= 500 || (a.status >= 200 && a.status < 300);
      if (lost && i < REPLAY_WAITS_MS.length) {
        await clock.sleep(REPLAY_WAITS_MS[i], "replay");
        continue;
      }
      if (lost) {
        this.uncertain(attempt);
        return;
      }
      this.refused(a.status);
      return;
    }
    this.pending = null;
    // Obligation 5: accepted for processing, not placed.
    this.say(t("bet.accepted"));
    await this.poll(attempt, accepted);
  }

  // uncertain: no answer after the replays. The bettor may replay the same
  // key (never a new one) or check their bets.
  uncertain(attempt) {
    this.pending = attempt;
    this.say(t("bet.uncertain"), "warn");
    this.actions(
      this.button("bet.replay", () => this.replay(), "slip-replay"),
      this.button("bet.open_history", () => this.d.openHistory(), "slip-history"));
    this.render();
  }

  async replay() {
    const attempt = this.pending;
    if (!attempt || this.busy) return;
    this.busy = true;
    this.actions();
    this.render();
    try {
      await this.submit(attempt);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  // refused: a definite 4xx; no bet was created and the attempt is over.
  refused(status) {
    if (status === 404) {
      this.drop();
      return;
    }
    const key = { 400: "bet.refused_invalid", 401: this.d.endedKey(), 403: "bet.refused_demo", 409: "bet.refused_unpriced",
      429: "bet.refused_rate" }[status] ?? "bet.refused";
    this.say(t(key), "error");
  }

  // poll reads the bet on the schedule until it is confirmed or rejected,
  // or the ceiling passes (obligations 6 and 7).
  async poll(attempt, accepted) {
    for (const wait of pollWaits()) {
      await clock.sleep(wait, "poll");
      const r = await this.d.api.bet(accepted.id);
      if (!r.ok || !r.data) continue;
      if (isPlaced(r.data.status)) return this.placed(attempt, accepted, r.data);
      if (statusIs(r.data.status, "rejected")) return this.rejected(attempt, r.data);
    }
    this.stillProcessing();
  }

  placed(attempt, accepted, bet) {
    const { currency, decimals } = this.d;
    this.say(t("bet.confirmed", {
      stake: figure(bet.stake, decimals), currency, outcome: this.sel?.outcome.name ?? "", odds: oddsText(bet.entry_odds),
      payout: figure(bet.potential_payout ?? accepted.potential_payout, decimals),
    }), "ok");
    this.$("slip-status").title = t("exact", { value: `${fmt.exactOdds(bet.entry_odds)} · ${fmt.exactMoney(bet.potential_payout ?? accepted.potential_payout, currency)}` });
    this.sel = null;
    this.$("stake").value = "";
    this.d.onSelection(null);
    this.actions(this.button("bet.open_history", () => this.d.openHistory(), "slip-history"));
    this.d.onPlaced(bet);
  }

  // stillProcessing: the ceiling passed with the bet pending. Neither
  // failed nor placed, and no retry: a new key could stake twice.
  stillProcessing() {
    this.sel = null;
    this.d.onSelection(null);
    this.say(t("bet.still_processing"), "warn");
    this.actions(this.button("bet.open_history", () => this.d.openHistory(), "slip-history"));
    this.d.onPlaced(null);
  }

  // rejected shows the message of the rejection_code (never
  // rejection_reason) and does what the rejection table asks.
  async rejected(attempt, bet) {
    const r = rejection(bet.rejection_code);
    const { currency, decimals } = this.d;
    const message = t(r.key, { stake: figure(attempt.stake, decimals), currency });
    this.say(message, "error");
    if (r.terminal) {
      this.locks.add("terminal");
      return;
    }
    if (r.sameStakeBlocked) {
      this.blockedStake = attempt.stake;
      return;
    }
    if (r.offerDeposit) {
      this.actions(this.button("bet.deposit", () => this.d.deposit(attempt.stake), "slip-deposit"));
    }
    if (r.refetchEvent && this.sel) {
      const fresh = await this.d.api.event(this.sel.event.id);
      if (!this.stillOpen(fresh, message)) return;
      this.repriced(this.sel.outcome, message, "error");
      return;
    }
    if (r.refreshBalance) {
      this.locks.add("balance");
      this.render();
      this.say(`${message} ${t("balance.refreshing")}`, "error");
      const got = await this.d.refreshBalance();
      if (r.awaitStakeBack) {
        if (!(await this.awaitStakeBack(attempt, got, message))) return;
      } else {
        this.say(got.ok ? message : `${message} ${t("balance.refresh_failed")}`, "error");
        if (!got.ok) {
          this.actions(this.button("balance.refresh", () => this.recheck(message), "slip-refresh"));
          return;
        }
      }
      this.locks.delete("balance");
      this.render();
    }
  }

  // recheck reads the balance again on the bettor's request; placing is
  // allowed again once it is read.
  async recheck(message) {
    const got = await this.d.refreshBalance();
    if (got.ok) {
      this.locks.delete("balance");
      this.locks.delete("stake-back");
      this.actions();
      this.say(message, "error");
      this.render();
    }
  }

  // awaitStakeBack reads the balance until it shows the stake back: the
  // balance before the attempt, or, when that was unknown, the first
  // balance read after the rejection plus the stake. Only then may the
  // bettor try again; after STAKE_BACK_READS reads the bettor re-checks
  // with a button.
  async awaitStakeBack(attempt, got, message) {
    this.locks.add("stake-back");
    let target = attempt.balanceBefore;
    for (let i = 0; ; i++) {
      const bal = got.ok ? got.balance : null;
      if (bal !== null && target === null) target = add(bal, attempt.stake);
      if (bal !== null && compare(bal, target) >= 0) break;
      if (i >= STAKE_BACK_READS) {
        this.actions(this.button("balance.refresh", () => this.recheck(message), "slip-refresh"));
        return false;
      }
      await clock.sleep(STAKE_BACK_WAIT_MS, "balance");
      got = await this.d.refreshBalance();
    }
    this.locks.delete("stake-back");
    this.say(`${message} ${t("bet.stake_returned")}`, "ok");
    return true;
  }
}
