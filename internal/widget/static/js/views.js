// Rendering: events with their markets and outcomes, the bet history and
// the portfolio. Texts from the API are set as text, never as HTML.

import * as fmt from "./format.js";
import { locale, t } from "./i18n.js";
import { compare } from "./decimal.js";
import { h } from "./elements.js";
import { rejection, statusIs } from "./rules.js";

// figure formats a decimal amount in a currency's minor units, in the
// interface's locale: "1,044.21" (the shared display rule, format.js).
export function figure(value, decimals) {
  return fmt.amount(value, decimals, locale());
}

// money is figure with the currency code: "1,044.21 USD".
export function money(value, currency, decimals) {
  return fmt.money(value, currency, decimals, locale());
}

// oddsText shows odds at 2 decimals, rounded down ("4.4214" → "4.42").
export function oddsText(value) {
  return fmt.odds(value, locale());
}

// exactly puts the exact value of a rounded figure (entry odds with their
// 4 decimals, an unrounded payout) in the element's title, shown on hover.
export function exactly(e, exact) {
  if (exact) e.title = t("exact", { value: exact });
  else e.removeAttribute("title");
  return e;
}

// isOpen: the market takes bets as far as the event read shows.
export function isOpen(event, market, outcome, now = Date.now()) {
  return statusIs(event.status, "open") && statusIs(market.status, "open") && !!outcome && outcome.display_odds !== null &&
    (!market.closes_at || Date.parse(market.closes_at) > now);
}

// takesBets: any outcome of the market can be bet on now.
function takesBets(event, market, now) {
  return market.outcomes.some((o) => isOpen(event, market, o, now));
}

// image is an event's or a market's picture, decorative (the title says
// what it is), or nothing when there is none or it does not load.
function image(url, cls) {
  if (!url) return null;
  const img = h("img", { class: cls, src: url, alt: "", loading: "lazy", decoding: "async", referrerpolicy: "no-referrer" });
  img.addEventListener("error", () => img.remove());
  return img;
}

// duration writes a time left in the locale: "2 d 3 h", "3 h 12 min",
// "4 min 10 s", "9 s".
export function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return t("time.days", { d, h });
  if (h > 0) return t("time.hours", { h, m });
  if (m > 0) return t("time.minutes", { m, s: s % 60 });
  return t("time.seconds", { s });
}

// countdownText is a market's time left to bet, "" when it has no
// closing time.
export function countdownText(closesAt, now = Date.now()) {
  if (!closesAt) return "";
  const left = Date.parse(closesAt) - now;
  return left > 0 ? t("market.closes_in", { time: duration(left) }) : t("market.closed");
}

// tickCountdowns refreshes every countdown under root; a market that
// closed meanwhile has its outcomes disabled (placing reads the event
// again anyway).
export function tickCountdowns(root, now = Date.now()) {
  for (const c of root.querySelectorAll("[data-closes-at]")) {
    c.textContent = countdownText(c.dataset.closesAt, now);
    const left = Date.parse(c.dataset.closesAt) - now;
    c.dataset.soon = left > 0 && left < 3600_000 ? "true" : "false";
    if (left <= 0) {
      for (const b of c.closest(".market")?.querySelectorAll("button.outcome") ?? []) b.disabled = true;
    }
  }
}

// eventCard renders one event: its picture, title and markets, those that
// take bets first; a market that takes none (suspended, past its closing
// time, unpriced) shows after them, its outcomes as plain text, never as
// disabled buttons among the open ones. onPick(event, market, outcome) is
// called when an outcome is chosen; null in a demo, where outcomes only
// show their odds (a demo offers no placing at all).
export function eventCard(event, { onPick, selected, now = Date.now() }) {
  const open = event.markets.filter((m) => takesBets(event, m, now));
  const closed = event.markets.filter((m) => !takesBets(event, m, now));
  return h("article", { class: "event", "data-event-id": event.id, "aria-labelledby": `ev-${event.id}` },
    h("header", { class: "event-head" },
      image(event.image_url, "event-image"),
      h("div", { class: "event-titles" },
        h("span", { class: "category" }, t(`category.${event.category}`)),
        h("h3", { id: `ev-${event.id}` }, event.title))),
    event.description ? h("p", { class: "event-desc" }, event.description) : null,
    open.map((m) => marketBlock(event, m, { onPick, selected, open: true })),
    closed.map((m) => marketBlock(event, m, { onPick: null, selected, open: false })));
}

function marketBlock(event, market, { onPick, selected, open }) {
  const qid = `mq-${market.id}`;
  const status = open ? "open" : statusIs(market.status, "open") ? "closed" : market.status;
  return h("section", { class: "market", "data-market-id": market.id, "data-status": market.status, "data-takes-bets": open ? "true" : "false", "aria-labelledby": qid },
    h("div", { class: "market-head" },
      image(market.image_url, "market-image"),
      h("h4", { id: qid }, market.question),
      h("span", { class: "market-status", "data-status": status }, t(`market.status.${status}`))),
    open && market.closes_at ? h("p", { class: "countdown", "data-closes-at": market.closes_at }, countdownText(market.closes_at)) : null,
    h("div", { class: "outcomes", role: "group", "aria-labelledby": qid },
      market.outcomes.map((o) => outcomeControl(event, market, o, { onPick, selected }))));
}

// outcomeParts are an outcome's name, its chance with a bar, its odds and
// the arrow of its last move.
function outcomeParts(o) {
  const bar = h("span", { class: "prob-bar", "aria-hidden": "true" }, h("span", { class: "prob-fill" }));
  const parts = [
    h("span", { class: "outcome-name" }, o.name),
    h("span", { class: "outcome-price" },
      h("span", { class: "prob" }, h("span", { class: "prob-text" }), bar),
      h("span", { class: "odds" }),
      h("span", { class: "move", "aria-hidden": "true" })),
  ];
  return parts;
}

// fillPrice shows an outcome's price in its parts: chance, bar, odds (the
// exact entry odds on hover).
function fillPrice(node, { display_odds: odds, display_probability: prob, entry_odds: entry }) {
  const shown = oddsText(odds);
  const span = node.querySelector(".odds");
  span.textContent = shown;
  exactly(span, entry ? fmt.exactOdds(entry) : "");
  node.querySelector(".prob-text").textContent = prob ? fmt.percent(prob, locale()) : "";
  const fill = node.querySelector(".prob-fill");
  const p = Number(prob ?? 0);
  fill.style.width = `${Math.max(0, Math.min(100, Number.isFinite(p) ? p : 0))}%`;
  node.querySelector(".prob").hidden = !prob;
  node.dataset.odds = odds ?? "";
  return shown;
}

function pickLabel(name, node) {
  return t("outcome.pick", { outcome: name, odds: node.querySelector(".odds").textContent, chance: node.querySelector(".prob-text").textContent });
}

function outcomeControl(event, market, o, { onPick, selected }) {
  if (!onPick) {
    const node = h("span", { class: "outcome readonly", "data-outcome-id": o.id }, ...outcomeParts(o));
    fillPrice(node, o);
    return node;
  }
  const node = h("button", {
    type: "button", class: "outcome", "data-outcome-id": o.id,
    "aria-pressed": selected === o.id ? "true" : "false",
    onclick: () => onPick(event, market, o),
  }, ...outcomeParts(o));
  fillPrice(node, o);
  node.setAttribute("aria-label", pickLabel(o.name, node));
  return node;
}

// setOdds shows a new price of an outcome wherever it is on the page: its
// chance, bar and odds, and, when the odds moved, an arrow up or down that
// stays until the next move and a short flash.
export function setOdds(root, change) {
  for (const b of root.querySelectorAll(`[data-outcome-id="${CSS.escape(change.outcome_id)}"]`)) {
    if (!b.querySelector(".odds")) continue;
    const before = b.dataset.odds ?? "";
    fillPrice(b, change);
    const c = compare(change.display_odds ?? "", before);
    if (c === 1 || c === -1) {
      const dir = c === 1 ? "up" : "down";
      b.dataset.moved = dir;
      const arrow = b.querySelector(".move");
      arrow.textContent = dir === "up" ? "▲" : "▼";
      arrow.title = t(`odds.${dir}`, { old: oddsText(before) });
      b.classList.remove("flash");
      void b.offsetWidth; // restart the animation
      b.classList.add("flash");
    }
    if (b.tagName === "BUTTON") {
      const name = b.querySelector(".outcome-name").textContent;
      const move = b.dataset.moved ? ` ${t(`odds.${b.dataset.moved}`, { old: "" }).trim()}` : "";
      b.setAttribute("aria-label", pickLabel(name, b) + move);
    }
  }
}

// betResult is what a bet came to, for its badge: "won", "lost", "void",
// or its status while it is open or was rejected.
export function betResult(bet) {
  const status = String(bet.status).toLowerCase();
  if (status === "settled") return compare(bet.payout_amount ?? "0", "0") === 1 ? "won" : "lost";
  if (status === "voided") return "void";
  return status;
}

// exactFigures lists a bet's figures unrounded (the entry odds with their
// 4 decimals, the exact payout) in a disclosure: the title of each figure
// says the same on hover, which a phone has not.
function exactFigures(rows) {
  const exact = rows.filter((r) => r[3]);
  if (exact.length === 0) return null;
  return h("details", { class: "bet-exact" },
    h("summary", {}, t("history.exact")),
    h("dl", {}, exact.map(([label, cls, , value]) => h("div", { class: `fact ${cls}` }, h("dt", {}, t(label)), h("dd", {}, value)))));
}

// betItem renders a bet of the history: the outcome, the market and its
// event, a badge of what it came to (won, lost, void: each its own colour
// and word), and its figures. It shows entry_odds, the price the bettor
// got (at 2 decimals, exact on hover), never the market's current odds.
export function betItem(bet, { currencyDecimals, names }) {
  const dec = currencyDecimals(bet.currency);
  const n = names(bet);
  const status = String(bet.status).toLowerCase();
  const result = betResult(bet);
  const amountRow = (label, cls, value) => {
    const shown = money(value, bet.currency, dec);
    return [label, cls, shown, fmt.exactMoney(value, bet.currency)];
  };
  const rows = [
    amountRow("history.stake", "stake", bet.stake),
    ["history.odds", "entry-odds", oddsText(bet.entry_odds), fmt.exactOdds(bet.entry_odds)],
  ];
  if (result === "won") {
    rows.push(amountRow("history.paid", "payout", bet.payout_amount));
  } else if (result === "lost") {
    rows.push(["history.result", "payout", t("history.lost"), ""]);
  } else if (result === "void") {
    rows.push(amountRow("history.returned", "payout", bet.payout_amount ?? bet.stake));
  } else if (status !== "rejected") {
    rows.push(amountRow("history.potential", "payout", bet.potential_payout));
  }
  return h("li", { class: "bet", "data-bet-id": bet.id, "data-status": status, "data-result": result },
    h("p", { class: "bet-title" },
      h("span", { class: "bet-outcome" }, n.outcome),
      h("span", { class: "bet-question" }, n.question),
      n.event ? h("span", { class: "bet-event" }, n.event) : null),
    h("span", { class: "bet-status", "data-status": status, "data-result": result }, t(`bet.result.${result}`)),
    h("dl", { class: "bet-facts" }, rows.map(([label, cls, value, exact]) =>
      h("div", { class: `fact ${cls}` }, h("dt", {}, t(label)), exactly(h("dd", {}, value), exact)))),
    status === "rejected" ? h("p", { class: "bet-reason" }, t(`code.${rejection(bet.rejection_code).key.slice("reject.".length)}`)) : null,
    exactFigures(rows),
    h("p", { class: "bet-time" }, h("time", { datetime: bet.created_at }, new Date(bet.created_at).toLocaleString(locale()))));
}
