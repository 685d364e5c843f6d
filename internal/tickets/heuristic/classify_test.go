package heuristic

import "testing"

func TestClassifyHeading(t *testing.T) {
	for _, c := range []struct {
		heading string
		want    sectionClass
	}{
		{"Requirements", workSection},
		{"7.6 Vehicle history", workSection},
		{"Rollout plan", workSection},
		{"Open questions", workSection},
		{"3.2 Non-goals", notWorkSection},
		{"10. Out of scope and deferred to V1.5", notWorkSection},
		{"Won't have (this time)", notWorkSection},
		{"Alternatives considered", notWorkSection},
		{"Rationale and alternatives", notWorkSection},
		{"Implementation History", notWorkSection},
		{"Table of contents", notWorkSection},
		{"Appendix C: Interview notes", notWorkSection},
		{"15. Success metrics", notWorkSection},
		{"Metrics to watch", notWorkSection},
		{"Desktop (please complete the following information)", notWorkSection},
		{"Describe alternatives you've considered", notWorkSection},
		{"Risks", notWorkSection},
		{"Background", contextSection},
		{"Motivation", contextSection},
		{"1. Executive summary", contextSection},
		{"Decisions", contextSection},
		{"Dependencies", contextSection},
		{"Is your feature request related to a problem? Please describe.", contextSection},
	} {
		if got := classifyHeading(c.heading); got != c.want {
			t.Errorf("classifyHeading(%q) = %d, want %d", c.heading, got, c.want)
		}
	}
}
