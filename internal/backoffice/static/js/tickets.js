// Ticket service: the client teams (create; suspend and resume; disable and
// enable their tickets) and their API keys (issue with scopes and an
// optional expiry, shown once with a copy button; revoke), and the jobs
// the clients submitted (ticketjobs.js). Secrets the API shows once (a
// client's webhook secret, a key) are shown once here too, and kept
// nowhere.

import { seg } from "./api.js";
import { confirm } from "./dialog.js";
import { badge, field, pagedRows, readExpiry, secretBox, when } from "./dom.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";
import * as jobs from "./ticketjobs.js";

const SCOPES = [
  ["tickets:submit", "submit jobs"],
  ["tickets:read", "read jobs and results"],
  ["tickets:cancel", "cancel jobs"],
];

// render renders #/tickets, #/tickets/{client id} and the jobs' screens
// under #/tickets/jobs.
export function render(ctx, view, parts) {
  if (parts[0] === "jobs") return jobs.render(ctx, view, parts.slice(1), serviceNav("jobs"));
  return parts[0] ? client(ctx, view, parts[0]) : clients(ctx, view);
}

// serviceNav links the Ticket service's two lists; current is "clients"
// or "jobs".
function serviceNav(current) {
  const link = (path, name, label) => h("a", { href: `#/${path}`, "aria-current": current === name ? "page" : null, "data-service-nav": name }, label);
  return h("nav", { class: "subnav", "aria-label": "Ticket service" }, link("tickets", "clients", "Clients"), link("tickets/jobs", "jobs", "Jobs"));
}

async function clients(ctx, view) {
  const body = h("tbody");
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const created = h("div", {});
  const load = pagedRows(ctx, {
    body, more, status, noun: "client",
    page: (cursor) => ctx.api.get("/ticket-clients", { limit: 50, cursor }),
    row: (c) => h("tr", { "data-client": c.id },
      h("td", {}, h("a", { href: `#/tickets/${seg(c.id)}` }, c.name)),
      h("td", {}, c.id),
      h("td", {}, badge(c.suspended ? "suspended" : "open")),
      h("td", {}, badge(c.tickets_enabled ? "live" : "disabled")),
      h("td", {}, when(c.created_at))),
    failed: (a) => ctx.notify(`Ticket clients could not be loaded: ${describe(a)}`),
  });

  const name = h("input", { name: "client_name", autocomplete: "off" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { novalidate: true, class: "toolbar", "data-new-client": true },
    field("New client's name", name, "The team that will use the ticket API."),
    h("button", { type: "submit", class: "primary" }, "Create client"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    if (!name.value.trim()) {
      error.textContent = "Enter the client's name.";
      name.focus();
      return;
    }
    const a = await ctx.api.post("/ticket-clients", { name: name.value.trim() });
    if (!ctx.alive()) return;
    if (!a.ok) {
      error.textContent = `Creating the client failed: ${describe(a)}`;
      return;
    }
    name.value = "";
    const box = secretBox("Webhook secret", a.data.webhook_secret,
      "It signs this client's callbacks (Standard Webhooks). It is shown only now: give it to the team.");
    replace(created, h("p", { class: "ok" }, "Client ", h("a", { href: `#/tickets/${seg(a.data.id)}` }, a.data.name), " created."), box);
    box.focus();
    await load(true);
  });

  view.append(
    serviceNav("clients"),
    h("h1", {}, "Ticket service"),
    h("h2", {}, "Clients"),
    form, error, created,
    status,
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Client", "Id", "Access", "Tickets", "Created"].map((c) => h("th", { scope: "col" }, c)))),
      body)),
    more);
  await load(true);
}

async function client(ctx, view, id) {
  const [ca, ka] = await Promise.all([ctx.api.get(`/ticket-clients/${seg(id)}`), ctx.api.get(`/ticket-clients/${seg(id)}/keys`, { limit: 100 })]);
  if (!ctx.alive()) return;
  if (!ca.ok) {
    view.append(h("p", {}, h("a", { href: "#/tickets" }, "← Ticket service")), h("h1", {}, "Ticket client"));
    ctx.notify(`The client could not be loaded: ${describe(ca)}`);
    return;
  }
  const page = { c: ca.data, keys: ka.ok ? ka.data.items : [], keysNext: ka.ok ? ka.data.next_cursor : null, issued: null, message: "" };
  const draw = (focus) => {
    const c = page.c;
    const status = h("p", { class: "status", role: "status", "aria-live": "polite", tabindex: "-1", "data-client-status": true }, page.message);
    replace(view,
      h("p", {}, h("a", { href: "#/tickets" }, "← Ticket service")),
      h("h1", {}, c.name),
      h("p", {}, h("a", { href: `#/tickets/jobs/client/${seg(c.id)}`, "data-client-jobs": true }, "This client's jobs")),
      h("dl", { class: "facts" },
        h("dt", {}, "Id"), h("dd", {}, c.id),
        h("dt", {}, "Access"), h("dd", { "data-suspended": String(c.suspended) }, badge(c.suspended ? "suspended" : "open")),
        h("dt", {}, "Tickets"), h("dd", { "data-tickets-enabled": String(c.tickets_enabled) }, badge(c.tickets_enabled ? "live" : "disabled")),
        h("dt", {}, "Created"), h("dd", {}, when(c.created_at))),
      h("div", { class: "buttons" },
        h("button", { type: "button", "data-action": c.suspended ? "resume" : "suspend", class: c.suspended ? null : "danger", onclick: () => setFlag("suspended", !c.suspended) },
          c.suspended ? "Resume client" : "Suspend client…"),
        h("button", { type: "button", "data-action": c.tickets_enabled ? "disable-tickets" : "enable-tickets", onclick: () => setFlag("tickets_enabled", !c.tickets_enabled) },
          c.tickets_enabled ? "Disable tickets…" : "Enable tickets")),
      status,
      h("h2", {}, "API keys"),
      page.issued,
      issueForm(),
      keysTable(),
      ka.ok ? null : h("p", { class: "error" }, `Keys could not be loaded: ${describe(ka)}`));
    if (focus === "status") status.focus();
    if (focus === "issued") page.issued?.focus();
  };

  const setFlag = async (flag, value) => {
    const suspend = flag === "suspended" && value;
    const disable = flag === "tickets_enabled" && !value;
    if (suspend || disable) {
      const ok = await confirm({
        title: suspend ? "Suspend this client?" : "Disable this client's tickets?",
        content: [h("p", {}, suspend
          ? "Every key of the client is refused with client_suspended until you resume it."
          : "The ticket API answers feature_disabled to this client until you enable its tickets again.")],
        confirmLabel: suspend ? "Suspend" : "Disable tickets",
        danger: true,
      });
      if (!ok) return;
    }
    const a = await ctx.api.patch(`/ticket-clients/${seg(page.c.id)}`, { [flag]: value });
    if (!ctx.alive()) return;
    if (!a.ok) {
      page.message = `The change failed: ${describe(a)}`;
    } else {
      page.c = a.data;
      page.message = flag === "suspended" ? (value ? "Client suspended." : "Client resumed.") : (value ? "Tickets enabled." : "Tickets disabled.");
    }
    draw("status");
  };

  const reloadKeys = async () => {
    const a = await ctx.api.get(`/ticket-clients/${seg(page.c.id)}/keys`, { limit: 100 });
    if (a.ok) {
      page.keys = a.data.items;
      page.keysNext = a.data.next_cursor;
    }
  };

  const issueForm = () => {
    const boxes = SCOPES.map(([s]) => h("input", { type: "checkbox", value: s, checked: s !== "tickets:cancel", "data-scope": s }));
    const expiry = h("input", { type: "datetime-local", name: "expires_at" });
    const error = h("p", { class: "error", role: "alert" });
    const form = h("form", { novalidate: true, "data-issue-key": true },
      h("fieldset", {}, h("legend", {}, "Issue a key"),
        h("fieldset", {}, h("legend", {}, "Scopes"),
          h("div", { class: "choices" }, SCOPES.map(([s, what], i) => h("label", {}, boxes[i], `${s} — ${what}`)))),
        field("Expires", expiry, "Your local time; empty for a key that does not expire."),
        error,
        h("button", { type: "submit", class: "primary" }, "Issue key")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const scopes = boxes.filter((b) => b.checked).map((b) => b.value);
      if (scopes.length === 0) {
        error.textContent = "Pick at least one scope.";
        boxes[0].focus();
        return;
      }
      const body = { scopes };
      if (!readExpiry(expiry, body, error)) return;
      const a = await ctx.api.post(`/ticket-clients/${seg(page.c.id)}/keys`, body);
      if (!ctx.alive()) return;
      if (!a.ok) {
        error.textContent = `Issuing the key failed: ${describe(a)}`;
        return;
      }
      page.issued = secretBox(`New key ${a.data.id}`, a.data.key,
        "This is the only time the key is shown: the service keeps only its hash. Copy it now.");
      page.message = "";
      await reloadKeys();
      if (ctx.alive()) draw("issued");
    });
    return form;
  };

  const keysTable = () => {
    if (page.keys.length === 0) return h("p", { class: "muted" }, "No keys yet.");
    return h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Key id", "Scopes", "Expires", "State", "Created", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, page.keys.map((k) => {
        const state = k.revoked_at ? "revoked" : k.expires_at && new Date(k.expires_at).getTime() <= Date.now() ? "expired" : "live";
        return h("tr", { "data-key": k.id, "data-state": state },
          h("td", {}, k.id),
          h("td", {}, k.scopes.join(", ")),
          h("td", {}, k.expires_at ? when(k.expires_at) : "never"),
          h("td", {}, badge(state), k.revoked_at ? ` ${when(k.revoked_at)}` : ""),
          h("td", {}, when(k.created_at)),
          h("td", {}, state === "revoked" ? null
            : h("button", { type: "button", class: "danger", "data-revoke": k.id, "aria-label": `Revoke key ${k.id}`, onclick: () => revoke(k) }, "Revoke…")));
      }))),
    page.keysNext ? h("p", { class: "hint" }, "Only the first 100 keys are shown.") : null);
  };

  const revoke = async (k) => {
    const ok = await confirm({
      title: "Revoke this key?",
      content: [h("p", {}, `Key ${k.id} (${k.scopes.join(", ")}) stops working at once: every call with it is refused with key_revoked. This cannot be undone.`)],
      confirmLabel: "Revoke key",
      danger: true,
    });
    if (!ok) return;
    const a = await ctx.api.delete(`/ticket-clients/${seg(page.c.id)}/keys/${seg(k.id)}`);
    if (!ctx.alive()) return;
    page.message = a.ok ? `Key ${k.id} revoked.` : `Revoking failed: ${describe(a)}`;
    if (a.ok && page.issued?.getAttribute("aria-label") === `New key ${k.id}`) page.issued = null;
    await reloadKeys();
    if (ctx.alive()) draw("status");
  };

  draw();
}
