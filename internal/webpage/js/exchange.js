// One HTTP exchange with an API of the platform: the call both pages' API
// clients make (the widget's api.js, the backoffice's api.js). The widget
// and the backoffice share this module (internal/webpage).

// exchange sends one request (init as fetch takes it; no cookies, no
// cache) and resolves to its answer, never rejecting: {status, ok, data,
// error, parseError}. status 0 is a network error or a time-out (after
// timeout ms), error then says which. data is the parsed body of an
// answer whose Content-Type is JSON (a problem+json body on errors);
// parseError is true, with error, when such a body could not be read or
// is not JSON.
export async function exchange(url, init, timeout) {
  let resp;
  try {
    resp = await fetch(url, { ...init, signal: AbortSignal.timeout(timeout), credentials: "omit", cache: "no-store" });
  } catch (err) {
    return { status: 0, ok: false, error: String(err?.message ?? err) };
  }
  let text = "";
  try {
    text = await resp.text();
  } catch (err) {
    return { status: resp.status, ok: false, error: String(err?.message ?? err), parseError: true };
  }
  const out = { status: resp.status, ok: resp.ok };
  if (text && /json/i.test(resp.headers.get("Content-Type") ?? "")) {
    try {
      out.data = JSON.parse(text);
    } catch {
      out.parseError = true;
      out.error = "The answer is not valid JSON.";
    }
  }
  return out;
}

// describe is the message of a failed answer: the problem's detail (or
// title) and code, or what went wrong on the way.
export function describe(a) {
  if (a.status === 0) return `The server could not be reached (${a.error ?? "network error"}).`;
  const p = a.data;
  if (p && typeof p === "object" && (p.detail || p.title)) {
    return `${p.detail || p.title}${p.code ? ` (${p.code}, HTTP ${a.status})` : ` (HTTP ${a.status})`}`;
  }
  return `The server answered HTTP ${a.status}${a.error ? `: ${a.error}` : "."}`;
}

// query writes the non-empty values of params (not undefined, null or "")
// as a query string with its "?" ("" when none is left).
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const str = q.toString();
  return str ? `?${str}` : "";
}
