// Rendering: events with their markets and outcomes, the bet history and
// the portfolio. Texts from the API are set as text, never as HTML.

import { amount, locale, t } from "./i18n.js";
import { round, compare } from "./decimal.js";
import { rejection, statusIs } from "./rules.js";

// el builds an element: attrs are attributes (on* keys are listeners),
// children are nodes or strings.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

// figure formats a decimal string rounded to decimals places, half to
// even, in the interface's locale: "44.21".
export function figure(value, decimals) {
  const r = round(value, decimals);
  return r === null ? "—" : amount(r, decimals);
}

// money is figure with the currency code: "44.21 USD".
export function money(value, currency, decimals) {
  return `${figure(value, decimals)} ${currency}`;
}

// isOpen: the market takes bets as far as the event read shows.
export function isOpen(event, market, outcome, now = Date.now()) {
  return statusIs(event.status, "open") && statusIs(market.status, "open") && !!outcome && outcome.display_odds !== null &&
    (!market.closes_at || Date.parse(market.closes_at) > now);
}

// eventCard renders one event. onPick(event, market, outcome) is called
// when an outcome is chosen; null in a demo, where outcomes only show
// their odds (a demo offers no placing at all).
export function eventCard(event, { onPick, selected }) {
  return el("article", { class: "event", "data-event-id": event.id, "aria-labelledby": `ev-${event.id}` },
    el("header", { class: "event-head" },
      el("span", { class: "category", text: t(`category.${event.category}`) }),
      el("h3", { id: `ev-${event.id}`, text: event.title })),
    event.description ? el("p", { class: "event-desc", text: event.description }) : null,
    event.markets.map((m) => marketBlock(event, m, { onPick, selected })));
}

function marketBlock(event, market, { onPick, selected }) {
  const qid = `mq-${market.id}`;
  return el("section", { class: "market", "data-market-id": market.id, "data-status": market.status, "aria-labelledby": qid },
    el("div", { class: "market-head" },
      el("h4", { id: qid, text: market.question }),
      el("span", { class: "market-status", "data-status": market.status, text: t(`market.status.${market.status}`) })),
    el("div", { class: "outcomes", role: "group", "aria-labelledby": qid },
      market.outcomes.map((o) => outcomeControl(event, market, o, { onPick, selected }))));
}

function outcomeControl(event, market, o, { onPick, selected }) {
  const odds = o.display_odds ?? "—";
  const inner = [el("span", { class: "outcome-name", text: o.name }), el("span", { class: "odds", text: odds })];
  if (!onPick) {
    return el("span", { class: "outcome readonly", "data-outcome-id": o.id }, ...inner);
  }
  return el("button", {
    type: "button", class: "outcome", "data-outcome-id": o.id,
    "aria-pressed": selected === o.id ? "true" : "false",
    "aria-label": t("outcome.pick", { outcome: o.name, odds }),
    disabled: !isOpen(event, market, o),
    onclick: () => onPick(event, market, o),
  }, ...inner);
}

// setOdds shows a new price of an outcome wherever it is on the page.
export function setOdds(root, change) {
  for (const b of root.querySelectorAll(`[data-outcome-id="${CSS.escape(change.outcome_id)}"]`)) {
    const span = b.querySelector(".odds");
    if (!span) continue;
    const before = span.textContent;
    const odds = change.display_odds ?? "—";
    span.textContent = odds;
    const c = compare(odds, before);
    b.dataset.moved = c === 1 ? "up" : c === -1 ? "down" : "";
    if (b.tagName === "BUTTON") b.setAttribute("aria-label", t("outcome.pick", { outcome: b.querySelector(".outcome-name").textContent, odds }));
  }
}

// betItem renders a bet of the history. It shows entry_odds, the price the
// bettor got, and never the market's current odds.
export function betItem(bet, { currencyDecimals, names }) {
  const dec = currencyDecimals(bet.currency);
  const n = names(bet);
  const status = String(bet.status).toLowerCase();
  const rows = [
    ["history.stake", "stake", money(bet.stake, bet.currency, dec)],
    ["history.odds", "entry-odds", bet.entry_odds],
  ];
  if (statusIs(status, "settled")) {
    const won = compare(bet.payout_amount ?? "0", "0") === 1;
    rows.push([won ? "history.paid" : "history.result", "payout", won ? money(bet.payout_amount, bet.currency, dec) : t("history.lost")]);
  } else if (statusIs(status, "voided")) {
    rows.push(["history.returned", "payout", money(bet.payout_amount ?? bet.stake, bet.currency, dec)]);
  } else if (!statusIs(status, "rejected")) {
    rows.push(["history.potential", "payout", money(bet.potential_payout, bet.currency, dec)]);
  }
  return el("li", { class: "bet", "data-bet-id": bet.id, "data-status": status },
    el("p", { class: "bet-title" },
      el("span", { class: "bet-outcome", text: n.outcome }),
      el("span", { class: "bet-question", text: n.question })),
    el("span", { class: "bet-status", "data-status": status, text: t(`bet.status.${status}`) }),
    el("dl", { class: "bet-facts" }, rows.map(([label, cls, value]) =>
      el("div", { class: `fact ${cls}` }, el("dt", { text: t(label) }), el("dd", { text: value })))),
    statusIs(status, "rejected") ? el("p", { class: "bet-reason", text: t(`code.${rejection(bet.rejection_code).key.slice("reject.".length)}`) }) : null,
    el("p", { class: "bet-time" }, el("time", { datetime: bet.created_at, text: new Date(bet.created_at).toLocaleString(locale()) })));
}
