package money

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/odds"
)

func TestParse(t *testing.T) {
	type want struct{ signed, nonNeg, positive bool }
	tests := []struct {
		in    string
		ok    want
		exact string // String() of the parsed value, when signed parsing succeeds
	}{
		{"0", want{true, true, false}, "0"},
		{"0.00", want{true, true, false}, "0"},
		{"-0", want{true, false, false}, "0"},
		{"1", want{true, true, true}, "1"},
		{"10.50", want{true, true, true}, "10.5"},
		{"0.000000000001", want{true, true, true}, "0.000000000001"},
		{"-12.345", want{true, false, false}, "-12.345"},
		{"999999999999999999.999999999999", want{true, true, true}, "999999999999999999.999999999999"},
		{"-999999999999999999.999999999999", want{true, false, false}, "-999999999999999999.999999999999"},
		{"100", want{true, true, true}, "100"},
	}
	for _, tt := range tests {
		a, err := ParseAmount(tt.in)
		if (err == nil) != tt.ok.signed {
			t.Errorf("ParseAmount(%q): err %v", tt.in, err)
		} else if err == nil && a.String() != tt.exact {
			t.Errorf("ParseAmount(%q).String() = %q, want %q", tt.in, a.String(), tt.exact)
		}
		if _, err := ParseNonNegative(tt.in); (err == nil) != tt.ok.nonNeg {
			t.Errorf("ParseNonNegative(%q): err %v", tt.in, err)
		}
		if _, err := ParsePositive(tt.in); (err == nil) != tt.ok.positive {
			t.Errorf("ParsePositive(%q): err %v", tt.in, err)
		}
	}

	bad := []struct{ in, why string }{
		{"", "not a plain decimal"},
		{"-", "not a plain decimal"},
		{" 1", "not a plain decimal"},
		{"1 ", "not a plain decimal"},
		{"+1", "not a plain decimal"},
		{"--1", "not a plain decimal"},
		{"1e3", "not a plain decimal"},
		{"1E3", "not a plain decimal"},
		{"1.5e-2", "not a plain decimal"},
		{"NaN", "not a plain decimal"},
		{"nan", "not a plain decimal"},
		{"Infinity", "not a plain decimal"},
		{"-Inf", "not a plain decimal"},
		{"1.", "not a plain decimal"},
		{".5", "not a plain decimal"},
		{"1.2.3", "not a plain decimal"},
		{"1,50", "not a plain decimal"},
		{"0x10", "not a plain decimal"},
		{"１", "not a plain decimal"}, // fullwidth digit
		{"01", "leading zero"},
		{"-00.5", "leading zero"},
		{"1000000000000000000", "more than 18 integer digits"},
		{"1000000000000000000.5", "more than 18 integer digits"},
		{"0.0000000000001", "more than 12 fractional digits"},
		{"1.0000000000000", "more than 12 fractional digits"}, // trailing zeros count
		{strings.Repeat("9", 5000), "more than 18 integer digits"},
	}
	for _, tt := range bad {
		_, err := ParseAmount(tt.in)
		if !errors.Is(err, ErrInvalidAmount) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("ParseAmount(%.20q) = %v; want ErrInvalidAmount saying %q", tt.in, err, tt.why)
		}
		if len(err.Error()) > 200 {
			t.Errorf("ParseAmount(%.20q): error message of %d bytes", tt.in, len(err.Error()))
		}
	}
	if _, err := ParsePositive("-1"); err == nil || !strings.Contains(err.Error(), "sign is not allowed") {
		t.Errorf("ParsePositive(-1) = %v", err)
	}
	if _, err := ParsePositive("0.000"); err == nil || !strings.Contains(err.Error(), "greater than zero") {
		t.Errorf("ParsePositive(0.000) = %v", err)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("MustParse(\"1e3\") did not panic")
		}
	}()
	MustParse("1e3")
}

func TestArithmetic(t *testing.T) {
	a, b := MustParse("10.10"), MustParse("0.2")
	if got := a.Add(b).String(); got != "10.3" {
		t.Errorf("Add = %s", got)
	}
	if got := b.Sub(a).String(); got != "-9.9" {
		t.Errorf("Sub = %s", got)
	}
	if got := a.Neg().String(); got != "-10.1" {
		t.Errorf("Neg = %s", got)
	}
	if got, back := a.Neg().Abs().String(), a.Abs().String(); got != "10.1" || back != "10.1" {
		t.Errorf("Abs = %s and %s", got, back)
	}
	// 0.1 + 0.2 is exactly 0.3 (it is not in float64).
	if !MustParse("0.1").Add(MustParse("0.2")).Equal(MustParse("0.3")) {
		t.Error("0.1 + 0.2 != 0.3")
	}
	if a.Cmp(b) != 1 || b.Cmp(a) != -1 || a.Cmp(MustParse("10.1000")) != 0 {
		t.Error("Cmp")
	}
	if !b.LessThan(a) || b.GreaterThan(a) || !a.GreaterThan(b) || a.LessThan(a) {
		t.Error("LessThan/GreaterThan")
	}
	if !Zero().IsZero() || !(Amount{}).IsZero() || a.IsZero() || !MustParse("-0.00").IsZero() {
		t.Error("IsZero")
	}
	if !b.Sub(a).IsNegative() || a.IsNegative() || Zero().IsNegative() {
		t.Error("IsNegative")
	}
	if !a.IsPositive() || Zero().IsPositive() || a.Neg().IsPositive() {
		t.Error("IsPositive")
	}
	if got := a.Decimal().String(); got != "10.1" {
		t.Errorf("Decimal = %s", got)
	}
}

func TestMulOddsIsExact(t *testing.T) {
	tests := []struct{ amount, odds, want string }{
		{"999999999999999999.999999999999", "1.3333", "1333299999999999999.9999999999986667"},
		{"999999999999999999.999999999999", "999999.9999", "999999999899999999999999.9999990000000001"},
		{"0.000000000001", "1.01", "0.00000000000101"},
		{"10.00", "1.2345", "12.345"},
		{"0.1", "3", "0.3"},
		{"-5", "2.5", "-12.5"},
	}
	for _, tt := range tests {
		got := MustParse(tt.amount).MulOdds(odds.MustParse(tt.odds))
		if got.String() != tt.want {
			t.Errorf("%s × %s = %s, want %s", tt.amount, tt.odds, got, tt.want)
		}
		// ... and it survives the database unchanged.
		v, err := got.Value()
		if err != nil {
			t.Errorf("Value(%s): %v", got, err)
			continue
		}
		var back Amount
		if err := back.Scan(v); err != nil || !back.Equal(got) {
			t.Errorf("Scan(Value(%s)) = %s, %v", got, back, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MulOdds with the zero Odds did not panic")
		}
	}()
	MustParse("1").MulOdds(odds.Odds{})
}

func TestRoundToCurrency(t *testing.T) {
	tests := []struct {
		in       string
		decimals int32
		want     string // StringFixed(decimals)
	}{
		// 0 decimals (JPY)
		{"1923.4", 0, "1923"},
		{"1923.5", 0, "1924"}, // half: to even
		{"1922.5", 0, "1922"}, // half: to even
		{"1922.5000000000000001", 0, "1923"},
		{"0.5", 0, "0"},
		{"1.5", 0, "2"},
		{"2.5", 0, "2"},
		{"-2.5", 0, "-2"},
		{"-0.4", 0, "0"}, // no "-0"
		// 2 decimals (USD, EUR)
		{"0.125", 2, "0.12"},
		{"0.135", 2, "0.14"},
		{"12.345", 2, "12.34"},  // 10.00 × 1.2345
		{"12.355", 2, "12.36"},  // 10.00 × 1.2355
		{"12.3451", 2, "12.35"}, // above half
		{"12.3449", 2, "12.34"},
		{"-0.125", 2, "-0.12"},
		{"-0.001", 2, "0.00"},
		{"7", 2, "7.00"},
		{"1333299999999999999.9999999999986667", 2, "1333300000000000000.00"},
		// 3 decimals (KWD)
		{"1.2345", 3, "1.234"},
		{"1.2355", 3, "1.236"},
		{"0.0005", 3, "0.000"},
		{"0.0015", 3, "0.002"},
		{"19.2340", 3, "19.234"},
		// 12 decimals (aggregator)
		{"0.0000000000005", 12, "0.000000000000"},
		{"0.0000000000015", 12, "0.000000000002"},
		{"1333299999999999999.9999999999986667", 12, "1333299999999999999.999999999999"},
		{"1.00000000000050", 12, "1.000000000000"},
		{"1.00000000000150", 12, "1.000000000002"},
		// 16 decimals (exact payout scale)
		{"0.12345678901234565", 16, "0.1234567890123456"},
	}
	for _, tt := range tests {
		a := exact(t, tt.in)
		r := a.RoundToCurrency(tt.decimals)
		if got := r.StringFixed(tt.decimals); got != tt.want {
			t.Errorf("RoundToCurrency(%s, %d) = %s, want %s", tt.in, tt.decimals, got, tt.want)
		}
		if got := a.StringFixed(tt.decimals); got != tt.want {
			t.Errorf("StringFixed(%s, %d) = %s, want %s (same rule as RoundToCurrency)", tt.in, tt.decimals, got, tt.want)
		}
		if r.Decimal().Exponent() < -tt.decimals {
			t.Errorf("RoundToCurrency(%s, %d) kept %d decimals", tt.in, tt.decimals, -r.Decimal().Exponent())
		}
	}
}

func TestFitsDecimals(t *testing.T) {
	tests := []struct {
		in       string
		decimals int32
		want     bool
	}{
		{"0", 0, true},
		{"1923", 0, true},
		{"1923.0", 0, true}, // trailing zeros do not count
		{"1923.5", 0, false},
		{"-2.5", 0, false},
		{"12.34", 2, true},
		{"12.3", 2, true},
		{"12.340000", 2, true},
		{"12.345", 2, false},
		{"12.3401", 2, false},
		{"-0.01", 2, true},
		{"-0.001", 2, false}, // rounds to 0, which is not its value
		{"1.234", 3, true},
		{"1.2345", 3, false},
		{"0.000000000001", 12, true},
		{"0.0000000000015", 12, false},
		{"0.1234567890123456", 16, true},
	}
	for _, tt := range tests {
		if got := exact(t, tt.in).FitsDecimals(tt.decimals); got != tt.want {
			t.Errorf("FitsDecimals(%s, %d) = %v, want %v", tt.in, tt.decimals, got, tt.want)
		}
	}
}

// exact builds an Amount of any scale (exact products have more digits than
// the wire allows).
func exact(t *testing.T, s string) Amount {
	t.Helper()
	return Amount{decimal.RequireFromString(s)}
}

func TestScaleOutOfRangePanics(t *testing.T) {
	for _, d := range []int32{-1, MaxScale + 1} {
		for name, f := range map[string]func(){
			"RoundToCurrency": func() { MustParse("1").RoundToCurrency(d) },
			"StringFixed":     func() { _ = MustParse("1").StringFixed(d) },
			"FitsDecimals":    func() { _ = MustParse("1").FitsDecimals(d) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%d) did not panic", name, d)
					}
				}()
				f()
			}()
		}
	}
}

func TestStringTrimmed(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"0.000", "0"},
		{"-0.0000000000001", "0"}, // rounds to zero: no sign
		{"100", "100"},
		{"100.000", "100"},
		{"12.50", "12.5"},
		{"-12.50", "-12.5"},
		{"0.000000000001", "0.000000000001"},
		{"0.0000000000005", "0"},                 // half to even at 12 decimals
		{"0.0000000000015", "0.000000000002"},    // half to even at 12 decimals
		{"1.2345678901234567", "1.234567890123"}, // 16 → 12 decimals
		{"19.2340000000000000", "19.234"},        // NUMERIC(40,16) read-back
		{"1333299999999999999.9999999999986667", "1333299999999999999.999999999999"},
	}
	for _, tt := range tests {
		if got := exact(t, tt.in).StringTrimmed(); got != tt.want {
			t.Errorf("StringTrimmed(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestPayoutExamples(t *testing.T) {
	// docs/decisions.md, "Contract details": payout = stake × entry_odds, rounded to the currency's decimals.
	tests := []struct {
		stake, odds, currency, want string
	}{
		{"10.00", "1.9234", "USD", "19.23"},
		{"10.00", "1.2345", "EUR", "12.34"}, // 12.345: half to even
		{"10.00", "1.2355", "EUR", "12.36"}, // 12.355: half to even
		{"1000", "1.9235", "JPY", "1924"},   // 1923.5
		{"1000", "1.9225", "JPY", "1922"},   // 1922.5
		{"1.000", "1.2345", "KWD", "1.234"}, // 1.2345
		{"2.500", "3.1544", "KWD", "7.886"}, // 7.886
	}
	for _, tt := range tests {
		dec, ok := CurrencyDecimals(tt.currency)
		if !ok {
			t.Fatalf("no decimals for %s", tt.currency)
		}
		stake, err := ParsePositive(tt.stake)
		if err != nil {
			t.Fatal(err)
		}
		if got := stake.MulOdds(odds.MustParse(tt.odds)).StringFixed(dec); got != tt.want {
			t.Errorf("%s %s × %s = %s, want %s", tt.currency, tt.stake, tt.odds, got, tt.want)
		}
	}
}

func TestIsPlainDecimal(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "10": true, "10.50": true, "-3.1": true, "007": true,
		"": false, "-": false, ".5": false, "5.": false, "+5": false, "1e3": false,
		" 1": false, "1,5": false, "--1": false, "1.2.3": false,
	} {
		if got := IsPlainDecimal(s); got != want {
			t.Errorf("IsPlainDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}
