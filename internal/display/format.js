// The one display rule for odds and amounts, shared by the bettor widget
// and the backoffice (both serve this file as js/format.js, from
// internal/display). Values are the API's decimal strings; arithmetic is
// exact (BigInt): no float ever holds an amount or odds.
//
//   amounts  in the currency's minor units (USD 2, JPY 0, KWD 3), rounded
//            half to even (the rounding of settlement: a shown payout is
//            the amount paid), grouped in the reader's locale:
//            "1,000.00 USD", "12.50 USD", "0.00 USD"
//   odds     2 decimals, rounded down, as the platform rounds display odds
//            from the exact price: entry odds 4.5694 show as 4.56, the
//            display odds the bettor chose
//   exact    the unrounded value (4-decimal entry odds, an exact payout)
//            goes in a title (on hover) or in details: exactMoney, exactOdds

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

// ODDS_DECIMALS is how many decimals odds show with.
export const ODDS_DECIMALS = 2;

function parse(s) {
  const m = DECIMAL.exec(String(s ?? "").trim());
  if (!m) return null;
  const frac = m[3] ?? "";
  const units = BigInt(m[2] + frac);
  return { neg: m[1] === "-" && units !== 0n, units, scale: frac.length };
}

function write(neg, units, scale) {
  let digits = units.toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return (neg && units !== 0n ? "-" : "") + digits;
}

// roundHalfEven rounds a decimal string to places decimals, half to even,
// and writes exactly places decimals: ("44.214", 2) → "44.21",
// ("2.625", 2) → "2.62", ("0", 2) → "0.00"; null when s is not a decimal.
export function roundHalfEven(s, places) {
  const x = parse(s);
  if (!x || !Number.isInteger(places) || places < 0) return null;
  let units;
  if (x.scale <= places) {
    units = x.units * 10n ** BigInt(places - x.scale);
  } else {
    const div = 10n ** BigInt(x.scale - places);
    units = x.units / div;
    const twice = (x.units % div) * 2n;
    if (twice > div || (twice === div && units % 2n === 1n)) units += 1n;
  }
  return write(x.neg, units, places);
}

// roundDown cuts a non-negative decimal string to places decimals (toward
// zero) and writes exactly places decimals: ("4.5694", 2) → "4.56".
export function roundDown(s, places) {
  const x = parse(s);
  if (!x || !Number.isInteger(places) || places < 0) return null;
  const units = x.scale <= places ? x.units * 10n ** BigInt(places - x.scale) : x.units / 10n ** BigInt(x.scale - places);
  return write(x.neg, units, places);
}

// payout is the gross payout (the stake included) of stake at odds,
// rounded half to even to the currency's decimals: what a winning bet is
// paid. null when either is not a decimal.
export function payout(stake, odds, decimals) {
  const a = parse(stake);
  const b = parse(odds);
  if (!a || !b) return null;
  return roundHalfEven(write(a.neg !== b.neg, a.units * b.units, a.scale + b.scale), decimals);
}

// minorUnits is a currency's number of decimals: configured when it is an
// integer (the operator's setting), else the ISO 4217 minor units the
// browser knows, else 2.
export function minorUnits(code, configured) {
  if (Number.isInteger(configured) && configured >= 0) return configured;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 2;
  }
}

// group writes a decimal string that already has its decimals with the
// locale's grouping and decimal sign ("1234.50" → "1,234.50" in en,
// "1.234,50" in de). Intl.NumberFormat reads a string as an exact decimal.
function group(s, decimals, locale) {
  try {
    return new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals, roundingMode: "halfEven" }).format(s);
  } catch {
    return s;
  }
}

// amount is a decimal string in a currency's minor units, grouped:
// ("1000", 2) → "1,000.00"; "—" when value is not a decimal.
export function amount(value, decimals, locale = "en") {
  const r = roundHalfEven(value, decimals);
  return r === null ? "—" : group(r, decimals, locale);
}

// money is amount with the currency code: "1,000.00 USD", "0.00 USD".
export function money(value, currency, decimals, locale = "en") {
  const a = amount(value, decimals, locale);
  return a === "—" ? a : `${a} ${currency}`;
}

// exactMoney is the unrounded amount with its code, for a title or
// details: "57.1175 USD"; "" when value is not a decimal.
export function exactMoney(value, currency) {
  return parse(value) ? `${String(value).trim()} ${currency}` : "";
}

// odds shows odds at 2 decimals, rounded down: "4.5694" → "4.56",
// "1.9" → "1.90"; "—" when there are none.
export function odds(value, locale = "en") {
  const r = roundDown(value, ODDS_DECIMALS);
  return r === null ? "—" : group(r, ODDS_DECIMALS, locale);
}

// exactOdds is odds with all their decimals (at least 2), for a title or
// details: "4.5694", "4.40".
export function exactOdds(value) {
  const x = parse(value);
  if (!x) return "";
  return x.scale >= ODDS_DECIMALS ? String(value).trim() : roundDown(value, ODDS_DECIMALS);
}

// isRounded reports whether the shown form of an amount or odds hides
// decimals (then the exact value is worth a title).
export function isRounded(value, decimals) {
  const x = parse(value);
  if (!x || x.scale <= decimals) return false;
  return x.units % 10n ** BigInt(x.scale - decimals) !== 0n;
}

// percent shows a percentage-style decimal ("22.62") rounded half to even
// to whole percents, as prediction markets show chances: "23%"; a chance
// that would show as 0% or 100% shows as "<1%" or ">99%".
export function percent(value, locale = "en") {
  const r = roundHalfEven(value, 0);
  if (r === null) return "—";
  const x = parse(value);
  if (r === "0" && x.units > 0n && !x.neg) return "<1%";
  if (r === "100" && (x.units !== 100n * 10n ** BigInt(x.scale))) return ">99%";
  return `${group(r, 0, locale)}%`;
}
