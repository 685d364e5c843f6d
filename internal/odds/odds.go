// Package odds prices prediction-market outcomes as decimal odds and holds the
// odds value type the betting platform stores, sends and pays out on.
//
// # Odds values
//
// An [Odds] is a decimal-odds price (2.50 pays 2.50 per unit staked, stake
// included). It is exact (a shopspring decimal, never a float) and has at most
// [EntryDecimals] (4) decimal places, the precision of a bet's entry_odds.
// Every valid Odds lies in [MinOdds, MaxOdds] = [1.01, 999999.9999]; the zero
// value means "no odds" and is rejected wherever a price is required.
//
// Display odds have [DisplayDecimals] (2) decimal places, are rounded down (in
// the house's favour) and are never below 1.01. The display probability is
// 100 / display odds, with 2 decimals, rounded half to even.
//
// # Pricing
//
// [Price] turns source probabilities into odds with an operator margin by one
// of five [Method]s (docs/decisions.md, "Contract details"). Money never touches floating
// point in this package: the closed-form methods (multiplicative, additive) are
// computed exactly in decimal, and only the pricing curve of the iterative
// methods (power, odds ratio, Shin) is solved in float64, after which the odds
// are converted to decimal with an explicit rounding rule.
package odds

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/foresight-dev/foresight/internal/decimaltext"
	"github.com/shopspring/decimal"
)

// EntryDecimals is the number of decimal places an Odds (and so a bet's
// entry_odds) keeps at most.
const EntryDecimals = 4

// DisplayDecimals is the number of decimal places of display odds and of the
// display probability.
const DisplayDecimals = 2

// maxIntegerDigits is the number of integer digits of MaxOdds.
const maxIntegerDigits = 6

var (
	minOdds = decimal.New(101, -2)        // 1.01
	maxOdds = decimal.New(9999999999, -4) // 999999.9999
	hundred = decimal.New(100, 0)
	errZero = fmt.Errorf("%w: the zero Odds (no price) cannot be encoded", ErrInvalidOdds)
)

// ErrInvalidOdds is wrapped by every error about a malformed or out-of-range
// odds value (Parse, UnmarshalJSON, Scan).
var ErrInvalidOdds = errors.New("invalid odds")

// Odds is an exact decimal-odds price with at most 4 decimal places, in
// [MinOdds, MaxOdds]. The zero value is "no odds": IsZero reports it, and
// encoders refuse it.
type Odds struct {
	d decimal.Decimal
}

// MinOdds returns 1.01, the lowest odds the platform quotes, displays or
// accepts.
func MinOdds() Odds { return Odds{minOdds} }

// MaxOdds returns 999999.9999, the highest odds the platform quotes or
// accepts. With stakes of at most 18 integer digits, a payout then has at most
// 24 integer digits and 16 decimals (12 of the stake plus 4 of the odds).
func MaxOdds() Odds { return Odds{maxOdds} }

// Parse reads odds written as a plain decimal: digits, optionally a point and
// 1 to 4 more digits ("1.92", "2", "1.9234"). It rejects signs, exponents
// ("2e0"), spaces, leading zeros ("01.5"), NaN, more than 4 decimal places and
// values outside [1.01, 999999.9999]. Errors wrap ErrInvalidOdds.
func Parse(s string) (Odds, error) {
	intDigits, fracDigits, ok := plainDecimal(s)
	if !ok {
		return Odds{}, fmt.Errorf("%w: %s is not a plain decimal number", ErrInvalidOdds, decimaltext.Quote(s))
	}
	if fracDigits > EntryDecimals {
		return Odds{}, fmt.Errorf("%w: %s has more than %d decimal places", ErrInvalidOdds, decimaltext.Quote(s), EntryDecimals)
	}
	if intDigits > maxIntegerDigits {
		return Odds{}, fmt.Errorf("%w: %s is above the maximum %s", ErrInvalidOdds, decimaltext.Quote(s), maxOdds.StringFixed(EntryDecimals))
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Odds{}, fmt.Errorf("%w: %s: %v", ErrInvalidOdds, decimaltext.Quote(s), err)
	}
	if d.LessThan(minOdds) || d.GreaterThan(maxOdds) {
		return Odds{}, fmt.Errorf("%w: %s is outside [1.01, %s]", ErrInvalidOdds, decimaltext.Quote(s), maxOdds.StringFixed(EntryDecimals))
	}
	return Odds{d}, nil
}

// MustParse is Parse for constants and tests: it panics on an invalid input.
func MustParse(s string) Odds {
	o, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return o
}

// Decimal returns the exact value (a copy; Odds itself is immutable). The zero
// Odds gives 0.
func (o Odds) Decimal() decimal.Decimal { return o.d }

// IsZero reports whether o is the zero value ("no odds").
func (o Odds) IsZero() bool { return o.d.IsZero() }

// Cmp compares o and p by value: -1 if o < p, 0 if equal, +1 if o > p.
func (o Odds) Cmp(p Odds) int { return o.d.Cmp(p.d) }

// Equal reports whether o and p have the same value (1.9 equals 1.9000).
func (o Odds) Equal(p Odds) bool { return o.d.Equal(p.d) }

// String formats o with at least 2 and at most 4 decimal places: trailing
// zeros beyond the second decimal are dropped ("1.9234", "1.92", "2.00",
// "1.01"). This is the wire form of both entry_odds and display odds. The
// zero Odds prints "0.00". The result never depends on shopspring's package
// settings.
func (o Odds) String() string {
	s := o.d.StringFixed(EntryDecimals) // exact: o has at most 4 decimals
	// drop trailing zeros of the last two decimals only
	for range EntryDecimals - DisplayDecimals {
		if strings.HasSuffix(s, "0") {
			s = s[:len(s)-1]
		} else {
			break
		}
	}
	return s
}

// Display returns the display odds of o: o rounded down to 2 decimal places
// (the house's favour), and never below 1.01. Display never exceeds o for a
// valid o. The zero Odds gives the zero Odds.
func (o Odds) Display() Odds {
	if o.IsZero() {
		return Odds{}
	}
	d := o.d.RoundFloor(DisplayDecimals)
	if d.LessThan(minOdds) {
		d = minOdds
	}
	return Odds{d}
}

// ImpliedPercent returns 100 / o with 2 decimal places, rounded half to even
// (the platform's one rounding rule for amounts, see package money). Called on
// display odds it gives a quote's display_probability: 1.92 → 52.08,
// 1.28 → 78.12 (exactly 78.125). The zero Odds gives 0.
func (o Odds) ImpliedPercent() decimal.Decimal {
	if o.IsZero() {
		return decimal.Zero
	}
	return quoHalfEven(hundred, o.d, DisplayDecimals)
}

// FormatDisplayProbability writes a display probability (a percentage, as
// ImpliedPercent gives it) for the wire: rounded half to even to
// DisplayDecimals (2) places, the rule ImpliedPercent computes it by, and
// written with exactly that many decimals ("52.08", "78.12", "50.00",
// "0.00"). A value from ImpliedPercent, or read back from a bet, already has
// at most 2 places and is only padded.
func FormatDisplayProbability(p decimal.Decimal) string {
	return p.RoundBank(DisplayDecimals).StringFixed(DisplayDecimals)
}

// MarshalJSON writes o as a JSON string in the String form ("1.9234").
// Odds are strings on the wire, never JSON numbers. The zero Odds is an error.
func (o Odds) MarshalJSON() ([]byte, error) {
	if o.IsZero() {
		return nil, errZero
	}
	return json.Marshal(o.String())
}

// UnmarshalJSON reads a JSON string with the rules of Parse. JSON numbers and
// null are rejected (a field of type *Odds decodes null to nil without calling
// this method). Errors wrap ErrInvalidOdds.
func (o *Odds) UnmarshalJSON(b []byte) error {
	s, err := decimaltext.FromJSON(b, ErrInvalidOdds, "odds")
	return decimaltext.SetParsed(o, s, err, Parse)
}

// Value stores o as its String form, for a TEXT (SQLite) or NUMERIC
// (PostgreSQL, e.g. NUMERIC(10,4)) column. The zero Odds is an error: store a
// missing price as NULL with sql.Null[odds.Odds].
func (o Odds) Value() (driver.Value, error) {
	if o.IsZero() {
		return nil, errZero
	}
	return o.String(), nil
}

// Scan reads odds from a database column: a string or []byte (TEXT in
// SQLite; NUMERIC through pgx's database/sql driver, which hands NUMERIC over
// as a string such as "1.9200") with the rules of Parse, or an int64. NULL,
// float64 and other types are errors wrapping ErrInvalidOdds; read a nullable
// column into sql.Null[odds.Odds].
func (o *Odds) Scan(src any) error {
	s, err := decimaltext.FromColumn(src, ErrInvalidOdds, "odds.Odds", "odds")
	return decimaltext.SetParsed(o, s, err, Parse)
}

// MovedAgainst reports whether the price of an outcome has moved against the
// bettor by more than tolerance since the bet's entry odds: whether the
// relative drop (entry − current) / entry is strictly greater than tolerance
// (docs/decisions.md, "Contract details": price moved too far). It is computed exactly, without division,
// as entry − current > tolerance × entry.
//
// A drop of exactly tolerance is accepted (false): with entry 2.00 and
// tolerance 0.05, current 1.90 is accepted and 1.8999 is not. Any rise
// (current ≥ entry) is accepted. A negative tolerance is treated as 0 (any
// drop is too far). If entry or current is the zero Odds the answer is true, so
// a missing price rejects the bet rather than accepting it.
func MovedAgainst(entry, current Odds, tolerance decimal.Decimal) bool {
	if entry.IsZero() || current.IsZero() {
		return true
	}
	if tolerance.IsNegative() {
		tolerance = decimal.Zero
	}
	drop := entry.d.Sub(current.d)
	return drop.GreaterThan(tolerance.Mul(entry.d))
}

// quoHalfEven returns num/den rounded half to even to places decimals,
// exactly. num and den must be positive.
func quoHalfEven(num, den decimal.Decimal, places int32) decimal.Decimal {
	q, r := num.QuoRem(den, places) // q truncated, 0 <= r < den*10^-places
	unit := decimal.New(1, -places)
	switch r.Add(r).Cmp(den.Mul(unit)) {
	case 1:
		q = q.Add(unit)
	case 0:
		if q.Shift(places).BigInt().Bit(0) == 1 {
			q = q.Add(unit)
		}
	}
	return q
}

// plainDecimal checks s against JSON's number grammar without exponent and
// without sign: 0|[1-9][0-9]* optionally followed by '.' and one or more
// digits. It returns the number of integer and fractional digits.
func plainDecimal(s string) (intDigits, fracDigits int, ok bool) {
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if intPart == "" || (hasPoint && frac == "") {
		return 0, 0, false
	}
	if len(intPart) > 1 && intPart[0] == '0' {
		return 0, 0, false
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, 0, false
			}
		}
	}
	return len(intPart), len(frac), true
}
