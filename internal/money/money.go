// Package money holds Amount, the exact decimal type of every stake, payout,
// balance and limit of the betting platform, and the platform's one rounding
// rule.
//
// Amounts are exact decimals (shopspring/decimal underneath, never float64).
// On the wire they are JSON strings, in the database TEXT (SQLite) or NUMERIC
// (PostgreSQL). Amounts that come from outside (ParseAmount, UnmarshalJSON)
// have at most 18 integer and 12 fractional digits, the aggregator protocol's
// limits; products with odds (MulOdds) are exact and may have up to 16
// fractional digits.
//
// # Rounding
//
// There is one rounding rule, used for display and for settlement alike
// (docs/decisions.md, "Contract details"): round half to even ("banker's rounding") to the currency's minor
// units. See RoundToCurrency for why. StringFixed and StringTrimmed apply the
// same rule. Display odds are a price, not an amount, and are rounded down by
// package odds instead.
//
// Nothing here reads or writes shopspring's package-level settings
// (DivisionPrecision, TrimTrailingZeros, MarshalJSONWithoutQuotes, …): every
// output is formatted explicitly, so another package changing them cannot
// change what the platform stores or sends.
package money

import (
	"errors"
	"fmt"
	"strings"

	"github.com/foresight-dev/foresight/internal/decimaltext"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/odds"
)

// Limits of the amounts the platform accepts from outside (aggregator-api.md:
// at most 18 digits before and 12 after the point).
const (
	MaxIntegerDigits    = 18
	MaxFractionalDigits = 12
)

// MaxScale is the largest number of decimal places RoundToCurrency and
// StringFixed accept: 16, the scale of an exact payout (12 decimals of a stake
// times 4 of the odds; bettor API: potential_payout has up to 16 decimals).
const MaxScale = 16

// AggregatorDecimals is the scale of amounts on the aggregator path (12
// decimals, trailing zeros removed: see StringTrimmed).
const AggregatorDecimals = 12

// Storage limits: what Value writes and Scan reads back. 24 integer digits hold
// a payout of an 18-digit stake at odds up to 999999.9999; 16 fractional
// digits hold its exact value (PostgreSQL NUMERIC(40,16)).
const (
	storageIntegerDigits    = 24
	storageFractionalDigits = MaxScale
)

// ErrInvalidAmount is wrapped by every error about a malformed or
// out-of-range amount (parsing, JSON, SQL).
var ErrInvalidAmount = errors.New("invalid amount")

// Amount is an exact decimal amount of money, in a currency the caller keeps
// track of. The zero value is 0 and ready to use. Amounts are immutable values:
// every operation returns a new one.
type Amount struct {
	d decimal.Decimal
}

// Zero returns the amount 0 (the same as the zero value Amount{}).
func Zero() Amount { return Amount{} }

// sign policies of parse
type signPolicy int

const (
	signed      signPolicy = iota // '-' allowed
	nonNegative                   // no sign; zero allowed
	positive                      // no sign; zero rejected
)

// ParseAmount reads a signed amount written as a plain decimal: JSON's number
// grammar without exponent, i.e. an optional '-', then "0" or digits without
// a leading zero, then optionally '.' and at least one digit. It rejects the
// empty string, spaces, '+', exponents ("1e3"), NaN and Infinity, more than 18
// integer digits and more than 12 fractional digits (trailing zeros count:
// the wire limit is on digits written). "-0" reads as 0. Errors wrap
// ErrInvalidAmount and quote (a prefix of) the input.
func ParseAmount(s string) (Amount, error) {
	return parse(s, signed, MaxIntegerDigits, MaxFractionalDigits)
}

// ParseNonNegative is ParseAmount for amounts that cannot be negative (a
// deposit, which is 0 for a lost bet; a balance; a limit): no sign may be
// written at all, so "-0" is rejected too.
func ParseNonNegative(s string) (Amount, error) {
	return parse(s, nonNegative, MaxIntegerDigits, MaxFractionalDigits)
}

// ParsePositive is ParseAmount for amounts that must be above zero (a stake, a
// withdrawal, any wallet transaction amount): no sign may be written, and zero
// ("0", "0.00") is rejected.
func ParsePositive(s string) (Amount, error) {
	return parse(s, positive, MaxIntegerDigits, MaxFractionalDigits)
}

// MustParse is ParseAmount for constants and tests: it panics on an invalid
// input.
func MustParse(s string) Amount {
	a, err := ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

func parse(s string, policy signPolicy, maxInt, maxFrac int) (Amount, error) {
	body := s
	neg := strings.HasPrefix(body, "-")
	if neg {
		if policy != signed {
			return Amount{}, fmt.Errorf("%w: %s: a sign is not allowed here", ErrInvalidAmount, decimaltext.Quote(s))
		}
		body = body[1:]
	}
	intPart, frac, hasPoint := strings.Cut(body, ".")
	if !digits(intPart) || (hasPoint && !digits(frac)) {
		return Amount{}, fmt.Errorf("%w: %s is not a plain decimal number (digits, optional '.' and digits, no exponent)", ErrInvalidAmount, decimaltext.Quote(s))
	}
	if len(intPart) > 1 && intPart[0] == '0' {
		return Amount{}, fmt.Errorf("%w: %s has a leading zero", ErrInvalidAmount, decimaltext.Quote(s))
	}
	if len(intPart) > maxInt {
		return Amount{}, fmt.Errorf("%w: %s has more than %d integer digits", ErrInvalidAmount, decimaltext.Quote(s), maxInt)
	}
	if len(frac) > maxFrac {
		return Amount{}, fmt.Errorf("%w: %s has more than %d fractional digits", ErrInvalidAmount, decimaltext.Quote(s), maxFrac)
	}
	d, err := decimal.NewFromString(body)
	if err != nil { // not reachable after the checks above; kept as a guard
		return Amount{}, fmt.Errorf("%w: %s: %v", ErrInvalidAmount, decimaltext.Quote(s), err)
	}
	if neg {
		d = d.Neg()
	}
	if policy == positive && !d.IsPositive() {
		return Amount{}, fmt.Errorf("%w: %s must be greater than zero", ErrInvalidAmount, decimaltext.Quote(s))
	}
	return Amount{d}, nil
}

// IsPlainDecimal reports whether s is written as the wire writes amounts:
// an optional '-', one or more digits, and optionally a point and one or
// more digits; no exponent, no '+', no white space. It says nothing of the
// limits ParseAmount adds (leading zeros, numbers of digits).
func IsPlainDecimal(s string) bool {
	intPart, frac, hasPoint := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	return digits(intPart) && (!hasPoint || digits(frac))
}

// digits reports whether s is non-empty and all ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Add returns a + b, exactly.
func (a Amount) Add(b Amount) Amount { return Amount{a.d.Add(b.d)} }

// Sub returns a − b, exactly.
func (a Amount) Sub(b Amount) Amount { return Amount{a.d.Sub(b.d)} }

// Neg returns −a.
func (a Amount) Neg() Amount { return Amount{a.d.Neg()} }

// Abs returns |a|.
func (a Amount) Abs() Amount { return Amount{a.d.Abs()} }

// MulOdds returns a × o exactly (no rounding: a stake with 12 decimals times
// odds with 4 has at most 16). This is a bet's gross potential payout; round it
// with RoundToCurrency for what is paid. It panics if o is the zero Odds
// ("no odds"), because a payout computed from a missing price must never be
// settled as zero.
func (a Amount) MulOdds(o odds.Odds) Amount {
	if o.IsZero() {
		panic("money: MulOdds with the zero Odds")
	}
	return Amount{a.d.Mul(o.Decimal())}
}

// Cmp compares a and b: -1 if a < b, 0 if a == b, +1 if a > b. Scale does not
// matter: 1.5 equals 1.50.
func (a Amount) Cmp(b Amount) int { return a.d.Cmp(b.d) }

// Equal reports whether a and b have the same value (1.5 equals 1.50).
func (a Amount) Equal(b Amount) bool { return a.d.Equal(b.d) }

// LessThan reports whether a < b.
func (a Amount) LessThan(b Amount) bool { return a.d.LessThan(b.d) }

// GreaterThan reports whether a > b.
func (a Amount) GreaterThan(b Amount) bool { return a.d.GreaterThan(b.d) }

// IsZero reports whether a == 0.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsNegative reports whether a < 0.
func (a Amount) IsNegative() bool { return a.d.IsNegative() }

// IsPositive reports whether a > 0.
func (a Amount) IsPositive() bool { return a.d.IsPositive() }

// Decimal returns the exact value as a shopspring decimal (a copy; Amount is
// immutable). Use it for ratios and reports, not to bypass the rounding rule.
func (a Amount) Decimal() decimal.Decimal { return a.d }

// RoundToCurrency rounds a to decimals places (a currency's minor units: 2 for
// USD and EUR, 0 for JPY, 3 for KWD, 12 on the aggregator path) by the
// platform's one rounding rule: round half to even. Values that are not
// exactly halfway round to the nearest; exact halves go to the even last digit
// (12.345 → 12.34, 12.355 → 12.36, 0.125 → 0.12, −2.5 → −2 at 0 decimals).
// Display (the payout a bettor is shown before and after betting) and
// settlement (the amount deposited) both use this function, so the two always
// agree.
//
// Why half to even: a payout is stake × entry_odds, and with 2-decimal stakes
// and 4-decimal odds exact halves are common (10.00 × 1.2345 = 12.345). The
// house already takes its edge, explicitly, through the margin and by rounding
// the odds down; rounding payouts down as well would be a second, hidden
// margin, and rounding halves up would leak a systematic fraction of a cent to
// the bettors. Half to even has no bias in either direction over many
// settlements, so the platform's and the operator's ledgers reconcile on
// totals; it is the default of IEEE 754 decimal arithmetic, of Python's
// decimal module and of .NET, so partners can reproduce it exactly. (Beware:
// PostgreSQL's round(numeric) and JavaScript's Intl rounding are half away from
// zero; never round amounts there.)
//
// decimals must be in [0, MaxScale]; anything else is a programming error and
// panics (validate operator-configured decimals when they are set).
func (a Amount) RoundToCurrency(decimals int32) Amount {
	checkScale(decimals)
	return Amount{a.d.RoundBank(decimals)}
}

func checkScale(decimals int32) {
	if decimals < 0 || decimals > MaxScale {
		panic(fmt.Sprintf("money: %d decimals is outside [0, %d]", decimals, MaxScale))
	}
}

// FitsDecimals reports whether a is exact at decimals places: whether
// RoundToCurrency(decimals) leaves its value unchanged, so the amount can be
// moved in a currency with that many minor units without rounding. Trailing
// zeros do not count: 1.50 fits 1 decimal, 1.05 does not. decimals must be
// in [0, MaxScale]; otherwise it panics, as RoundToCurrency does.
func (a Amount) FitsDecimals(decimals int32) bool {
	return a.RoundToCurrency(decimals).Equal(a)
}

// StringFixed rounds a to decimals places with RoundToCurrency's rule and
// formats it with exactly that many decimals: "12.30", "1235" (0 decimals),
// "0.000". A negative value that rounds to zero prints without a sign. This is
// the wire form of amounts in a currency (stakes, payouts, balances on the
// standalone path). decimals must be in [0, MaxScale]; otherwise it panics.
func (a Amount) StringFixed(decimals int32) string {
	return a.RoundToCurrency(decimals).d.StringFixed(decimals) // already rounded: StringFixed only pads
}

// StringTrimmed formats a for the aggregator path: rounded to 12 decimals
// (AggregatorDecimals) with RoundToCurrency's rule, then trailing zeros and a
// trailing point removed: "12.5", "100", "0.000000000001", and "0" for zero
// (never "0.000" or "-0").
func (a Amount) StringTrimmed() string {
	return trimZeros(a.RoundToCurrency(AggregatorDecimals).d.StringFixed(AggregatorDecimals))
}

// String returns the exact value with trailing fractional zeros removed and no
// rounding ("12.345", "10", "-0.5"). It is the form MarshalJSON and Value use.
func (a Amount) String() string {
	places := max(-a.d.Exponent(), 0)
	return trimZeros(a.d.StringFixed(places)) // exact: places covers every digit
}

// trimZeros removes trailing zeros after a decimal point, and the point if
// nothing is left after it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		return "0"
	}
	return s
}
