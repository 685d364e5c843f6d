// The backoffice's parts of pages: labelled fields, selects, badges, times,
// secrets shown once and tables filled page by page, built with the shared element builder
// (elements.js), so that no text is ever parsed as HTML.

import { h, replace } from "./elements.js";

// ids makes unique element ids for labels and descriptions.
let counter = 0;
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

// field is a labelled input (or select, textarea: the control given) with
// an optional hint; it sets the control's id and aria-describedby.
export function field(label, control, hint) {
  control.id ||= uid("f");
  const parts = [h("label", { for: control.id }, label), control];
  if (hint) {
    const hintID = uid("hint");
    control.setAttribute("aria-describedby", [control.getAttribute("aria-describedby"), hintID].filter(Boolean).join(" "));
    parts.push(h("p", { class: "hint", id: hintID }, hint));
  }
  return h("div", { class: "field" }, parts);
}

// searchForm is a filter toolbar, marked by the attribute attr: the fields
// (null ones left out), then a Search button; submitting it runs
// load(true), a search from the first page.
export function searchForm(attr, fields, load) {
  const form = h("form", { class: "toolbar", novalidate: true, role: "search", [attr]: true },
    fields, h("button", { type: "submit", class: "primary" }, "Search"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    load(true);
  });
  return form;
}

// select builds a select of [value, label] options with value selected.
export function select(options, value, props = {}) {
  return h("select", props, options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
}

// text picks a text of a {locale: text} object: English, else the first.
export function text(texts) {
  if (!texts || typeof texts !== "object") return "";
  return texts.en ?? Object.values(texts)[0] ?? "";
}

// when writes an RFC 3339 time as "2026-05-01 14:03 UTC"; "—" for none.
export function when(t) {
  if (!t) return "—";
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

// readExpiry reads an optional expiry from input (datetime-local, the
// user's local time) into body.expires_at and returns true; a value that is
// not a time in the future is said in error, input is focused and it
// returns false.
export function readExpiry(input, body, error) {
  if (!input.value) return true;
  const at = new Date(input.value);
  if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) {
    error.textContent = "The expiry must be a time in the future.";
    input.focus();
    return false;
  }
  body.expires_at = at.toISOString();
  return true;
}

// badge is a status label.
export function badge(status) {
  return h("span", { class: `badge badge-${String(status).replace(/[^a-z_]/g, "")}` }, String(status));
}

// secretBox shows a secret once (a key, a webhook secret), with a button
// that copies it; label names it.
export function secretBox(label, secret, note) {
  const code = h("code", { "data-secret": true }, secret);
  const said = h("span", { role: "status", "aria-live": "polite" });
  const copy = h("button", { type: "button", class: "secondary" }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(secret);
      said.textContent = "Copied.";
    } catch {
      getSelection().selectAllChildren(code);
      said.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  });
  return h("div", { class: "key", role: "group", "aria-label": label, tabindex: "-1" },
    h("strong", {}, `${label}:`), code, copy, said, h("p", { class: "hint" }, note));
}

// pagedRows fills body, a tbody, with the rows of a list the API answers in
// pages, and returns load: load(true) draws the first page again,
// load(false) appends the next one, as the more button does when clicked.
// Only the latest load draws. page(cursor) asks for one page ("" for the
// first), row(item) builds an item's row and failed(answer) reports a page
// that could not be loaded. The status line counts the rows drawn: "3
// clients loaded (more to load)."
export function pagedRows(ctx, { body, more, status, noun, page, row, failed }) {
  let next = null;
  let count = 0;
  let seq = 0; // only the latest load draws
  const load = async (reset) => {
    const mine = ++seq;
    const a = await page(reset ? "" : next);
    if (!ctx.alive() || mine !== seq) return;
    if (!a.ok) {
      failed(a);
      return;
    }
    if (reset) {
      replace(body);
      count = 0;
    }
    count += a.data.items.length;
    body.append(...a.data.items.map((item) => row(item)));
    next = a.data.next_cursor;
    more.hidden = !next;
    status.textContent = `${count} ${noun}${count === 1 ? "" : "s"}${next ? " loaded (more to load)" : ""}.`;
  };
  more.addEventListener("click", () => load(false));
  return load;
}
