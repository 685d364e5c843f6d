package tickets

import "testing"

func TestRoundConfidence(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 0},
		{1, 1},
		{0.5, 0.5},
		{0.123, 0.12},
		{0.125, 0.13}, // exactly half: away from zero
		{0.6666, 0.67},
		{0.95, 0.95},
	}
	for _, tt := range tests {
		if got := RoundConfidence(tt.in); got != tt.want {
			t.Errorf("RoundConfidence(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
