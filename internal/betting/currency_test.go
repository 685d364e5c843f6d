package betting_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
)

// TestCurrencyDecimalsDefault: a currency given without decimals takes its
// ISO 4217 minor units; a code without them must state its decimals.
func TestCurrencyDecimalsDefault(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		json    string
		want    int32
		invalid string
	}{
		{`{"code":"USD"}`, 2, ""},
		{`{"code":"JPY"}`, 0, ""},
		{`{"code":"KWD"}`, 3, ""},
		{`{"code":"USD","decimals":0}`, 0, ""},
		{`{"code":"USDT","decimals":6}`, 6, ""},
		{`{"code":"USDT"}`, 0, "currencies[0].decimals is required"},
		{`{"code":"XAU"}`, 0, "currencies[0].decimals is required"},
		{`{"code":"USD","decimals":13}`, 0, "decimals must be 0 to 12"},
	} {
		o := bettingtest.NewOperator("op")
		var c betting.Currency
		if err := json.Unmarshal([]byte(tt.json), &c); err != nil {
			t.Fatal(err)
		}
		o.Currencies = []betting.Currency{c}
		o.Limits = map[string]betting.Limits{c.Code: o.Limits["USD"]}
		err := o.Validate(false)
		switch {
		case tt.invalid != "" && (err == nil || !strings.Contains(err.Error(), tt.invalid)):
			t.Errorf("%s: Validate = %v, want an error with %q", tt.json, err, tt.invalid)
		case tt.invalid == "" && err != nil:
			t.Errorf("%s: Validate = %v", tt.json, err)
		case tt.invalid == "" && o.Currencies[0].Decimals != tt.want:
			t.Errorf("%s: decimals %d, want %d", tt.json, o.Currencies[0].Decimals, tt.want)
		}
	}
}
