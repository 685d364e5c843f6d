package simulator

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
)

// locales are the locales of every text the simulator reports, in the
// order tx takes them.
var locales = []string{"en", "es", "pt", "fr", "de", "nl", "ru"}

// tr is a text in every locale.
type tr map[string]string

// tx returns a text in the seven locales, given in the order of locales.
func tx(en, es, pt, fr, de, nl, ru string) tr {
	return tr{"en": en, "es": es, "pt": pt, "fr": fr, "de": de, "nl": nl, "ru": ru}
}

// same returns a text that is the same in every locale (brand names,
// numbers).
func same(s string) tr { return tx(s, s, s, s, s, s, s) }

// latin returns a name written s in the Latin-script locales and cyrillic in
// Russian.
func latin(s, cyrillic string) tr { return tx(s, s, s, s, s, s, cyrillic) }

// bindings are the values of a template's placeholders: "{name}" or
// "{name.form}".
type bindings map[string]tr

// expand substitutes the placeholders of t in every locale. A placeholder
// without a binding, or a binding without the locale, is an error.
func (b bindings) expand(t tr) (betting.Texts, error) {
	out := make(betting.Texts, len(locales))
	for _, loc := range locales {
		src, ok := t[loc]
		if !ok {
			return nil, fmt.Errorf("no %s text in %q", loc, t["en"])
		}
		s, err := b.expandString(loc, src)
		if err != nil {
			return nil, err
		}
		out[loc] = s
	}
	return out, nil
}

func (b bindings) expandString(loc, s string) (string, error) {
	var sb strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			sb.WriteString(s)
			return sb.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unclosed placeholder in %q", s)
		}
		name := s[i+1 : i+j]
		v, ok := b[name][loc]
		if !ok {
			return "", fmt.Errorf("placeholder {%s} has no %s value", name, loc)
		}
		sb.WriteString(s[:i])
		sb.WriteString(v)
		s = s[i+j+1:]
	}
}

// placeholders returns the placeholder names of s, in order of appearance.
func placeholders(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return append(out, s[i+1:])
		}
		out = append(out, s[i+1:i+j])
		s = s[i+j+1:]
	}
}

// unit is how a number is written.
type unit int

const (
	plain         unit = iota // 2040
	usd                       // $95,000 / 95.000 $
	percent                   // 2.4% / 2,4 %
	celsius                   // 38 °C
	signedCelsius             // +1.35 °C
)

// numSpec is a range of numbers: min to max in steps of step, all counted
// in units of 10^-decimals.
type numSpec struct {
	min, max, step int64
	decimals       int
	unit           unit
}

// count is how many values the range holds.
func (n numSpec) count() int { return int((n.max-n.min)/n.step) + 1 }

// value returns the i-th value of the range.
func (n numSpec) value(i int) int64 { return n.min + int64(i)*n.step }

// canonical writes v as a plain decimal ("-0.3", "95000") for keys.
func (n numSpec) canonical(v int64) string {
	return formatDecimal(v, n.decimals, "", ".", 0)
}

// format writes v in every locale.
func (n numSpec) format(v int64) tr {
	out := make(tr, len(locales))
	for _, loc := range locales {
		out[loc] = n.formatIn(loc, v)
	}
	return out
}

const nbsp = "\u00a0"

func (n numSpec) formatIn(loc string, v int64) string {
	group, point, minGroup := ".", ",", 4
	switch loc {
	case "en":
		group, point = ",", "."
	case "es":
		minGroup = 5 // Spanish groups only numbers of five digits or more
	case "fr":
		group = "\u202f"
	case "ru":
		group = nbsp
	}
	if n.unit == plain {
		group = "" // years and version numbers
	}
	num := formatDecimal(v, n.decimals, group, point, minGroup)
	if n.unit == signedCelsius && v > 0 {
		num = "+" + num
	}
	switch n.unit {
	case usd:
		switch loc {
		case "en":
			return "$" + num
		case "pt":
			return "US$" + nbsp + num
		case "nl":
			return "$" + nbsp + num
		default:
			return num + nbsp + "$"
		}
	case percent:
		switch loc {
		case "en", "pt", "nl":
			return num + "%"
		default:
			return num + nbsp + "%"
		}
	case celsius, signedCelsius:
		return num + nbsp + "°C"
	}
	return num
}

// formatDecimal writes v·10^-decimals with the given group separator (used
// when the integer part has at least minGroup digits) and decimal point.
// Negative numbers get a minus sign (U+2212) unless group is empty.
func formatDecimal(v int64, decimals int, group, point string, minGroup int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	scale := int64(1)
	for range decimals {
		scale *= 10
	}
	whole := strconv.FormatInt(v/scale, 10)
	if group != "" && len(whole) >= minGroup {
		var sb strings.Builder
		for i, c := range whole {
			if i > 0 && (len(whole)-i)%3 == 0 {
				sb.WriteString(group)
			}
			sb.WriteRune(c)
		}
		whole = sb.String()
	}
	s := whole
	if decimals > 0 {
		frac := strconv.FormatInt(v%scale, 10)
		s += point + strings.Repeat("0", decimals-len(frac)) + frac
	}
	if neg {
		if group == "" {
			return "-" + s
		}
		return "\u2212" + s
	}
	return s
}

var months = map[string][12]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"es": {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	"pt": {"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
	"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	"nl": {"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
	// Genitive: "14 марта".
	"ru": {"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"},
}

// formatTime writes t (in UTC, to the minute) as a date and time in every
// locale: "March 14, 18:30 UTC", "14 de marzo, 18:30 UTC", "14. März, 18:30
// UTC", "1er mars, 18:30 UTC".
func formatTime(t time.Time) tr {
	t = t.UTC()
	day, month, clock := t.Day(), t.Month()-1, t.Format("15:04")+" UTC"
	out := make(tr, len(locales))
	for _, loc := range locales {
		m := months[loc][month]
		switch loc {
		case "en":
			out[loc] = fmt.Sprintf("%s %d, %s", m, day, clock)
		case "es", "pt":
			out[loc] = fmt.Sprintf("%d de %s, %s", day, m, clock)
		case "de":
			out[loc] = fmt.Sprintf("%d. %s, %s", day, m, clock)
		case "fr":
			d := strconv.Itoa(day)
			if day == 1 {
				d = "1er"
			}
			out[loc] = fmt.Sprintf("%s %s, %s", d, m, clock)
		default:
			out[loc] = fmt.Sprintf("%d %s, %s", day, m, clock)
		}
	}
	return out
}
