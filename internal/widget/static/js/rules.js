// The client obligations of bettor-and-operator-api.md ("Client
// obligations for betting", the rejection table and the Limits table) as
// pure functions, so that the browser tests check them on their own.

import { compare, multiply } from "./decimal.js";

// POLL_CEILING_MS is when polling a pending bet stops (Limits: 60 s); a
// pending bet then is a normal outcome.
export const POLL_CEILING_MS = 60_000;

const FIRST_WAITS_MS = [1000, 2000, 3000, 3000, 3000];
const LATER_WAIT_MS = 5000;

// pollWaits lists the waits before each read of a pending bet after its
// 202: 1, 2, 3, 3 and 3 s, then 5 s, until the ceiling. The last wait is
// shortened so that the last read happens at the ceiling itself:
// 1, 2, 3, 3, 3, 5 × 9, 3 (15 reads, 60 s in all).
export function pollWaits(ceiling = POLL_CEILING_MS) {
  const waits = [];
  let total = 0;
  for (let i = 0; total < ceiling; i++) {
    const w = Math.min(i < FIRST_WAITS_MS.length ? FIRST_WAITS_MS[i] : LATER_WAIT_MS, ceiling - total);
    waits.push(w);
    total += w;
  }
  return waits;
}

// statusIs compares a bet status case-insensitively: POST answers
// "PENDING", GET answers "pending".
export function statusIs(status, want) {
  return typeof status === "string" && status.toLowerCase() === want.toLowerCase();
}

// isPlaced: the bet stands (confirmed, or already settled or voided).
export function isPlaced(status) {
  return ["confirmed", "settled", "voided"].some((s) => statusIs(status, s));
}

// limitError checks a well-formed stake against the operator's limits in
// the bettor's currency ({min_stake, max_stake, max_payout}, as the
// widget configuration gives them; null for none) before it is sent, as
// placement would: "min" below min_stake, "max" above max_stake, "payout"
// when stake × entry odds is above max_payout; else null.
export function limitError(stake, entryOdds, limits) {
  if (!limits) return null;
  if (limits.min_stake && compare(stake, limits.min_stake) === -1) return "min";
  if (limits.max_stake && compare(stake, limits.max_stake) === 1) return "max";
  const p = entryOdds ? multiply(stake, entryOdds) : null;
  if (limits.max_payout && p !== null && compare(p, limits.max_payout) === 1) return "payout";
  return null;
}

// Rejections maps each rejection_code to the message shown (an i18n key;
// rejection_reason is never shown) and what the widget does:
//   refetchEvent   read the event again: drop a closed selection, or show
//                  a moved price and ask to confirm again
//   terminal       no new attempt in this session (bettor_blocked)
//   refreshBalance read the balance (GET /api/v1/auth/me) before the next
//                  attempt; placing stays disabled until it is read
//   awaitStakeBack allow another attempt only once the balance shows the
//                  stake back (wallet_rolled_back)
//   offerDeposit   show the stake and currency and offer a deposit
//   sameStakeBlocked refuse to resubmit the same stake (bet_limit_reached)
const REJECTIONS = {
  validation_failed: { key: "reject.validation_failed", refetchEvent: true },
  bettor_blocked: { key: "reject.bettor_blocked", terminal: true },
  insufficient_funds: { key: "reject.insufficient_funds", refreshBalance: true, offerDeposit: true },
  bet_limit_reached: { key: "reject.bet_limit_reached", sameStakeBlocked: true },
  bet_rejected_other: { key: "reject.bet_rejected_other", refreshBalance: true },
  wallet_rolled_back: { key: "reject.wallet_rolled_back", refreshBalance: true, awaitStakeBack: true },
  // null: the wallet gave no definite answer; the aggregator path names the
  // same case wallet_provider_unavailable.
  null: { key: "reject.unconfirmed_debit", refreshBalance: true },
  wallet_provider_unavailable: { key: "reject.unconfirmed_debit", refreshBalance: true },
};

// rejection returns how the widget handles a rejection_code. null (and an
// absent code) is its own case; an unknown code is bet_rejected_other.
export function rejection(code) {
  const k = code === null || code === undefined ? "null" : String(code);
  return { code: code ?? null, ...(Object.hasOwn(REJECTIONS, k) ? REJECTIONS[k] : REJECTIONS.bet_rejected_other) };
}

// The locales the widget speaks: those of the aggregator launcher (en,
// es, nl, fr, de, ru) and of round details (pt). The first is the default.
export const LOCALES = ["en", "es", "pt", "fr", "de", "nl", "ru"];

// resolveLocale maps a locale parameter ("de_AT", "pt-BR", "EN") to a
// supported locale by its language, else "en".
export function resolveLocale(tag) {
  const lang = String(tag ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return LOCALES.includes(lang) ? lang : LOCALES[0];
}

// THEMES are the theme parameter's values; the first is the default.
export const THEMES = ["light", "dark"];

export function resolveTheme(theme) {
  const t = String(theme ?? "").trim().toLowerCase();
  return THEMES.includes(t) ? t : THEMES[0];
}

// isUUIDv4 checks an Idempotency-Key.
export function isUUIDv4(s) {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(String(s));
}

// newIdempotencyKey is a fresh UUID v4, one per intended bet.
export function newIdempotencyKey() {
  return crypto.randomUUID();
}

// hostOrigin is the origin postMessage may target: the origin (or
// host_origin) parameter when it is an http(s) origin, else the origin of
// the page that loaded the widget (document.referrer); null when neither
// is known, and then nothing is posted.
export function hostOrigin(params, referrer) {
  for (const v of [params.get("origin"), params.get("host_origin"), referrer]) {
    if (!v) continue;
    try {
      const u = new URL(v);
      if (u.protocol === "https:" || u.protocol === "http:") return u.origin;
    } catch {
      // not a URL: try the next source
    }
  }
  return null;
}
