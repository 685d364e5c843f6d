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

// TestCurrencyCodeOfAnIntegration: a standalone operator's wallet receives
// only 3 to 5 upper-case letters, so its configuration refuses other codes
// (every bet in one would be refused as the wallet call cannot be made); an
// aggregator's protocol takes 3 to 7 letters or digits.
func TestCurrencyCodeOfAnIntegration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		integration, code string
		valid             bool
	}{
		{betting.IntegrationStandalone, "USD", true},
		{betting.IntegrationStandalone, "USDTE", true},
		{betting.IntegrationStandalone, "USDT20", false},
		{betting.IntegrationStandalone, "BTC2", false},
		{betting.IntegrationAggregator, "USDT20", true},
		{betting.IntegrationAggregator, "BTC2", true},
		{betting.IntegrationBundled, "USDT20", true},
		{betting.IntegrationAggregator, "USDT2000", false},
		{betting.IntegrationAggregator, "usd", false},
	} {
		o := bettingtest.NewOperator("op")
		o.Integration = tt.integration
		o.CasinoIDs = []string{"casino-1"}
		o.Currencies = []betting.Currency{{Code: tt.code, Decimals: 2}}
		o.Limits = map[string]betting.Limits{tt.code: o.Limits["USD"]}
		err := o.Validate(false)
		if (err == nil) != tt.valid {
			t.Errorf("%s operator with %s: Validate = %v, want valid %t", tt.integration, tt.code, err, tt.valid)
		}
	}
}
