// Plots as inline SVG built node by node: bars of exposure against limits,
// and counts and sums over time. Lengths come from exact decimal ratios
// (decimal.js); the numbers shown are the API's own strings.

import { s } from "./dom.js";
import { compare, fraction, max } from "./decimal.js";

function clip(text, n) {
  const str = String(text);
  return str.length > n ? `${str.slice(0, n - 1)}…` : str;
}

// limitBars draws one bar per row: value (a potential payout) against its
// limit, the track as long as the limit and a dashed mark where the limit
// is; a bar past its limit is red. rows: [{label, value, limit, unit}].
export function limitBars(rows, title) {
  const W = 720;
  const labelW = 190;
  const barW = 300;
  const rowH = 34;
  const pad = 6;
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${pad * 2 + rows.length * rowH}`, role: "img", "aria-label": title },
    s("title", {}, title));
  rows.forEach((r, i) => {
    const y = pad + i * rowH;
    const scale = max(r.limit, r.value);
    const track = barW * fraction(r.limit, scale);
    const bar = barW * fraction(r.value, scale);
    const over = compare(r.value, r.limit) === 1;
    svg.append(
      s("text", { x: 0, y: y + 21 }, clip(r.label, 26)),
      s("rect", { class: "track", x: labelW, y: y + 6, width: track.toFixed(1), height: 20 }),
      s("rect", { class: over ? "bar over" : "bar", x: labelW, y: y + 6, width: (bar > 0 ? Math.max(bar, 2) : 0).toFixed(1), height: 20 }),
      s("line", { class: "limit", x1: (labelW + track).toFixed(1), x2: (labelW + track).toFixed(1), y1: y + 2, y2: y + 30 }),
      s("text", { x: labelW + barW + 10, y: y + 21 }, clip(`${r.value} of ${r.limit} ${r.unit ?? ""}`.trim(), 36)),
    );
  });
  return svg;
}

// columns draws a bar per bucket (e.g. a day): buckets [{label, value}]
// with value a decimal string; the tallest bar is the largest value.
export function columns(buckets, title, unit = "") {
  const W = 720;
  const H = 200;
  const left = 10;
  const bottom = 36;
  const plotH = H - bottom - 24;
  const top = buckets.reduce((m, b) => max(m, b.value), "0");
  const step = (W - left * 2) / Math.max(buckets.length, 1);
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title }, s("title", {}, title),
    s("line", { class: "axis", x1: left, x2: W - left, y1: H - bottom, y2: H - bottom }));
  const labelEvery = Math.ceil(buckets.length / 12);
  buckets.forEach((b, i) => {
    const hgt = plotH * fraction(b.value, top);
    const x = left + i * step;
    const w = Math.min(Math.max(step * 0.7, 1), 56);
    const mid = x + step / 2;
    svg.append(s("rect", { class: "bar", x: (mid - w / 2).toFixed(1), y: (H - bottom - hgt).toFixed(1), width: w.toFixed(1), height: hgt.toFixed(1) },
      s("title", {}, `${b.label}: ${b.value}${unit ? ` ${unit}` : ""}`)));
    if (buckets.length <= 24) {
      svg.append(s("text", { x: mid.toFixed(1), y: (H - bottom - hgt - 4).toFixed(1), "text-anchor": "middle" }, clip(b.value, 12)));
    }
    if (i % labelEvery === 0) {
      svg.append(s("text", { x: mid.toFixed(1), y: H - bottom + 16, "text-anchor": "middle" }, clip(b.label, 10)));
    }
  });
  svg.append(s("text", { x: left, y: 14 }, `max ${top}${unit ? ` ${unit}` : ""}`));
  return svg;
}
