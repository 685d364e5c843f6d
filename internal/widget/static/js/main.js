// The widget's start: parameters, texts, session, then the three panels
// (markets with the bet slip, my bets, portfolio) and the odds stream.

import { Api } from "./api.js";
import { PriceLog } from "./chart.js";
import { minorUnits, roundHalfEven } from "./format.js";
import * as host from "./host.js";
import { load, t, translate } from "./i18n.js";
import { Session, SessionError, configure, params } from "./session.js";
import { Slip } from "./slip.js";
import { streamOdds } from "./stream.js";
import { betItem, eventCard, figure, money, setOdds, tickCountdowns } from "./views.js";

const $ = (id) => document.getElementById(id);

const state = {
  api: null,
  currency: "",
  decimals: 2,
  balance: null, // the last balance read, a decimal string or null
  demo: false,
  events: new Map(), // event id → event
  markets: new Map(), // market id → {event, market}
  selected: null, // outcome id on the slip
  eventsCursor: null,
  historyCursor: null,
  aggregator: false, // the aggregator's path: an ended session is relaunched from the casino
  learned: false, // events of every status were read for the history's names
  prices: new PriceLog(), // each outcome's price history and the prices seen, for the slip's chart
  session: null,
};

// decimalsOf is a currency's number of decimals: the operator's setting,
// else the ISO 4217 minor units the browser knows, else 2.
function decimalsOf(config, code) {
  return minorUnits(code, config.currencies?.find((x) => x.code === code)?.decimals);
}

function notice(text) {
  const n = $("notice");
  n.textContent = text;
  n.hidden = !text;
}

let slip = null;

// endedKey is the text of an ended session: reload the operator's page,
// or relaunch the game from the casino's lobby.
function endedKey() {
  return state.aggregator ? "session.relaunch" : "session.expired";
}

// showSession shows the session's state (session.js): nothing while it
// is active; while it waits for the host page, that it expired, with
// "Reconnect" (ask the host page again), and to reload the page once no
// answer came; once it ended, what to do, and the slip locks.
function showSession(s) {
  const box = $("session-box");
  box.hidden = s === "active";
  if (s === "active") return;
  const ended = s === "ended";
  $("session-text").textContent = t(ended ? endedKey() : s === "unanswered" ? "session.unanswered" : "session.waiting");
  $("session-reconnect").hidden = ended;
  if (ended) slip?.lockSession();
}

// ---- balance

// refreshBalance reads the profile. The platform's balance is the one its
// operator's wallet last reported; before the wallet's first answer for
// this bettor it has none, and the balance the session endpoint answered
// with stands in (the operator's wallet then, as the host page shows it).
// A failed read hides the balance. Reads may overlap (a bet placed, then
// the history opened): an answer to a read started before the one last
// shown is dropped, so a slow older answer never replaces a newer balance.
let balanceReads = 0;
let balanceShown = 0;
async function refreshBalance() {
  const n = ++balanceReads;
  const r = await state.api.me();
  if (n < balanceShown) return { ok: r.ok && !!r.data, balance: state.balance };
  balanceShown = n;
  if (!r.ok || !r.data) {
    setBalance(null);
    return { ok: false };
  }
  setBalance(r.data.balance ?? state.session?.balance ?? null);
  return { ok: true, balance: state.balance };
}

// setBalance shows a balance, or hides it when it is unknown (never a
// stale or made-up figure).
function setBalance(balance) {
  const changed = balance !== state.balance;
  state.balance = balance;
  const shown = balance === null ? "—" : money(balance, state.currency, state.decimals);
  $("balance").textContent = shown;
  $("balance-box").hidden = state.demo || balance === null;
  $("pf-balance").textContent = shown;
  if (changed) host.post({ type: "foresight:balance", balance, currency: state.currency });
}

// ---- events

function index(ev) {
  state.events.set(ev.id, ev);
  for (const m of ev.markets) {
    state.markets.set(m.id, { event: ev, market: m });
    for (const o of m.outcomes) state.prices.seen(o.id, o.display_odds, o.display_probability);
  }
}

function renderEvents() {
  const pick = state.demo ? null : (event, market, outcome) => slip.select(event, market, outcome);
  const cards = [...state.events.values()].filter((e) => !state.category || e.category === state.category)
    .map((e) => eventCard(e, { onPick: pick, selected: state.selected }));
  $("events").replaceChildren(...cards);
  $("events-empty").hidden = cards.length > 0;
  $("events-more").hidden = !state.eventsCursor;
}

// loadEvents reads the open events (of the chosen category).
async function loadEvents({ more = false } = {}) {
  const r = await state.api.events({ category: state.category, status: "open", cursor: more ? state.eventsCursor : "" });
  if (!r.ok || !r.data) {
    if (r.status !== 401) notice(t("events.failed"));
    return;
  }
  notice("");
  if (!more) {
    state.events.clear();
  }
  for (const ev of r.data.items) index(ev);
  state.eventsCursor = r.data.next_cursor;
  renderEvents();
}

// freshEvent replaces an event with a fresh read (the slip's re-read).
function freshEvent(ev) {
  index(ev);
  const card = document.querySelector(`[data-event-id="${CSS.escape(ev.id)}"]`);
  if (card) {
    const pick = state.demo ? null : (event, market, outcome) => slip.select(event, market, outcome);
    card.replaceWith(eventCard(ev, { onPick: pick, selected: state.selected }));
  }
}

// onOdds applies a change of the real-time channel: odds only.
function onOdds(change) {
  const entry = state.markets.get(change.market_id);
  if (entry) {
    const o = entry.market.outcomes.find((x) => x.id === change.outcome_id);
    if (o) {
      o.display_odds = change.display_odds;
      o.display_probability = change.display_probability;
      o.entry_odds = change.entry_odds ?? change.display_odds;
    }
  }
  state.prices.seen(change.outcome_id, change.display_odds, change.display_probability);
  setOdds($("events"), change);
  slip?.odds(change);
}

// onSnapshot applies the stream's snapshot, the odds of every open event
// (the stream could not resume): a shown event missing from it was
// resolved or cancelled meanwhile, and the events are read again.
function onSnapshot(odds) {
  const live = new Set();
  for (const change of odds) {
    live.add(change.event_id);
    if (state.markets.has(change.market_id)) onOdds(change);
  }
  if ([...state.events.keys()].some((id) => !live.has(id))) loadEvents();
}

// loadPriceHistory reads an outcome's price history once (the prices seen
// after it keep it current); true when it came.
async function loadPriceHistory(marketID, outcomeID) {
  if (!state.prices.needsHistory(outcomeID)) return false;
  const asked = state.prices.asked(outcomeID);
  let r = { ok: false };
  try {
    r = await state.api.priceHistory(marketID, outcomeID);
  } finally {
    state.prices.loaded(outcomeID, r.ok ? r.data?.points : null, asked);
  }
  return r.ok;
}

// ---- history

// names names a bet's outcome, market and event from the events read.
function names(bet) {
  const entry = state.markets.get(bet.market_id);
  if (!entry) return { outcome: t("history.outcome", { index: bet.outcome_index + 1 }), question: t("history.unknown_market"), event: "" };
  const o = entry.market.outcomes.find((x) => x.id === bet.outcome_id);
  return { outcome: o?.name ?? t("history.outcome", { index: bet.outcome_index + 1 }), question: entry.market.question, event: entry.event.title };
}

// learnMarkets reads events of every status once when bets name markets
// the page has not seen (closed or settled ones), for their names.
async function learnMarkets(bets) {
  if (state.learned || bets.every((b) => state.markets.has(b.market_id))) return;
  state.learned = true;
  const r = await state.api.events({ limit: 100 });
  if (!r.ok || !r.data) return;
  for (const ev of r.data.items) {
    for (const m of ev.markets) if (!state.markets.has(m.id)) state.markets.set(m.id, { event: ev, market: m });
  }
}

// loadHistory refetches the bets (obligation 11: on load and whenever the
// history opens; nothing waits in a loop for settlement).
async function loadHistory({ more = false } = {}) {
  $("history-status").textContent = t("app.loading");
  const r = await state.api.bets({ status: $("history-filter").value, cursor: more ? state.historyCursor : "" });
  if (!r.ok || !r.data) {
    $("history-status").textContent = r.status === 401 ? "" : t("history.failed");
    return;
  }
  await learnMarkets(r.data.items);
  const items = r.data.items.map((b) => betItem(b, { currencyDecimals: (c) => decimalsOf(state.config, c), names }));
  if (more) $("history").append(...items);
  else $("history").replaceChildren(...items);
  state.historyCursor = r.data.next_cursor;
  $("history-more").hidden = !state.historyCursor;
  $("history-empty").hidden = $("history").children.length > 0;
  $("history-status").textContent = "";
}

async function loadPortfolio() {
  const [p] = await Promise.all([state.api.portfolio(), refreshBalance()]);
  if (p.ok && p.data) {
    $("pf-stakes").textContent = money(p.data.total_stakes, p.data.currency ?? state.currency, state.decimals);
    $("pf-positions").textContent = String(p.data.total_positions);
  }
}

// ---- tabs

const TABS = ["markets", "history", "portfolio"];

function openTab(name, { focus = true } = {}) {
  for (const n of TABS) {
    const on = n === name;
    $(`tab-${n}`).setAttribute("aria-selected", on ? "true" : "false");
    $(`tab-${n}`).tabIndex = on ? 0 : -1;
    $(`panel-${n}`).hidden = !on;
  }
  if (focus) $(`tab-${name}`).focus();
  // Settled bets may have paid out since: the balance is read with them.
  if (name === "history") {
    loadHistory();
    if (!state.demo) refreshBalance();
  }
  if (name === "portfolio") loadPortfolio();
}

function wireTabs() {
  const visible = () => TABS.filter((n) => !$(`tab-${n}`).hidden);
  for (const n of TABS) $(`tab-${n}`).addEventListener("click", () => openTab(n));
  $("tabs").addEventListener("keydown", (e) => {
    const tabs = visible();
    const i = tabs.indexOf(e.target.id.slice(4));
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined || i < 0) return;
    e.preventDefault();
    openTab(tabs[(next + tabs.length) % tabs.length]);
  });
}

// ---- start

async function main() {
  const p = params(location.search, document.referrer);
  document.documentElement.dataset.theme = p.theme;
  document.documentElement.lang = p.locale;
  host.init(p.hostOrigin);
  host.watchHeight(document.body);
  await load(p.locale);
  translate(document);
  // The session_request_id is single use: do not keep it in the address.
  const shown = new URLSearchParams(location.search);
  shown.delete("session_request_id");
  history.replaceState(null, "", `${location.pathname}?${shown}`);

  // A session renews through the host page on the standalone path only:
  // the aggregator's protocol gives the casino's page no part after the
  // launch, and a demo has no bettor to log in again.
  let config;
  let session;
  try {
    config = await configure(p);
    state.aggregator = config.integration === "aggregator" || p.integration === "aggregator";
    session = new Session({ sessionURL: config.session_url, renewable: !state.aggregator && !p.demo && host.canAsk(), onState: showSession });
    $("session-reconnect").addEventListener("click", () => session.ask());
    await session.open(p.sessionRequestID);
  } catch (err) {
    const kind = err instanceof SessionError ? err.kind : "failed";
    $("loading").hidden = true;
    $("session-box").hidden = true;
    notice(t(`start.${kind}`));
    $("app").setAttribute("aria-busy", "false");
    return;
  }
  state.session = session;
  const claims = session.claims;
  state.config = config;
  state.currency = claims.currency ?? config.currencies?.[0]?.code ?? "";
  state.decimals = decimalsOf(config, state.currency);
  state.demo = claims.demo === true || p.demo;
  if (state.demo) session.renewable = false;
  state.api = new Api(session, { locale: p.locale });
  $("brand").textContent = config.name || "Foresight";

  if (state.demo) {
    // A demo session browses markets and odds and places nothing: no slip
    // form, no history, no balance.
    $("demo-badge").hidden = false;
    $("demo-note").hidden = false;
    $("slip-demo").hidden = false;
    $("slip-empty").hidden = true;
    $("slip-form").remove();
    $("tab-history").hidden = true;
    $("tab-portfolio").hidden = true;
  } else {
    const limits = config.limits?.[state.currency] ?? null;
    $("stake-label").textContent = t("slip.stake", { currency: state.currency });
    $("stake").placeholder = state.decimals > 0 ? `10.${"0".repeat(state.decimals)}` : "10";
    $("stake-hint").textContent = limits
      ? t("slip.limits", { min: figure(limits.min_stake, state.decimals), max: figure(limits.max_stake, state.decimals), currency: state.currency })
      : "";
    slip = new Slip($("slip"), {
      api: state.api,
      currency: state.currency,
      decimals: state.decimals,
      limits,
      prices: (id) => state.prices.line(id),
      loadPrices: loadPriceHistory,
      balance: () => state.balance,
      refreshBalance,
      freshEvent,
      onSelection: (id) => {
        state.selected = id;
        for (const b of document.querySelectorAll("button.outcome")) b.setAttribute("aria-pressed", b.dataset.outcomeId === id ? "true" : "false");
      },
      onPlaced: () => {
        refreshBalance();
      },
      openHistory: () => openTab("history"),
      deposit: (amount) => host.post({ type: "foresight:deposit", currency: state.currency, amount: roundHalfEven(amount, state.decimals) }),
      endedKey,
    });
  }
  wireTabs();
  $("category").addEventListener("change", () => {
    state.category = $("category").value;
    loadEvents();
  });
  $("events-more").addEventListener("click", () => loadEvents({ more: true }));
  $("history-filter").addEventListener("change", () => loadHistory());
  $("history-more").addEventListener("click", () => loadHistory({ more: true }));

  const first = [loadEvents()];
  if (!state.demo) first.push(refreshBalance(), loadHistory());
  await Promise.all(first);
  $("loading").hidden = true;
  $("main").hidden = false;
  $("app").setAttribute("aria-busy", "false");
  document.body.dataset.ready = "true";
  // The markets' countdowns run on the wall clock: they show real time.
  setInterval(() => tickCountdowns($("events")), 1000);

  let connected = false;
  const stop = new AbortController();
  addEventListener("pagehide", () => stop.abort());
  streamOdds(state.api, {
    signal: stop.signal,
    onConnect: (resuming) => {
      // A reconnection resumes where the last one stopped, or starts with
      // a snapshot; one that has no position to resume from (it dropped
      // before the stream's first event) reads the events again.
      if (connected && !resuming) loadEvents();
      connected = true;
      document.body.dataset.stream = "connected";
    },
    onOdds,
    onSnapshot,
  });
}

main();
