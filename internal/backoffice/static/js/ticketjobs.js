// Ticket service: the jobs clients submitted. The list shows every
// client's jobs newest first, filtered by client and status, a page at a
// time, and refreshes itself while a job it shows is queued or running; a
// job's page shows its times, error, tickets and callback. Both read the
// admin API (GET /ticket-jobs, GET /ticket-jobs/{id}), which never shows a
// job's spec, result or callback URL.

import { seg } from "./api.js";
import { badge, field, select } from "./dom.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";

const STATUSES = ["queued", "processing", "completed", "failed", "cancel_requested", "cancelled", "expired"];
// ACTIVE are the statuses of a job that is waiting for or held by a
// worker: the screens refresh while they show one.
const ACTIVE = new Set(["queued", "processing", "cancel_requested"]);
const PAGE = 50;
const REFRESH_MS = 2000;

// filters are the last picked, kept while the user visits a job or a
// client and comes back.
const filters = { client: "", status: "" };

// at writes an RFC 3339 time to the second, "2026-05-01 14:03:09 UTC";
// "—" for none.
function at(t) {
  if (!t) return "—";
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

// took is the time from start to finish: "850 ms", "12.3 s", "4 min 5 s";
// "—" when either is missing.
function took(start, finish) {
  if (!start || !finish) return "—";
  const ms = new Date(finish).getTime() - new Date(start).getTime();
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const CALLBACKS = {
  none: "none (no callback_url)",
  pending: "pending (not sent yet, or being retried)",
  delivered: "delivered",
  failed: "failed for good (callback_failed)",
};

// say sets the text of a live region unless it already says it (setting
// the same text again makes some screen readers repeat it).
function say(region, text) {
  if (region.textContent !== text) region.textContent = text;
}

// refresher runs load every REFRESH_MS while active() says so and the tab
// is visible; stop ends it for good.
function refresher(load, active) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    timer = null;
    if (stopped) return;
    if (document.visibilityState === "visible") await load();
    schedule();
  };
  const schedule = () => {
    if (stopped || timer !== null) return;
    if (active()) timer = setTimeout(tick, REFRESH_MS);
  };
  return {
    schedule,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

// allClients loads the ticket clients for the filter (at most 1,000).
async function allClients(ctx) {
  const out = [];
  let cursor = "";
  for (let page = 0; page < 10; page++) {
    const a = await ctx.api.get("/ticket-clients", { limit: 100, cursor });
    if (!a.ok) {
      ctx.notify(`Ticket clients could not be loaded: ${describe(a)}`);
      break;
    }
    out.push(...a.data.items);
    if (!a.data.next_cursor) break;
    cursor = a.data.next_cursor;
  }
  return out;
}

// render renders #/tickets/jobs, #/tickets/jobs/client/{client id} (the
// list with that client picked) and #/tickets/jobs/{job id}. nav is the
// Ticket service's navigation.
export function render(ctx, view, parts, nav) {
  if (parts[0] === "client") {
    filters.client = parts[1] ?? "";
    return list(ctx, view, nav);
  }
  return parts[0] ? job(ctx, view, parts[0], nav) : list(ctx, view, nav);
}

function jobRow(j) {
  return h("tr", { "data-job": j.id, "data-status": j.status },
    h("td", {}, at(j.created_at)),
    h("td", {}, h("a", { href: `#/tickets/jobs/${seg(j.id)}` }, j.title || j.id)),
    h("td", {}, h("a", { href: `#/tickets/${seg(j.client_id)}` }, j.client_name || j.client_id)),
    h("td", {}, badge(j.status)),
    h("td", {}, j.stage),
    h("td", { class: "num" }, j.ticket_count ?? "—"),
    h("td", { class: "num" }, took(j.started_at, j.finished_at)),
    h("td", {}, j.error ? j.error.code : "—"));
}

async function list(ctx, view, nav) {
  const clients = await allClients(ctx);
  if (!ctx.alive()) return undefined;
  const clientPick = select([["", "All clients"], ...clients.map((c) => [c.id, c.name])], filters.client, { "data-filter": "client" });
  if (filters.client && !clients.some((c) => c.id === filters.client)) {
    clientPick.append(h("option", { value: filters.client, selected: true }, filters.client));
  }
  const statusPick = select([["", "All statuses"], ...STATUSES.map((s) => [s, s])], filters.status, { "data-filter": "status" });
  const auto = h("input", { type: "checkbox", checked: true, "data-auto-refresh": true });
  const status = h("p", { class: "status", role: "status", "aria-live": "polite", "data-jobs-status": true });
  const body = h("tbody");
  const table = h("div", { class: "table-wrap" }, h("table", { class: "jobs" },
    h("caption", {}, "Newest first. Times are UTC."),
    h("thead", {}, h("tr", {}, ["Created", "Job", "Client", "Status", "Stage", "Tickets", "Took", "Error"]
      .map((c) => h("th", { scope: "col", class: ["Tickets", "Took"].includes(c) ? "num" : null }, c)))),
    body));
  const empty = h("p", { class: "muted", hidden: true }, "No jobs match.");
  const more = h("button", { type: "button", class: "secondary", hidden: true, "data-load-more": true }, "Load more");

  let jobs = [];
  let next = null;
  let seq = 0; // only the latest load draws
  let loading = 0; // loads under way: a refresh waits for a page the user asked for
  let news = ""; // the last changes of status, said until the next ones
  const rows = new Map(); // job id → its row, kept while it is unchanged

  // draw shows jobs in order, replacing only the rows that changed, and
  // says which jobs changed status since the last draw. The status line
  // is rewritten only when its text changes, so that screen readers do not
  // repeat it at every refresh.
  const draw = (items) => {
    const before = new Map(jobs.map((j) => [j.id, j.status]));
    const changed = items.filter((j) => before.has(j.id) && before.get(j.id) !== j.status);
    if (changed.length > 0) news = changed.map((j) => `“${j.title || j.id}” is now ${j.status}.`).join(" ");
    jobs = items;
    let prev = null;
    const seen = new Set();
    for (const j of items) {
      const sig = JSON.stringify(j);
      let tr = rows.get(j.id);
      if (!tr || tr.dataset.sig !== sig) {
        const fresh = jobRow(j);
        fresh.dataset.sig = sig;
        if (tr) {
          const focused = tr.contains(document.activeElement) ? [...tr.querySelectorAll("a")].indexOf(document.activeElement) : -1;
          tr.replaceWith(fresh);
          if (focused >= 0) fresh.querySelectorAll("a")[focused]?.focus();
        }
        tr = fresh;
        rows.set(j.id, tr);
      }
      const place = prev ? prev.nextSibling : body.firstChild;
      if (place !== tr) body.insertBefore(tr, place);
      prev = tr;
      seen.add(j.id);
    }
    for (const [id, tr] of rows) {
      if (!seen.has(id)) {
        tr.remove();
        rows.delete(id);
      }
    }
    empty.hidden = jobs.length > 0;
    table.hidden = jobs.length === 0;
    more.hidden = !next;
    const refreshing = auto.checked && jobs.some((j) => ACTIVE.has(j.status));
    status.dataset.refreshing = String(refreshing);
    say(status, [
      `${jobs.length} job${jobs.length === 1 ? "" : "s"}${next ? " loaded (more to load)" : ""}.`,
      refreshing ? "Refreshing every 2 s while a job shown is queued or running." : "",
      news,
    ].filter(Boolean).join(" "));
  };

  // fetchJobs reads n jobs from the top of the list, or n after cursor.
  const fetchJobs = async (n, cursor) => {
    const items = [];
    let after = cursor;
    for (;;) {
      const a = await ctx.api.get("/ticket-jobs", { client_id: filters.client, status: filters.status, limit: Math.min(100, n - items.length), cursor: after });
      if (!a.ok) return { failed: a };
      items.push(...a.data.items);
      after = a.data.next_cursor;
      if (!after || items.length >= n) return { items, next: after };
    }
  };

  // load reads the first page ("reset"), the next one ("more"), or again
  // as many jobs as are shown ("refresh": new jobs come in at the top).
  const load = async (mode) => {
    const mine = ++seq;
    loading += 1;
    more.disabled = true;
    const got = mode === "more" ? await fetchJobs(PAGE, next) : await fetchJobs(mode === "refresh" ? Math.max(jobs.length, PAGE) : PAGE, "");
    loading -= 1;
    more.disabled = loading > 0;
    if (!ctx.alive() || mine !== seq) return;
    if (got.failed) {
      say(status, `Jobs could not be loaded: ${describe(got.failed)}`);
      return;
    }
    next = got.next;
    if (mode === "reset") {
      jobs = [];
      news = "";
    }
    draw(mode === "more" ? jobs.concat(got.items) : got.items);
    refresh.schedule();
  };
  const refresh = refresher(async () => {
    if (loading === 0) await load("refresh");
  }, () => auto.checked && jobs.some((j) => ACTIVE.has(j.status)));

  clientPick.addEventListener("change", () => {
    filters.client = clientPick.value;
    load("reset");
  });
  statusPick.addEventListener("change", () => {
    filters.status = statusPick.value;
    load("reset");
  });
  auto.addEventListener("change", () => {
    draw(jobs);
    refresh.schedule();
  });
  more.addEventListener("click", () => load("more"));

  view.append(
    nav,
    h("h1", {}, "Ticket jobs"),
    h("form", { class: "toolbar", role: "search", "aria-label": "Filter jobs", novalidate: true, "data-job-filters": true, onsubmit: (e) => e.preventDefault() },
      field("Client", clientPick),
      field("Status", statusPick),
      h("div", { class: "field" }, h("label", { class: "check" }, auto, "Refresh while jobs are queued or running"))),
    status, table, empty, more);
  await load("reset");
  return () => refresh.stop();
}

async function job(ctx, view, id, nav) {
  const heading = h("h1", {}, "Ticket job");
  const status = h("p", { class: "status", role: "status", "aria-live": "polite", "data-job-status": true });
  const facts = h("div", {});
  view.append(nav, h("p", {}, h("a", { href: "#/tickets/jobs" }, "← Jobs")), heading, status, facts);
  let current = null;
  let news = ""; // the last change of status, said until the next one
  const load = async () => {
    const a = await ctx.api.get(`/ticket-jobs/${seg(id)}`);
    if (!ctx.alive()) return;
    if (!a.ok) {
      if (current) say(status, `The job could not be refreshed: ${describe(a)}`);
      else ctx.notify(`The job could not be loaded: ${describe(a)}`);
      return;
    }
    const j = a.data;
    const refreshing = ACTIVE.has(j.status);
    if (current && current.status !== j.status) news = `The job is now ${j.status}.`;
    say(status, [news, refreshing ? "Refreshing every 2 s while the job is queued or running." : ""].filter(Boolean).join(" "));
    current = j;
    heading.textContent = j.title || `Job ${j.id}`;
    const row = (k, v) => [h("dt", {}, k), h("dd", {}, v)];
    replace(facts, h("dl", { class: "facts", "data-job-detail": j.id, "data-status": j.status },
      row("Job id", j.id),
      row("Client", h("a", { href: `#/tickets/${seg(j.client_id)}`, "data-client-link": true }, `${j.client_name || "(unnamed)"} (${j.client_id})`)),
      row("Status", [badge(j.status), ` stage ${j.stage}`]),
      j.error ? row("Error", h("span", { "data-job-error": true }, `${j.error.code}: ${j.error.message}`)) : null,
      row("Tickets", j.ticket_count === null ? (j.status === "completed" ? "—" : "none (the job did not complete)") : String(j.ticket_count)),
      row("Engine", j.engine ?? "not started yet"),
      row("Attempts", `${j.attempts}${j.attempts > 1 ? " (a worker stopped or crashed, and another one resumed the job)" : ""}`),
      row("Created", at(j.created_at)),
      row("Started", at(j.started_at)),
      row("Finished", at(j.finished_at)),
      row("Took", took(j.started_at, j.finished_at)),
      row("Callback", `${CALLBACKS[j.callback] ?? j.callback}${j.callback_delivered_at ? `, last delivered ${at(j.callback_delivered_at)}` : ""}`),
      row("Updated", at(j.updated_at)),
      row("Expires", at(j.expires_at))));
  };
  const refresh = refresher(load, () => current !== null && ACTIVE.has(current.status));
  await load();
  refresh.schedule();
  return () => refresh.stop();
}
