package odds

import (
	"errors"
	"fmt"
)

// Method is a way of applying an operator's margin to source probabilities
// (docs/decisions.md, "Contract details"). Its string values are the ones of the admin
// API's margin.method.
type Method string

// The margin methods. In each, p is an outcome's (normalized) source
// probability, q its margined implied probability (odds = 1/q), n the number
// of outcomes and m the margin, so that Σq = 1 + m.
const (
	// Multiplicative scales every probability alike: q = p·(1+m). markets.md
	// and the R package implied call it "basic" (also "proportional").
	Multiplicative Method = "multiplicative"
	// Additive adds the same share of the margin to every outcome:
	// q = p + m/n. (Buchdahl's "margin weights proportional to the odds"
	// gives the same odds in this direction.)
	Additive Method = "additive"
	// Power raises every probability to one power: q = p^k, k in (0, 1]
	// solved so that Σq = 1 + m. Loads more margin on long shots.
	Power Method = "power"
	// OddsRatio multiplies every outcome's odds ratio by one factor:
	// q/(1−q) = c·p/(1−p), c ≥ 1 solved so that Σq = 1 + m (Cheung).
	// The platform's default.
	OddsRatio Method = "odds_ratio"
	// Shin uses Shin's insider-trading model: y = sqrt(z·p + (1−z)·p²),
	// q = y·Σy, z in [0, 1) solved so that Σq = 1 + m. For two outcomes it
	// gives the same odds as Additive.
	Shin Method = "shin"
)

// DefaultMethod is the margin method of an operator that names none
// (docs/decisions.md, "Contract details": odds ratio).
const DefaultMethod = OddsRatio

// ErrUnknownMethod is wrapped by the error of ParseMethod and Price for a
// method that is not one of the five constants.
var ErrUnknownMethod = errors.New("unknown margin method")

// Methods returns the five methods, in the order of the admin API's list.
func Methods() []Method {
	return []Method{Multiplicative, Additive, Power, OddsRatio, Shin}
}

// Valid reports whether m is one of the five methods.
func (m Method) Valid() bool {
	switch m {
	case Multiplicative, Additive, Power, OddsRatio, Shin:
		return true
	}
	return false
}

// ParseMethod returns the Method named s, which must be exactly one of
// "multiplicative", "additive", "power", "odds_ratio" or "shin" (lowercase; no
// aliases such as "basic"). Anything else is an error wrapping
// ErrUnknownMethod.
func ParseMethod(s string) (Method, error) {
	m := Method(s)
	if !m.Valid() {
		return "", fmt.Errorf("%w %q: want one of multiplicative, additive, power, odds_ratio, shin", ErrUnknownMethod, s)
	}
	return m, nil
}
