// Markets: the catalog's events (filters, a title search over the loaded
// pages, paging by cursor) and an event's page: texts and translations,
// each market's outcomes with their source probabilities, new prices,
// suspend and open, resolve and cancel after a confirmation, the live
// exposure of an operator per outcome against its limit, and the odds
// history of each market as a line chart.

import { seg } from "./api.js";
import { limitBars, lines, swatch, valueRange } from "./chart.js";
import { isProbability, percent, sum } from "./decimal.js";
import { confirm } from "./dialog.js";
import { badge, field, select, text, uid, when } from "./dom.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";
import { cash, cashCell, figure, learnCurrencies } from "./money.js";

export const CATEGORIES = ["elections", "sports", "crypto", "economy", "climate", "technology"];
const STATUSES = ["open", "suspended", "resolved", "cancelled"];
const EXPOSURE_EVERY_MS = 5000;
// The odds history's windows: seconds back from now ("" is everything).
const HISTORY_WINDOWS = [["3600", "Last hour"], ["86400", "Last 24 hours"], ["604800", "Last 7 days"], ["", "Everything"]];
// HISTORY_PAGES is how many pages of 100 points one read of a market's
// history follows; a longer history is caught up by the next reads.
const HISTORY_PAGES = 20;

// filters survive leaving the list and coming back.
const filters = { category: "", status: "", search: "" };

// list renders #/markets.
export async function list(ctx, view) {
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const body = h("tbody");
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const search = h("input", { type: "search", value: filters.search, autocomplete: "off", "data-filter": "search" });
  const category = select([["", "All"], ...CATEGORIES.map((c) => [c, c])], filters.category, { "data-filter": "category" });
  const state = select([["", "All"], ...STATUSES.map((c) => [c, c])], filters.status, { "data-filter": "status" });
  let events = [];
  let next = null;

  const show = () => {
    const q = search.value.trim().toLowerCase();
    filters.search = search.value;
    const shown = q ? events.filter((e) => Object.values(e.title ?? {}).some((t) => t.toLowerCase().includes(q))) : events;
    replace(body, shown.map((e) => h("tr", { "data-event": e.id },
      h("td", {}, h("a", { href: `#/events/${seg(e.id)}` }, text(e.title))),
      h("td", {}, e.category),
      h("td", {}, badge(e.status)),
      h("td", { class: "num" }, String(e.markets?.length ?? 0)),
      h("td", {}, e.source ?? "admin"),
      h("td", {}, when(e.created_at)))));
    more.hidden = !next;
    const loaded = `${events.length} event${events.length === 1 ? "" : "s"} loaded${next ? " (more to load)" : ""}`;
    status.textContent = q ? `${shown.length} of ${loaded} match “${search.value.trim()}”.` : `${loaded}.`;
  };

  let seq = 0; // only the latest load draws
  const load = async (reset) => {
    const mine = ++seq;
    more.disabled = true;
    const a = await ctx.api.get("/events", { category: category.value, status: state.value, limit: 50, cursor: reset ? "" : next });
    more.disabled = false;
    if (!ctx.alive() || mine !== seq) return;
    if (!a.ok) {
      ctx.notify(`Events could not be loaded: ${describe(a)}`);
      return;
    }
    events = reset ? a.data.items : events.concat(a.data.items);
    next = a.data.next_cursor;
    show();
  };

  category.addEventListener("change", () => {
    filters.category = category.value;
    load(true);
  });
  state.addEventListener("change", () => {
    filters.status = state.value;
    load(true);
  });
  search.addEventListener("input", show);
  more.addEventListener("click", () => load(false));

  view.append(
    h("h1", {}, "Markets"),
    h("div", { class: "toolbar", role: "search" },
      field("Search titles", search, "Searches the events loaded below."),
      field("Category", category),
      field("Status", state)),
    status,
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Event", "Category", "Status", "Markets", "Source", "Created"].map((c) => h("th", { scope: "col", class: c === "Markets" ? "num" : null }, c)))),
      body)),
    more);
  await load(true);
}

// event renders #/events/{id}.
export async function event(ctx, view, [id]) {
  const [ea, oa] = await Promise.all([ctx.api.get(`/events/${seg(id)}`), ctx.api.get("/operators")]);
  if (!ctx.alive()) return undefined;
  if (!ea.ok) {
    view.append(h("p", {}, h("a", { href: "#/markets" }, "← Markets")), h("h1", {}, "Event"));
    ctx.notify(`The event could not be loaded: ${describe(ea)}`);
    return undefined;
  }
  const operators = oa.ok ? oa.data.items : [];
  learnCurrencies(operators);
  const page = new EventPage(ctx, view, ea.data, operators);
  page.render();
  return () => page.stop();
}

class EventPage {
  constructor(ctx, view, ev, operators) {
    this.ctx = ctx;
    this.view = view;
    this.ev = ev;
    this.operators = operators;
    this.operator = operators[0]?.id ?? "";
    this.exposures = new Map(); // market id → element to fill
    this.exposureSeq = 0; // only the latest read draws
    this.timer = null;
    this.historyWindow = HISTORY_WINDOWS[0][0];
    this.plot = this.operator ? "odds" : "probability";
    this.histories = new Map(); // market id → {points, busy, error, drawn}
    this.historyViews = new Map(); // market id → the history's elements
    this.historyGen = 0; // a new operator or window starts a new generation
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  // render draws the whole page from this.ev; flash, when given, is the
  // message of the action that led here.
  render(flash) {
    const ev = this.ev;
    this.exposures.clear();
    this.exposureSeq += 1;
    replace(this.view,
      h("p", {}, h("a", { href: "#/markets" }, "← Markets")),
      h("h1", {}, text(ev.title)),
      h("dl", { class: "facts" },
        h("dt", {}, "Status"), h("dd", { "data-event-status": ev.status }, badge(ev.status)),
        h("dt", {}, "Category"), h("dd", {}, ev.category),
        h("dt", {}, "Id"), h("dd", {}, ev.id),
        h("dt", {}, "Source"), h("dd", {}, ev.source ? `${ev.source} (${ev.source_key ?? ""})` : "admin API"),
        h("dt", {}, "Starts"), h("dd", {}, when(ev.starts_at)),
        h("dt", {}, "Updated"), h("dd", {}, when(ev.updated_at))),
      ev.source ? h("p", { class: "hint" }, `This event follows the ${ev.source} feed: its prices and states come from there, and a market resolved or cancelled here is left alone by it.`) : null,
      this.controls(),
      ev.markets.map((m) => this.market(m)),
      this.ctx.staff ? this.textsEditor() : null);
    this.refreshExposure();
    for (const m of ev.markets) this.drawHistory(m.id);
    this.refreshHistory();
    this.stop();
    this.timer = setInterval(() => {
      if (document.visibilityState !== "visible") return;
      this.refreshExposure();
      this.refreshHistory();
    }, EXPOSURE_EVERY_MS);
    if (flash) this.flash(flash.marketID, flash.message, flash.error ?? false);
  }

  // controls are the page's choices: the operator whose exposure and
  // display odds show, and the odds history's window and plotted value.
  controls() {
    const every = `Live: refreshed every ${EXPOSURE_EVERY_MS / 1000} s.`;
    const win = select(HISTORY_WINDOWS, this.historyWindow, { "data-history-window": true });
    win.addEventListener("change", () => {
      this.historyWindow = win.value;
      this.restartHistory();
    });
    if (this.operators.length === 0) {
      return [h("p", { class: "hint" }, "No operator yet: exposure and display odds show once an operator exists."),
        h("div", { class: "toolbar" }, field("Odds history", win, every))];
    }
    const pick = select(this.operators.map((o) => [o.id, `${o.name} (${o.id})`]), this.operator, { "data-operator-picker": true });
    pick.addEventListener("change", () => {
      this.operator = pick.value;
      this.refreshExposure();
      this.restartHistory();
    });
    const plot = select([["odds", "Display odds of the operator"], ["probability", "Source probability"]], this.plot, { "data-history-plot": true });
    plot.addEventListener("change", () => {
      this.plot = plot.value;
      for (const m of this.ev.markets) this.drawHistory(m.id, true);
    });
    return h("div", { class: "toolbar" },
      field("Operator", pick, `Its exposure, and its display odds in the odds history. ${every}`),
      field("Odds history", win, "Display odds use the operator's current margin."),
      field("Plot", plot));
  }

  market(m) {
    const closed = m.status === "resolved" || m.status === "cancelled";
    const name = (oid) => text(m.outcomes.find((o) => o.id === oid)?.name) || oid;
    const exposure = h("div", { class: "exposure" });
    this.exposures.set(m.id, exposure);
    return h("section", { class: "card", "data-market": m.id, "data-status": m.status, "aria-labelledby": `q-${m.id}` },
      h("div", { class: "card-head" },
        h("h2", { id: `q-${m.id}` }, text(m.question)),
        h("span", {}, badge(m.status))),
      h("dl", { class: "facts" },
        h("dt", {}, "Id"), h("dd", {}, m.id),
        h("dt", {}, "Price version"), h("dd", {}, String(m.version)),
        h("dt", {}, "Closes"), h("dd", {}, when(m.closes_at)),
        m.winning_outcome_id ? [h("dt", {}, "Winner"), h("dd", { "data-winner": true }, name(m.winning_outcome_id))] : null),
      h("div", { class: "table-wrap" }, h("table", { class: "compact" },
        h("caption", { class: "muted" }, "Outcomes and source probabilities (before the operator's margin)"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Outcome"), h("th", { scope: "col", class: "num" }, "Probability"), h("th", { scope: "col", class: "num" }, "Percent"))),
        h("tbody", {}, m.outcomes.map((o) => h("tr", { "data-outcome": o.id },
          h("th", { scope: "row" }, text(o.name), o.id === m.winning_outcome_id ? " ✓ winner" : ""),
          h("td", { class: "num" }, o.probability),
          h("td", { class: "num" }, percent(o.probability))))))),
      h("p", { class: "market-status status", role: "status", "aria-live": "polite" }),
      closed || !this.ctx.staff ? null : this.actions(m),
      h("h3", {}, "Exposure"),
      exposure,
      h("h3", {}, "Odds history"),
      this.historyView(m),
      h("p", {}, h("a", { href: `#/bets/market/${seg(m.id)}` }, "Bets on this market")));
  }

  // historyView makes the elements of a market's odds history, drawn and
  // redrawn by drawHistory.
  historyView(m) {
    const table = h("div", { class: "table-wrap" });
    const count = h("span");
    const v = {
      chart: h("div", { class: "history-chart" }),
      legend: h("ul", { class: "legend" }),
      count,
      table,
      details: h("details", {}, h("summary", {}, "The points as a table (", count, ")"), table),
      status: h("p", { class: "hint", role: "status" }),
      changed: h("div", { class: "history-changed" }),
    };
    this.historyViews.set(m.id, v);
    return h("div", { class: "history", "data-history": m.id }, v.chart, v.legend, v.changed, v.details, v.status);
  }

  // restartHistory forgets the histories read (another operator or
  // window) and reads them again.
  restartHistory() {
    this.historyGen += 1;
    this.histories.clear();
    for (const m of this.ev.markets) this.drawHistory(m.id);
    this.refreshHistory();
  }

  refreshHistory() {
    for (const m of this.ev.markets) this.readHistory(m.id);
  }

  // readHistory reads what is new in a market's history: the points from
  // the last one it has (the API starts a window with the point in force at
  // its start, that same point) or from the window's start, up to
  // HISTORY_PAGES pages; then it drops the points that ended before the
  // window's start and draws.
  async readHistory(marketID) {
    const gen = this.historyGen;
    let st = this.histories.get(marketID);
    if (!st) {
      st = { points: [], busy: false, error: "", drawn: "" };
      this.histories.set(marketID, st);
    }
    if (st.busy) return;
    st.busy = true;
    const start = this.historyWindow ? Date.now() - Number(this.historyWindow) * 1000 : null;
    const last = () => st.points[st.points.length - 1];
    let cursor = "";
    for (let page = 0; page < HISTORY_PAGES; page += 1) {
      const from = last()?.at ?? (start === null ? "" : new Date(start).toISOString());
      const a = await this.ctx.api.get(`/markets/${seg(marketID)}/price-history`, { operator_id: this.operator, from, limit: 100, cursor });
      if (!this.ctx.alive() || gen !== this.historyGen) return;
      if (!a.ok) {
        st.error = `The odds history could not be read: ${describe(a)}`;
        break;
      }
      st.error = "";
      for (const p of a.data.items) {
        if (p.at !== last()?.at) st.points.push(p);
      }
      cursor = a.data.next_cursor;
      if (!cursor) break;
    }
    if (start !== null) {
      while (st.points.length > 1 && atMillis(st.points[1].at) <= start) st.points.shift();
    }
    st.busy = false;
    this.drawHistory(marketID);
  }

  // drawHistory draws a market's history from what was read; only when it
  // changed since the last drawing, unless forced (another plotted value).
  drawHistory(marketID, force = false) {
    const v = this.historyViews.get(marketID);
    const m = this.ev.markets.find((x) => x.id === marketID);
    if (!v || !m) return;
    const st = this.histories.get(marketID);
    const points = st?.points ?? [];
    const odds = this.plot === "odds" && this.operator !== "" && points.some((p) => p.outcomes.some((o) => o.display_odds));
    const key = `${this.historyGen}|${odds}|${points.length}|${points[points.length - 1]?.at ?? ""}|${st?.error ?? ""}`;
    if (!force && st && st.drawn === key && v.chart.firstChild) return;
    if (st) st.drawn = key;
    v.status.classList.toggle("error", Boolean(st?.error));
    if (points.length === 0) {
      replace(v.chart, h("p", { class: "hint" }, st?.error ? "" : st ? "No price in this window." : "Reading the odds history…"));
      replace(v.legend);
      replace(v.changed);
      replace(v.table);
      v.count.textContent = "none";
      v.status.textContent = st?.error ?? "";
      return;
    }
    const opName = this.operators.find((o) => o.id === this.operator)?.name ?? this.operator;
    const windowName = HISTORY_WINDOWS.find(([w]) => w === this.historyWindow)?.[1] ?? "";
    const value = (o) => (odds ? o?.display_odds : o?.probability);
    const shown = (o) => (odds ? `${o.display_odds} (${o.display_probability}%)` : `${o.probability} (${percent(o.probability)})`);
    // The time axis: the window, or from the market's first price when it
    // came later (nothing was priced before), ten seconds at least.
    const now = Date.now();
    const windowStart = this.historyWindow ? now - Number(this.historyWindow) * 1000 : -Infinity;
    const from = Math.min(Math.max(windowStart, atMillis(points[0].at)), now - 10000);
    const series = m.outcomes.map((outcome) => {
      const pts = [];
      for (const p of points) {
        const o = p.outcomes.find((x) => x.id === outcome.id);
        if (value(o)) pts.push({ at: atMillis(p.at), value: value(o), text: `${shown(o)} from ${stamp(p.at)}` });
      }
      return { key: outcome.id, label: text(outcome.name) || outcome.id, points: pts, latest: pts[pts.length - 1] };
    });
    const range = odds
      ? valueRange(series.flatMap((sr) => sr.points.map((p) => p.value)), "1")
      : { lo: "0", hi: "1", ticks: ["0", "0.25", "0.5", "0.75", "1"] };
    const what = odds ? `Display odds of ${opName}` : "Source probability";
    const summary = series.map((sr) => `${sr.label} ${sr.points[0]?.value ?? "—"} to ${sr.latest?.value ?? "—"}`).join("; ");
    replace(v.chart, lines({
      title: `${what} of each outcome, ${windowName.toLowerCase()}, ${points.length} price${points.length === 1 ? "" : "s"}: ${summary}.`,
      from, to: now, lo: range.lo, hi: range.hi, ticks: range.ticks,
      tickLabel: odds ? (t) => t : (t) => percent(t),
      series,
    }));
    replace(v.legend, series.map((sr, i) => h("li", { "data-legend": sr.key }, swatch(i), h("span", {}, sr.label),
      h("span", { class: "muted" }, sr.latest ? ` ${sr.latest.text.replace(/ from .*/, "")}` : " —"))));
    replace(v.table, h("table", { class: "compact", "data-history-table": marketID },
      h("caption", { class: "muted" }, `${what}; each price holds until the next.`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Set at (UTC)"), m.outcomes.map((o) => h("th", { scope: "col", class: "num" }, text(o.name) || o.id)))),
      h("tbody", {}, points.map((p) => h("tr", {},
        h("th", { scope: "row" }, stamp(p.at)),
        m.outcomes.map((outcome) => {
          const o = p.outcomes.find((x) => x.id === outcome.id);
          return h("td", { class: "num" }, o ? shown(o) : "—");
        }))))));
    v.count.textContent = `${points.length} price${points.length === 1 ? "" : "s"}`;
    v.status.textContent = st.error || `${what}${odds ? " (its current margin)" : ""}. Read ${new Date(now).toISOString().slice(11, 19)} UTC.`;
    this.noteChangedPrices(m, points[points.length - 1], v.changed);
  }

  // noteChangedPrices offers to redraw the page when the history's latest
  // prices are not the ones the page shows (a feed or another user set
  // them).
  noteChangedPrices(m, latest, el) {
    const same = m.outcomes.every((o) => latest.outcomes.find((x) => x.id === o.id)?.probability === o.probability);
    if (same) {
      replace(el);
      return;
    }
    replace(el, h("p", { class: "hint", "data-prices-changed": true }, "The prices changed since this page was drawn. ",
      h("button", { type: "button", class: "link", onclick: () => this.reload() }, "Show the market as it is now")));
  }

  async reload() {
    const a = await this.ctx.api.get(`/events/${seg(this.ev.id)}`);
    if (!this.ctx.alive()) return;
    if (!a.ok) {
      this.ctx.notify(`The event could not be loaded: ${describe(a)}`);
      return;
    }
    this.ev = a.data;
    this.render();
  }

  actions(m) {
    const inputs = m.outcomes.map((o) => h("input", { inputmode: "decimal", autocomplete: "off", value: o.probability, "data-price": o.id }));
    const total = h("output", { "aria-live": "polite" });
    const err = h("p", { class: "error", role: "alert" });
    const update = () => {
      const s = sum(inputs.map((i) => i.value.trim()));
      total.textContent = s === null ? "—" : s === "1" ? `${s} ✓` : `${s} (must be 1)`;
    };
    inputs.forEach((i) => i.addEventListener("input", update));
    update();
    const form = h("form", { class: "prices", novalidate: true, "data-prices": m.id },
      h("fieldset", {}, h("legend", {}, "Set prices"),
        h("div", { class: "table-wrap" }, h("table", { class: "compact" }, h("tbody", {}, m.outcomes.map((o, i) => {
          inputs[i].id = uid("price");
          return h("tr", {}, h("th", { scope: "row" }, h("label", { for: inputs[i].id }, text(o.name))), h("td", {}, inputs[i]));
        })))),
        h("p", {}, "Sum: ", total),
        err,
        h("button", { type: "submit", class: "primary" }, "Set prices")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.setPrices(m, inputs, err);
    });
    const toggle = m.status === "suspended"
      ? h("button", { type: "button", "data-action": "open", onclick: () => this.changeStatus(m, "open") }, "Open")
      : h("button", { type: "button", "data-action": "suspend", onclick: () => this.changeStatus(m, "suspend") }, "Suspend");
    return h("div", {},
      form,
      h("div", { class: "buttons" },
        toggle,
        h("button", { type: "button", "data-action": "resolve", onclick: () => this.resolve(m) }, "Resolve…"),
        h("button", { type: "button", class: "danger", "data-action": "cancel", onclick: () => this.cancel(m) }, "Cancel market…")));
  }

  async setPrices(m, inputs, err) {
    err.textContent = "";
    let bad = null;
    for (const i of inputs) {
      const ok = isProbability(i.value);
      i.setAttribute("aria-invalid", ok ? "false" : "true");
      if (!ok && !bad) bad = i;
    }
    if (bad) {
      err.textContent = "Every probability must be a decimal strictly between 0 and 1, like 0.35.";
      bad.focus();
      return;
    }
    const total = sum(inputs.map((i) => i.value.trim()));
    if (total !== "1") {
      err.textContent = `The probabilities sum to ${total}; they must sum to exactly 1.`;
      inputs[0].focus();
      return;
    }
    const outcomes = inputs.map((i) => ({ id: i.dataset.price, probability: normal(i.value) }));
    const ok = await confirm({
      title: "Set new prices?",
      content: [h("p", {}, text(m.question)), h("ul", {}, m.outcomes.map((o, k) => h("li", {}, `${text(o.name)}: ${o.probability} → ${outcomes[k].probability}`))),
        h("p", { class: "hint" }, "Odds and the bettors' live prices follow at once.")],
      confirmLabel: "Set prices",
    });
    if (ok) await this.act(m, "prices", { outcomes }, "New prices set.");
  }

  async changeStatus(m, action) {
    const suspend = action === "suspend";
    const ok = await confirm({
      title: suspend ? "Suspend this market?" : "Open this market?",
      content: [h("p", {}, text(m.question)), h("p", {}, suspend ? "Bettors cannot bet on it until it is opened again." : "Bettors can bet on it again.")],
      confirmLabel: suspend ? "Suspend" : "Open",
    });
    if (ok) await this.act(m, action, undefined, suspend ? "Market suspended." : "Market opened.");
  }

  async resolve(m) {
    const group = uid("winner");
    const radios = m.outcomes.map((o) => h("input", { type: "radio", name: group, value: o.id, "data-winner-choice": o.id }));
    const ok = await confirm({
      title: "Resolve this market?",
      content: [
        h("p", {}, text(m.question)),
        h("fieldset", {}, h("legend", {}, "Winning outcome"),
          h("div", { class: "choices" }, m.outcomes.map((o, i) => h("label", {}, radios[i], text(o.name))))),
        h("p", {}, "Every confirmed bet is settled: the winners are paid stake × entry odds, the others nothing. This cannot be undone."),
      ],
      confirmLabel: "Resolve",
      danger: true,
      check: () => (radios.some((r) => r.checked) ? "" : "Pick the winning outcome."),
    });
    if (!ok) return;
    const winner = radios.find((r) => r.checked).value;
    const name = text(m.outcomes.find((o) => o.id === winner)?.name);
    await this.act(m, "resolve", { winning_outcome_id: winner }, `Market resolved: ${name} won. Bets are being settled.`);
  }

  async cancel(m) {
    const ok = await confirm({
      title: "Cancel this market?",
      content: [h("p", {}, text(m.question)), h("p", {}, "Every confirmed bet is voided and its stake given back. This cannot be undone.")],
      confirmLabel: "Cancel market",
      danger: true,
    });
    if (ok) await this.act(m, "cancel", undefined, "Market cancelled. Stakes are being given back.");
  }

  // act posts a market action; its answer is the event, drawn anew.
  async act(m, action, body, done) {
    const a = await this.ctx.api.post(`/markets/${seg(m.id)}/${action}`, body);
    if (!this.ctx.alive()) return;
    if (!a.ok) {
      const message = `${actionName(action)} failed: ${describe(a)}`;
      // A conflict means the market changed meanwhile: show it as it is.
      const fresh = a.status === 409 ? await this.ctx.api.get(`/events/${seg(this.ev.id)}`) : null;
      if (!this.ctx.alive()) return;
      if (fresh?.ok) {
        this.ev = fresh.data;
        this.render({ marketID: m.id, message, error: true });
      } else {
        this.flash(m.id, message, true);
      }
      return;
    }
    this.ev = a.data;
    this.render({ marketID: m.id, message: done });
  }

  // flash puts a message in a market's status line (or the texts form's)
  // and moves the focus there.
  flash(marketID, message, error) {
    const target = this.view.querySelector(marketID ? `[data-market="${CSS.escape(marketID)}"] .market-status` : ".texts-status");
    if (!target) return;
    target.textContent = message;
    target.classList.toggle("error", error);
    target.classList.toggle("ok", !error);
    target.tabIndex = -1;
    target.focus();
  }

  async refreshExposure() {
    if (!this.operator) return;
    const mine = ++this.exposureSeq;
    const answers = await Promise.all(this.ev.markets.map((m) => this.ctx.api.get("/exposure", { operator_id: this.operator, market_id: m.id })));
    if (!this.ctx.alive() || mine !== this.exposureSeq) return;
    this.ev.markets.forEach((m, i) => {
      const el = this.exposures.get(m.id);
      if (el) drawExposure(el, m, answers[i]);
    });
  }

  // textsEditor edits the event's title and description and each market's
  // question and outcome names, in every locale.
  textsEditor() {
    const ev = this.ev;
    const groups = [];
    const group = (legend, texts, key, optional) => {
      const g = textsGroup(legend, texts, optional);
      g.key = key;
      groups.push(g);
      return g.el;
    };
    const form = h("form", { class: "texts", novalidate: true, "data-texts": true },
      group("Title", ev.title, ["title"], false),
      group("Description", ev.description ?? {}, ["description"], true),
      ev.markets.map((m) => [
        group(`Question: ${text(m.question)}`, m.question, ["markets", m.id], false),
        m.outcomes.map((o) => group(`Outcome: ${text(o.name)}`, o.name, ["outcomes", o.id], false)),
      ]),
      h("p", { class: "texts-status status", role: "status", "aria-live": "polite" }),
      h("button", { type: "submit", class: "primary" }, "Save texts"));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = { markets: {}, outcomes: {} };
      for (const g of groups) {
        const { texts, error } = g.read();
        if (error) {
          this.flash("", error, true);
          return;
        }
        if (g.key.length === 1) body[g.key[0]] = texts;
        else body[g.key[0]][g.key[1]] = texts;
      }
      const a = await this.ctx.api.patch(`/events/${seg(ev.id)}`, body);
      if (!this.ctx.alive()) return;
      if (!a.ok) {
        this.flash("", `Saving the texts failed: ${describe(a)}`, true);
        return;
      }
      this.ev = a.data;
      this.render({ message: "Texts saved." });
    });
    return h("details", { class: "card" }, h("summary", {}, h("strong", {}, "Texts and translations")), form);
  }
}

// atMillis reads an RFC 3339 time of the API (microseconds) as
// milliseconds since the epoch.
function atMillis(at) {
  return Date.parse(String(at).replace(/(\.\d{3})\d+/, "$1"));
}

// stamp writes an RFC 3339 time to the millisecond (prices can change
// within a second): "2026-05-01 14:03:27.125 UTC".
function stamp(at) {
  const t = atMillis(at);
  return Number.isNaN(t) ? String(at) : `${new Date(t).toISOString().slice(0, 23).replace("T", " ")} UTC`;
}

function actionName(action) {
  return { prices: "Setting the prices", suspend: "Suspending", open: "Opening", resolve: "Resolving", cancel: "Cancelling" }[action] ?? action;
}

// normal writes ".35" as "0.35" (the API's probability pattern takes both;
// the leading zero reads better in logs).
function normal(p) {
  const v = p.trim();
  return v.startsWith(".") ? `0${v}` : v;
}

// textsGroup is a fieldset of locale → text rows with a row to add.
function textsGroup(legend, texts, optional) {
  const rows = h("div", {});
  const addRow = (locale = "", value = "") => {
    const loc = h("input", { value: locale, autocomplete: "off", size: 6, "aria-label": `${legend}: locale`, "data-locale": true });
    const txt = h("input", { value, autocomplete: "off", "aria-label": `${legend}: text`, "data-text": true, class: "grow" });
    const row = h("div", { class: "buttons text-row" }, loc, txt,
      h("button", { type: "button", class: "secondary", "aria-label": `Remove this ${legend} translation`, onclick: () => row.remove() }, "Remove"));
    rows.append(row);
    return loc;
  };
  for (const [k, v] of Object.entries(texts ?? {})) addRow(k, v);
  const el = h("fieldset", {}, h("legend", {}, legend), rows,
    h("button", { type: "button", class: "secondary", onclick: () => addRow().focus() }, "Add a translation"));
  return {
    el,
    read() {
      const out = {};
      for (const row of rows.children) {
        const locale = row.querySelector("[data-locale]").value.trim();
        const value = row.querySelector("[data-text]").value.trim();
        if (!locale && !value) continue;
        if (!/^[A-Za-z]{1,8}([-_][A-Za-z0-9]{1,8})*$/.test(locale)) return { error: `${legend}: “${locale}” is not a locale tag (en, pt-BR).` };
        if (!value) return { error: `${legend}: the ${locale} text is empty.` };
        out[locale] = value;
      }
      if (!optional && Object.keys(out).length === 0) return { error: `${legend}: at least one locale is needed.` };
      return { texts: out };
    },
  };
}

// drawExposure fills a market's exposure block from GET /exposure.
function drawExposure(el, m, a) {
  if (!a.ok) {
    replace(el, h("p", { class: "error" }, `Exposure could not be read: ${describe(a)}`));
    return;
  }
  const items = a.data.items;
  const name = (oid) => text(m.outcomes.find((o) => o.id === oid)?.name) || oid;
  const multi = new Set(items.map((i) => i.currency)).size > 1;
  replace(el,
    limitBars(items.map((i) => ({ label: multi ? `${name(i.outcome_id)} (${i.currency})` : name(i.outcome_id), value: i.potential_payout, limit: i.limit,
      unit: i.currency, shown: `${figure(i.potential_payout, i.currency)} of ${cash(i.limit, i.currency)}` })),
      `Potential payout per outcome against the limit: ${items.map((i) => `${name(i.outcome_id)} ${figure(i.potential_payout, i.currency)} of ${cash(i.limit, i.currency)}`).join("; ")}`),
    h("div", { class: "table-wrap" }, h("table", { "data-exposure": m.id },
      h("thead", {}, h("tr", {}, ["Outcome", "Currency", "Open stake", "Potential payout", "Limit", "Headroom"].map((c, k) => h("th", { scope: "col", class: k > 1 ? "num" : null }, c)))),
      h("tbody", {}, items.map((i) => h("tr", { "data-outcome": i.outcome_id },
        h("th", { scope: "row" }, name(i.outcome_id)),
        h("td", {}, i.currency),
        cashCell(i.open_stake, i.currency, {}, { code: false }),
        cashCell(i.potential_payout, i.currency, {}, { code: false }),
        cashCell(i.limit, i.currency, {}, { code: false }),
        cashCell(i.headroom, i.currency, {}, { code: false })))))),
    h("p", { class: "hint" }, `Read ${new Date().toISOString().slice(11, 19)} UTC.`));
}
