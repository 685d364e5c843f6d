package decimaltext_test

import (
	"errors"
	"testing"

	"github.com/foresight-dev/foresight/internal/decimaltext"
)

var errInvalid = errors.New("invalid thing")

func TestFromJSON(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{in: `"12.5"`, want: "12.5"},
		{in: `"\u0031"`, want: "1"},
		{in: `12.5`, err: true},
		{in: `null`, err: true},
		{in: ``, err: true},
		{in: `"12`, err: true},
	} {
		got, err := decimaltext.FromJSON([]byte(tc.in), errInvalid, "a thing")
		if tc.err {
			if !errors.Is(err, errInvalid) {
				t.Errorf("FromJSON(%s): error %v, want one wrapping errInvalid", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("FromJSON(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestFromColumn(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
		err  bool
	}{
		{in: "1.92", want: "1.92"},
		{in: []byte("12.340000000000"), want: "12.340000000000"},
		{in: int64(-7), want: "-7"},
		{in: nil, err: true},
		{in: 1.5, err: true},
	} {
		got, err := decimaltext.FromColumn(tc.in, errInvalid, "pkg.Thing", "things")
		if tc.err {
			if !errors.Is(err, errInvalid) {
				t.Errorf("FromColumn(%#v): error %v, want one wrapping errInvalid", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("FromColumn(%#v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	long := "0123456789012345678901234567890123456789xyz"
	if got, want := decimaltext.Quote(long), `"0123456789012345678901234567890123456789"…`; got != want {
		t.Errorf("Quote(long) = %s, want %s", got, want)
	}
	if got, want := decimaltext.Quote("1.5"), `"1.5"`; got != want {
		t.Errorf("Quote(short) = %s, want %s", got, want)
	}
}
