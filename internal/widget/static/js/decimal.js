// Exact decimal arithmetic on the API's decimal strings ("10.00",
// "4.4214"), with BigInt: no float ever holds a money amount or odds.

const PLAIN = /^(\d+)(?:\.(\d+))?$/;

// parse reads a plain non-negative decimal ("10", "4.42", "0.125") into
// {units, scale}: the value is units / 10^scale. Anything else is null.
export function parse(s) {
  const m = PLAIN.exec(String(s ?? "").trim());
  if (!m) return null;
  const frac = m[2] ?? "";
  return { units: BigInt(m[1] + frac), scale: frac.length };
}

// multiply returns a × b exactly, as a plain decimal string.
export function multiply(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return null;
  return toString({ units: x.units * y.units, scale: x.scale + y.scale });
}

// round and payout are the shared display rule's (format.js): half to
// even, the rounding of settlement, so a shown payout is the amount paid.
export { roundHalfEven as round, payout } from "./format.js";

// compare returns -1, 0 or 1 as a is below, equal to or above b; null
// when either is not a plain decimal. A leading "-" is allowed (balances).
export function compare(a, b) {
  const x = signed(a);
  const y = signed(b);
  if (!x || !y) return null;
  const scale = Math.max(x.scale, y.scale);
  const xu = x.units * 10n ** BigInt(scale - x.scale);
  const yu = y.units * 10n ** BigInt(scale - y.scale);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}

// add returns a + b exactly; either may be negative (a balance).
export function add(a, b) {
  const x = signed(a);
  const y = signed(b);
  if (!x || !y) return null;
  const scale = Math.max(x.scale, y.scale);
  return toString({ units: x.units * 10n ** BigInt(scale - x.scale) + y.units * 10n ** BigInt(scale - y.scale), scale });
}

function signed(s) {
  const str = String(s ?? "").trim();
  const neg = str.startsWith("-");
  const x = parse(neg ? str.slice(1) : str);
  if (!x) return null;
  return neg ? { units: -x.units, scale: x.scale } : x;
}

// stakeError checks a stake typed by the bettor against the currency's
// decimals: null when it is a positive plain decimal with at most
// decimals places, else "format" or "decimals".
export function stakeError(s, decimals) {
  const str = String(s ?? "").trim();
  const x = parse(str);
  if (!x || x.units === 0n || /^0\d/.test(str)) return "format";
  if (x.scale > decimals) return "decimals";
  return null;
}

function toString({ units, scale }) {
  const neg = units < 0n;
  let digits = (neg ? -units : units).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = digits.slice(0, -scale) + "." + digits.slice(-scale);
  }
  return (neg ? "-" : "") + digits;
}
