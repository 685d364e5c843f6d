package heuristic

import (
	"regexp"
	"strings"
	"testing"
)

// TestLayer: layer reads a title as the four regular expressions it
// replaced did (kept here as the oracle), on titles of each layer, of none,
// and of words that only contain a layer's word.
func TestLayer(t *testing.T) {
	t.Parallel()
	data := regexp.MustCompile(`(?i)\b(entity|entities|model|schema|migration)\b|\bAPI$`)
	api := regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) /|(?i)\bendpoints?\b`)
	logic := regexp.MustCompile(`(?i)\b(controller|service|worker|scheduler)\b`)
	ui := regexp.MustCompile(`(?i)\b(ui|screen|page|frontend|widget|dashboard)\b`)
	oracle := func(title string) int {
		switch {
		case ui.MatchString(title):
			return 3
		case logic.MatchString(title):
			return 2
		case api.MatchString(title):
			return 1
		case data.MatchString(title):
			return 0
		}
		return -1
	}
	titles := []string{
		"Define the Todo entity", "Define job response schema", "CronJob API", "Add the rapid API", "Implement GET /api/todos/:id",
		"Implement get /api/todos", "GET/api", "Implement DELETE /api/todos to remove a todo", "List endpoints", "Endpoint for uploads",
		"CronJob controller", "Retry worker", "Service accounts", "Settings page", "Dashboard UI", "Frontend build", "GUI shell",
		"Pages of results", "Models", "Data modeling", "Enforce 1 to 50 tickets per result", "Support for iOS and Android",
		"The_widget layer", "Über-Widget", "Modèle entity", "POST /jobs and the dashboard", "The API and its controller",
		"API", "api", "the api", "My API.", "", "   ", "Implement PATCH /", "XGET /x",
	}
	for _, title := range titles {
		if got, want := layer(title), oracle(title); got != want {
			t.Errorf("layer(%q) = %d, want %d", title, got, want)
		}
	}
}

// TestBugHints: the cheap look for bugHints before bugWords never hides a
// text bugWords matches.
func TestBugHints(t *testing.T) {
	t.Parallel()
	texts := []string{
		"Saving doesn't work", "Login does not work on Safari", "Search not working", "The app crashes on start", "Crashed twice",
		"Regression in 2.1", "Export is broken", "Upload fails", "Tests failing", "NullPointerException on save", "Stack trace attached",
		"Stacktrace below", "Shows an error message", "A 500 error on submit", "Bug: typo", "Feature 12 must work",
		"Works on my machine", "Error code 42 is returned", "Frameworks", "DOESN'T WORK", "Does Not Work",
	}
	for _, s := range texts {
		want := bugWords.MatchString(s) && !strings.Contains(strings.ToLower(s), "error code")
		if got := isBugText(s); got != want {
			t.Errorf("isBugText(%q) = %v, want %v", s, got, want)
		}
	}
}
