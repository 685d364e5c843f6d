package admin

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/decimaltext"
	"github.com/foresight-dev/foresight/internal/money"
)

// Limits of a decimal field's text: ample for the admin API's decimals
// (probabilities, margins and ratios, none above 1), and short enough that
// no request makes the server parse a number of thousands of digits.
const (
	maxDecimalIntegerDigits    = 18
	maxDecimalFractionalDigits = 12
)

// decimalField is a decimal number of an admin request body, read as
// api/admin.yaml writes it (schemas DecimalInput and ProbabilityInput): a
// JSON string in the platform's one decimal grammar, money.IsPlainDecimal,
// without a sign ("0.05", "1"; never ".5" or "5."), at most 18 integer and
// 12 fractional digits.
//
// The platform's types hold shopspring's decimal.Decimal, whose JSON
// reading also takes a JSON number (0.05), an exponent ("5e-2") and a sign
// ("-0.1"). They keep it: they also read the operators and events stored as
// JSON documents, which must keep loading whatever wrote them. The contract
// is enforced here, at the API's edge.
type decimalField struct{ value decimal.Decimal }

// decimalFieldType is how decode recognises a decimalField's refusal.
var decimalFieldType = reflect.TypeFor[decimalField]()

// Decimal returns the value read.
func (d decimalField) Decimal() decimal.Decimal { return d.value }

// UnmarshalJSON reads a decimal string. Anything else (a JSON number, null,
// a sign, an exponent, too many digits) is a *json.UnmarshalTypeError of
// type decimalField: encoding/json completes it with the path of the field
// ("margin.value"), which decode puts in its problem.
func (d *decimalField) UnmarshalJSON(b []byte) error {
	refused := &json.UnmarshalTypeError{Value: decimaltext.Quote(string(b)), Type: decimalFieldType}
	var s string
	if json.Unmarshal(b, &s) != nil || !plainDecimal(s) { // null leaves s empty
		return refused
	}
	v, err := decimal.NewFromString(s)
	if err != nil {
		return refused
	}
	d.value = v
	return nil
}

// plainDecimal reports whether s is an unsigned money.IsPlainDecimal
// (digits, and optionally a point and digits) within the digit limits.
func plainDecimal(s string) bool {
	if strings.HasPrefix(s, "-") || !money.IsPlainDecimal(s) {
		return false
	}
	intPart, frac, _ := strings.Cut(s, ".")
	return len(intPart) <= maxDecimalIntegerDigits && len(frac) <= maxDecimalFractionalDigits
}

// decimalFieldDetail is the problem detail of a refused decimal field.
func decimalFieldDetail(field string) string {
	return field + ` must be a decimal string such as "0.05": digits and an optional point, at most ` +
		strconv.Itoa(maxDecimalFractionalDigits) + ` decimals, no sign or exponent, never a JSON number.`
}
