// Messages to the host page (window.parent), only to the host's origin
// (rules.hostOrigin) and never with the token:
//   {type: "foresight:height", height}              the content height changed (px)
//   {type: "foresight:balance", balance, currency}  the balance changed (decimal string or null)
//   {type: "foresight:deposit", currency, amount}   the bettor asked to deposit (after insufficient_funds)
//   {type: "foresight:session_expired"}             the token expired: answer with a new session_request_id
// and the one message from it:
//   {type: "foresight:session", session_request_id} a new session_request_id for the same bettor

let target = null;

export function init(origin) {
  target = window.parent !== window ? origin : null;
}

// canAsk: the widget knows whom to ask for a new session (it is framed
// and knows the host's origin).
export function canAsk() {
  return target !== null;
}

export function post(message) {
  if (target) window.parent.postMessage(message, target);
}

// onSession calls f with the session_request_id of every foresight:session
// message that comes from the parent window at the host's origin; any
// other message is ignored.
export function onSession(f) {
  if (!target) return;
  addEventListener("message", (e) => {
    if (e.source !== window.parent || e.origin !== target) return;
    const m = e.data;
    if (!m || typeof m !== "object" || m.type !== "foresight:session") return;
    const id = m.session_request_id;
    if (typeof id === "string" && id !== "" && id.length <= 1024) f(id);
  });
}

// watchHeight posts the height of the content whenever it changes.
export function watchHeight(el) {
  let last = -1;
  const send = () => {
    const h = Math.ceil(el.getBoundingClientRect().height);
    if (h !== last) {
      last = h;
      post({ type: "foresight:height", height: h });
    }
  };
  new ResizeObserver(send).observe(el);
  send();
}
