// The slip's price chart: the selected outcome's chance over the time the
// widget has been open, drawn from the prices it has seen (the event reads
// and every change of the odds stream). The bettor API has no history
// endpoint: see docs/decisions.md.

import * as fmt from "./format.js";
import { locale, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 280;
const H = 56;

// MAX_POINTS is how many prices of an outcome are kept (the oldest go).
const MAX_POINTS = 200;

// PriceLog records the prices seen of each outcome, oldest first: {odds,
// probability}.
export class PriceLog {
  constructor() {
    this.byOutcome = new Map();
  }

  // seen records an outcome's price when it differs from the last one.
  seen(outcomeID, odds, probability) {
    if (!odds || !probability) return;
    const list = this.byOutcome.get(outcomeID) ?? [];
    const last = list[list.length - 1];
    if (last && last.odds === odds && last.probability === probability) return;
    list.push({ odds, probability });
    if (list.length > MAX_POINTS) list.shift();
    this.byOutcome.set(outcomeID, list);
  }

  points(outcomeID) {
    return this.byOutcome.get(outcomeID) ?? [];
  }
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// priceChart makes the chart's nodes for points (oldest first): a stepped
// line of the chance, one step per price seen (the scale fits the prices seen, at least 10 points
// of percentage high), with a caption saying what it shows in words, for
// screen readers too. One price is a flat line.
export function priceChart(points) {
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
  // Each price seen is one step, evenly spaced: the chart reads as "how
  // the chance went", and a burst of changes is as legible as a slow day.
  const step = W / points.length;
  const y = (p) => H - 4 - ((p - lo) / (hi - lo)) * (H - 8);
  const coords = [];
  probs.forEach((p, i) => {
    coords.push(`${(i * step).toFixed(1)},${y(p).toFixed(1)}`, `${((i + 1) * step).toFixed(1)},${y(p).toFixed(1)}`);
  });
  const moved = Number(last.probability) - Number(first.probability);
  const trend = moved > 0 ? "up" : moved < 0 ? "down" : "flat";
  const chart = svg("svg", { class: "price-chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", "aria-hidden": "true", "data-trend": trend, "data-points": points.length });
  chart.append(svg("polygon", { class: "area", points: `0,${H} ${coords.join(" ")} ${W},${H}` }),
    svg("line", { class: "axis", x1: 0, y1: H - 1, x2: W, y2: H - 1 }), svg("polyline", { points: coords.join(" "), fill: "none" }));
  const caption = document.createElement("figcaption");
  caption.textContent = points.length === 1
    ? t("chart.one", { chance: fmt.percent(last.probability, locale()), odds: fmt.odds(last.odds, locale()) })
    : t("chart.moves", {
      from: fmt.percent(first.probability, locale()), to: fmt.percent(last.probability, locale()),
      odds: fmt.odds(last.odds, locale()), count: points.length,
    });
  return [chart, caption];
}
