// The shape of both pages' price charts: a stepped line over time, where a
// price holds from its point until the next one and the last until the
// end of the plot. The widget and the backoffice share this module
// (internal/webpage).

// steps returns the vertices [[x, y], …] of the stepped line through
// points (oldest first): x(point) and y(point, index) place a point on the
// plot, end is the x where the line stops. No points, no vertices.
export function steps(points, x, y, end) {
  const out = [];
  points.forEach((p, i) => {
    const py = y(p, i);
    out.push([x(p), py], [i + 1 < points.length ? x(points[i + 1]) : end, py]);
  });
  return out;
}
