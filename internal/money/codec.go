package money

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"

	"github.com/foresight-dev/foresight/internal/decimaltext"
)

// MarshalJSON writes a as a JSON string holding its exact value (String:
// "12.345", "10"). Amounts are strings on the wire, never JSON numbers. A
// response that needs a fixed scale (the currency's decimals) or the
// aggregator's trimmed 12-decimal form should carry StringFixed or
// StringTrimmed instead of the Amount itself.
func (a Amount) MarshalJSON() ([]byte, error) {
	return json.Marshal(a.String())
}

// UnmarshalJSON reads an amount from a JSON string, with the rules of
// ParseAmount (signed; at most 18 integer and 12 fractional digits; no
// exponent). A JSON number ("amount": 12.5) is rejected, and so is null: use a
// *Amount field for an optional amount (encoding/json sets it to nil on null
// without calling this method). A field that must be positive or non-negative
// still needs that check after decoding. Errors wrap ErrInvalidAmount.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s, err := decimaltext.FromJSON(b, ErrInvalidAmount, "an amount")
	return decimaltext.SetParsed(a, s, err, ParseAmount)
}

// Value stores a as its exact String form ("12.345"), for a TEXT column in
// SQLite (never REAL: it loses digits) or a NUMERIC column in PostgreSQL.
// A PostgreSQL NUMERIC(p,s) column silently rounds values with more than s
// decimals (half away from zero), so give exact payouts a column of scale 16,
// e.g. NUMERIC(40,16), or store RoundToCurrency's result. SQLite compares TEXT
// lexically: compare and sum amounts in Go, not in SQL.
//
// Value refuses (ErrInvalidAmount) an amount that Scan could not read back:
// more than 24 integer or 16 fractional digits.
func (a Amount) Value() (driver.Value, error) {
	s := a.String()
	if _, err := parseStored(s); err != nil {
		return nil, fmt.Errorf("money: cannot store %s: %w", decimaltext.Quote(s), err)
	}
	return s, nil
}

// Scan reads an amount from a database column. It accepts:
//   - string and []byte: TEXT in SQLite, and NUMERIC in PostgreSQL, which
//     pgx's database/sql driver (pgx/v5/stdlib) always hands over as a string
//     such as "12.340000000000" (a pgtype.Numeric is never passed to a
//     Scanner; "NaN" and "Infinity" are rejected);
//   - int64: an integer stored without a decimal point.
//
// Strings follow ParseAmount's grammar, with the storage limits of 24 integer
// and 16 fractional digits, so every value Value writes reads back. NULL is an
// error (read a nullable column into sql.Null[money.Amount]), and so is
// float64 and every other type: money is never a float. Errors wrap
// ErrInvalidAmount.
func (a *Amount) Scan(src any) error {
	s, err := decimaltext.FromColumn(src, ErrInvalidAmount, "money.Amount", "amounts")
	return decimaltext.SetParsed(a, s, err, parseStored)
}

// parseStored reads an amount with ParseAmount's grammar and the storage
// limits of 24 integer and 16 fractional digits.
func parseStored(s string) (Amount, error) {
	return parse(s, signed, storageIntegerDigits, storageFractionalDigits)
}
