// Exact decimal arithmetic on the API's decimal strings ("0.35", "150",
// "-3.5") with BigInt: no float ever holds a probability or an amount.

const SIGNED = /^(-?)(\d+)(?:\.(\d+))?$/;

// parse reads a plain decimal ("10", "0.125", "-3.5") into {units, scale}:
// the value is units / 10^scale. Anything else is null.
export function parse(s) {
  const m = SIGNED.exec(String(s ?? "").trim());
  if (!m) return null;
  const frac = m[3] ?? "";
  const units = BigInt(m[2] + frac);
  return { units: m[1] ? -units : units, scale: frac.length };
}

function align(x, y) {
  const scale = Math.max(x.scale, y.scale);
  return [x.units * 10n ** BigInt(scale - x.scale), y.units * 10n ** BigInt(scale - y.scale), scale];
}

// sum adds decimal strings exactly; null when one is not a decimal.
export function sum(values) {
  let total = { units: 0n, scale: 0 };
  for (const v of values) {
    const x = parse(v);
    if (!x) return null;
    const [a, b, scale] = align(total, x);
    total = { units: a + b, scale };
  }
  return format(total);
}

// compare returns -1, 0 or 1 as a is below, equal to or above b; null when
// either is not a decimal.
export function compare(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return null;
  const [xu, yu] = align(x, y);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}

// isProbability: a plain decimal strictly between 0 and 1 ("0.35", ".5").
export function isProbability(s) {
  const str = String(s ?? "").trim();
  if (!/^0?\.\d+$/.test(str)) return false;
  return compare(str.startsWith(".") ? "0" + str : str, "0") === 1;
}

// percent writes a probability as a percentage: "0.355" → "35.5%".
export function percent(p) {
  const x = parse(p);
  if (!x) return "—";
  const shifted = x.scale >= 2 ? { units: x.units, scale: x.scale - 2 } : { units: x.units * 10n ** BigInt(2 - x.scale), scale: 0 };
  return `${format(shifted)}%`;
}

// fraction is a / b as a number between 0 and 1 (clamped), for the length
// of a bar: geometry only, never shown as an amount. 0 when b is not
// positive.
export function fraction(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return 0;
  const [xu, yu] = align(x, y);
  if (yu <= 0n || xu <= 0n) return 0;
  if (xu >= yu) return 1;
  return Number((xu * 10000n) / yu) / 10000;
}

// difference is a - b as a decimal string, exactly; null when either is
// not a decimal.
export function difference(a, b) {
  const y = parse(b);
  if (!y) return null;
  return sum([a, format({ units: -y.units, scale: y.scale })]);
}

// max returns the larger of two decimal strings (a when either is not a
// decimal).
export function max(a, b) {
  return compare(a, b) === -1 ? b : a;
}

function format({ units, scale }) {
  const neg = units < 0n;
  let digits = (neg ? -units : units).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = digits.slice(0, -scale) + "." + digits.slice(-scale);
    digits = digits.replace(/\.?0+$/, "");
  }
  return (neg ? "-" : "") + digits;
}
