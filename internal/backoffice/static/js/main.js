// The backoffice: sign-in with the admin token (platform staff) or an
// operator's key (that operator's staff), then sections routed by the URL's
// fragment (#/markets, #/events/ID, #/operators, …). Each section module
// renders into the view and may return a function that stops what it
// started (polling) when the user leaves. Who signed in (GET /whoami)
// decides the sections and controls shown; the API decides what is
// allowed.

import { Api, forgetToken, storedToken, storeToken } from "./api.js";
import { h, replace } from "./elements.js";
import { describe } from "./exchange.js";
import { sections } from "./sections.js";

const $ = (id) => document.getElementById(id);

let api = null;
// who is the signed-in token's GET /whoami: {kind: "admin"|"operator", operator_id, name}.
let who = null;
let leave = null;
let generation = 0;

// notify shows a message for the whole page (errors of a section's load).
function notify(message) {
  const n = $("notice");
  n.textContent = message ?? "";
  n.hidden = !message;
}

// refused is the sign-in screen's message after the server refused token.
function refused(token) {
  return token.startsWith("fso_") ? "Your operator key was refused (revoked or expired): sign in again."
    : "The admin token was refused: sign in again.";
}

// visible reports whether the signed-in user sees section s.
function visible(s) {
  return who?.kind === "admin" || !s.staff;
}

function showSignIn(message) {
  api = null;
  who = null;
  stopView();
  document.body.dataset.signedIn = "false";
  delete document.body.dataset.kind;
  $("who").hidden = true;
  $("nav").hidden = true;
  $("sign-out").hidden = true;
  $("view").hidden = true;
  replace($("view"));
  notify("");
  $("signin").hidden = false;
  $("signin-status").textContent = message ?? "";
  const token = $("token");
  token.value = "";
  token.focus();
}

function showApp(token, me) {
  who = me;
  api = new Api(token, () => {
    forgetToken();
    showSignIn(refused(token));
  });
  document.body.dataset.signedIn = "true";
  document.body.dataset.kind = who.kind;
  $("signin").hidden = true;
  $("signin-status").textContent = "";
  const badge = $("who");
  badge.textContent = who.kind === "admin" ? "Platform staff" : `${who.name} · ${who.operator_id}`;
  badge.hidden = false;
  const nav = $("nav");
  replace(nav, sections.filter((s) => s.nav && visible(s))
    .map((s) => h("a", { href: `#/${s.path}`, "data-section": s.path }, who.kind === "admin" ? s.nav : s.operatorNav ?? s.nav)));
  nav.hidden = false;
  $("sign-out").hidden = false;
  $("view").hidden = false;
  route();
}

// check asks the server who token is.
function check(token) {
  return new Api(token).get("/whoami");
}

async function signIn(event) {
  event.preventDefault();
  const input = $("token");
  const status = $("signin-status");
  const token = input.value.trim();
  if (!token) {
    status.textContent = "Enter the admin token or your operator key.";
    input.focus();
    return;
  }
  const button = $("signin-submit");
  button.disabled = true;
  status.textContent = "Checking the token…";
  const a = await check(token);
  button.disabled = false;
  if (a.ok) {
    storeToken(token);
    input.value = "";
    if (!location.hash || location.hash === "#") history.replaceState(null, "", "#/markets");
    showApp(token, a.data);
    return;
  }
  status.textContent = a.status === 401 ? "That is neither the admin token nor a valid operator key." : describe(a);
  input.select();
  input.focus();
}

function signOut() {
  forgetToken();
  showSignIn("Signed out.");
}

function stopView() {
  generation += 1;
  if (leave) {
    try {
      leave();
    } catch {
      // a section's clean-up must not keep the next one from rendering
    }
  }
  leave = null;
}

// route renders the section the fragment names.
async function route() {
  if (!api) return;
  stopView();
  const mine = generation;
  notify("");
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const section = sections.find((s) => s.path === parts[0] && visible(s)) ?? sections[0];
  for (const a of $("nav").querySelectorAll("a")) {
    if (a.dataset.section === section.path || section.under === a.dataset.section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const view = $("view");
  replace(view);
  document.body.dataset.view = "";
  const ctx = {
    api,
    who,
    // staff is true for platform staff (the admin token): they see every
    // operator and every control.
    staff: who.kind === "admin",
    notify,
    describe,
    // alive is false once the user left the section (a late answer must
    // not draw over the next one).
    alive: () => mine === generation && api !== null,
  };
  try {
    const stop = await section.render(ctx, view, parts.slice(1));
    if (!ctx.alive()) {
      stop?.();
      return;
    }
    leave = stop ?? null;
  } catch (err) {
    if (ctx.alive()) notify(`This page failed: ${err?.message ?? err}`);
  }
  if (ctx.alive()) {
    document.title = `${section.title} · Foresight backoffice`;
    document.body.dataset.view = section.path;
    const heading = view.querySelector("h1");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }
}

async function start() {
  $("signin-form").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", signOut);
  window.addEventListener("hashchange", route);
  const token = storedToken();
  if (!token) {
    showSignIn("");
  } else {
    const a = await check(token);
    if (a.ok) showApp(token, a.data);
    else if (a.status === 401) {
      forgetToken();
      showSignIn(refused(token));
    } else {
      // Who the token is stays unknown: sign in again once the server
      // answers (the token is kept, so a reload may do).
      showSignIn(describe(a));
    }
  }
  document.body.dataset.ready = "true";
}

start();
