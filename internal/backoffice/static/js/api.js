// The admin API client. The admin token lives in the tab's sessionStorage
// only (never localStorage): it is gone when the tab closes or the user
// signs out.

const TOKEN_KEY = "foresight.backoffice.token";
const TIMEOUT_MS = 20_000;

export function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

export function storeToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

// query writes the non-empty values of params as a query string ("" when
// none is left).
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

// Api calls /admin/v1 with the token. Every call resolves to an answer
// {status, ok, data}: status 0 is a network error or a time-out, data the
// parsed JSON body (a problem+json body on errors). onUnauthorized runs
// on a 401.
export class Api {
  constructor(token, onUnauthorized = () => {}) {
    this.token = token;
    this.onUnauthorized = onUnauthorized;
  }

  async call(method, path, body) {
    const init = { method, headers: { Authorization: `Bearer ${this.token}` }, credentials: "omit", cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS) };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(`/admin/v1${path}`, init);
    } catch (err) {
      return { status: 0, ok: false, error: String(err?.message ?? err) };
    }
    const out = { status: resp.status, ok: resp.ok };
    const text = await resp.text().catch(() => "");
    if (text && /json/i.test(resp.headers.get("Content-Type") ?? "")) {
      try {
        out.data = JSON.parse(text);
      } catch {
        out.error = "The answer is not valid JSON.";
      }
    }
    if (resp.status === 401) this.onUnauthorized();
    return out;
  }

  get(path, params) {
    return this.call("GET", path + query(params));
  }

  post(path, body) {
    return this.call("POST", path, body);
  }

  patch(path, body) {
    return this.call("PATCH", path, body);
  }

  delete(path) {
    return this.call("DELETE", path);
  }
}

// describe is the message of a failed answer: the problem's detail and
// code, or what went wrong on the way.
export function describe(a) {
  if (a.status === 0) return `The server could not be reached (${a.error ?? "network error"}).`;
  const p = a.data;
  if (p && typeof p === "object" && (p.detail || p.title)) {
    return `${p.detail || p.title}${p.code ? ` (${p.code}, HTTP ${a.status})` : ` (HTTP ${a.status})`}`;
  }
  return `The server answered HTTP ${a.status}${a.error ? `: ${a.error}` : "."}`;
}

// path escapes one path segment.
export function seg(s) {
  return encodeURIComponent(String(s));
}
