// Package decimaltext reads the text of an exact decimal value from where the
// platform keeps it, a JSON string or a database column, for the decimal
// types that parse that text themselves (money.Amount, odds.Odds). It never
// parses the number: each type applies its own grammar and limits to the text.
package decimaltext

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// FromJSON returns the contents of b, which must be a JSON string. A JSON
// number, null or any other value is an error wrapping invalid, worded
// "<noun> must be a JSON string, got <b>" (noun such as "an amount" or
// "odds"); so is a malformed string.
func FromJSON(b []byte, invalid error, noun string) (string, error) {
	if len(b) == 0 || b[0] != '"' {
		return "", fmt.Errorf("%w: %s must be a JSON string, got %s", invalid, noun, Quote(string(b)))
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("%w: %v", invalid, err)
	}
	return s, nil
}

// FromColumn returns the text of a database value for Scan: a string or
// []byte as it is (TEXT in SQLite; NUMERIC through pgx's database/sql driver,
// which hands it over as a string such as "12.340000000000"), an int64 in
// decimal. NULL is an error pointing to sql.Null[typeName] for a nullable
// column; float64 and every other type are errors asking to store plural
// ("amounts", "odds") as TEXT or NUMERIC. Errors wrap invalid.
func FromColumn(src any, invalid error, typeName, plural string) (string, error) {
	switch v := src.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case nil:
		return "", fmt.Errorf("%w: NULL (use sql.Null[%s] for a nullable column)", invalid, typeName)
	default:
		return "", fmt.Errorf("%w: cannot scan %T (store %s as TEXT or NUMERIC, never REAL or float)", invalid, src, plural)
	}
}

// SetParsed sets *dst to parse(text) and returns nil; or it returns
// readErr, the error of reading text (FromJSON, FromColumn), or else
// parse's error, and leaves *dst unchanged.
func SetParsed[T any](dst *T, text string, readErr error, parse func(string) (T, error)) error {
	if readErr != nil {
		return readErr
	}
	v, err := parse(text)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// Quote renders an input for an error message: Go-quoted, and cut to its
// first 40 bytes followed by "…" if longer.
func Quote(s string) string {
	const max = 40
	if len(s) > max {
		return fmt.Sprintf("%q…", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
