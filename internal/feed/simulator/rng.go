package simulator

import (
	"math/bits"
	"math/rand/v2"
)

// Domain tags keep the hashes of different uses of one event seed apart.
const (
	tagWorld uint64 = iota + 1
	tagEvent
	tagTemplate
	tagSchedule
	tagContent
	tagMarket
	tagNoise
	tagPause
	tagCancel
	tagWinner
)

// mix64 is the SplitMix64 finalizer: a bijection of uint64 with good
// avalanche.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash folds vals into one uint64. It depends on the order and the number
// of vals and is the same on every platform.
func hash(vals ...uint64) uint64 {
	h := uint64(len(vals))
	for _, v := range vals {
		h = mix64(h + 0x9e3779b97f4a7c15 + mix64(v))
	}
	return h
}

// stream is a deterministic sequence of random numbers: a PCG seeded from a
// hash. Only PCG.Uint64 is used (its output is fixed by the algorithm), and
// the ranges below are derived from it here, so a stream gives the same
// numbers with every Go release.
type stream struct{ pcg rand.PCG }

func newStream(vals ...uint64) *stream {
	h := hash(vals...)
	s := &stream{}
	s.pcg.Seed(h, mix64(h^0x5851f42d4c957f2d))
	return s
}

// intn returns a number in [0, n), n > 0 (Lemire's multiply-shift; the bias
// for the small n used here is below 2^-50).
func (s *stream) intn(n int) int {
	hi, _ := bits.Mul64(s.pcg.Uint64(), uint64(n))
	return int(hi)
}

// between returns a number in [lo, hi].
func (s *stream) between(lo, hi int) int { return lo + s.intn(hi-lo+1) }

// chance returns a number in [0, 10000) from a hash: the roll compared with
// rates given in basis points.
func chance(vals ...uint64) int { return int(hash(vals...) % 10000) }
