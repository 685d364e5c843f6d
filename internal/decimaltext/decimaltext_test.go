package decimaltext_test

import (
	"errors"
	"fmt"
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
		checkText(t, "FromJSON("+tc.in+")", got, err, tc.want, tc.err)
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
		checkText(t, fmt.Sprintf("FromColumn(%#v)", tc.in), got, err, tc.want, tc.err)
	}
}

// checkText reports a call that gave the wrong text, or no error wrapping
// errInvalid where one was wanted.
func checkText(t *testing.T, call, got string, err error, want string, wantErr bool) {
	t.Helper()
	switch {
	case wantErr && !errors.Is(err, errInvalid):
		t.Errorf("%s: error %v, want one wrapping errInvalid", call, err)
	case !wantErr && (err != nil || got != want):
		t.Errorf("%s = %q, %v; want %q", call, got, err, want)
	}
}

func TestSetParsed(t *testing.T) {
	parseLen := func(s string) (int, error) {
		if s == "" {
			return 0, errInvalid
		}
		return len(s), nil
	}
	readErr := errors.New("unreadable")
	for _, tc := range []struct {
		text    string
		readErr error
		want    int
		err     error
	}{
		{text: "12.5", want: 4},
		{text: "12.5", readErr: readErr, want: -1, err: readErr},
		{text: "", want: -1, err: errInvalid},
	} {
		got := -1
		err := decimaltext.SetParsed(&got, tc.text, tc.readErr, parseLen)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
			t.Errorf("SetParsed(%q, %v) = %d, %v; want %d, %v", tc.text, tc.readErr, got, err, tc.want, tc.err)
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
