// The session: the launch parameters, the exchange of the single-use
// session_request_id for a token, and what the token says about the
// bettor. The token is verified by the platform on every call; the widget
// only reads its claims to know the currency and whether it is a demo.

import { exchangeSession, widgetConfig } from "./api.js";
import { hostOrigin, resolveLocale, resolveTheme } from "./rules.js";

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

// start reads the operator's configuration and exchanges the
// session_request_id. It returns {config, token, claims, demo}.
export async function start(p) {
  if (!p.sessionRequestID || !p.operator) throw new SessionError("missing");
  const cfg = await widgetConfig(p.operator);
  if (cfg.status === 404) throw new SessionError("operator");
  if (!cfg.ok || !cfg.data?.session_url) throw new SessionError("failed");
  const s = await exchangeSession(cfg.data.session_url, p.sessionRequestID);
  if (s.status === 401 || s.status === 400) throw new SessionError("expired");
  if (!s.ok || typeof s.data?.auth_token !== "string") throw new SessionError("failed");
  const c = claims(s.data.auth_token);
  if (!c) throw new SessionError("failed");
  return { config: cfg.data, token: s.data.auth_token, claims: c, demo: c.demo === true || p.demo };
}
