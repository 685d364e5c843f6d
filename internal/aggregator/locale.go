package aggregator

import (
	"strings"

	"golang.org/x/text/language"
)

// The locales of each endpoint; the first is the default.
var (
	launcherLocales = []language.Tag{language.English, language.Spanish, language.Dutch, language.French, language.German, language.Russian}
	detailsLocales  = []language.Tag{language.English, language.Spanish, language.Portuguese, language.French, language.German}

	launcherMatcher = language.NewMatcher(launcherLocales)
	detailsMatcher  = language.NewMatcher(detailsLocales)
)

// LauncherLocale maps a launcher request's locale to the game's language:
// en, es, nl, fr, de or ru; region forms ("de-at", "DE_AT") map to their
// language, anything else to en.
func LauncherLocale(s string) string {
	if tag, ok := match(launcherMatcher, launcherLocales, s); ok {
		return tag
	}
	return "en"
}

// DetailsLocale chooses the language of Round/Details: the request's
// locale when it is en, es, pt, fr or de (region forms included), else the
// best of Accept-Language, else en.
func DetailsLocale(locale, acceptLanguage string) string {
	if tag, ok := match(detailsMatcher, detailsLocales, locale); ok {
		return tag
	}
	if acceptLanguage != "" {
		tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
		if err == nil && len(tags) > 0 {
			if _, idx, conf := detailsMatcher.Match(tags...); conf >= language.High {
				return detailsLocales[idx].String()
			}
		}
	}
	return "en"
}

// match returns the supported language s names, when it names one with
// high confidence. SoftSwiss's "en-soc" is English (language.Parse would
// read "soc" as an extended language).
func match(m language.Matcher, supported []language.Tag, s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "en-soc") {
		return "en", true
	}
	if s == "" || len(s) > 35 {
		return "", false
	}
	tag, err := language.Parse(s)
	if err != nil {
		return "", false
	}
	if _, idx, conf := m.Match(tag); conf >= language.High {
		return supported[idx].String(), true
	}
	return "", false
}
