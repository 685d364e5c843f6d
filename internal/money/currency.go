package money

import (
	"golang.org/x/text/currency"
)

// iso4217Corrections lists the ISO 4217 minor units of the codes where
// golang.org/x/text/currency disagrees with ISO 4217 or does not know the code.
// x/text takes its digits from Unicode CLDR, which gives 0 decimals for
// currencies whose minor unit is unused in practice (IDR, COP, PKR, …) while
// ISO 4217 keeps 2; and x/text v0.42.0 lacks some newer codes. Source: the ISO
// 4217 list one (table A.1) published 2024-06-25, plus XCG (Caribbean guilder,
// in the list since 2025).
var iso4217Corrections = map[string]int32{
	// CLDR says 0, ISO 4217 says 2.
	"AFN": 2, "ALL": 2, "AMD": 2, "COP": 2, "GYD": 2, "IDR": 2, "IRR": 2,
	"KPW": 2, "LAK": 2, "LBP": 2, "MGA": 2, "MMK": 2, "MNT": 2, "MUR": 2,
	"PKR": 2, "RSD": 2, "SLL": 2, "SOS": 2, "SYP": 2, "TZS": 2, "UZS": 2,
	"YER": 2,
	// CLDR says 0, ISO 4217 says 3.
	"IQD": 3,
	// Unknown to x/text v0.42.0.
	"MRU": 2, "SLE": 2, "UYW": 4, "VED": 2, "VES": 2, "XCG": 2, "ZWG": 2,
}

// iso4217NoMinorUnit lists the codes whose ISO 4217 minor unit is "N.A."
// (precious metals, units of account, the testing and no-currency codes).
// x/text answers 2 for them; an operator using one must set its decimals.
var iso4217NoMinorUnit = map[string]bool{
	"XAG": true, "XAU": true, "XPD": true, "XPT": true,
	"XBA": true, "XBB": true, "XBC": true, "XBD": true,
	"XDR": true, "XSU": true, "XUA": true, "XTS": true, "XXX": true,
}

// CurrencyDecimals returns the ISO 4217 minor units of a currency code: 2 for
// USD and EUR, 0 for JPY, 3 for KWD, 4 for CLF. code must be three uppercase
// ASCII letters, as in the APIs ("usd" is not accepted).
//
// The answer comes from golang.org/x/text/currency, corrected where its CLDR
// data differs from ISO 4217 (e.g. IDR: CLDR 0, ISO 2; IQD: CLDR 0, ISO 3) or
// lacks a code (VES, SLE, MRU, …); see iso4217Corrections.
//
// ok is false for a code that is not an ISO 4217 currency (crypto codes such
// as BTC or USDT: operators set their decimals explicitly) and for codes
// without a minor unit in ISO 4217 (XAU, XXX, XTS, XDR, …). Withdrawn codes
// that x/text still knows (DEM, HRK, VEF, …) are answered with their former
// minor units; refusing a withdrawn currency is the caller's decision.
func CurrencyDecimals(code string) (decimals int32, ok bool) {
	if len(code) != 3 {
		return 0, false
	}
	for i := 0; i < 3; i++ {
		if code[i] < 'A' || code[i] > 'Z' {
			return 0, false
		}
	}
	if iso4217NoMinorUnit[code] {
		return 0, false
	}
	if d, found := iso4217Corrections[code]; found {
		return d, true
	}
	unit, err := currency.ParseISO(code)
	if err != nil {
		return 0, false
	}
	scale, _ := currency.Standard.Rounding(unit)
	return int32(scale), true
}
