package money

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseAmount: whatever the input, parsing never panics, and an
// accepted amount prints to a string that parses back to the same value.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"0", "10.00", "-1", "abc", "1e3", "999999999999999999.999999999999", "0.0000000000001", "+1", "01", ".5", "5.", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		if err != nil {
			return
		}
		b, err := ParseAmount(a.String())
		if err != nil || !a.Equal(b) {
			t.Fatalf("%q parsed to %s, which does not parse back (%v)", s, a, err)
		}
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var c Amount
		if err := json.Unmarshal(raw, &c); err != nil || !c.Equal(a) {
			t.Fatalf("%s does not round-trip through JSON %s: %v", a, raw, err)
		}
		if p, err := ParsePositive(s); err == nil && !p.IsPositive() {
			t.Fatalf("ParsePositive(%q) = %s", s, p)
		}
	})
}

// FuzzUnmarshalJSON: no JSON input panics the decoder, and numbers are
// always refused.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`"1.00"`, `1.00`, `null`, `"1e3"`, `{}`, `"`, `"-0"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a Amount
		err := json.Unmarshal([]byte(s), &a)
		if trimmed := strings.TrimLeft(s, " \t\r\n"); err == nil && (trimmed == "" || trimmed[0] != '"') {
			t.Fatalf("%s accepted although it is not a JSON string", s)
		}
	})
}
