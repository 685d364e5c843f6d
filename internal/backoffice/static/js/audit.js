// The audit trail: every staff action that changed something, newest first
// (GET /audit), filtered by operator, action, actor, target and time, with
// each entry's changes (the fields whose value differs between the states
// before and after). An operator's key reads its own operator's entries
// only: the API decides.

import { seg } from "./api.js";
import { field, searchForm, select, when } from "./dom.js";
import { h } from "./elements.js";
import { describe } from "./exchange.js";

const ACTIONS = [
  "market.resolved", "market.cancelled", "market.repriced", "market.suspended", "market.opened",
  "operator.created", "operator.updated", "operator_credential.issued", "operator_credential.revoked",
  "bettor.credited", "bettor.debited",
  "ticket_client.created", "ticket_client.updated", "ticket_key.created", "ticket_key.revoked",
];
const TARGETS = ["market", "operator", "operator_credential", "bettor", "ticket_client", "ticket_key"];

// flatten lists the leaves of a state as [path, value] pairs: "margin.value",
// "outcomes[0].probability".
function flatten(v, path = "", out = new Map()) {
  if (v !== null && typeof v === "object") {
    const entries = Array.isArray(v) ? v.map((x, i) => [`${path}[${i}]`, x]) : Object.entries(v).map(([k, x]) => [path ? `${path}.${k}` : k, x]);
    if (entries.length === 0) out.set(path, Array.isArray(v) ? "[]" : "{}");
    for (const [p, x] of entries) flatten(x, p, out);
  } else if (path) {
    out.set(path, v === null ? "null" : String(v));
  }
  return out;
}

// changes is a table of the fields that differ between before and after
// (every field of a creation).
function changes(e) {
  const before = flatten(e.before);
  const after = flatten(e.after);
  const paths = [...new Set([...before.keys(), ...after.keys()])].filter((p) => before.get(p) !== after.get(p));
  if (paths.length === 0) return h("p", { class: "muted" }, "No field changed.");
  return h("table", { class: "changes", "data-changes": e.id },
    h("thead", {}, h("tr", {}, ["Field", "Before", "After"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, paths.map((p) => h("tr", { "data-field": p },
      h("th", { scope: "row" }, h("code", {}, p)),
      h("td", {}, before.has(p) ? before.get(p) : "—"),
      h("td", {}, after.has(p) ? after.get(p) : "—")))));
}

// who names the actor: platform staff, or the credential's name, operator
// and id.
function who(actor) {
  if (actor.kind === "admin") return "Platform staff (admin token)";
  return h("span", {}, `${actor.name} · ${actor.operator_id} `, h("code", { class: "muted" }, actor.credential_id));
}

// target links to what the entry is about, where the backoffice has a page
// for it.
function target(e) {
  const label = `${e.target_kind.replaceAll("_", " ")} ${e.target_id}`;
  switch (e.target_kind) {
    case "operator":
      return h("a", { href: `#/operators/${seg(e.target_id)}` }, label);
    case "bettor":
      return h("a", { href: `#/bettors/${seg(e.operator_id)}/${seg(e.target_id)}` }, label);
    case "market":
      return e.after?.event_id ? h("a", { href: `#/events/${seg(e.after.event_id)}` }, label) : label;
    case "ticket_client":
      return h("a", { href: `#/tickets/${seg(e.target_id)}` }, label);
    default:
      return label;
  }
}

// utc reads a datetime-local value as UTC ("" stays "").
function utc(value) {
  if (!value) return "";
  const d = new Date(`${value}Z`);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString();
}

// render renders #/audit.
export async function render(ctx, view) {
  let operators = [];
  const ops = await ctx.api.get("/operators");
  if (!ctx.alive()) return;
  if (ops.ok) operators = ops.data.items;
  const operator = select([...(ctx.staff ? [["", "All"]] : []), ...operators.map((o) => [o.id, `${o.name} (${o.id})`])], ctx.staff ? "" : ctx.who.operator_id,
    { "data-filter": "operator" });
  const action = select([["", "All"], ...ACTIONS.map((a) => [a, a])], "", { "data-filter": "action" });
  const actor = h("input", { autocomplete: "off", spellcheck: "false", "data-filter": "actor" });
  const kind = select([["", "All"], ...TARGETS.map((t) => [t, t.replaceAll("_", " ")])], "", { "data-filter": "target-kind" });
  const targetID = h("input", { autocomplete: "off", spellcheck: "false", "data-filter": "target-id" });
  const since = h("input", { type: "datetime-local", step: "1", "data-filter": "since" });
  const until = h("input", { type: "datetime-local", step: "1", "data-filter": "until" });
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  // Each entry is a tbody of its own (its row and its changes).
  const table = h("table", { class: "audit" },
    h("thead", {}, h("tr", {}, ["When", "Who", "Action", "Target", "From", ""].map((c) => h("th", { scope: "col" }, c)))));
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  let next = null;
  let count = 0;
  let seq = 0; // only the latest search draws
  const load = async (reset) => {
    const mine = ++seq;
    more.disabled = true;
    const a = await ctx.api.get("/audit", {
      operator_id: operator.value, action: action.value, actor: actor.value.trim(), target_kind: kind.value, target_id: targetID.value.trim(),
      since: utc(since.value), until: utc(until.value), limit: 50, cursor: reset ? "" : next,
    });
    more.disabled = false;
    if (!ctx.alive() || mine !== seq) return;
    if (!a.ok) {
      status.textContent = `The audit trail could not be loaded: ${describe(a)}`;
      return;
    }
    if (reset) {
      for (const entry of table.querySelectorAll("tbody")) entry.remove();
      count = 0;
    }
    count += a.data.items.length;
    table.append(...a.data.items.map((e) => {
      const detailID = `audit-${e.id}`;
      const detail = h("tr", { class: "detail", id: detailID, hidden: true }, h("td", { colspan: "6" }, changes(e)));
      const toggle = h("button", { type: "button", class: "secondary", "aria-expanded": "false", "aria-controls": detailID }, "Changes");
      toggle.addEventListener("click", () => {
        const open = toggle.getAttribute("aria-expanded") !== "true";
        toggle.setAttribute("aria-expanded", String(open));
        detail.hidden = !open;
      });
      return h("tbody", { "data-entry": e.id, "data-action": e.action },
        h("tr", {},
          h("td", {}, when(e.at)),
          h("td", {}, who(e.actor)),
          h("td", {}, h("code", {}, e.action)),
          h("td", {}, target(e)),
          h("td", {}, e.client_address, h("br"), h("code", { class: "muted", title: "X-Request-Id" }, e.request_id)),
          h("td", {}, toggle)),
        detail);
    }));
    next = a.data.next_cursor;
    more.hidden = !next;
    status.textContent = count ? `${count} entr${count === 1 ? "y" : "ies"}${next ? " loaded (more to load)" : ""}.` : "No entry matches.";
  };
  const form = searchForm("data-audit-filters", [
    field("Operator", operator),
    field("Action", action),
    field("Actor", actor, "admin, or an operator key's id"),
    field("Target kind", kind),
    field("Target id", targetID),
    field("Since (UTC)", since),
    field("Until (UTC)", until)], load);
  for (const s of [operator, action, kind]) s.addEventListener("change", () => load(true));
  more.addEventListener("click", () => load(false));
  view.append(h("h1", {}, "Audit trail"),
    h("p", { class: "hint" }, "Every staff action that changed something: who, what, when, from where, and the fields it changed. Entries are never changed or removed, and never hold a secret."),
    form, status,
    h("div", { class: "table-wrap" }, table),
    more);
  await load(true);
}
