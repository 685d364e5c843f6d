// The bettor API client. Error bodies are diagnostic text: decisions are
// made from the HTTP status (and, for a rejected bet, rejection_code).
// Every call resolves to an answer of the shared exchange (exchange.js):
// status 0 is a network error or a time-out.

import { exchange, query } from "./exchange.js";

// PLACE_TIMEOUT_MS bounds a place-bet call; the server's own limit is 3 s,
// so the client's must be above it (Limits table).
export const PLACE_TIMEOUT_MS = 10_000;

const READ_TIMEOUT_MS = 15_000;

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
    return this.call("GET", `/api/v1/events${query({ locale: this.locale, limit, category, status, cursor })}`);
  }

  event(id) {
    return this.call("GET", `/api/v1/events/${encodeURIComponent(id)}?locale=${encodeURIComponent(this.locale)}`);
  }

  // priceHistory reads how an outcome's odds moved over its market's life,
  // thinned on the server to at most points.
  priceHistory(marketID, outcomeID, points = 120) {
    return this.call("GET", `/api/v1/markets/${encodeURIComponent(marketID)}/price-history${query({ outcome_id: outcomeID, points })}`);
  }

  // placeBet sends one attempt of a bet with its Idempotency-Key.
  placeBet(bet, key) {
    return this.call("POST", "/api/v1/bettor/bets", { body: bet, headers: { "Idempotency-Key": key }, timeout: PLACE_TIMEOUT_MS });
  }

  bet(id) {
    return this.call("GET", `/api/v1/bettor/bets/${encodeURIComponent(id)}`);
  }

  bets({ status = "", cursor = "", limit = 20 } = {}) {
    return this.call("GET", `/api/v1/bettor/bets${query({ limit, status, cursor })}`);
  }

  portfolio() {
    return this.call("GET", "/api/v1/bettor/portfolio");
  }

  me() {
    return this.call("GET", "/api/v1/auth/me");
  }
}
