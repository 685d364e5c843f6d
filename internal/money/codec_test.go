package money

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
	_ "modernc.org/sqlite"

	"github.com/foresight-dev/foresight/internal/odds"
)

func TestJSONRoundTrip(t *testing.T) {
	type deposit struct {
		Amount  Amount  `json:"amount"`
		Balance *Amount `json:"balance,omitempty"`
	}
	for _, in := range []string{
		"0", "12.5", "-12.345", "100", "0.000000000001",
		"999999999999999999.999999999999", "-999999999999999999.999999999999",
	} {
		a := MustParse(in)
		b, err := json.Marshal(deposit{Amount: a})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"amount":"` + in + `"}`; string(b) != want {
			t.Errorf("marshal %s: %s, want %s", in, b, want)
		}
		var back deposit
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if !back.Amount.Equal(a) || back.Balance != nil {
			t.Errorf("round trip %s: %+v", in, back)
		}
	}
	// Trailing zeros are dropped by MarshalJSON (the exact value, not a scale).
	b, _ := json.Marshal(MustParse("12.500"))
	if string(b) != `"12.5"` {
		t.Errorf("marshal 12.500: %s", b)
	}
	// Optional amounts: null on a pointer field is nil.
	var d deposit
	if err := json.Unmarshal([]byte(`{"amount":"1.00","balance":null}`), &d); err != nil || d.Balance != nil {
		t.Errorf("null balance: %v %+v", err, d)
	}
	if err := json.Unmarshal([]byte(`{"amount":"1.00","balance":"7.5"}`), &d); err != nil || d.Balance == nil || d.Balance.String() != "7.5" {
		t.Errorf("balance: %v %+v", err, d)
	}
}

func TestJSONRejects(t *testing.T) {
	for _, in := range []string{
		`{"amount":12.5}`,                  // a JSON number
		`{"amount":1e3}`,                   // a JSON number with exponent
		`{"amount":null}`,                  // null on a non-pointer field
		`{"amount":true}`,                  // not a string
		`{"amount":"1e3"}`,                 // exponent inside the string
		`{"amount":"NaN"}`,                 // NaN
		`{"amount":""}`,                    // empty
		`{"amount":" 1"}`,                  // space
		`{"amount":"0.0000000000001"}`,     // 13 fractional digits
		`{"amount":"1000000000000000000"}`, // 19 integer digits
		`{"amount":"1.5\u0000"}`,           // control character
	} {
		var v struct {
			Amount Amount `json:"amount"`
		}
		err := json.Unmarshal([]byte(in), &v)
		if !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("unmarshal %s: %v, want ErrInvalidAmount", in, err)
		}
	}
}

// TestIndependentOfDecimalGlobals changes shopspring's package settings the
// way another package might, and checks that no output of Amount changes.
// (Production code must never do this; the test restores them.)
func TestIndependentOfDecimalGlobals(t *testing.T) {
	trim, noQuotes, sci := decimal.TrimTrailingZeros, decimal.MarshalJSONWithoutQuotes, decimal.UseScientificNotation
	t.Cleanup(func() {
		decimal.TrimTrailingZeros, decimal.MarshalJSONWithoutQuotes, decimal.UseScientificNotation = trim, noQuotes, sci
	})
	decimal.TrimTrailingZeros, decimal.MarshalJSONWithoutQuotes, decimal.UseScientificNotation = false, true, true

	a := MustParse("12.500")
	b, _ := json.Marshal(a)
	v, _ := a.Value()
	if a.String() != "12.5" || string(b) != `"12.5"` || v != "12.5" || a.StringFixed(2) != "12.50" || a.StringTrimmed() != "12.5" {
		t.Errorf("outputs changed with the globals: %s %s %v %s %s", a.String(), b, v, a.StringFixed(2), a.StringTrimmed())
	}
	big := MustParse("1000")
	if big.String() != "1000" || big.StringTrimmed() != "1000" {
		t.Errorf("scientific notation leaked: %s %s", big.String(), big.StringTrimmed())
	}
}

func TestScan(t *testing.T) {
	good := []struct {
		src  any
		want string
	}{
		{"12.345", "12.345"},
		{[]byte("12.345"), "12.345"},
		{"12.340000000000", "12.34"},      // PostgreSQL NUMERIC(30,12) via pgx stdlib
		{"19.2340000000000000", "19.234"}, // NUMERIC(40,16)
		{"-5", "-5"},
		{int64(42), "42"},
		{int64(-7), "-7"},
		{"999999999999999999999999.9999999999999999", "999999999999999999999999.9999999999999999"}, // storage limits
	}
	for _, g := range good {
		var a Amount
		if err := a.Scan(g.src); err != nil || a.String() != g.want {
			t.Errorf("Scan(%#v) = %s, %v; want %s", g.src, a, err, g.want)
		}
	}
	bad := []any{
		nil, 12.5, float32(1), true, "NaN", "Infinity", "-Infinity", "1e3", "", " 1",
		"1000000000000000000000000", "0.00000000000000001",
	}
	for _, src := range bad {
		var a Amount
		if err := a.Scan(src); !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("Scan(%#v) = %v, want ErrInvalidAmount", src, err)
		}
	}
	// Value refuses what Scan could not read back.
	huge := MustParse("999999999999999999").MulOdds(odds.MustParse("999999.9999")).Add(MustParse("999999999999999999"))
	huge = huge.Add(huge).Add(huge).Add(huge).Add(huge).Add(huge).Add(huge).Add(huge).Add(huge).Add(huge).Add(huge)
	if _, err := huge.Value(); !errors.Is(err, ErrInvalidAmount) {
		t.Errorf("Value(%s) = %v, want ErrInvalidAmount", huge, err)
	}
	// A nullable column goes through sql.Null.
	var n sql.Null[Amount]
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Errorf("sql.Null Scan(nil) = %v, %+v", err, n)
	}
}

// TestSQLiteRoundTrip stores amounts in a real SQLite database (TEXT column,
// the embedded engine's money type) and reads them back exactly.
func TestSQLiteRoundTrip(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "money.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE bets (id INTEGER PRIMARY KEY, payout TEXT NOT NULL, refund TEXT)`); err != nil {
		t.Fatal(err)
	}
	values := []Amount{
		MustParse("999999999999999999.999999999999").MulOdds(odds.MustParse("1.3333")),
		MustParse("0.000000000001"),
		MustParse("-12.5"),
		Zero(),
		MustParse("100"),
	}
	for i, a := range values {
		var refund sql.Null[Amount]
		if i%2 == 0 {
			refund = sql.Null[Amount]{V: a, Valid: true}
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO bets (id, payout, refund) VALUES (?, ?, ?)`, i, a, refund); err != nil {
			t.Fatalf("insert %s: %v", a, err)
		}
	}
	for i, want := range values {
		var got Amount
		var refund sql.Null[Amount]
		var raw string
		if err := db.QueryRowContext(ctx, `SELECT payout, refund, payout FROM bets WHERE id = ?`, i).Scan(&got, &refund, &raw); err != nil {
			t.Fatalf("select %d: %v", i, err)
		}
		if !got.Equal(want) || got.String() != want.String() || raw != want.String() {
			t.Errorf("row %d: got %s (stored %q), want %s", i, got, raw, want)
		}
		if refund.Valid != (i%2 == 0) || (refund.Valid && !refund.V.Equal(want)) {
			t.Errorf("row %d: refund %+v", i, refund)
		}
	}
	if raw := values[0].String(); raw != "1333299999999999999.9999999999986667" {
		t.Errorf("exact product stored as %s", raw)
	}
}
