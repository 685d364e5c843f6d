// The session: the launch parameters, the exchange of a single-use
// session_request_id for a token, what the token says about the bettor,
// and the renewal of an expired token through the host page. The token is
// verified by the platform on every call; the widget only reads its claims
// to know the currency, whether it is a demo and when it expires.

import { clock } from "./clock.js";
import { exchangeSession, widgetConfig } from "./api.js";
import * as host from "./host.js";
import { hostOrigin, resolveLocale, resolveTheme } from "./rules.js";

// ANSWER_WAIT_MS is how long the widget waits for the host page's answer
// to foresight:session_expired before it says to reload the page; an
// answer that comes later is still taken.
export const ANSWER_WAIT_MS = 20_000;

// params reads the widget's URL parameters.
export function params(search, referrer) {
  const q = new URLSearchParams(search);
  return {
    sessionRequestID: q.get("session_request_id") ?? "",
    operator: q.get("operator") ?? "",
    locale: resolveLocale(q.get("locale")),
    theme: resolveTheme(q.get("theme")),
    integration: q.get("integration") ?? "",
    demo: /^(1|true)$/i.test(q.get("demo") ?? ""),
    hostOrigin: hostOrigin(q, referrer),
  };
}

// claims decodes a JWT's payload without verifying it.
export function claims(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const json = new TextDecoder().decode(Uint8Array.from(atob(part.padEnd(Math.ceil(part.length / 4) * 4, "=")), (c) => c.charCodeAt(0)));
    return JSON.parse(json);
  } catch {
    return null;
  }
}

// SessionError says why a session could not start: "missing" (no
// session_request_id or operator), "operator" (unknown operator),
// "expired" (the id was refused: unknown, expired or used), "failed".
export class SessionError extends Error {
  constructor(kind) {
    super(kind);
    this.kind = kind;
  }
}

// configure reads the operator's public configuration.
export async function configure(p) {
  if (!p.sessionRequestID || !p.operator) throw new SessionError("missing");
  const cfg = await widgetConfig(p.operator);
  if (cfg.status === 404) throw new SessionError("operator");
  if (!cfg.ok || !cfg.data?.session_url) throw new SessionError("failed");
  return cfg.data;
}

// lifeOf is how long a token lives from now, in ms: exp − iat, counted
// from its receipt on the monotonic clock, so that a wrong clock on the
// bettor's machine does not make a fresh token look expired. The platform
// allows some skew on exp, which covers the moment between minting and
// receipt.
function lifeOf(c) {
  if (typeof c.exp !== "number") return Infinity;
  if (typeof c.iat === "number") return (c.exp - c.iat) * 1000;
  return c.exp * 1000 - Date.now();
}

// Session holds the token the widget calls with. Its state is "active"
// (a token to use), "waiting" (the token expired or was refused: the host
// page was asked for a new session_request_id), or "ended" (no new token
// will come: calls get no token). Expiry is a 401 on a call, or the token's
// exp reached before a call.
//
// A session renews only on the standalone path, outside a demo, when the
// widget knows its host page's origin (it cannot ask otherwise): it posts
// {type: "foresight:session_expired"} to the host page and takes the
// answer {type: "foresight:session", session_request_id} from the parent
// window at that origin only, while it waits. The new token must name the
// same operator, bettor and currency, else the session ends (a page does
// not switch bettors under a bet slip). A token refused before any call
// with it succeeded ends the session too: a new one would be refused the
// same way.
//
// onState(state) reports each change: "active" (a token: at the start
// and after each renewal), "waiting", "unanswered" (no answer after
// ANSWER_WAIT_MS, or the answer's exchange failed: still waiting, and a
// later answer is taken) and "ended".
export class Session {
  constructor({ sessionURL, renewable, onState = () => {} }) {
    this.sessionURL = sessionURL;
    this.renewable = renewable;
    this.onState = onState;
    this.state = "waiting";
    this.grant = null; // {token}: one object per exchange (two exchanges can mint the same token)
    this.claims = null;
    this.expiresAt = 0; // performance.now() at which the token expires
    this.proven = false; // a call with the token succeeded
    this.waiters = []; // resolve functions of the calls waiting for a token
    this.renewals = []; // listeners called when a new token replaces an expired one
    this.asked = 0; // how many times the host page was asked
    this.exchanging = false;
    if (renewable) host.onSession((id) => this.offer(id));
  }

  // open exchanges the launch's session_request_id. When it is refused
  // (expired or used) the host page hears that the session expired; if the
  // session can renew, open then waits for the page's answer and resolves
  // once its id is exchanged. Errors: SessionError "expired" or "failed".
  async open(sessionRequestID) {
    const r = await this.exchange(sessionRequestID);
    if (r.token) {
      this.adopt(r);
      return;
    }
    if (!r.refused) throw new SessionError("failed");
    if (!this.renewable) {
      host.post({ type: "foresight:session_expired" });
      throw new SessionError("expired");
    }
    this.ask();
    if ((await this.usable()) === null) throw new SessionError("expired");
  }

  // exchange posts a session_request_id: {token, claims, balance},
  // {refused: true} for a 400 or 401, or {} for any other failure. balance
  // is the bettor's balance when the session endpoint's answer carries one
  // (a decimal string), else null.
  async exchange(sessionRequestID) {
    const s = await exchangeSession(this.sessionURL, sessionRequestID);
    if (s.status === 401 || s.status === 400) return { refused: true };
    const token = s.ok ? s.data?.auth_token : undefined;
    const c = typeof token === "string" ? claims(token) : null;
    const balance = typeof s.data?.balance === "string" && /^-?\d+(\.\d+)?$/.test(s.data.balance) ? s.data.balance : null;
    return c ? { token, claims: c, balance } : {};
  }

  adopt({ token, claims: c, balance = null }) {
    const renewed = this.grant !== null;
    this.grant = { token };
    this.claims = c;
    this.balance = balance; // the session answer's balance (the bettor's when the session began), or null
    this.expiresAt = performance.now() + lifeOf(c);
    this.proven = false;
    this.state = "active";
    const waiters = this.waiters;
    this.waiters = [];
    this.onState("active");
    if (renewed) for (const f of this.renewals) f();
    for (const resolve of waiters) resolve(this.grant);
  }

  // onRenewed calls f whenever a new token replaces an expired one.
  onRenewed(f) {
    this.renewals.push(f);
  }

  // usable resolves with the grant to call with, {token}: the current one
  // while it lasts, else the next one, or null once the session has ended.
  usable() {
    if (this.state === "active" && performance.now() >= this.expiresAt) this.expire();
    if (this.state === "active") return Promise.resolve(this.grant);
    if (this.state === "ended") return Promise.resolve(null);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  // answered records the status of a call made with grant: a 401 for the
  // current grant expires it (or ends a token that never worked); any
  // other answer proves it. The answer to a call made with an earlier
  // grant changes nothing.
  answered(grant, status) {
    if (grant !== this.grant || this.state !== "active") return;
    if (status !== 401) {
      if (status !== 0) this.proven = true;
      return;
    }
    if (!this.proven) {
      this.end();
      return;
    }
    this.expire();
  }

  expire() {
    if (this.state !== "active") return;
    if (!this.renewable) {
      this.end();
      return;
    }
    this.state = "waiting";
    this.ask();
  }

  // ask posts foresight:session_expired to the host page (again, for the
  // bettor's "Reconnect") and says so after ANSWER_WAIT_MS without an
  // answer.
  ask() {
    if (this.state !== "waiting") return;
    const n = ++this.asked;
    this.onState("waiting");
    host.post({ type: "foresight:session_expired" });
    clock.sleep(ANSWER_WAIT_MS, "session").then(() => {
      if (this.state === "waiting" && this.asked === n && !this.exchanging) this.onState("unanswered");
    });
  }

  // offer exchanges a session_request_id from the host page, taken only
  // while waiting for one.
  async offer(sessionRequestID) {
    if (this.state !== "waiting" || this.exchanging) return;
    this.exchanging = true;
    let r;
    try {
      r = await this.exchange(sessionRequestID);
    } finally {
      this.exchanging = false;
    }
    if (this.state !== "waiting") return;
    if (!r.token) {
      this.onState("unanswered");
      return;
    }
    const was = this.claims;
    if (was && (r.claims.iss !== was.iss || r.claims.sub !== was.sub || r.claims.currency !== was.currency)) {
      this.end();
      return;
    }
    this.adopt(r);
  }

  // end: no new token will come. The host page hears that the session
  // expired unless it was already asked for a new one.
  end() {
    if (this.state === "ended") return;
    const asked = this.state === "waiting";
    this.state = "ended";
    const waiters = this.waiters;
    this.waiters = [];
    if (!asked) host.post({ type: "foresight:session_expired" });
    this.onState("ended");
    for (const resolve of waiters) resolve(null);
  }
}
