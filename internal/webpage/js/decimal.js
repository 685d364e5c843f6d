// Exact decimal arithmetic on the APIs' decimal strings ("10.00", "4.4214",
// "-3.5") with BigInt: no float ever holds an amount, odds or a
// probability. The widget and the backoffice share this module
// (internal/webpage).
//
// The rules: a decimal is an optional "-", digits, and optionally a point
// and digits ("10", "0.125", "-3.5"; not "+1", ".5", "1.", "1e3", "1,5"),
// with spaces around it ignored; where an argument is not one, a function
// answers null (or the default it names). Results are exact and written
// plainly: no trailing zeros after the point and no point without digits
// after it ("4.40" + "0.60" is "5", 10.00 × 4.42 is "44.2", 0 − 0 is "0").
// Rounding for display is format.js's (the display rule).

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

// parse reads a decimal into {units, scale}: the value is units / 10^scale
// ("-3.50" is {units: -350n, scale: 2}); null when s is not a decimal.
export function parse(s) {
  const m = DECIMAL.exec(String(s ?? "").trim());
  if (!m) return null;
  const frac = m[3] ?? "";
  const units = BigInt(m[2] + frac);
  return { units: m[1] ? -units : units, scale: frac.length };
}

// align writes x and y with the same scale: [x units, y units, scale].
function align(x, y) {
  const scale = Math.max(x.scale, y.scale);
  return [x.units * 10n ** BigInt(scale - x.scale), y.units * 10n ** BigInt(scale - y.scale), scale];
}

// compare returns -1, 0 or 1 as a is below, equal to or above b ("1.50"
// equals "1.5"); null when either is not a decimal.
export function compare(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return null;
  const [xu, yu] = align(x, y);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}

// max returns the larger of two decimals (a when they are equal or either
// is not a decimal).
export function max(a, b) {
  return compare(a, b) === -1 ? b : a;
}

// add returns a + b.
export function add(a, b) {
  return sum([a, b]);
}

// sum returns the sum of the values ("0" for none); null when one is not a
// decimal.
export function sum(values) {
  let total = { units: 0n, scale: 0 };
  for (const v of values) {
    const x = parse(v);
    if (!x) return null;
    const [a, b, scale] = align(total, x);
    total = { units: a + b, scale };
  }
  return write(total);
}

// difference returns a − b.
export function difference(a, b) {
  const y = parse(b);
  if (!y) return null;
  return sum([a, write({ units: -y.units, scale: y.scale })]);
}

// multiply returns a × b.
export function multiply(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return null;
  return write({ units: x.units * y.units, scale: x.scale + y.scale });
}

// fraction is a / b as a number between 0 and 1 (clamped, to four places),
// for the length of a bar: geometry only, never shown as an amount. 0 when
// either is not a decimal or b is not positive.
export function fraction(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return 0;
  const [xu, yu] = align(x, y);
  if (yu <= 0n || xu <= 0n) return 0;
  if (xu >= yu) return 1;
  return Number((xu * 10000n) / yu) / 10000;
}

// percent writes a probability as a percentage, exactly: "0.355" is
// "35.5%", "0.5" is "50%"; "—" when p is not a decimal.
export function percent(p) {
  const x = parse(p);
  if (!x) return "—";
  const shifted = x.scale >= 2 ? { units: x.units, scale: x.scale - 2 } : { units: x.units * 10n ** BigInt(2 - x.scale), scale: 0 };
  return `${write(shifted)}%`;
}

// isProbability reports whether s is a decimal strictly between 0 and 1
// written as a probability is typed: "0.35" or ".35" (not "1", "0", "0.0"
// or "-0.5").
export function isProbability(s) {
  const str = String(s ?? "").trim();
  if (!/^0?\.\d+$/.test(str)) return false;
  return compare(str.startsWith(".") ? "0" + str : str, "0") === 1;
}

// stakeError checks a stake typed by a bettor against the currency's
// decimals: null when it is a positive decimal without a sign or leading
// zero ("10", "0.5") and with at most decimals places, else "format" or
// "decimals".
export function stakeError(s, decimals) {
  const str = String(s ?? "").trim();
  const x = parse(str);
  if (!x || x.units <= 0n || str.startsWith("-") || /^0\d/.test(str)) return "format";
  if (x.scale > decimals) return "decimals";
  return null;
}

// write is the plain form of {units, scale}.
function write({ units, scale }) {
  const neg = units < 0n;
  let digits = (neg ? -units : units).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = digits.slice(0, -scale) + "." + digits.slice(-scale);
    digits = digits.replace(/\.?0+$/, "");
  }
  return (neg ? "-" : "") + digits;
}
