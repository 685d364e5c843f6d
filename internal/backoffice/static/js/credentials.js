// An operator's credentials, for platform staff on the operator's page:
// issue one (its key is shown once, with a copy button), list them with
// their state, revoke one after a confirmation. An operator's staff sign
// in to the backoffice with such a key and see that operator alone.

import { seg } from "./api.js";
import { confirm } from "./dialog.js";
import { badge, field, readExpiry, secretBox, when } from "./dom.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";

// state is a credential's state: live, expired or revoked.
function state(c) {
  if (c.revoked_at) return "revoked";
  if (c.expires_at && new Date(c.expires_at).getTime() <= Date.now()) return "expired";
  return "live";
}

// panel returns the Credentials section of operator op and starts loading
// its list.
export function panel(ctx, op) {
  const el = h("section", { class: "card", "aria-labelledby": "credentials-title", "data-credentials": op.id });
  const page = { items: [], next: null, failed: null, issued: null, issuedID: "", message: "" };

  const draw = (focus) => {
    const status = h("p", { class: "status", role: "status", "aria-live": "polite", tabindex: "-1", "data-credentials-status": true }, page.message);
    replace(el,
      h("h2", { id: "credentials-title" }, "Credentials"),
      h("p", { class: "hint" }, `Keys with which ${op.name}'s staff sign in to this backoffice (and call the admin API) for ${op.id} alone: `,
        "its markets (read only), bets, bettors, exposure and its margin, limits and odds tolerance."),
      page.issued,
      issueForm(),
      status,
      table(),
      page.failed ? h("p", { class: "error" }, `Credentials could not be loaded: ${describe(page.failed)}`) : null);
    if (focus === "status") status.focus();
    if (focus === "issued") page.issued?.focus();
  };

  const reload = async () => {
    const a = await ctx.api.get(`/operators/${seg(op.id)}/credentials`, { limit: 100 });
    page.failed = a.ok ? null : a;
    if (a.ok) {
      page.items = a.data.items;
      page.next = a.data.next_cursor;
    }
  };

  const issueForm = () => {
    const name = h("input", { name: "credential_name", autocomplete: "off", required: true, maxlength: "200" });
    const expiry = h("input", { type: "datetime-local", name: "credential_expires_at" });
    const error = h("p", { class: "error", role: "alert" });
    const form = h("form", { novalidate: true, "data-issue-credential": true },
      h("fieldset", {}, h("legend", {}, "Issue a credential"),
        h("div", { class: "grid" },
          field("Name", name, "Whose it is, e.g. “Ana (trading desk)”."),
          field("Expires", expiry, "Your local time; empty for a credential that does not expire.")),
        error,
        h("button", { type: "submit", class: "primary" }, "Issue credential")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      error.textContent = "";
      const body = { name: name.value.trim() };
      if (!body.name) {
        error.textContent = "Name the credential.";
        name.focus();
        return;
      }
      if (!readExpiry(expiry, body, error)) return;
      const a = await ctx.api.post(`/operators/${seg(op.id)}/credentials`, body);
      if (!ctx.alive()) return;
      if (!a.ok) {
        error.textContent = `Issuing the credential failed: ${describe(a)}`;
        return;
      }
      page.issuedID = a.data.id;
      page.issued = secretBox(`Key of ${a.data.name}`, a.data.key,
        "This is the only time the key is shown: the platform keeps only its hash. Copy it now and hand it to its owner; they sign in with it.");
      page.message = "";
      await reload();
      if (ctx.alive()) draw("issued");
    });
    return form;
  };

  const table = () => {
    if (page.items.length === 0) return page.failed ? null : h("p", { class: "muted" }, "No credentials yet: only the admin token sees this operator.");
    return h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Name", "State", "Expires", "Created", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, page.items.map((c) => {
        const st = state(c);
        return h("tr", { "data-credential": c.id, "data-state": st },
          h("td", {}, c.name),
          h("td", {}, badge(st), c.revoked_at ? ` ${when(c.revoked_at)}` : ""),
          h("td", {}, c.expires_at ? when(c.expires_at) : "never"),
          h("td", {}, when(c.created_at)),
          h("td", {}, st === "revoked" ? null
            : h("button", { type: "button", class: "danger", "data-revoke-credential": c.id, "aria-label": `Revoke the credential of ${c.name}`, onclick: () => revoke(c) }, "Revoke…")));
      }))),
    page.next ? h("p", { class: "hint" }, "Only the first 100 credentials are shown.") : null);
  };

  const revoke = async (c) => {
    const ok = await confirm({
      title: "Revoke this credential?",
      content: [h("p", {}, `${c.name} (${op.id}) is signed out at once: the backoffice and the admin API refuse the key from the next request on. This cannot be undone.`)],
      confirmLabel: "Revoke credential",
      danger: true,
    });
    if (!ok) return;
    const a = await ctx.api.delete(`/operators/${seg(op.id)}/credentials/${seg(c.id)}`);
    if (!ctx.alive()) return;
    page.message = a.ok ? `The credential of ${c.name} is revoked.` : `Revoking failed: ${describe(a)}`;
    if (a.ok && page.issuedID === c.id) page.issued = null;
    await reload();
    if (ctx.alive()) draw("status");
  };

  draw();
  reload().then(() => {
    if (ctx.alive()) draw();
  });
  return el;
}
