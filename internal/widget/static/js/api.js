// The bettor API client. Error bodies are diagnostic text: decisions are
// made from the HTTP status (and, for a rejected bet, rejection_code).

// PLACE_TIMEOUT_MS bounds a place-bet call; the server's own limit is 3 s,
// so the client's must be above it (Limits table).
export const PLACE_TIMEOUT_MS = 10_000;

const READ_TIMEOUT_MS = 15_000;

// Answer is a finished exchange: status 0 is a network error or a
// time-out; data is the parsed JSON body, or undefined when the body is
// not JSON (parseError then says so for a body that should have been).
async function exchange(url, init, timeout) {
  const signal = AbortSignal.timeout(timeout);
  let resp;
  try {
    resp = await fetch(url, { ...init, signal, credentials: "omit", cache: "no-store" });
  } catch (err) {
    return { status: 0, ok: false, error: String(err) };
  }
  let text = "";
  try {
    text = await resp.text();
  } catch (err) {
    return { status: resp.status, ok: false, error: String(err), parseError: true };
  }
  const out = { status: resp.status, ok: resp.ok };
  if (/json/i.test(resp.headers.get("Content-Type") ?? "")) {
    try {
      out.data = JSON.parse(text);
    } catch {
      out.parseError = true;
    }
  }
  return out;
}

// widgetConfig reads an operator's public widget configuration (no token).
export function widgetConfig(operator) {
  return exchange(`/api/v1/widget/operators/${encodeURIComponent(operator)}`, { method: "GET" }, READ_TIMEOUT_MS);
}

// exchangeSession posts the session_request_id to the session endpoint
// (the operator's POST /v1/session or the platform's /api/v1/sessions).
export function exchangeSession(url, sessionRequestID) {
  return exchange(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ session_request_id: sessionRequestID }),
  }, READ_TIMEOUT_MS);
}

// Api calls the bettor API with the token of session (session.js). A call
// made while the session is expired, or answered 401, waits for the
// session's renewal and is then sent again exactly as it was: the same
// body and headers, so a bet keeps its Idempotency-Key across the
// renewal. Once the session has ended a call answers status 401 without
// being sent.
export class Api {
  constructor(session, { locale = "en" } = {}) {
    this.session = session;
    this.locale = locale;
  }

  async call(method, path, { body, headers = {}, timeout = READ_TIMEOUT_MS } = {}) {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    for (;;) {
      const grant = await this.session.usable();
      if (grant === null) return { status: 401, ok: false };
      const a = await exchange(path, { ...init, headers: { ...init.headers, Authorization: `Bearer ${grant.token}` } }, timeout);
      this.session.answered(grant, a.status);
      if (a.status !== 401) return a;
    }
  }

  events({ category = "", status = "", cursor = "", limit = 50 } = {}) {
    const q = new URLSearchParams({ locale: this.locale, limit: String(limit) });
    if (category) q.set("category", category);
    if (status) q.set("status", status);
    if (cursor) q.set("cursor", cursor);
    return this.call("GET", `/api/v1/events?${q}`);
  }

  event(id) {
    return this.call("GET", `/api/v1/events/${encodeURIComponent(id)}?locale=${encodeURIComponent(this.locale)}`);
  }

  // priceHistory reads how an outcome's odds moved over its market's life,
  // thinned on the server to at most points.
  priceHistory(marketID, outcomeID, points = 120) {
    const q = new URLSearchParams({ outcome_id: outcomeID, points: String(points) });
    return this.call("GET", `/api/v1/markets/${encodeURIComponent(marketID)}/price-history?${q}`);
  }

  // placeBet sends one attempt of a bet with its Idempotency-Key.
  placeBet(bet, key) {
    return this.call("POST", "/api/v1/bettor/bets", { body: bet, headers: { "Idempotency-Key": key }, timeout: PLACE_TIMEOUT_MS });
  }

  bet(id) {
    return this.call("GET", `/api/v1/bettor/bets/${encodeURIComponent(id)}`);
  }

  bets({ status = "", cursor = "", limit = 20 } = {}) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (status) q.set("status", status);
    if (cursor) q.set("cursor", cursor);
    return this.call("GET", `/api/v1/bettor/bets?${q}`);
  }

  portfolio() {
    return this.call("GET", "/api/v1/bettor/portfolio");
  }

  me() {
    return this.call("GET", "/api/v1/auth/me");
  }
}
