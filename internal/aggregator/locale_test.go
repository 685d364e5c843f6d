package aggregator_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/aggregator"
)

func TestLauncherLocale(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"en": "en", "es": "es", "nl": "nl", "fr": "fr", "de": "de", "ru": "ru",
		"de-at": "de", "DE_AT": "de", "de_AT": "de", "pt-BR": "en", "fr-CH": "fr", "en-soc": "en", "EN-SOC": "en",
		"pt": "en", "it": "en", "xx": "en", "": "en", "  ": "en", "zh-TW": "en", "not a locale": "en",
	} {
		if got := aggregator.LauncherLocale(in); got != want {
			t.Errorf("LauncherLocale(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDetailsLocale(t *testing.T) {
	t.Parallel()
	cases := []struct{ locale, accept, want string }{
		{"pt", "", "pt"},
		{"pt-BR", "de", "pt"},
		{"es_MX", "", "es"},
		{"nl", "de-AT,de;q=0.9", "de"}, // nl is a launcher locale, not a details one
		{"", "fr-CH, fr;q=0.9, en;q=0.8", "fr"},
		{"", "it, ru", "en"},
		{"", "*", "en"},
		{"", "", "en"},
		{"xx", "garbage;;", "en"},
	}
	for _, c := range cases {
		if got := aggregator.DetailsLocale(c.locale, c.accept); got != c.want {
			t.Errorf("DetailsLocale(%q, %q) = %q, want %q", c.locale, c.accept, got, c.want)
		}
	}
}
