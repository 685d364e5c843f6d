// Bettors and bets of an operator: the bets with the admin API's filters
// (bettor, market, status), a bet's details (amounts, odds, rejection,
// settlement, the wallet's confirmations and each wallet transaction with
// its attempts), bets and stakes over time, the bettors with their last
// known balance, and a bettor's open positions and history.

import { seg } from "./api.js";
import { columns } from "./chart.js";
import { sum } from "./decimal.js";
import { badge, field, pagedRows, searchForm, select, text, uid, when } from "./dom.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";
import { cash, cashCell, exactly, figure, learnCurrencies } from "./money.js";

const STATUSES = ["pending", "confirmed", "rejected", "settled", "voided"];
const OPEN = new Set(["pending", "confirmed"]);

// operator is the operator last picked, kept across the sections.
let operator = "";

// events caches the events bets point at, for their names.
const events = new Map();

async function operators(ctx) {
  const a = await ctx.api.get("/operators");
  if (!a.ok) {
    ctx.notify(`Operators could not be loaded: ${describe(a)}`);
    return [];
  }
  const items = a.data.items;
  learnCurrencies(items);
  if (!items.some((o) => o.id === operator)) operator = items[0]?.id ?? "";
  return items;
}

function operatorSelect(items, onChange) {
  const pick = select(items.map((o) => [o.id, `${o.name} (${o.id})`]), operator, { "data-filter": "operator" });
  pick.addEventListener("change", () => {
    operator = pick.value;
    onChange();
  });
  return field("Operator", pick);
}

// names loads the events of bets not yet cached (their markets and
// outcomes name the bets).
async function names(ctx, bets) {
  const missing = [...new Set(bets.map((b) => b.event_id))].filter((id) => !events.has(id)).slice(0, 20);
  const answers = await Promise.all(missing.map((id) => ctx.api.get(`/events/${seg(id)}`)));
  answers.forEach((a, i) => events.set(missing[i], a.ok ? a.data : null));
}

// label names a bet's selection: "Event — Question: Outcome" when its
// event is known, else the outcome's index.
function label(b) {
  const ev = events.get(b.event_id);
  const m = ev?.markets.find((x) => x.id === b.market_id);
  const o = m?.outcomes.find((x) => x.id === b.outcome_id);
  if (!m || !o) return `outcome ${b.outcome_index + 1} of market ${b.market_id}`;
  return `${text(ev.title)} — ${text(m.question)}: ${text(o.name)}`;
}

// betsTable lists bets with a details row each, opened by its button;
// opening it loads the bet's wallet transactions.
function betsTable(ctx, bets, { bettorColumn = true } = {}) {
  const head = ["Placed", ...(bettorColumn ? ["Bettor"] : []), "Selection", "Stake", "Entry odds", "Potential payout", "Status", "Paid", ""];
  return h("div", { class: "table-wrap" }, h("table", { class: "bets" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col", class: ["Stake", "Entry odds", "Potential payout", "Paid"].includes(c) ? "num" : null }, c)))),
    bets.map((b) => {
      const detailID = `bet-${b.id}`;
      const wallet = h("section", { class: "wallet", "data-wallet": b.id });
      const detail = h("tr", { class: "detail", id: detailID, hidden: true }, h("td", { colspan: String(head.length) }, betDetail(b), wallet));
      const toggle = h("button", { type: "button", class: "secondary", "aria-expanded": "false", "aria-controls": detailID, "data-details": b.id }, "Details");
      toggle.addEventListener("click", () => {
        const open = toggle.getAttribute("aria-expanded") !== "true";
        toggle.setAttribute("aria-expanded", String(open));
        detail.hidden = !open;
        if (open) walletTransactions(ctx, b, wallet);
      });
      return h("tbody", { "data-bet": b.id, "data-status": b.status },
        h("tr", {},
          h("td", {}, when(b.created_at)),
          bettorColumn ? h("td", {}, h("a", { href: `#/bettors/${seg(b.operator_id)}/${seg(b.bettor_id)}` }, b.bettor_id)) : null,
          h("td", {}, h("a", { href: `#/events/${seg(b.event_id)}` }, label(b))),
          cashCell(b.stake, b.currency),
          h("td", { class: "num" }, b.entry_odds),
          cashCell(b.potential_payout, b.currency),
          h("td", {}, badge(b.status)),
          cashCell(b.payout_amount, b.currency, { "data-paid": true }),
          h("td", {}, toggle)),
        detail);
    })));
}

function betDetail(b) {
  const row = (k, v) => (v === undefined || v === null || v === "" ? null : [h("dt", {}, k), h("dd", {}, v)]);
  return h("dl", { class: "facts", "data-bet-detail": b.id },
    row("Bet id", b.id),
    row("Operator", b.operator_id),
    row("Bettor", b.bettor_id),
    row("Selection", label(b)),
    row("Market id", b.market_id),
    row("Outcome id", b.outcome_id),
    row("Stake", cash(b.stake, b.currency)),
    row("Entry odds", b.entry_odds),
    row("Shown probability", `${b.display_probability}%`),
    row("Potential payout", exactly(b.potential_payout, b.currency)),
    row("Status", b.status),
    row("Rejection", b.status === "rejected" ? `${b.rejection_code ?? "unknown wallet answer"}${b.rejection_reason ? `: ${b.rejection_reason}` : ""}` : null),
    row("Rollback confirmed", b.rollback_confirmed_at ? when(b.rollback_confirmed_at) : b.status === "rejected" ? "not (yet) confirmed, or none needed" : null),
    row("Paid", b.payout_amount !== undefined ? exactly(b.payout_amount, b.currency) : null),
    row("Settled", b.settled_at ? when(b.settled_at) : null),
    row("Deposit confirmed", b.settled_at ? (b.deposit_confirmed_at ? when(b.deposit_confirmed_at) : "not yet: the deposit is being retried") : null),
    row("Placed", when(b.created_at)),
    row("Updated", when(b.updated_at)));
}

const KINDS = { withdrawal: "Withdrawal (stake)", deposit: "Deposit (payout)", rollback: "Rollback (stake back)" };
const RESULTS = { done: "done", refused: "refused", unknown: "unknown" };
const FAILURES = {
  timeout: "time-out", connection_refused: "connection refused", connection_reset: "connection reset",
  connection_closed: "connection closed without an answer", dns_failure: "name not found", tls_failure: "TLS failure",
  cancelled: "stopped by the platform", transport_error: "no answer", unreadable_answer: "unreadable answer",
};

// instant writes an RFC 3339 time to the millisecond: "2026-05-01 14:03:07.123 UTC".
function instant(t) {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().replace("T", " ").replace("Z", " UTC");
}

// outcome says what one attempt established, in words.
function outcome(a) {
  const parts = [];
  if (a.http_status) parts.push(`HTTP ${a.http_status}`);
  if (a.code) parts.push(a.code);
  if (a.error) parts.push(FAILURES[a.error] ?? a.error);
  return parts.join(" · ") || "—";
}

// loads counts the loads of each wallet section: only the latest draws.
const loads = new WeakMap();

// walletTransactions loads a bet's wallet transactions into section: per
// transaction a table of its attempts, oldest first.
async function walletTransactions(ctx, b, section) {
  const mine = (loads.get(section) ?? 0) + 1;
  loads.set(section, mine);
  const headingID = uid("wallet");
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" }, "Loading the wallet transactions…");
  section.setAttribute("aria-labelledby", headingID);
  replace(section, h("h3", { id: headingID }, "Wallet transactions"), status);
  const a = await ctx.api.get(`/bets/${seg(b.id)}/wallet-transactions`);
  if (!ctx.alive() || loads.get(section) !== mine) return;
  if (!a.ok) {
    replace(status, `The wallet transactions could not be loaded: ${describe(a)}`);
    status.setAttribute("role", "alert");
    return;
  }
  const txs = a.data.items;
  const count = txs.reduce((n, tx) => n + tx.attempts.length, 0);
  status.textContent = txs.length
    ? `${txs.length} transaction${txs.length === 1 ? "" : "s"}, ${count} attempt${count === 1 ? "" : "s"}.`
    : "None recorded: the wallet was not called for this bet, or before attempts were recorded.";
  section.append(...txs.map((tx) => h("div", { class: "table-wrap" }, h("table", { class: "attempts", "data-tx": tx.transaction_id, "data-kind": tx.kind },
    h("caption", {},
      h("strong", {}, KINDS[tx.kind] ?? tx.kind), ` ${exactly(tx.amount, tx.currency)} · `, h("code", {}, tx.transaction_id), " · ",
      tx.confirmed_at ? `confirmed ${instant(tx.confirmed_at)}` : "not confirmed"),
    h("thead", {}, h("tr", {}, ["Attempt", "Started", "Took", "Result", "Answer"].map((c) => h("th", { scope: "col", class: c === "Took" ? "num" : null }, c)))),
    h("tbody", {}, tx.attempts.map((x) => h("tr", { "data-attempt": String(x.attempt), "data-result": x.result },
      h("td", {}, `#${x.attempt}`),
      h("td", {}, instant(x.started_at)),
      h("td", { class: "num" }, `${x.duration_ms} ms`),
      h("td", {}, badge(RESULTS[x.result] ?? x.result)),
      h("td", {}, outcome(x)))))))));
}

// overTime plots the number of bets and the stakes of the most used
// currency per day (per hour when the bets span one day).
function overTime(bets) {
  if (bets.length === 0) return null;
  const days = new Set(bets.map((b) => b.created_at.slice(0, 10)));
  const key = days.size > 1 ? (b) => b.created_at.slice(0, 10) : (b) => `${b.created_at.slice(11, 13)}:00`;
  const byCurrency = new Map();
  for (const b of bets) byCurrency.set(b.currency, (byCurrency.get(b.currency) ?? 0) + 1);
  const currency = [...byCurrency.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const buckets = new Map();
  for (const b of [...bets].sort((x, y) => x.created_at.localeCompare(y.created_at))) {
    const k = key(b);
    const e = buckets.get(k) ?? { count: 0, stakes: [] };
    e.count += 1;
    if (b.currency === currency) e.stakes.push(b.stake);
    buckets.set(k, e);
  }
  const list = [...buckets.entries()];
  const span = days.size > 1 ? "day" : `hour (UTC) of ${[...days][0]}`;
  return h("div", { class: "charts" },
    h("h2", {}, "Over time"),
    h("p", { class: "hint" }, bets.length === 1 ? `The one bet loaded, per ${span}.` : `The ${bets.length} bets loaded, per ${span}.`),
    h("h3", {}, "Bets"),
    columns(list.map(([k, e]) => ({ label: k, value: String(e.count) })), `Bets per ${span}`),
    h("h3", {}, `Stakes (${currency})`),
    columns(list.map(([k, e]) => ({ label: k, value: sum(e.stakes) ?? "0" })), `Stakes in ${currency} per ${span}`, currency, (v) => figure(v, currency)));
}

// renderBets renders #/bets and #/bets/market/{id}.
export async function renderBets(ctx, view, parts) {
  const items = await operators(ctx);
  if (!ctx.alive()) return;
  const bettor = h("input", { autocomplete: "off", "data-filter": "bettor" });
  const market = h("input", { autocomplete: "off", "data-filter": "market", value: parts[0] === "market" ? parts[1] ?? "" : "" });
  const state = select([["", "All"], ...STATUSES.map((s) => [s, s])], "", { "data-filter": "status" });
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const results = h("div", {});
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  let bets = [];
  let next = null;
  let seq = 0; // only the latest search draws
  const load = async (reset) => {
    if (!operator) return;
    const mine = ++seq;
    more.disabled = true;
    const a = await ctx.api.get("/bets", { operator_id: operator, bettor_id: bettor.value.trim(), market_id: market.value.trim(), status: state.value, limit: 100, cursor: reset ? "" : next });
    more.disabled = false;
    if (!ctx.alive() || mine !== seq) return;
    if (!a.ok) {
      status.textContent = `Bets could not be loaded: ${describe(a)}`;
      return;
    }
    bets = reset ? a.data.items : bets.concat(a.data.items);
    next = a.data.next_cursor;
    await names(ctx, bets);
    if (!ctx.alive() || mine !== seq) return;
    replace(results, bets.length ? [betsTable(ctx, bets), overTime(bets)] : h("p", { class: "muted" }, "No bets match."));
    more.hidden = !next;
    status.textContent = `${bets.length} bet${bets.length === 1 ? "" : "s"}${next ? " loaded (more to load)" : ""}.`;
  };
  const form = searchForm("data-bet-filters", [
    items.length ? operatorSelect(items, () => load(true)) : null,
    field("Bettor id", bettor),
    field("Market id", market),
    field("Status", state)], load);
  state.addEventListener("change", () => load(true));
  more.addEventListener("click", () => load(false));
  view.append(h("h1", {}, "Bets"), items.length ? form : h("p", {}, "No operator yet: bets appear once an operator exists."), status, results, more);
  await load(true);
}

// renderBettors renders #/bettors and a bettor's page
// #/bettors/{operator}/{bettor}.
export async function renderBettors(ctx, view, parts) {
  if (parts.length >= 2) return bettorPage(ctx, view, parts[0], parts[1]);
  const items = await operators(ctx);
  if (!ctx.alive()) return undefined;
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const body = h("tbody");
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const loadPage = pagedRows(ctx, {
    body, more, status, noun: "bettor",
    page: (cursor) => ctx.api.get("/bettors", { operator_id: operator, limit: 100, cursor }),
    row: (b) => h("tr", { "data-bettor": b.id },
      h("td", {}, h("a", { href: `#/bettors/${seg(b.operator_id)}/${seg(b.id)}` }, b.id)),
      h("td", {}, b.currency),
      cashCell(b.balance, b.currency, {}, { code: false }),
      h("td", {}, when(b.created_at))),
    failed: (a) => {
      status.textContent = `Bettors could not be loaded: ${describe(a)}`;
    },
  });
  const load = async (reset) => {
    if (operator) await loadPage(reset);
  };
  view.append(h("h1", {}, "Bettors"),
    items.length ? h("div", { class: "toolbar" }, operatorSelect(items, () => load(true))) : h("p", {}, "No operator yet."),
    status,
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Bettor", "Currency", "Last known balance", "First seen"].map((c) => h("th", { scope: "col", class: c === "Last known balance" ? "num" : null }, c)))),
      body)),
    more);
  await load(true);
  return undefined;
}

async function bettorPage(ctx, view, op, id) {
  const bets = [];
  let cursor = "";
  let failed = null;
  for (let page = 0; page < 10; page++) {
    const a = await ctx.api.get("/bets", { operator_id: op, bettor_id: id, limit: 100, cursor });
    if (!ctx.alive()) return;
    if (!a.ok) {
      failed = a;
      break;
    }
    bets.push(...a.data.items);
    if (!a.data.next_cursor) break;
    cursor = a.data.next_cursor;
  }
  await names(ctx, bets);
  if (!ctx.alive()) return;
  const open = bets.filter((b) => OPEN.has(b.status));
  const history = bets.filter((b) => !OPEN.has(b.status));
  replace(view,
    h("p", {}, h("a", { href: "#/bettors" }, "← Bettors")),
    h("h1", {}, `Bettor ${id}`),
    h("p", { class: "muted" }, `Operator ${op}. `, h("a", { href: `#/bets` }, "All bets")),
    failed ? h("p", { class: "error", role: "alert" }, `Bets could not be loaded: ${describe(failed)}`) : null,
    h("h2", {}, `Open positions (${open.length})`),
    h("p", { class: "hint" }, "Pending and confirmed bets: stakes at risk until their markets resolve."),
    h("div", { "data-positions": true }, open.length ? betsTable(ctx, open, { bettorColumn: false }) : h("p", { class: "muted" }, "None.")),
    h("h2", {}, `History (${history.length})`),
    h("p", { class: "hint" }, "Settled, voided and rejected bets, newest first."),
    h("div", { "data-history": true }, history.length ? betsTable(ctx, history, { bettorColumn: false }) : h("p", { class: "muted" }, "None.")),
    overTime(bets));
}
