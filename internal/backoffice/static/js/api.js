// The admin API client. The admin token lives in the tab's sessionStorage
// only (never localStorage): it is gone when the tab closes or the user
// signs out.

import { exchange, query } from "./exchange.js";

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

// Api calls /admin/v1 with the token. Every call resolves to an answer
// of the shared exchange (exchange.js): status 0 is a network error or a
// time-out, data the parsed JSON body (a problem+json body on errors).
// onUnauthorized runs on a 401.
export class Api {
  constructor(token, onUnauthorized = () => {}) {
    this.token = token;
    this.onUnauthorized = onUnauthorized;
  }

  async call(method, path, body) {
    const init = { method, headers: { Authorization: `Bearer ${this.token}` } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const a = await exchange(`/admin/v1${path}`, init, TIMEOUT_MS);
    if (a.status === 401) this.onUnauthorized();
    return a;
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

// path escapes one path segment.
export function seg(s) {
  return encodeURIComponent(String(s));
}
