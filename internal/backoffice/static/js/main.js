// The backoffice: sign-in with the admin token, then sections routed by the
// URL's fragment (#/markets, #/events/ID, #/operators, …). Each section
// module renders into the view and may return a function that stops what
// it started (polling) when the user leaves.

import { Api, describe, forgetToken, storedToken, storeToken } from "./api.js";
import { h, replace } from "./dom.js";
import { sections } from "./sections.js";

const $ = (id) => document.getElementById(id);

let api = null;
let leave = null;
let generation = 0;

// notify shows a message for the whole page (errors of a section's load).
function notify(message) {
  const n = $("notice");
  n.textContent = message ?? "";
  n.hidden = !message;
}

function showSignIn(message) {
  api = null;
  stopView();
  document.body.dataset.signedIn = "false";
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

function showApp(token) {
  api = new Api(token, () => {
    forgetToken();
    showSignIn("The admin token was refused: sign in again.");
  });
  document.body.dataset.signedIn = "true";
  $("signin").hidden = true;
  $("signin-status").textContent = "";
  const nav = $("nav");
  replace(nav, sections.filter((s) => s.nav).map((s) => h("a", { href: `#/${s.path}`, "data-section": s.path }, s.nav)));
  nav.hidden = false;
  $("sign-out").hidden = false;
  $("view").hidden = false;
  route();
}

// check verifies a token with the cheapest admin call: one ticket client.
function check(token) {
  return new Api(token).get("/ticket-clients", { limit: 1 });
}

async function signIn(event) {
  event.preventDefault();
  const input = $("token");
  const status = $("signin-status");
  const token = input.value.trim();
  if (!token) {
    status.textContent = "Enter the admin token.";
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
    showApp(token);
    return;
  }
  status.textContent = a.status === 401 ? "That is not the admin token." : describe(a);
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
  const section = sections.find((s) => s.path === parts[0]) ?? sections[0];
  for (const a of $("nav").querySelectorAll("a")) {
    if (a.dataset.section === section.path || section.under === a.dataset.section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const view = $("view");
  replace(view);
  document.body.dataset.view = "";
  const ctx = {
    api,
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
    if (a.ok) showApp(token);
    else if (a.status === 401) {
      forgetToken();
      showSignIn("The admin token was refused: sign in again.");
    } else {
      showApp(token);
      notify(describe(a));
    }
  }
  document.body.dataset.ready = "true";
}

start();
