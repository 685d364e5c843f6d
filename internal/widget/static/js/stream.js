// The real-time odds channel: GET /api/v1/odds/stream, server-sent events
// that need the bearer token in the Authorization header, which
// EventSource cannot send, so the stream is read with fetch() and parsed
// here. It carries odds, not availability; the stream sends no snapshot,
// so the caller reads the events again on every (re)connection.

import { clock } from "./clock.js";

// parseSSE feeds text chunks and calls onEvent({event, data, id}) for each
// complete event; comment lines (": keep-alive") are skipped.
export function sseParser(onEvent) {
  let buf = "";
  let ev = { event: "message", data: [], id: "" };
  return (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
      // A "\r" at the end may be the first half of a "\r\n": wait.
      if (buf[nl] === "\r" && nl === buf.length - 1) break;
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (ev.data.length > 0) onEvent({ event: ev.event, data: ev.data.join("\n"), id: ev.id });
        ev = { event: "message", data: [], id: "" };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") ev.event = value;
      else if (field === "data") ev.data.push(value);
      else if (field === "id") ev.id = value;
    }
  };
}

const RECONNECT_WAITS_MS = [1000, 2000, 5000, 10000];

// streamOdds keeps the stream open until signal aborts: onConnect runs on
// every connection (read the events then), onOdds for every odds change.
// A dropped stream reconnects after 1, 2, 5, then 10 s. A 401 expires the
// session (api.session): the stream reconnects once it is renewed, and
// stops if it ends. A renewed session reconnects the stream at once with
// the new token.
export async function streamOdds(api, { onConnect, onOdds, signal }) {
  let connection = null;
  api.session.onRenewed(() => connection?.abort());
  for (let failures = 0; !signal.aborted; ) {
    const grant = await api.session.usable();
    if (grant === null || signal.aborted) return;
    connection = new AbortController();
    const renewed = connection.signal;
    let resp = null;
    try {
      resp = await fetch(`/api/v1/odds/stream?locale=${encodeURIComponent(api.locale)}`, {
        headers: { Authorization: `Bearer ${grant.token}`, Accept: "text/event-stream" },
        signal: AbortSignal.any([signal, renewed]),
        credentials: "omit",
        cache: "no-store",
      });
    } catch {
      resp = null;
    }
    api.session.answered(grant, resp ? resp.status : 0);
    if (resp && resp.status === 401) continue;
    if (resp && resp.ok && resp.body) {
      failures = 0;
      onConnect();
      const feed = sseParser((e) => {
        if (e.event !== "odds") return;
        try {
          onOdds(JSON.parse(e.data));
        } catch {
          // a data line that is not JSON is skipped
        }
      });
      const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          feed(value);
        }
      } catch {
        // the connection dropped: reconnect below
      }
    }
    if (signal.aborted) return;
    if (renewed.aborted) {
      failures = 0;
      continue;
    }
    await clock.sleep(RECONNECT_WAITS_MS[Math.min(failures, RECONNECT_WAITS_MS.length - 1)], "stream");
    failures++;
  }
}
