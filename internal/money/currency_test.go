package money

import (
	"strings"
	"testing"
)

func TestCurrencyDecimals(t *testing.T) {
	tests := []struct {
		code string
		want int32
		ok   bool
	}{
		{"USD", 2, true},
		{"EUR", 2, true},
		{"GBP", 2, true},
		{"JPY", 0, true},
		{"KRW", 0, true},
		{"CLP", 0, true},
		{"KWD", 3, true},
		{"BHD", 3, true},
		{"TND", 3, true},
		{"CLF", 4, true},
		// x/text (CLDR) says 0; ISO 4217 says 2 or 3.
		{"IDR", 2, true},
		{"COP", 2, true},
		{"PKR", 2, true},
		{"IQD", 3, true},
		// Unknown to x/text.
		{"VES", 2, true},
		{"SLE", 2, true},
		{"MRU", 2, true},
		{"UYW", 4, true},
		{"ZWG", 2, true},
		// No minor unit in ISO 4217.
		{"XAU", 0, false},
		{"XXX", 0, false},
		{"XTS", 0, false},
		{"XDR", 0, false},
		// Not ISO 4217 currencies: operators set the decimals.
		{"BTC", 0, false},
		{"ETH", 0, false},
		{"USDT", 0, false},
		{"ZZZ", 0, false},
		// Malformed codes.
		{"usd", 0, false},
		{"Usd", 0, false},
		{"US", 0, false},
		{"", 0, false},
		{" USD", 0, false},
		{"840", 0, false},
	}
	for _, tt := range tests {
		got, ok := CurrencyDecimals(tt.code)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CurrencyDecimals(%q) = %d, %v; want %d, %v", tt.code, got, ok, tt.want, tt.ok)
		}
	}
}

// iso4217ListOne is every code of ISO 4217 list one (table A.1, published
// 2024-06-25), plus XCG (in the list since 2025).
const iso4217ListOne = `
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD
BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY
COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP
GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR
ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD
LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN
NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD
RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS
VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD
XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG`

// TestCurrencyDecimalsMatchesISO4217 checks every code of list one against
// its minor units there: 2 unless listed otherwise.
func TestCurrencyDecimalsMatchesISO4217(t *testing.T) {
	notTwo := map[string]int32{}
	for _, c := range strings.Fields("BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF") {
		notTwo[c] = 0
	}
	for _, c := range strings.Fields("BHD IQD JOD KWD LYD OMR TND") {
		notTwo[c] = 3
	}
	notTwo["CLF"], notTwo["UYW"] = 4, 4
	na := strings.Fields("XAG XAU XBA XBB XBC XBD XDR XPD XPT XSU XTS XUA XXX")

	codes := strings.Fields(iso4217ListOne)
	if len(codes) != 180 {
		t.Fatalf("list has %d codes, want 180", len(codes))
	}
	for _, c := range codes {
		got, ok := CurrencyDecimals(c)
		if contains(na, c) {
			if ok {
				t.Errorf("%s: got %d, want no minor unit (N.A.)", c, got)
			}
			continue
		}
		want, found := notTwo[c]
		if !found {
			want = 2
		}
		if !ok || got != want {
			t.Errorf("%s: got %d, %v; want %d (ISO 4217)", c, got, ok, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
