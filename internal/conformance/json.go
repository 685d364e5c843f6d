package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/money"
)

// Object is a JSON object whose member values are kept raw, so that a
// check can tell a string from a number.
type Object map[string]json.RawMessage

// ParseObject reads body as a single JSON object.
func ParseObject(body []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var o Object
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	if o == nil {
		return nil, errors.New("the body is null, not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the body has data after its JSON object")
	}
	return o, nil
}

// Has reports whether the member key is present and not null.
func (o Object) Has(key string) bool {
	raw, ok := o[key]
	return ok && string(raw) != "null"
}

// Text returns the member key when it is a JSON string.
func (o Object) Text(key string) (string, bool) {
	raw, ok := o[key]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Object returns the member key when it is a JSON object.
func (o Object) Object(key string) (Object, bool) {
	raw, ok := o[key]
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var v Object
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return v, true
}

// Array returns the member key when it is a JSON array.
func (o Object) Array(key string) ([]json.RawMessage, bool) {
	raw, ok := o[key]
	if !ok || len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var v []json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return v, true
}

// ReadDecimal reads a number leniently, as a forgiving client would: a
// JSON string holding a decimal (an exponent is accepted) or a JSON number.
// Checks use it to follow the money; whether the wire form is the one the
// spec asks for is judged separately, with PlainDecimal.
func ReadDecimal(raw json.RawMessage) (decimal.Decimal, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return decimal.Decimal{}, errors.New("missing")
	}
	text := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return decimal.Decimal{}, fmt.Errorf("%s is not a JSON string", raw)
		}
	}
	d, err := decimal.NewFromString(strings.TrimSpace(text))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s is not a number", raw)
	}
	return d, nil
}

// PlainDecimal returns the text of raw when raw is a JSON string holding a
// plain decimal: an optional '-', digits, and optionally a point and at
// least one digit; no exponent, no '+', no white space. The error says what
// is wrong otherwise ("the JSON number 10.5, not a string").
func PlainDecimal(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", errors.New("missing")
	case raw[0] != '"':
		kind := "a JSON " + jsonKind(raw)
		if kind == "a JSON number" {
			return "", fmt.Errorf("the JSON number %s, not a string", raw)
		}
		return "", fmt.Errorf("%s (%s), not a string", kind, printable(raw, 40))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s is not a valid JSON string", printable(raw, 40))
	}
	if !money.IsPlainDecimal(s) {
		return "", fmt.Errorf("%q is not a plain decimal (digits, an optional point and digits; no exponent, sign '+' or spaces)", s)
	}
	return s, nil
}

// FractionDigits returns the number of digits written after the point of a
// plain decimal.
func FractionDigits(plain string) int {
	_, frac, _ := strings.Cut(plain, ".")
	return len(frac)
}

// IntegerDigits returns the number of digits written before the point of a
// plain decimal.
func IntegerDigits(plain string) int {
	i, _, _ := strings.Cut(strings.TrimPrefix(plain, "-"), ".")
	return len(i)
}

func jsonKind(raw []byte) string {
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// SameJSON reports whether a and b hold the same JSON value: white space
// and the order of object members do not matter, anything else does
// (numbers are compared as written).
func SameJSON(a, b []byte) bool {
	va, errA := decodeAny(a)
	vb, errB := decodeAny(b)
	if errA != nil || errB != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return reflect.DeepEqual(va, vb)
}

func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// Snippet renders a body on one line for a finding's message: white space
// runs folded, at most 300 bytes.
func Snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return "(no body)"
	}
	return printable([]byte(s), 300)
}
