package simulator

// Probabilities are computed in integers only (no floating point), so they
// are the same on every platform and with every compiler.

const (
	// unitsPerOne: probabilities are counted in units of 0.0001.
	unitsPerOne = 10000
	// probabilityPlaces is the number of decimal places of a probability.
	probabilityPlaces = 4
	// noiseOne is 1.0 in the fixed-point noise values.
	noiseOne = 1 << 16
)

// octaves of the price noise: the distance between two knots in steps, and
// the weight of the octave (the weights sum to 10).
var octaves = [...]struct{ span, weight int64 }{{4, 1}, {16, 2}, {64, 3}, {256, 4}}

// noise returns smooth noise in [-noiseOne, noiseOne] at step k: value noise
// (random knots, joined by smoothstep) summed over the octaves.
func noise(seed uint64, k int64) int64 {
	var sum int64
	for o, oct := range octaves {
		i := k / oct.span
		if k%oct.span < 0 {
			i--
		}
		r := k - i*oct.span // in [0, span)
		v0, v1 := knot(seed, uint64(o), i), knot(seed, uint64(o), i+1)
		// smoothstep 3x² − 2x³ at x = r/span, scaled by noiseOne.
		span3 := oct.span * oct.span * oct.span
		h := (3*r*r*oct.span - 2*r*r*r) * noiseOne / span3
		sum += oct.weight * (v0 + (v1-v0)*h/noiseOne)
	}
	return sum / 10
}

func knot(seed, octave uint64, i int64) int64 {
	return int64(hash(seed, octave, uint64(i))%(2*noiseOne+1)) - noiseOne
}

// probabilities returns the probabilities, in units, of outcomes with base
// weights at price step k. Each weight is multiplied by
// (5 + 3N)/(5 − 3N), where N in [-1, 1] is the outcome's noise (a factor
// between 1/4 and 4); the results are normalized over a floor of 100 units
// (200 for two outcomes) per outcome, rounded half up, and the rounding
// remainder goes to the largest (the first of equals). So every probability
// is at least 0.01, at most 0.9810, and they sum to exactly 1.
func probabilities(seed uint64, weights []int64, k int64) []int64 {
	n := int64(len(weights))
	w := make([]int64, n)
	var total int64
	for j, base := range weights {
		nz := noise(hash(seed, uint64(j)), k)
		w[j] = base * (5*noiseOne + 3*nz) * 1024 / (5*noiseOne - 3*nz)
		total += w[j]
	}
	floor := int64(100)
	if n == 2 {
		floor = 200
	}
	free := unitsPerOne - n*floor
	units := make([]int64, n)
	var sum int64
	largest := 0
	for j := range w {
		units[j] = floor + (2*free*w[j]+total)/(2*total)
		sum += units[j]
		if units[j] > units[largest] {
			largest = j
		}
	}
	units[largest] += unitsPerOne - sum
	return units
}
