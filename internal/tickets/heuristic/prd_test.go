package heuristic_test

import (
	"strings"
	"testing"
)

func TestLabelledListsGiveATicketPerItem(t *testing.T) {
	// labelledPRD is the shape of a short public PRD (a TOTP app's): the work
	// sits in labelled lists under one heading, and the upgrade strategy of a
	// KEP describes behaviour the design already covers.
	labelledPRD := readSpec(t, "specs/authenticator-app-prd")
	res := generate(t, defaultRequest(labelledPRD, "Authenticator app"))
	wantTitles(t, res.Tickets, strings.HasPrefix, "View a list of all my added applications", "Delete credentials I no longer need", "Generate TOTP codes according to RFC 6238", "Securely store credentials on device")
	for _, tk := range res.Tickets {
		if strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "upgrading from a release") {
			t.Errorf("the upgrade strategy became ticket %q", tk.Title)
		}
	}
}

// A caption over a list of one- or two-word items is one requirement
// (KEP-3140's test plan lost both its caption and its items: "Unit and
// integration tests covering the time zone mechanics of CronJob,
// including:" over "- defaulting", "- validation", …).
func TestShortListUnderACaptionIsKept(t *testing.T) {
	spec := readSpec(t, "specs/cronjob-test-plan-caption")
	res := generate(t, defaultRequest(spec, "KEP"))
	for _, tk := range res.Tickets {
		if strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "including: defaulting, validation, creating CronJob") {
			return
		}
	}
	t.Errorf("no criterion keeps the test plan's caption and items: %+v", res.Tickets)
}

// A functional requirement that restates a user story of the same section
// is a criterion of that story, not a second ticket (a TOTP PRD gave both
// "Add a new application by scanning a QR code" and "Add new TOTP
// credential via QR code scan").
func TestRestatedRequirementJoinsItsStory(t *testing.T) {
	spec := readSpec(t, "specs/authenticator-restated-requirement")
	res := generate(t, defaultRequest(spec, "App"))
	n := 0
	for _, tk := range res.Tickets {
		text := strings.ToLower(tk.Title + " " + strings.Join(tk.AcceptanceCriteria, " "))
		if strings.Contains(text, "qr code") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d tickets about scanning a QR code, want 1: %q", n, titles(res.Tickets))
	}
}
