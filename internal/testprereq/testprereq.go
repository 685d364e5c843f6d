// Package testprereq decides what a test does when something it needs from
// the machine (PostgreSQL, Chromium) is missing.
//
// By default the test fails, with the reason and the way out, so that a
// plain `go test ./...` never passes by silently skipping whole suites
// (a passing package's output is not shown). Setting
// FORESIGHT_TEST_SKIP_MISSING=1 skips such tests instead, on purpose.
// Under CI=true the test always fails: CI never passes by skipping.
package testprereq

import (
	"os"
	"testing"
)

// SkipVariable names the environment variable that turns a missing
// prerequisite into a skip.
const SkipVariable = "FORESIGHT_TEST_SKIP_MISSING"

// Missing stops t because what (for example "PostgreSQL") is not available
// for reason: it skips t when FORESIGHT_TEST_SKIP_MISSING is 1 or true
// (and CI is not true), and fails it otherwise.
func Missing(t testing.TB, what, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required under CI=true: %s", what, reason)
	}
	if v := os.Getenv(SkipVariable); v == "1" || v == "true" {
		t.Skipf("%s not available (%s=%s): %s", what, SkipVariable, v, reason)
	}
	t.Fatalf("%s not available: %s\n(install it, or set %s=1 to skip the tests that need it)", what, reason, SkipVariable)
}
