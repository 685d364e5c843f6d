// The real-time odds channel: GET /api/v1/odds/stream, server-sent events
// that need the bearer token in the Authorization header, which
// EventSource cannot send, so the stream is read with fetch() and parsed
// here. It carries odds, not availability. A reconnection sends the last
// SSE id read as Last-Event-ID, as EventSource would: the server sends the
// changes missed, or a snapshot of every open event's odds when it no
// longer holds them.

import { clock } from "./clock.js";

// sseParser feeds text chunks and calls onEvent({event, data, id}) for
// each complete event with data, then onId(id) for each event (with data
// or without) that has an id; comment lines (": keep-alive") are skipped.
export function sseParser(onEvent, onId = () => {}) {
  let buf = "";
  let ev = { event: "message", data: [], id: "", hasId: false };
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
        if (ev.hasId) onId(ev.id);
        ev = { event: "message", data: [], id: "", hasId: false };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") ev.event = value;
      else if (field === "data") ev.data.push(value);
      else if (field === "id") {
        ev.id = value;
        ev.hasId = true;
      }
    }
  };
}

const RECONNECT_WAITS_MS = [1000, 2000, 5000, 10000];

// streamOdds keeps the stream open until signal aborts: onConnect(resuming)
// runs on every connection, resuming false when it has no id to resume
// from (read the events then), onOdds for every odds change, onSnapshot
// with the odds of every open event when the server could not resume
// (replace what is shown). A dropped stream reconnects after 1, 2, 5, then
// 10 s. A 401 expires the session (api.session): the stream reconnects
// once it is renewed, and stops if it ends. A renewed session reconnects
// the stream at once with the new token.
export async function streamOdds(api, { onConnect, onOdds, onSnapshot, signal }) {
  let connection = null;
  let lastId = "";
  api.session.onRenewed(() => connection?.abort());
  for (let failures = 0; !signal.aborted; ) {
    const grant = await api.session.usable();
    if (grant === null || signal.aborted) return;
    connection = new AbortController();
    const renewed = connection.signal;
    let resp = null;
    try {
      const headers = { Authorization: `Bearer ${grant.token}`, Accept: "text/event-stream" };
      if (lastId !== "") headers["Last-Event-ID"] = lastId;
      resp = await fetch(`/api/v1/odds/stream?locale=${encodeURIComponent(api.locale)}`, {
        headers,
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
      onConnect(lastId !== "");
      const feed = sseParser((e) => {
        try {
          if (e.event === "odds") onOdds(JSON.parse(e.data));
          else if (e.event === "snapshot") onSnapshot(JSON.parse(e.data).odds);
        } catch {
          // a data line that is not JSON is skipped
        }
      }, (id) => {
        lastId = id;
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
