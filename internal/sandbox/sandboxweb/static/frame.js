// The embedded game (the iframe #game) talks to its host page with
// postMessage. Only messages from the game's origin (data-origin) and from
// that frame are read:
//   {type: "foresight:height", height}   resize the frame to the content
//   {type: "foresight:balance", …}       read the balance again from the partner (data-balance-url)
//   {type: "foresight:session_expired"}  load the page again: a new session
"use strict";

(function () {
  const frame = document.getElementById("game");
  if (!frame) {
    return;
  }
  const origin = frame.dataset.origin;
  const balanceURL = frame.dataset.balanceUrl;
  const shown = document.getElementById("balance");

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
        window.location.reload();
        break;
    }
  });
})();
