package odds

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

func decs(t *testing.T, ss ...string) []decimal.Decimal {
	t.Helper()
	out := make([]decimal.Decimal, len(ss))
	for i, s := range ss {
		out[i] = decimal.RequireFromString(s)
	}
	return out
}

// golden holds, per book and method at m = 0.05:
//   - script: the values printed by the independent reference implementation
//     of the five methods (a Python script outside this repository)
//     (rounded to 4 decimals by Python's round), pasted as they are;
//   - entry: what Price must return as Quote.Odds: the exact curve value
//     rounded down to 4 decimals (house's favour), floored at 1.01.
var golden = []struct {
	probs  []string
	method Method
	script []float64
	entry  []string
}{
	{[]string{"0.2", "0.8"}, Multiplicative, []float64{4.7619, 1.1905}, []string{"4.7619", "1.1904"}},
	{[]string{"0.2", "0.8"}, Additive, []float64{4.4444, 1.2121}, []string{"4.4444", "1.2121"}},
	{[]string{"0.2", "0.8"}, Power, []float64{4.2933, 1.2239}, []string{"4.2933", "1.2238"}},
	{[]string{"0.2", "0.8"}, OddsRatio, []float64{4.4215, 1.2138}, []string{"4.4214", "1.2138"}},
	{[]string{"0.2", "0.8"}, Shin, []float64{4.4444, 1.2121}, []string{"4.4444", "1.2121"}},

	{[]string{"0.5", "0.3", "0.2"}, Multiplicative, []float64{1.9048, 3.1746, 4.7619}, []string{"1.9047", "3.1746", "4.7619"}},
	{[]string{"0.5", "0.3", "0.2"}, Additive, []float64{1.9355, 3.1579, 4.6154}, []string{"1.9354", "3.1578", "4.6153"}},
	{[]string{"0.5", "0.3", "0.2"}, Power, []float64{1.9356, 3.149, 4.6339}, []string{"1.9355", "3.1490", "4.6339"}},
	{[]string{"0.5", "0.3", "0.2"}, OddsRatio, []float64{1.9234, 3.1545, 4.6934}, []string{"1.9233", "3.1544", "4.6934"}},
	{[]string{"0.5", "0.3", "0.2"}, Shin, []float64{1.9278, 3.1617, 4.6516}, []string{"1.9277", "3.1617", "4.6515"}},

	// Heavy favourite: multiplicative (0.9818), additive and Shin (1.005) fall
	// below 1.01 and are floored there by Price.
	{[]string{"0.97", "0.03"}, Multiplicative, []float64{0.9818, 31.746}, []string{"1.0100", "31.7460"}},
	{[]string{"0.97", "0.03"}, Additive, []float64{1.005, 18.1818}, []string{"1.0100", "18.1818"}},
	{[]string{"0.97", "0.03"}, Power, []float64{1.0231, 13.7869}, []string{"1.0230", "13.7868"}},
	{[]string{"0.97", "0.03"}, OddsRatio, []float64{1.014, 15.6656}, []string{"1.0140", "15.6656"}},
	{[]string{"0.97", "0.03"}, Shin, []float64{1.005, 18.1818}, []string{"1.0100", "18.1818"}},
}

// impliedMargin returns Σ 1/odds − 1, exact to 20 decimals.
func impliedMargin(qs []Quote) decimal.Decimal {
	s := decimal.Zero
	for _, q := range qs {
		s = s.Add(one.DivRound(q.Odds.Decimal(), 20))
	}
	return s.Sub(one)
}

func TestCurveMatchesMarginCheckScript(t *testing.T) {
	for _, g := range golden {
		p := make([]float64, len(g.probs))
		for i, s := range g.probs {
			p[i] = decimal.RequireFromString(s).InexactFloat64()
		}
		got, err := curve(g.method, p, 0.05)
		if err != nil {
			t.Fatalf("%v %s: %v", g.probs, g.method, err)
		}
		implied := -1.0
		for i, o := range got {
			if math.Abs(o-g.script[i]) > 0.00005+1e-12 {
				t.Errorf("%v %s outcome %d: curve %.10f, script %.4f", g.probs, g.method, i, o, g.script[i])
			}
			implied += 1 / o
		}
		if math.Abs(implied-0.05) > 1e-9 {
			t.Errorf("%v %s: implied margin of the curve %.12f, want 0.05", g.probs, g.method, implied)
		}
	}
}

func TestPriceGolden(t *testing.T) {
	m := decimal.RequireFromString("0.05")
	for _, g := range golden {
		qs, err := Price(g.method, decs(t, g.probs...), m)
		if err != nil {
			t.Fatalf("%v %s: %v", g.probs, g.method, err)
		}
		floored := false
		for i, q := range qs {
			want := decimal.RequireFromString(g.entry[i])
			if !q.Odds.Decimal().Equal(want) || q.Odds.Decimal().Exponent() < -EntryDecimals {
				t.Errorf("%v %s outcome %d: Odds %s, want %s", g.probs, g.method, i, q.Odds, g.entry[i])
			}
			if g.script[i] < 1.01 {
				floored = true
				continue
			}
			// Within one unit of the 4th decimal of the script's value.
			diff := q.Odds.Decimal().InexactFloat64() - g.script[i]
			if math.Abs(diff) > 0.0001+1e-9 {
				t.Errorf("%v %s outcome %d: Odds %s differs from script %.4f by %.6f", g.probs, g.method, i, q.Odds, g.script[i], diff)
			}
		}
		im := impliedMargin(qs)
		if floored {
			// The 1.01 floor gives part of the margin back, but never all of it.
			if !im.IsPositive() || !im.LessThan(m) {
				t.Errorf("%v %s: implied margin %s, want in (0, 0.05)", g.probs, g.method, im.StringFixed(6))
			}
		} else if im.Sub(m).Abs().GreaterThan(decimal.RequireFromString("0.001")) || im.LessThan(m) {
			// Rounding down to 4 decimals can only add margin.
			t.Errorf("%v %s: implied margin %s, want 0.05 (to 0.001, never below)", g.probs, g.method, im.StringFixed(6))
		}
	}
}

func TestPriceQuoteFields(t *testing.T) {
	qs, err := Price(OddsRatio, decs(t, "0.5", "0.3", "0.2"), decimal.RequireFromString("0.05"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ odds, display, prob string }{
		{"1.9233", "1.92", "52.08"},
		{"3.1544", "3.15", "31.75"},
		{"4.6934", "4.69", "21.32"},
	}
	for i, w := range want {
		q := qs[i]
		if q.Odds.String() != w.odds || q.DisplayOdds.String() != w.display || q.DisplayProbability.StringFixed(2) != w.prob {
			t.Errorf("outcome %d: got %s / %s / %s, want %s / %s / %s", i,
				q.Odds, q.DisplayOdds, q.DisplayProbability.StringFixed(2), w.odds, w.display, w.prob)
		}
	}
}

func TestPriceZeroMarginIsFair(t *testing.T) {
	for _, method := range Methods() {
		qs, err := Price(method, decs(t, "0.5", "0.25", "0.2", "0.05"), decimal.Zero)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		want := []string{"2.00", "4.00", "5.00", "20.00"}
		for i, q := range qs {
			if q.Odds.String() != want[i] || q.DisplayOdds.String() != want[i] {
				t.Errorf("%s outcome %d: %s / %s, want %s", method, i, q.Odds, q.DisplayOdds, want[i])
			}
		}
	}
}

func TestPriceSolverExactValueIsNotFloatFloored(t *testing.T) {
	// By symmetry every method gives q = (1+m)/n on a book of equal outcomes.
	// With n = 2 and m = 0.6, q = 0.8 and the odds are exactly 1.25: the
	// solvers' float result (1.2499999999… or 1.2500000001…) must not lose a
	// tick to the rounding down.
	for _, method := range Methods() {
		qs, err := Price(method, decs(t, "0.5", "0.5"), decimal.RequireFromString("0.6"))
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for i, q := range qs {
			if q.Odds.String() != "1.25" {
				t.Errorf("%s outcome %d: %s, want exactly 1.25 (float noise must not drop a tick)", method, i, q.Odds)
			}
		}
	}
}

func TestPriceErrors(t *testing.T) {
	m5 := decimal.RequireFromString("0.05")
	tests := []struct {
		name   string
		method Method
		probs  []string
		margin decimal.Decimal
		want   error
	}{
		{"unknown method", Method("basic"), []string{"0.5", "0.5"}, m5, ErrUnknownMethod},
		{"empty method", Method(""), []string{"0.5", "0.5"}, m5, ErrUnknownMethod},
		{"no outcomes", OddsRatio, nil, m5, ErrTooFewOutcomes},
		{"one outcome", OddsRatio, []string{"0.99"}, m5, ErrTooFewOutcomes},
		{"zero probability", OddsRatio, []string{"0", "1"}, m5, ErrProbability},
		{"one probability", OddsRatio, []string{"1", "0"}, m5, ErrProbability},
		{"negative probability", Power, []string{"-0.1", "1.1"}, m5, ErrProbability},
		{"sum too low", Shin, []string{"0.5", "0.4"}, m5, ErrProbabilitySum},
		{"sum too high", Additive, []string{"0.5", "0.500002"}, m5, ErrProbabilitySum},
		{"negative margin", Multiplicative, []string{"0.5", "0.5"}, decimal.RequireFromString("-0.01"), ErrMargin},
		{"margin 1", Multiplicative, []string{"0.5", "0.5"}, one, ErrMargin},
		{"favourite above 1/1.01", OddsRatio, []string{"0.995", "0.005"}, m5, ErrUnpriceable},
		{"favourite above 1/1.01, zero margin", Multiplicative, []string{"0.991", "0.009"}, decimal.Zero, ErrUnpriceable},
		{"long shot above MaxOdds", Multiplicative, []string{"0.9", "0.0999999", "0.0000001"}, m5, ErrUnpriceable},
		{"long shot above MaxOdds, solver", Power, []string{"0.9", "0.0999999", "0.0000001"}, m5, ErrUnpriceable},
		{"shin cannot reach margin", Shin, []string{"0.99", "0.01"}, decimal.RequireFromString("0.3"), ErrUnpriceable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs, err := Price(tt.method, decs(t, tt.probs...), tt.margin)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, %v; want error %v", qs, err, tt.want)
			}
			if qs != nil {
				t.Fatalf("quotes returned with an error: %v", qs)
			}
		})
	}
}

func TestPriceSumTolerance(t *testing.T) {
	m := decimal.RequireFromString("0.05")
	// Three outcomes of 0.333333 sum to 0.999999: exactly at the tolerance.
	qs, err := Price(Multiplicative, decs(t, "0.333333", "0.333333", "0.333333"), m)
	if err != nil {
		t.Fatal(err)
	}
	// Normalized first: every outcome gets 3/1.05 = 2.857142… → 2.8571.
	for i, q := range qs {
		if q.Odds.String() != "2.8571" {
			t.Errorf("outcome %d: %s, want 2.8571", i, q.Odds)
		}
	}
	if _, err := Price(Multiplicative, decs(t, "0.3333329", "0.333333", "0.333333"), m); !errors.Is(err, ErrProbabilitySum) {
		t.Errorf("sum 0.9999989: got %v, want ErrProbabilitySum", err)
	}
}

// TestPriceProperties prices 1,000 random books (fixed seed) with random
// margins in [0, 0.3] by every method and checks the invariants of a quote.
func TestPriceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261121, 4))
	scale := decimal.New(1, -6)
	priced := map[Method]int{}
	refused := map[Method]int{}
	for iter := range 1000 {
		n := 2 + rng.IntN(9) // 2..10 outcomes
		// Skewed weights: cubes of uniforms give heavy favourites and long shots.
		w := make([]float64, n)
		total := 0.0
		for i := range w {
			u := rng.Float64()
			w[i] = 0.001 + u*u*u
			total += w[i]
		}
		// Probabilities with 6 decimals, the last one taking the remainder.
		probs := make([]decimal.Decimal, n)
		rest := one
		ok := true
		for i := 0; i < n-1; i++ {
			probs[i] = decimal.NewFromFloat(w[i] / total).Round(6)
			if !probs[i].IsPositive() {
				probs[i] = scale
			}
			rest = rest.Sub(probs[i])
		}
		probs[n-1] = rest
		if !rest.IsPositive() {
			ok = false
		}
		if !ok {
			continue
		}
		margin := decimal.NewFromInt(int64(rng.IntN(3001))).Shift(-4) // 0.0000..0.3000
		maxP := slices.MaxFunc(probs, func(a, b decimal.Decimal) int { return a.Cmp(b) })

		for _, method := range Methods() {
			qs, err := Price(method, probs, margin)
			if err != nil {
				// The only acceptable refusal: an outcome that cannot be priced,
				// and then for a documented reason.
				if !errors.Is(err, ErrUnpriceable) {
					t.Fatalf("book %d %v m=%s %s: %v", iter, probs, margin, method, err)
				}
				if maxP.Mul(minOdds).LessThan(one) && method != Shin && method != Power && method != OddsRatio {
					t.Fatalf("book %d %v m=%s %s: refused without a favourite above 1/1.01: %v", iter, probs, margin, method, err)
				}
				refused[method]++
				continue
			}
			priced[method]++
			if len(qs) != n {
				t.Fatalf("book %d %s: %d quotes for %d outcomes", iter, method, len(qs), n)
			}
			for i, q := range qs {
				o, d := q.Odds.Decimal(), q.DisplayOdds.Decimal()
				switch {
				case !o.GreaterThan(one):
					t.Fatalf("book %d %v m=%s %s outcome %d: odds %s not > 1", iter, probs, margin, method, i, q.Odds)
				case o.LessThan(minOdds) || d.LessThan(minOdds):
					t.Fatalf("book %d %s outcome %d: odds %s / display %s below 1.01", iter, method, i, q.Odds, q.DisplayOdds)
				case d.GreaterThan(o):
					t.Fatalf("book %d %s outcome %d: display %s above odds %s (not in the house's favour)", iter, method, i, q.DisplayOdds, q.Odds)
				case o.Exponent() < -EntryDecimals || d.Exponent() < -DisplayDecimals:
					t.Fatalf("book %d %s outcome %d: too many decimals: %s / %s", iter, method, i, o, d)
				case o.Mul(probs[i]).GreaterThan(one.Add(scale)):
					// Never better than the fair odds 1/p (the bettor never has an edge).
					t.Fatalf("book %d %v m=%s %s outcome %d: odds %s above fair odds of p=%s", iter, probs, margin, method, i, q.Odds, probs[i])
				case !q.DisplayProbability.Equal(quoHalfEven(hundred, d, 2)):
					t.Fatalf("book %d %s outcome %d: display probability %s for display odds %s", iter, method, i, q.DisplayProbability, q.DisplayOdds)
				}
				// Monotonic: a higher probability never gets higher odds.
				for j := range qs {
					if probs[i].GreaterThan(probs[j]) && qs[i].Odds.Cmp(qs[j].Odds) > 0 {
						t.Fatalf("book %d %v m=%s %s: p[%d]=%s > p[%d]=%s but odds %s > %s",
							iter, probs, margin, method, i, probs[i], j, probs[j], qs[i].Odds, qs[j].Odds)
					}
					if probs[i].GreaterThan(probs[j]) && qs[i].DisplayOdds.Cmp(qs[j].DisplayOdds) > 0 {
						t.Fatalf("book %d %s: display odds not monotonic", iter, method)
					}
				}
			}
			// The book's implied margin is the one asked for: rounding the odds
			// down to 4 decimals adds at most 0.0001 per outcome, and only the
			// 1.01 floor may give some back.
			im := impliedMargin(qs)
			floored := slices.ContainsFunc(qs, func(q Quote) bool { return q.Odds.Equal(MinOdds()) })
			if im.GreaterThan(margin.Add(decimal.RequireFromString("0.001"))) || im.IsNegative() ||
				(!floored && im.LessThan(margin.Sub(decimal.RequireFromString("0.000000001")))) {
				t.Fatalf("book %d %v m=%s %s: implied margin %s", iter, probs, margin, method, im.StringFixed(9))
			}
		}
	}
	for _, method := range Methods() {
		if priced[method] < 900 {
			t.Errorf("%s priced only %d of the books (refused %d)", method, priced[method], refused[method])
		}
	}
	t.Logf("priced %v, refused %v", priced, refused)
}
