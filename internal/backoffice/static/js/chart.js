// Plots as inline SVG built node by node: bars of exposure against limits,
// counts and sums over time, and values (prices) over time as lines.
// Lengths come from exact decimal ratios (decimal.js); the numbers shown
// are the API's own strings (axis ticks are round labels the plot makes).

import { compare, difference, fraction, max } from "./decimal.js";
import { s } from "./elements.js";
import { steps } from "./steps.js";

function clip(text, n) {
  const str = String(text);
  return str.length > n ? `${str.slice(0, n - 1)}…` : str;
}

// limitBars draws one bar per row: value (a potential payout) against its
// limit, the track as long as the limit and a dashed mark where the limit
// is; a bar past its limit is red. rows: [{label, value, limit, unit,
// shown}] (shown: the text beside the bar, else "value of limit unit").
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
      s("text", { x: labelW + barW + 10, y: y + 21 }, clip(r.shown ?? `${r.value} of ${r.limit} ${r.unit ?? ""}`.trim(), 36)),
    );
  });
  return svg;
}

// columns draws a bar per bucket (e.g. a day): buckets [{label, value}]
// with value a decimal string; the tallest bar is the largest value.
// show(value) writes a value (an amount in its minor units); by default
// as it is.
export function columns(buckets, title, unit = "", show = (v) => v) {
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
      s("title", {}, `${b.label}: ${show(b.value)}${unit ? ` ${unit}` : ""}`)));
    if (buckets.length <= 24) {
      svg.append(s("text", { x: mid.toFixed(1), y: (H - bottom - hgt - 4).toFixed(1), "text-anchor": "middle" }, clip(show(b.value), 12)));
    }
    if (i % labelEvery === 0) {
      svg.append(s("text", { x: mid.toFixed(1), y: H - bottom + 16, "text-anchor": "middle" }, clip(b.label, 10)));
    }
  });
  svg.append(s("text", { x: left, y: 14 }, `max ${show(top)}${unit ? ` ${unit}` : ""}`));
  return svg;
}

// SERIES_STYLES is how many series look different (colour and dash, see
// .series-N in the CSS); later series reuse the styles.
export const SERIES_STYLES = 8;

// steps of the time axis, in seconds.
const TIME_STEPS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400, 172800, 604800, 2592000];

// timeTicks returns about five round times (ms) between from and to, with
// their labels in UTC: seconds for spans under a few minutes, dates past
// two days.
function timeTicks(from, to) {
  const span = (to - from) / 1000;
  const step = (TIME_STEPS.find((st) => span / st <= 5) ?? TIME_STEPS[TIME_STEPS.length - 1]) * 1000;
  const label = (t) => {
    const iso = new Date(t).toISOString();
    if (span > 2 * 86400) return iso.slice(5, 10);
    return step < 60000 ? iso.slice(11, 19) : iso.slice(11, 16);
  };
  const ticks = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push({ at: t, label: label(t) });
  return ticks;
}

// valueRange returns a y range {lo, hi, ticks} of round decimal strings
// around values (decimal strings, not all empty), never below floor: the
// axis of display odds (floor "1").
export function valueRange(values, floor) {
  const nums = values.map(Number).filter((v) => Number.isFinite(v));
  let min = Math.min(...nums);
  let max = Math.max(...nums);
  if (!(max > min)) {
    min -= 0.1;
    max += 0.1;
  }
  const raw = (max - min) / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw);
  const lo = Math.max(Number(floor), Math.floor(min / step) * step);
  const hi = Math.ceil(max / step) * step;
  const ticks = [];
  for (let i = 0; lo + i * step <= hi + step / 1000; i += 1) ticks.push(round(lo + i * step));
  return { lo: round(lo), hi: round(hi), ticks };
}

// round writes a tick value without float noise ("2.5", not "2.4999…").
function round(v) {
  return String(Number(v.toFixed(6)));
}

// lines draws one stepped line per series over time: a value holds from
// its point until the next one, the last one until the end of the time
// range (a price stays until it changes), with a dot at each point inside
// the range. Each series is a <g data-series=key data-points=n>.
// spec: {title, from, to (ms), lo, hi (decimal strings: the y range),
// ticks (decimal strings), tickLabel(v), series: [{key, label, points:
// [{at (ms), value (decimal string), text}]}]}.
export function lines(spec) {
  const W = 720;
  const H = 260;
  const left = 52;
  const right = 12;
  const top = 12;
  const bottom = 28;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const span = Math.max(spec.to - spec.from, 1);
  const x = (at) => left + plotW * Math.min(Math.max((at - spec.from) / span, 0), 1);
  const range = difference(spec.hi, spec.lo);
  const y = (v) => top + plotH * (1 - fraction(difference(v, spec.lo), range));
  const svg = s("svg", { class: "chart lines", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": spec.title }, s("title", {}, spec.title));
  for (const t of spec.ticks) {
    const ty = y(t).toFixed(1);
    svg.append(
      s("line", { class: "grid", x1: left, x2: W - right, y1: ty, y2: ty }),
      s("text", { x: left - 6, y: (Number(ty) + 4).toFixed(1), "text-anchor": "end" }, spec.tickLabel(t)));
  }
  for (const t of timeTicks(spec.from, spec.to)) {
    const tx = x(t.at).toFixed(1);
    svg.append(
      s("line", { class: "axis", x1: tx, x2: tx, y1: H - bottom, y2: H - bottom + 4 }),
      s("text", { x: tx, y: H - bottom + 18, "text-anchor": "middle" }, t.label));
  }
  svg.append(
    s("line", { class: "axis", x1: left, x2: left, y1: top, y2: H - bottom }),
    s("line", { class: "axis", x1: left, x2: W - right, y1: H - bottom, y2: H - bottom }));
  spec.series.forEach((sr, i) => {
    const g = s("g", { class: `series series-${i % SERIES_STYLES}`, "data-series": sr.key, "data-points": sr.points.length });
    if (sr.points.length > 0) {
      const d = steps(sr.points, (p) => x(p.at), (p) => y(p.value), x(spec.to))
        .map(([vx, vy], k) => `${k === 0 ? "M" : "L"}${vx.toFixed(1)} ${vy.toFixed(1)}`).join("");
      g.append(s("path", { class: "line", d }, s("title", {}, sr.label)));
      if (sr.points.length <= 200) {
        for (const p of sr.points) {
          if (p.at < spec.from) continue;
          g.append(s("circle", { class: "dot", cx: x(p.at).toFixed(1), cy: y(p.value).toFixed(1), r: 3.5 }, s("title", {}, `${sr.label}: ${p.text}`)));
        }
      }
    }
    svg.append(g);
  });
  return svg;
}

// swatch is a short sample of series i's line, for a legend.
export function swatch(i) {
  return s("svg", { class: `swatch series-${i % SERIES_STYLES}`, viewBox: "0 0 28 10", "aria-hidden": "true" },
    s("line", { class: "line", x1: 1, x2: 27, y1: 5, y2: 5 }));
}
