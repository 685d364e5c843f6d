package odds

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParse(t *testing.T) {
	good := []struct{ in, str string }{
		{"1.01", "1.01"},
		{"1.9234", "1.9234"},
		{"1.9200", "1.92"},
		{"1.9", "1.90"},
		{"2", "2.00"},
		{"2.5001", "2.5001"},
		{"10.10", "10.10"},
		{"999999.9999", "999999.9999"},
	}
	for _, g := range good {
		o, err := Parse(g.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", g.in, err)
			continue
		}
		if o.String() != g.str {
			t.Errorf("Parse(%q).String() = %q, want %q", g.in, o.String(), g.str)
		}
	}
	bad := []string{
		"", " ", "1.5 ", " 1.5", "abc", "NaN", "Inf", "1e1", "1.5E0", "+1.5", "-1.5",
		"1.", ".5", "01.5", "1.23456", "1.00000", "1,5", "0x2", "1.0", "1.009", "0",
		"1000000", "999999.99991", "1000000.0000", "١.٥",
	}
	for _, in := range bad {
		if o, err := Parse(in); !errors.Is(err, ErrInvalidOdds) {
			t.Errorf("Parse(%q) = %v, %v; want ErrInvalidOdds", in, o, err)
		}
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("MustParse(\"1\") did not panic")
		}
	}()
	MustParse("1")
}

func TestDisplay(t *testing.T) {
	tests := []struct{ in, display, percent string }{
		{"1.9234", "1.92", "52.08"},
		{"1.9299", "1.92", "52.08"}, // rounded down, never up
		{"1.01", "1.01", "99.01"},
		{"1.0199", "1.01", "99.01"},
		{"1.28", "1.28", "78.12"}, // 100/1.28 = 78.125 exactly: half to even
		{"1.6", "1.60", "62.50"},
		{"3", "3.00", "33.33"},
		{"2.0000", "2.00", "50.00"},
		{"31.746", "31.74", "3.15"}, // 3.1505…
		{"999999.9999", "999999.99", "0.00"},
	}
	for _, tt := range tests {
		o := MustParse(tt.in)
		d := o.Display()
		if d.String() != tt.display {
			t.Errorf("%s.Display() = %s, want %s", tt.in, d, tt.display)
		}
		if d.Cmp(o) > 0 {
			t.Errorf("%s.Display() = %s is above the odds", tt.in, d)
		}
		if p := d.ImpliedPercent().StringFixed(2); p != tt.percent {
			t.Errorf("%s.ImpliedPercent() = %s, want %s", tt.display, p, tt.percent)
		}
	}
	var zero Odds
	if !zero.Display().IsZero() || !zero.ImpliedPercent().IsZero() {
		t.Error("zero Odds: Display and ImpliedPercent must be zero")
	}
}

func TestFormatDisplayProbability(t *testing.T) {
	tests := []struct{ in, want string }{
		{"52.08", "52.08"},
		{"50", "50.00"},
		{"62.5", "62.50"},
		{"0", "0.00"},
		{"99.0100", "99.01"}, // NUMERIC(8,2) read back with more zeros
		{"78.125", "78.12"},  // half to even, as ImpliedPercent rounds
		{"78.135", "78.14"},
		{"3.1505", "3.15"},
	}
	for _, tt := range tests {
		if got := FormatDisplayProbability(decimal.RequireFromString(tt.in)); got != tt.want {
			t.Errorf("FormatDisplayProbability(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestQuoHalfEven(t *testing.T) {
	tests := []struct{ num, den, want string }{
		{"1", "8", "0.12"}, // 0.125 → even
		{"3", "8", "0.38"}, // 0.375 → even
		{"1", "3", "0.33"}, // below half
		{"2", "3", "0.67"}, // above half
		{"100", "1.28", "78.12"},
		{"100", "1.92", "52.08"},
	}
	for _, tt := range tests {
		got := quoHalfEven(decimal.RequireFromString(tt.num), decimal.RequireFromString(tt.den), 2)
		if got.StringFixed(2) != tt.want {
			t.Errorf("%s/%s = %s, want %s", tt.num, tt.den, got.StringFixed(2), tt.want)
		}
	}
}

func TestOddsJSON(t *testing.T) {
	type bet struct {
		Entry   Odds  `json:"entry_odds"`
		Current *Odds `json:"current,omitempty"`
	}
	b, err := json.Marshal(bet{Entry: MustParse("1.9000")})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"entry_odds":"1.90"}` {
		t.Errorf("marshal: %s", b)
	}
	var got bet
	if err := json.Unmarshal([]byte(`{"entry_odds":"1.9234","current":null}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Entry.String() != "1.9234" || got.Current != nil {
		t.Errorf("unmarshal: %+v", got)
	}
	for _, in := range []string{`{"entry_odds":1.92}`, `{"entry_odds":null}`, `{"entry_odds":"1.92345"}`, `{"entry_odds":"1"}`, `{"entry_odds":true}`} {
		var v bet
		if err := json.Unmarshal([]byte(in), &v); !errors.Is(err, ErrInvalidOdds) {
			t.Errorf("unmarshal %s: %v, want ErrInvalidOdds", in, err)
		}
	}
	if _, err := json.Marshal(bet{}); err == nil {
		t.Error("marshal of the zero Odds must fail")
	}
}

func TestOddsSQL(t *testing.T) {
	o := MustParse("1.9234")
	v, err := o.Value()
	if err != nil || v != "1.9234" {
		t.Fatalf("Value() = %v, %v", v, err)
	}
	for _, src := range []any{"1.9234", []byte("1.9234")} {
		var got Odds
		if err := got.Scan(src); err != nil || !got.Equal(o) {
			t.Errorf("Scan(%#v) = %v, %v", src, got, err)
		}
	}
	var got Odds
	if err := got.Scan("1.9200"); err != nil || got.String() != "1.92" { // PostgreSQL NUMERIC(10,4)
		t.Errorf("Scan(NUMERIC 1.9200) = %v, %v", got, err)
	}
	if err := got.Scan(int64(3)); err != nil || got.String() != "3.00" {
		t.Errorf("Scan(int64 3) = %v, %v", got, err)
	}
	for _, src := range []any{nil, 1.92, "1.92340", "abc", true} {
		var g Odds
		if err := g.Scan(src); !errors.Is(err, ErrInvalidOdds) {
			t.Errorf("Scan(%#v) = %v, want ErrInvalidOdds", src, err)
		}
	}
	if _, err := (Odds{}).Value(); err == nil {
		t.Error("Value of the zero Odds must fail")
	}
	// A nullable column goes through sql.Null.
	var n sql.Null[Odds]
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Errorf("sql.Null Scan(nil) = %v, %+v", err, n)
	}
}

func TestMovedAgainst(t *testing.T) {
	tol5 := decimal.RequireFromString("0.05")
	tests := []struct {
		name           string
		entry, current string
		tolerance      decimal.Decimal
		want           bool
	}{
		{"unchanged", "2.00", "2.00", tol5, false},
		{"better for the bettor", "2.00", "2.50", tol5, false},
		{"small drop", "2.00", "1.95", tol5, false},
		{"drop exactly at tolerance", "2.00", "1.90", tol5, false},
		{"drop one tick past tolerance", "2.00", "1.8999", tol5, true},
		{"big drop", "2.00", "1.50", tol5, true},
		{"exactly at tolerance, 4 decimals", "1.9200", "1.8720", decimal.RequireFromString("0.025"), false},
		{"one tick past tolerance, 4 decimals", "1.9200", "1.8719", decimal.RequireFromString("0.025"), true},
		{"exactly at tolerance, odd entry", "3.1250", "3.0250", decimal.RequireFromString("0.032"), false},
		{"zero tolerance, any drop", "1.9234", "1.9233", decimal.Zero, true},
		{"zero tolerance, no drop", "1.9234", "1.9234", decimal.Zero, false},
		{"negative tolerance counts as zero", "1.50", "1.50", decimal.RequireFromString("-0.1"), false},
		{"negative tolerance counts as zero, drop", "1.50", "1.49", decimal.RequireFromString("-0.1"), true},
		{"tolerance 1 accepts any valid price", "999999.9999", "1.01", one, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MovedAgainst(MustParse(tt.entry), MustParse(tt.current), tt.tolerance); got != tt.want {
				t.Errorf("MovedAgainst(%s, %s, %s) = %v, want %v", tt.entry, tt.current, tt.tolerance, got, tt.want)
			}
		})
	}
	if !MovedAgainst(Odds{}, MustParse("2"), tol5) || !MovedAgainst(MustParse("2"), Odds{}, tol5) {
		t.Error("a zero Odds on either side must count as moved")
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range Methods() {
		got, err := ParseMethod(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %q, %v", m, got, err)
		}
	}
	want := []Method{"multiplicative", "additive", "power", "odds_ratio", "shin"}
	for i, m := range Methods() {
		if m != want[i] {
			t.Errorf("Methods()[%d] = %q, want %q", i, m, want[i])
		}
	}
	for _, s := range []string{"", "basic", "Multiplicative", "odds-ratio", "oddsratio", " shin", "wpo"} {
		if _, err := ParseMethod(s); !errors.Is(err, ErrUnknownMethod) || !strings.Contains(err.Error(), "odds_ratio") {
			t.Errorf("ParseMethod(%q): %v, want ErrUnknownMethod listing the methods", s, err)
		}
	}
	if DefaultMethod != OddsRatio {
		t.Errorf("DefaultMethod = %q, want odds_ratio (docs/decisions.md, Contract details)", DefaultMethod)
	}
}
