// Amounts in the backoffice, by the display rule the widget uses too
// (format.js, internal/display): the currency's minor units, half to even,
// grouped ("1,000.00 USD", "12.50 USD", "0.00 USD"), the exact amount in
// the title. The minor units are the operators' own setting of each
// currency when an operator list was read, else ISO 4217's.

import { h } from "./elements.js";
import * as fmt from "./format.js";

const configured = new Map(); // currency code → decimals, from the operators read

// learnCurrencies records the decimals of the operators' currencies.
export function learnCurrencies(operators) {
  for (const o of operators ?? []) for (const c of o.currencies ?? []) configured.set(c.code, c.decimals);
}

// decimalsOf is how many decimals amounts in currency show.
export function decimalsOf(currency) {
  return fmt.minorUnits(currency, configured.get(currency));
}

// cash is an amount with its code ("1,000.00 USD"); "—" for none.
export function cash(value, currency) {
  if (value === null || value === undefined || value === "") return "—";
  return fmt.money(value, currency, decimalsOf(currency));
}

// figure is an amount without its code ("1,000.00"); "—" for none.
export function figure(value, currency) {
  if (value === null || value === undefined || value === "") return "—";
  return fmt.amount(value, decimalsOf(currency));
}

// cashCell is a table cell of an amount, the exact value in its title.
export function cashCell(value, currency, props = {}, { code = true } = {}) {
  const exact = value === null || value === undefined || value === "" ? null : fmt.exactMoney(value, currency);
  return h("td", { class: "num", title: exact ? `Exact: ${exact}` : null, ...props }, code ? cash(value, currency) : figure(value, currency));
}

// exactly is cash followed by the exact amount when rounding hid
// decimals: "129.99 USD (exact 129.988)".
export function exactly(value, currency) {
  const shown = cash(value, currency);
  return value !== null && value !== undefined && fmt.isRounded(value, decimalsOf(currency)) ? `${shown} (exact ${value})` : shown;
}
