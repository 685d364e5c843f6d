// Interface texts: one JSON file per locale under locales/, English as
// the fallback for any key a translation lacks.

let texts = {};
let fallback = {};
let current = "en";

async function read(locale) {
  const resp = await fetch(`./locales/${locale}.json`, { credentials: "omit" });
  if (!resp.ok) throw new Error(`locale ${locale}: ${resp.status}`);
  return resp.json();
}

// load reads the texts of locale (a supported one, see rules.resolveLocale).
export async function load(locale) {
  fallback = await read("en");
  texts = locale === "en" ? fallback : { ...fallback, ...(await read(locale)) };
  current = locale;
}

export function locale() {
  return current;
}

// t returns the text of key with {name} placeholders filled from vars.
export function t(key, vars = {}) {
  const s = texts[key] ?? fallback[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

// translate fills the static texts of root: data-i18n sets the text,
// data-i18n-label sets aria-label.
export function translate(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}
