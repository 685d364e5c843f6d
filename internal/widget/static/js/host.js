// Messages to the host page (window.parent), only to the host's origin
// (rules.hostOrigin) and never with the token:
//   {type: "foresight:height", height}              the content height changed (px)
//   {type: "foresight:balance", balance, currency}  the balance changed (decimal string or null)
//   {type: "foresight:deposit", currency, amount}   the bettor asked to deposit (after insufficient_funds)
//   {type: "foresight:session_expired"}             the token expired: load the widget with a new session_request_id

let target = null;

export function init(origin) {
  target = window.parent !== window ? origin : null;
}

export function post(message) {
  if (target) window.parent.postMessage(message, target);
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
