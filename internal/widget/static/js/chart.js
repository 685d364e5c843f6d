// The slip's price chart: the selected outcome's chance over its market's
// life, on a time axis. The outcome's history is read once from the
// bettor API (GET /api/v1/markets/{id}/price-history, thinned on the
// server) and every price the widget sees after that (the odds stream and
// the event reads) is added to it. Until the history has come, or when it
// cannot be read, the chart draws the prices seen since the page opened
// and says so. See docs/decisions.md.

import { h, s as svg } from "./elements.js";
import * as fmt from "./format.js";
import { locale, t } from "./i18n.js";
import { steps } from "./steps.js";

const W = 280;
const H = 56;

// MAX_POINTS is how many prices seen of an outcome are kept (the oldest
// go); the history read from the server has at most 120 more.
const MAX_POINTS = 200;

// PriceLog keeps, per outcome, the prices seen ({at, odds, probability},
// at in milliseconds, oldest first) and the history read from the server.
export class PriceLog {
  constructor() {
    this.seenBy = new Map(); // outcome id → prices seen
    this.historyBy = new Map(); // outcome id → {points, asked}
    this.asking = new Set(); // outcome ids whose history is being read
  }

  // seen records an outcome's price when it differs from the last one seen.
  seen(outcomeID, odds, probability, at = Date.now()) {
    if (!odds || !probability) return;
    const list = this.seenBy.get(outcomeID) ?? [];
    const last = list[list.length - 1];
    if (last && last.odds === odds && last.probability === probability) return;
    list.push({ at, odds, probability });
    if (list.length > MAX_POINTS) list.shift();
    this.seenBy.set(outcomeID, list);
  }

  // needsHistory reports whether the outcome's history is still to be read
  // (neither read nor being read).
  needsHistory(outcomeID) {
    return !this.historyBy.has(outcomeID) && !this.asking.has(outcomeID);
  }

  // asked marks the outcome's history as being read; loaded gives the
  // points the server answered (the bettor API's {at, display_odds,
  // display_probability}), or null when the read failed (it may be tried
  // again at the next selection).
  asked(outcomeID) {
    this.asking.add(outcomeID);
    return Date.now();
  }

  loaded(outcomeID, points, asked) {
    this.asking.delete(outcomeID);
    const list = (points ?? []).map((p) => ({ at: Date.parse(p.at), odds: p.display_odds, probability: p.display_probability }))
      .filter((p) => Number.isFinite(p.at) && p.odds && p.probability);
    if (list.length > 0) this.historyBy.set(outcomeID, { points: list, asked });
  }

  // line is what the chart draws for an outcome: {points, history} where
  // history tells whether points start with the server's history. The
  // prices seen since the history was asked for follow it, each only when
  // it differs from the price before (the history may already have it),
  // never dated before the history's last point.
  line(outcomeID) {
    const seen = this.seenBy.get(outcomeID) ?? [];
    const read = this.historyBy.get(outcomeID);
    if (!read) return { points: seen, history: false };
    const out = [...read.points];
    for (const p of seen) {
      if (p.at < read.asked) continue;
      const last = out[out.length - 1];
      if (last.odds === p.odds && last.probability === p.probability) continue;
      out.push({ ...p, at: Math.max(p.at, last.at) });
    }
    return { points: out, history: true };
  }
}

// sinceText is when a chart starts: the time alone today, else the date
// and the time, in the bettor's language.
function sinceText(at) {
  const d = new Date(at);
  const today = new Date().toDateString() === d.toDateString();
  return new Intl.DateTimeFormat(locale(), today ? { timeStyle: "short" } : { dateStyle: "medium", timeStyle: "short" }).format(d);
}

// priceChart makes the chart's nodes for a line (PriceLog.line): a
// stepped line of the chance on a time axis from the first price to now,
// each price held until the next (the scale fits the prices, at least 10
// points of percentage high), with a caption saying what it shows in
// words, for screen readers too. One price is a flat line.
export function priceChart({ points, history }, now = Date.now()) {
  if (points.length === 0) return [];
  const first = points[0];
  const last = points[points.length - 1];
  const probs = points.map((p) => Number(p.probability));
  let lo = Math.min(...probs);
  let hi = Math.max(...probs);
  if (hi - lo < 10) {
    const mid = (hi + lo) / 2;
    lo = Math.max(0, mid - 5);
    hi = Math.min(100, lo + 10);
    lo = hi - 10;
  }
  const start = first.at;
  const end = Math.max(now, last.at);
  const x = (at) => (end > start ? ((at - start) / (end - start)) * W : 0);
  const y = (p) => H - 4 - ((p - lo) / (hi - lo)) * (H - 8);
  const coords = steps(points, (p) => x(p.at), (p, i) => y(probs[i]), W).map(([vx, vy]) => `${vx.toFixed(1)},${vy.toFixed(1)}`);
  const moved = Number(last.probability) - Number(first.probability);
  const trend = moved > 0 ? "up" : moved < 0 ? "down" : "flat";
  const pointList = coords.join(" ");
  const chart = svg("svg", {
    class: "price-chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", "aria-hidden": "true",
    "data-trend": trend, "data-points": points.length, "data-source": history ? "history" : "seen",
  },
    svg("polygon", { class: "area", points: `0,${H} ${pointList} ${W},${H}` }),
    svg("line", { class: "axis", x1: 0, y1: H - 1, x2: W, y2: H - 1 }),
    svg("polyline", { points: pointList, fill: "none" }));
  return [chart, h("figcaption", {}, captionText(points, history))];
}

// captionText says in words what a chart of the points shows: the chance
// from the first price to the last and the last odds, since when (the
// history's start) or, without the history, how many prices were seen.
function captionText(points, history) {
  const first = points[0];
  const last = points[points.length - 1];
  const chance = (p) => fmt.percent(p.probability, locale());
  const odds = fmt.odds(last.odds, locale());
  if (history) {
    const since = sinceText(first.at);
    return points.length === 1 ? t("chart.since_one", { chance: chance(last), odds, since })
      : t("chart.since_moves", { from: chance(first), to: chance(last), since, odds });
  }
  return points.length === 1 ? t("chart.one", { chance: chance(last), odds })
    : t("chart.moves", { from: chance(first), to: chance(last), odds, count: points.length });
}
