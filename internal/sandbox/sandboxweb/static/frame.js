// The embedded game (the iframe #game) talks to its host page with
// postMessage. Only messages from the game's origin (data-origin) and from
// that frame are read:
//   {type: "foresight:height", height}   resize the frame to the content
//   {type: "foresight:balance", …}       read the balance again from the partner (data-balance-url)
//   {type: "foresight:session_expired"}  with data-session-url (the operator's host page): ask
//                                        the page's backend for a new session_request_id and
//                                        post {type: "foresight:session", session_request_id}
//                                        to the game, at its origin only; without it (the
//                                        casino's lobby) nothing: the game says to relaunch it
"use strict";

(function () {
  const frame = document.getElementById("game");
  if (!frame) {
    return;
  }
  const origin = frame.dataset.origin;
  const balanceURL = frame.dataset.balanceUrl;
  const shown = document.getElementById("balance");
  const sessionURL = frame.dataset.sessionUrl;
  const sessionShown = document.getElementById("session-request");

  function refresh() {
    if (!balanceURL || !shown) {
      return;
    }
    fetch(balanceURL, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((b) => {
        if (b && typeof b.balance === "string") {
          shown.textContent = b.balance + " " + b.currency;
        }
      })
      .catch(() => {});
  }

  // renew makes a new session_request_id for the logged-in bettor, as a
  // load of the page does, and hands it to the game.
  function renew() {
    fetch(sessionURL, { method: "POST", headers: { Accept: "application/json" }, cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((b) => {
        if (!b || typeof b.session_request_id !== "string") {
          return;
        }
        if (sessionShown) {
          sessionShown.textContent = b.session_request_id;
        }
        frame.contentWindow.postMessage({ type: "foresight:session", session_request_id: b.session_request_id }, origin);
      })
      .catch(() => {});
  }

  window.addEventListener("message", (event) => {
    if (event.origin !== origin || event.source !== frame.contentWindow) {
      return;
    }
    const m = event.data;
    if (!m || typeof m !== "object") {
      return;
    }
    switch (m.type) {
      case "foresight:height": {
        const h = Number(m.height);
        if (Number.isFinite(h) && h > 0 && h < 100000) {
          frame.style.height = Math.ceil(h) + "px";
        }
        break;
      }
      case "foresight:balance":
        refresh();
        break;
      case "foresight:session_expired":
        if (sessionURL) {
          renew();
        }
        break;
    }
  });
})();
