// Operators: the list, and one form to create an operator or edit one
// (integration, partner URLs, margin, currencies with their limits), with
// its credentials. The signing secret is write-only: the API never shows
// it, and an empty field on an edit keeps the stored one. An operator's
// own staff (signed in with one of its credentials) see their operator
// only, and change its margin, odds tolerance and limits only.

import { seg } from "./api.js";
import { panel as credentialsPanel } from "./credentials.js";
import { badge, field, select, when } from "./dom.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";

const MARGIN_METHODS = ["odds_ratio", "multiplicative", "additive", "power", "shin"];
const AMOUNT = /^(0|[1-9]\d{0,17})(\.\d{1,12})?$/;
const DECIMAL = /^(\d+|\d*\.\d+)$/;
const LIMITS = [["min_stake", "Min stake"], ["max_stake", "Max stake"], ["max_payout", "Max payout"], ["outcome_exposure", "Outcome exposure"]];

// flash is the message the next render of an operator shows (after a
// create moved the page to the new operator).
let flash = "";

async function list(ctx, view) {
  const a = await ctx.api.get("/operators");
  if (!ctx.alive()) return;
  view.append(h("h1", {}, "Operators"), h("p", {}, h("a", { href: "#/operators/new", class: "button-link", "data-new-operator": true }, "New operator")));
  if (!a.ok) {
    ctx.notify(`Operators could not be loaded: ${describe(a)}`);
    return;
  }
  const items = a.data.items;
  view.append(
    h("p", { class: "status", role: "status" }, `${items.length} operator${items.length === 1 ? "" : "s"}.`),
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Id", "Name", "Integration", "Currencies", "Margin", "Odds tolerance", "Created"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, items.map((o) => h("tr", { "data-operator": o.id },
        h("td", {}, h("a", { href: `#/operators/${seg(o.id)}` }, o.id)),
        h("td", {}, o.name),
        h("td", {}, o.integration),
        h("td", {}, o.currencies.map((c) => c.code).join(", ")),
        h("td", {}, `${o.margin.method} ${o.margin.value}`),
        h("td", {}, o.odds_tolerance),
        h("td", {}, when(o.created_at))))))));
}

// render renders #/operators, #/operators/new and #/operators/{id}; an
// operator's staff get their operator's page at each of them.
export function render(ctx, view, parts) {
  if (!ctx.staff) return edit(ctx, view, [ctx.who.operator_id]);
  return parts[0] ? edit(ctx, view, parts) : list(ctx, view);
}

async function edit(ctx, view, [id]) {
  const creating = !id || id === "new";
  let op = null;
  if (!creating) {
    const a = await ctx.api.get(`/operators/${seg(id)}`);
    if (!ctx.alive()) return;
    if (!a.ok) {
      view.append(h("p", {}, h("a", { href: "#/operators" }, "← Operators")), h("h1", {}, "Operator"));
      ctx.notify(`The operator could not be loaded: ${describe(a)}`);
      return;
    }
    op = a.data;
  }
  if (ctx.staff) drawForm(ctx, view, op);
  else drawCommercial(ctx, view, op);
}

function drawForm(ctx, view, op) {
  const creating = op === null;
  const o = op ?? { integration: "standalone", margin: { method: "odds_ratio", value: "0.05" }, odds_tolerance: "0.05", currencies: [], limits: {}, casino_ids: [] };
  const input = (name, value, props = {}) => h("input", { name, value: value ?? "", autocomplete: "off", spellcheck: "false", ...props });
  const f = {
    id: input("id", o.id, { readOnly: !creating, required: true }),
    name: input("name", o.name, { required: true }),
    integration: select([["standalone", "standalone (own wallet, session and JWKS)"], ["aggregator", "aggregator (through a casino aggregator)"],
      ["bundled", "bundled (Foresight keeps the balances in its ledger)"]], o.integration, { name: "integration" }),
    wallet_url: input("wallet_url", o.wallet_url, { type: "url", required: true }),
    jwks_url: input("jwks_url", o.jwks_url, { type: "url" }),
    session_url: input("session_url", o.session_url, { type: "url" }),
    casino_ids: input("casino_ids", (o.casino_ids ?? []).join(", ")),
    method: select(MARGIN_METHODS.map((m) => [m, m]), o.margin.method, { name: "margin_method" }),
    margin: input("margin_value", o.margin.value, { inputmode: "decimal" }),
    tolerance: input("odds_tolerance", o.odds_tolerance, { inputmode: "decimal" }),
    secret: input("signing_secret", "", { type: "password", autocomplete: "new-password" }),
  };
  const rows = h("tbody", {});
  const addCurrency = (code = "", decimals = 2, limits = {}) => {
    const cells = {
      code: h("input", { value: code, size: 5, autocomplete: "off", "aria-label": "Currency code", "data-col": "code" }),
      decimals: h("input", { value: String(decimals), size: 3, inputmode: "numeric", "aria-label": "Decimals", "data-col": "decimals" }),
    };
    for (const [k, label] of LIMITS) {
      cells[k] = h("input", { value: limits[k] ?? "", inputmode: "decimal", autocomplete: "off", "aria-label": label, "data-col": k });
    }
    const tr = h("tr", { "data-currency-row": true },
      Object.values(cells).map((c) => h("td", {}, c)),
      h("td", {}, h("button", { type: "button", class: "secondary", "aria-label": "Remove this currency", onclick: () => tr.remove() }, "Remove")));
    rows.append(tr);
    return cells.code;
  };
  for (const c of o.currencies) addCurrency(c.code, c.decimals, o.limits?.[c.code] ?? {});
  if (o.currencies.length === 0) addCurrency("USD", 2, {});

  const standalone = h("div", { class: "grid" },
    field("JWKS URL", f.jwks_url, "The operator's public keys of its bettor tokens (required)."),
    field("Session URL", f.session_url, creating ? "Where the widget exchanges a session; empty for the wallet URL + /v1/session."
      : "Empty keeps the stored one (the wallet URL + /v1/session when none was set)."));
  const aggregator = h("div", { class: "grid" }, field("Casino ids", f.casino_ids, "Comma-separated: the aggregator's casinos that offer the game."));
  // A bundled operator has no wallet, secret or token URLs: nothing of
  // its own is called.
  const wallet = h("fieldset", { "data-wallet-settings": true }, h("legend", {}, "Wallet and tokens"),
    h("div", { class: "grid" },
      field("Wallet URL", f.wallet_url, "Base URL of the operator's wallet (https; http only in development)."),
      field("Signing secret", f.secret, creating ? "Signs the wallet calls; at least 16 characters. Never shown again."
        : "Write-only: leave empty to keep the stored secret; a new one (16+ characters) replaces it.")),
    standalone,
    aggregator);
  const bundledNote = h("p", { class: "hint", "data-bundled-note": true },
    "Foresight keeps this operator's bettors' balances in its ledger: the operator credits and debits them through the cashier and opens sessions from its server with an operator key.");
  const integrationShown = () => {
    standalone.hidden = f.integration.value !== "standalone";
    aggregator.hidden = f.integration.value !== "aggregator";
    wallet.hidden = f.integration.value === "bundled";
    bundledNote.hidden = f.integration.value !== "bundled";
  };
  f.integration.addEventListener("change", integrationShown);
  integrationShown();

  const { status, error } = formMessages();
  const form = h("form", { novalidate: true, "data-operator-form": creating ? "new" : o.id },
    h("fieldset", {}, h("legend", {}, "Operator"),
      h("div", { class: "grid" },
        field("Id", f.id, creating ? "1 to 63 lowercase letters, digits, - or _; it cannot change later." : "The id cannot change."),
        field("Name", f.name),
        field("Integration", f.integration)),
      bundledNote),
    wallet,
    oddsFieldset(f.method, f.margin, f.tolerance),
    h("fieldset", {}, h("legend", {}, "Currencies and limits"),
      h("div", { class: "table-wrap" }, h("table", { class: "currencies" },
        h("thead", {}, h("tr", {}, ["Code", "Decimals", ...LIMITS.map(([, l]) => l), ""].map((c) => h("th", { scope: "col" }, c)))),
        rows)),
      h("button", { type: "button", class: "secondary", "data-add-currency": true, onclick: () => addCurrency("", 2, {}).focus() }, "Add a currency")),
    error,
    status,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, creating ? "Create operator" : "Save changes")));

  whenSubmitted(form, status, error, async () => {
    const built = build(f, rows, creating);
    if (built.error) {
      error.textContent = built.error;
      (built.focus ?? error).focus();
      return;
    }
    status.textContent = creating ? "Creating…" : "Saving…";
    const a = creating ? await ctx.api.post("/operators", built.body) : await ctx.api.patch(`/operators/${seg(o.id)}`, built.body);
    if (!ctx.alive()) return;
    status.textContent = "";
    if (!a.ok) {
      error.textContent = `${creating ? "Creating" : "Saving"} failed: ${describe(a)}`;
      error.focus();
      return;
    }
    f.secret.value = "";
    if (creating) {
      flash = `Operator ${a.data.id} created.`;
      location.hash = `#/operators/${seg(a.data.id)}`;
      return;
    }
    drawForm(ctx, view, a.data);
    announceSaved(view);
  });

  replace(view,
    h("p", {}, h("a", { href: "#/operators" }, "← Operators")),
    h("h1", {}, creating ? "New operator" : `${o.name} (${o.id})`),
    creating ? null : h("p", {}, badge(o.integration), " created ", when(o.created_at)),
    form,
    creating ? null : credentialsPanel(ctx, o));
  if (flash) {
    status.textContent = flash;
    flash = "";
  }
}

// formMessages returns the status line and the error line of an operator
// form, which the tests and the redrawn form find by their data attributes.
function formMessages() {
  return {
    status: h("p", { class: "status", role: "status", "aria-live": "polite", tabindex: "-1", "data-form-status": true }),
    error: h("p", { class: "error", role: "alert", tabindex: "-1", "data-form-error": true }),
  };
}

// whenSubmitted runs submit when form is submitted, with its status and error
// lines cleared; typing in the form clears the error line.
function whenSubmitted(form, status, error, submit) {
  form.addEventListener("input", () => {
    error.textContent = "";
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    error.textContent = "";
    status.textContent = "";
    submit();
  });
}

// announceSaved says "Changes saved." in the status line of the form just
// drawn in view, and moves the focus there.
function announceSaved(view) {
  const s = view.querySelector("[data-form-status]");
  s.textContent = "Changes saved.";
  s.focus();
}

// oddsFieldset is the "Odds" part of both operator forms: the margin method,
// the margin and the odds tolerance.
function oddsFieldset(method, margin, tolerance) {
  return h("fieldset", {}, h("legend", {}, "Odds"),
    h("div", { class: "grid" },
      field("Margin method", method),
      field("Margin", margin, "At least 0 and below 0.5, e.g. 0.05."),
      field("Odds tolerance", tolerance, "Accepted relative move of the odds between quote and bet, 0 to 1.")));
}

// build reads the form into the request body, or an error with the
// control to fix.
function build(f, rows, creating) {
  const v = (el) => el.value.trim();
  const need = (el, what) => (v(el) ? null : { error: `${what} is required.`, focus: el });
  const body = {};
  const bundled = f.integration.value === "bundled";
  const missing = (creating && need(f.id, "The id")) || need(f.name, "The name") || (!bundled && need(f.wallet_url, "The wallet URL"));
  if (missing) return missing;
  if (creating) body.id = v(f.id);
  body.name = v(f.name);
  body.integration = f.integration.value;
  if (!bundled) {
    body.wallet_url = v(f.wallet_url);
    const secret = f.secret.value;
    if (creating || secret !== "") {
      if (secret.length < 16) return { error: "The signing secret needs at least 16 characters.", focus: f.secret };
      body.signing_secret = secret;
    }
  }
  if (body.integration === "standalone") {
    if (!v(f.jwks_url)) return { error: "A standalone operator needs its JWKS URL.", focus: f.jwks_url };
    body.jwks_url = v(f.jwks_url);
    if (v(f.session_url)) body.session_url = v(f.session_url);
  } else if (body.integration === "aggregator") {
    const ids = v(f.casino_ids).split(",").map((x) => x.trim()).filter(Boolean);
    if (ids.length === 0) return { error: "An aggregator operator needs at least one casino id.", focus: f.casino_ids };
    body.casino_ids = ids;
  }
  if (!DECIMAL.test(v(f.margin))) return { error: "The margin must be a decimal like 0.05.", focus: f.margin };
  body.margin = { method: f.method.value, value: v(f.margin) };
  if (!DECIMAL.test(v(f.tolerance))) return { error: "The odds tolerance must be a decimal like 0.05.", focus: f.tolerance };
  body.odds_tolerance = v(f.tolerance);
  const read = readCurrencies(rows);
  if (read.error) return read;
  body.currencies = read.currencies;
  body.limits = read.limits;
  return { body };
}

// readCurrencies reads the currency rows: the currencies and their limits,
// or an error with the control to fix.
function readCurrencies(rows) {
  const v = (el) => el.value.trim();
  const body = { currencies: [], limits: {} };
  for (const tr of rows.children) {
    const cell = (k) => tr.querySelector(`[data-col="${k}"]`);
    const code = v(cell("code")).toUpperCase();
    if (!/^[A-Z]{3,5}$/.test(code)) return { error: `“${v(cell("code"))}” is not a currency code (3 to 5 letters, like USD).`, focus: cell("code") };
    if (body.limits[code]) return { error: `${code} is listed twice.`, focus: cell("code") };
    const decimals = v(cell("decimals"));
    if (!/^\d{1,2}$/.test(decimals) || Number(decimals) > 12) return { error: `${code}: decimals must be a whole number from 0 to 12.`, focus: cell("decimals") };
    const limits = {};
    for (const [k, label] of LIMITS) {
      const amount = v(cell(k));
      if (!AMOUNT.test(amount)) return { error: `${code}: ${label.toLowerCase()} must be an amount like 100 or 2.50.`, focus: cell(k) };
      limits[k] = amount;
    }
    body.currencies.push({ code, decimals: Number(decimals) });
    body.limits[code] = limits;
  }
  if (body.currencies.length === 0) return { error: "Add at least one currency.", focus: null };
  return body;
}

// drawCommercial is an operator's page for its own staff: what platform
// staff keep (identity, integration, wallet and token URLs, currencies) as
// text, and a form of what the operator may change itself: margin, odds
// tolerance and the limits of each of its currencies.
function drawCommercial(ctx, view, o) {
  const input = (name, value, props = {}) => h("input", { name, value: value ?? "", autocomplete: "off", spellcheck: "false", ...props });
  const method = select(MARGIN_METHODS.map((m) => [m, m]), o.margin.method, { name: "margin_method" });
  const margin = input("margin_value", o.margin.value, { inputmode: "decimal" });
  const tolerance = input("odds_tolerance", o.odds_tolerance, { inputmode: "decimal" });
  const rows = h("tbody", {}, o.currencies.map((c) => h("tr", { "data-currency-row": true },
    h("th", { scope: "row" }, h("input", { type: "hidden", value: c.code, "data-col": "code" }), c.code),
    h("td", {}, h("input", { type: "hidden", value: String(c.decimals), "data-col": "decimals" }), String(c.decimals)),
    LIMITS.map(([k, label]) => h("td", {}, h("input", { value: o.limits?.[c.code]?.[k] ?? "", inputmode: "decimal", autocomplete: "off",
      "aria-label": `${c.code} ${label.toLowerCase()}`, "data-col": k }))))));
  const fact = (k, v) => (v ? [h("dt", {}, k), h("dd", {}, v)] : null);
  const { status, error } = formMessages();
  const form = h("form", { novalidate: true, "data-operator-form": o.id, "data-commercial": true },
    oddsFieldset(method, margin, tolerance),
    h("fieldset", {}, h("legend", {}, "Limits per currency"),
      h("div", { class: "table-wrap" }, h("table", { class: "currencies" },
        h("thead", {}, h("tr", {}, ["Currency", "Decimals", ...LIMITS.map(([, l]) => l)].map((c) => h("th", { scope: "col" }, c)))),
        rows))),
    error,
    status,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, "Save changes")));
  whenSubmitted(form, status, error, async () => {
    const fail = (message, focus) => {
      error.textContent = message;
      (focus ?? error).focus();
    };
    if (!DECIMAL.test(margin.value.trim())) return fail("The margin must be a decimal like 0.05.", margin);
    if (!DECIMAL.test(tolerance.value.trim())) return fail("The odds tolerance must be a decimal like 0.05.", tolerance);
    const read = readCurrencies(rows);
    if (read.error) return fail(read.error, read.focus);
    status.textContent = "Saving…";
    const a = await ctx.api.patch(`/operators/${seg(o.id)}`, { margin: { method: method.value, value: margin.value.trim() },
      odds_tolerance: tolerance.value.trim(), limits: read.limits });
    if (!ctx.alive()) return;
    status.textContent = "";
    if (!a.ok) return fail(`Saving failed: ${describe(a)}`);
    drawCommercial(ctx, view, a.data);
    announceSaved(view);
  });
  replace(view,
    h("h1", {}, `${o.name} (${o.id})`),
    h("p", { class: "hint" }, "Your operator's configuration. Platform staff keep its name, integration, wallet and token URLs, signing secret and currencies; ",
      "ask them to change those."),
    h("dl", { class: "facts", "data-operator-facts": o.id },
      fact("Id", o.id),
      fact("Integration", o.integration),
      fact("Wallet URL", o.wallet_url),
      fact("JWKS URL", o.jwks_url),
      fact("Session URL", o.session_url),
      fact("Casino ids", (o.casino_ids ?? []).join(", ")),
      fact("Currencies", o.currencies.map((c) => `${c.code} (${c.decimals} decimals)`).join(", ")),
      fact("Created", when(o.created_at))),
    form);
}
