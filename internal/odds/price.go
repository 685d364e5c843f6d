package odds

import (
	"errors"
	"fmt"
	"math"

	"github.com/shopspring/decimal"
)

// Errors of Price. Each returned error wraps exactly one of them (or
// ErrUnknownMethod) and says which outcome or value is at fault.
var (
	// ErrTooFewOutcomes: fewer than 2 probabilities.
	ErrTooFewOutcomes = errors.New("a market needs at least 2 outcomes")
	// ErrProbability: a probability is ≤ 0 or ≥ 1.
	ErrProbability = errors.New("probability must be strictly between 0 and 1")
	// ErrProbabilitySum: the probabilities do not sum to 1 within
	// SumTolerance.
	ErrProbabilitySum = errors.New("probabilities must sum to 1")
	// ErrMargin: the margin is negative or ≥ 1.
	ErrMargin = errors.New("margin must be at least 0 and below 1")
	// ErrUnpriceable: the inputs are valid but an outcome cannot get odds in
	// [MinOdds, MaxOdds] without giving the bettor an edge, or the method
	// cannot reach the margin for this book. The market should be suspended
	// rather than priced.
	ErrUnpriceable = errors.New("outcome cannot be priced")
)

// SumTolerance is how far the sum of the probabilities given to Price may be
// from 1: |Σp − 1| ≤ 0.000001. That admits books written with 6 decimals
// (three outcomes of "0.333333") and the rounding of a feed that renormalizes;
// Price then normalizes the probabilities to sum exactly to 1.
const SumTolerance = "0.000001"

var (
	sumTolerance = decimal.RequireFromString(SumTolerance)
	one          = decimal.New(1, 0)
)

// Quote is the price of one outcome.
type Quote struct {
	// Odds is the entry odds: 4 decimal places, rounded down (in the house's
	// favour, so the book's margin is never below the operator's), at least
	// 1.01. A bet placed on this quote pays stake × Odds.
	Odds Odds
	// DisplayOdds is Odds rounded down to 2 decimal places, never below 1.01
	// and never above Odds.
	DisplayOdds Odds
	// DisplayProbability is 100 / DisplayOdds with 2 decimal places, rounded
	// half to even (a percentage: 52.08 for 1.92). Write it with
	// FormatDisplayProbability for the wire.
	DisplayProbability decimal.Decimal
}

// Price applies margin to the source probabilities probs by method and
// returns one Quote per outcome, in the order of probs.
//
// Inputs: method is one of the five Methods; probs has at least 2 entries,
// each strictly between 0 and 1, summing to 1 within SumTolerance (they are
// normalized to sum exactly to 1 first); margin m satisfies 0 ≤ m < 1 (0.05 is
// 5%: the implied probabilities of the odds then sum to 1.05). With m = 0
// every method gives the fair odds 1/p.
//
// Computation: the multiplicative and additive odds are closed formulas,
// computed exactly in decimal and rounded down to 4 decimals. Power, odds
// ratio and Shin need a root-finder: their single parameter (k, c or z) is
// solved by bisection in float64 (200 iterations or an interval below 1e-12,
// as the independent reference implementation does) and each outcome's odds 1/q is converted
// to decimal, rounded half to even to 9 decimals (to absorb float noise at
// exact values such as 2.0000) and then rounded down to 4. Floating point
// shapes only the pricing curve; amounts are never floats.
//
// Floor: an outcome whose odds come out below 1.01 (a heavy favourite, e.g.
// multiplicative at p = 0.97: 0.9818) is quoted at 1.01. That lowers the
// book's margin on that outcome but keeps the house's edge, because Price
// refuses (ErrUnpriceable) any book with an outcome of p ≥ 1/1.01 ≈ 0.990099,
// for which even 1.01 would pay more than the fair odds. Odds above MaxOdds
// (p below about 1e-6) are also ErrUnpriceable, and so is a Shin, power or
// odds-ratio book for which the method cannot reach the margin.
//
// Errors wrap ErrUnknownMethod, ErrTooFewOutcomes, ErrProbability,
// ErrProbabilitySum, ErrMargin or ErrUnpriceable.
func Price(method Method, probs []decimal.Decimal, margin decimal.Decimal) ([]Quote, error) {
	if !method.Valid() {
		return nil, fmt.Errorf("%w %q", ErrUnknownMethod, string(method))
	}
	n := len(probs)
	if n < 2 {
		return nil, fmt.Errorf("%w: got %d", ErrTooFewOutcomes, n)
	}
	if margin.IsNegative() || margin.GreaterThanOrEqual(one) {
		return nil, fmt.Errorf("%w: got %s", ErrMargin, margin.String())
	}
	sum := decimal.Zero
	for i, p := range probs {
		if !p.IsPositive() || p.GreaterThanOrEqual(one) {
			return nil, fmt.Errorf("%w: outcome %d has %s", ErrProbability, i, p.String())
		}
		sum = sum.Add(p)
	}
	if sum.Sub(one).Abs().GreaterThan(sumTolerance) {
		return nil, fmt.Errorf("%w within %s: they sum to %s", ErrProbabilitySum, SumTolerance, sum.String())
	}
	for i, p := range probs {
		// normalized p ≥ 1/1.01  ⇔  p·1.01 ≥ Σp
		if p.Mul(minOdds).GreaterThanOrEqual(sum) {
			return nil, fmt.Errorf("%w: outcome %d has probability %s; odds of at least 1.01 would give the bettor an edge", ErrUnpriceable, i, p.String())
		}
	}

	raw := make([]decimal.Decimal, n) // odds before the 1.01 floor, 4 decimals, rounded down
	nd := decimal.NewFromInt(int64(n))
	switch {
	case margin.IsZero():
		for i, p := range probs {
			raw[i] = quoFloor(sum, p) // 1 / (p/Σ)
		}
	case method == Multiplicative:
		f := one.Add(margin)
		for i, p := range probs {
			raw[i] = quoFloor(sum, p.Mul(f)) // 1 / ((p/Σ)(1+m))
		}
	case method == Additive:
		for i, p := range probs {
			raw[i] = quoFloor(nd.Mul(sum), nd.Mul(p).Add(margin.Mul(sum))) // 1 / (p/Σ + m/n)
		}
	default:
		pf := make([]float64, n)
		sf := 0.0
		for i, p := range probs {
			pf[i] = p.InexactFloat64()
			sf += pf[i]
		}
		for i := range pf {
			pf[i] /= sf
		}
		of, err := curve(method, pf, margin.InexactFloat64())
		if err != nil {
			return nil, err
		}
		for i, o := range of {
			if math.IsNaN(o) || o <= 0 || o > maxOddsFloat {
				return nil, fmt.Errorf("%w: outcome %d (probability %s) would get odds above %s", ErrUnpriceable, i, probs[i].String(), maxOdds.StringFixed(EntryDecimals))
			}
			raw[i] = decimal.NewFromFloat(o).RoundBank(9).RoundFloor(EntryDecimals)
		}
	}

	quotes := make([]Quote, n)
	for i, o := range raw {
		if o.GreaterThan(maxOdds) {
			return nil, fmt.Errorf("%w: outcome %d (probability %s) would get odds above %s", ErrUnpriceable, i, probs[i].String(), maxOdds.StringFixed(EntryDecimals))
		}
		if o.LessThan(minOdds) {
			o = minOdds
		}
		entry := Odds{o}
		display := entry.Display()
		quotes[i] = Quote{Odds: entry, DisplayOdds: display, DisplayProbability: display.ImpliedPercent()}
	}
	return quotes, nil
}

// maxOddsFloat bounds the float odds before conversion to decimal (a little
// above MaxOdds so the decimal check decides the boundary).
const maxOddsFloat = 1e7

// quoFloor returns a/b rounded down to 4 decimals, exactly (a, b > 0).
func quoFloor(a, b decimal.Decimal) decimal.Decimal {
	q, _ := a.QuoRem(b, EntryDecimals)
	return q
}

// curve returns the unrounded odds 1/q of every outcome for normalized
// probabilities p (Σp = 1) and margin m, in float64. It implements all five
// methods exactly as the independent reference implementation does (a Python
// script outside this repository; docs/decisions.md, "Contract details"),
// so that its values can be compared with the script's; Price uses it for Power, OddsRatio and Shin only.
// An unreachable margin gives an error wrapping ErrUnpriceable. Results may be
// below 1 (multiplicative and additive on heavy favourites); Price applies the
// floor.
func curve(method Method, p []float64, m float64) ([]float64, error) {
	n := float64(len(p))
	out := make([]float64, len(p))
	switch method {
	case Multiplicative:
		for i, x := range p {
			out[i] = 1 / (x * (1 + m))
		}
	case Additive:
		for i, x := range p {
			out[i] = 1 / (x + m/n)
		}
	case Power:
		f := func(k float64) float64 {
			s := 0.0
			for _, x := range p {
				s += math.Pow(x, k)
			}
			return s - (1 + m)
		}
		k, err := bisect(f, 1e-4, 1)
		if err != nil {
			return nil, fmt.Errorf("%w: the power method cannot reach margin %g for this book", ErrUnpriceable, m)
		}
		for i, x := range p {
			out[i] = 1 / math.Pow(x, k)
		}
	case OddsRatio:
		q := func(c, x float64) float64 { return c * x / (1 - x + c*x) }
		f := func(c float64) float64 {
			s := 0.0
			for _, x := range p {
				s += q(c, x)
			}
			return s - (1 + m)
		}
		hi := 5.0
		for f(hi) < 0 && hi < 1e15 {
			hi *= 2
		}
		c, err := bisect(f, 1, hi)
		if err != nil {
			return nil, fmt.Errorf("%w: the odds-ratio method cannot reach margin %g for this book", ErrUnpriceable, m)
		}
		for i, x := range p {
			out[i] = 1 / q(c, x)
		}
	case Shin:
		ys := func(z float64) ([]float64, float64) {
			y := make([]float64, len(p))
			s := 0.0
			for i, x := range p {
				y[i] = math.Sqrt(z*x + (1-z)*x*x)
				s += y[i]
			}
			return y, s
		}
		f := func(z float64) float64 {
			_, s := ys(z)
			return s*s - (1 + m)
		}
		z, err := bisect(f, 0, 1)
		if err != nil {
			return nil, fmt.Errorf("%w: Shin's method cannot reach margin %g for this book", ErrUnpriceable, m)
		}
		y, s := ys(z)
		for i := range y {
			out[i] = 1 / (y[i] * s)
		}
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownMethod, string(method))
	}
	return out, nil
}

// bisect finds a root of f in [a, b] by bisection: at most 200 halvings,
// stopping when the interval is narrower than 1e-12 (as the reference implementation does).
// f(a) and f(b) must not have the same strict sign.
func bisect(f func(float64) float64, a, b float64) (float64, error) {
	fa, fb := f(a), f(b)
	if math.IsNaN(fa) || math.IsNaN(fb) || fa*fb > 0 {
		return 0, errors.New("root not bracketed")
	}
	for range 200 {
		mid := (a + b) / 2
		fm := f(mid)
		if fa*fm <= 0 {
			b = mid
		} else {
			a, fa = mid, fm
		}
		if b-a < 1e-12 {
			break
		}
	}
	return (a + b) / 2, nil
}
