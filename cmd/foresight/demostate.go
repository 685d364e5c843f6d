package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// demoCredentialsFile, in the demo's directory, keeps the credentials the
// demo printed, so that a restart in the same directory prints the same
// ones (a browser signed in to the backoffice stays signed in).
const demoCredentialsFile = "demo-credentials.json"

// demoCredentials are the credentials of one demo directory. The platform
// keeps only hashes of the keys; this file, readable by its owner only, is
// where the demo finds them again.
type demoCredentials struct {
	AdminToken          string `json:"admin_token"`
	OperatorKey         string `json:"operator_key,omitempty"`
	SportsbookKey       string `json:"sportsbook_key,omitempty"`
	TicketClientID      string `json:"ticket_client_id,omitempty"`
	TicketWebhookSecret string `json:"ticket_webhook_secret,omitempty"`
	TicketKey           string `json:"ticket_key,omitempty"`
}

// loadDemoCredentials reads dir's credentials file; a missing file gives
// empty credentials.
func loadDemoCredentials(dir string) (demoCredentials, error) {
	var c demoCredentials
	b, err := os.ReadFile(filepath.Join(dir, demoCredentialsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("demo credentials: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("demo credentials %s: %w (delete the file to have new ones)", filepath.Join(dir, demoCredentialsFile), err)
	}
	return c, nil
}

// saveDemoCredentials writes c to dir's credentials file, mode 0600,
// replacing it whole.
func saveDemoCredentials(dir string, c demoCredentials) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, demoCredentialsFile)
	tmp := path + ".new"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("demo credentials: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("demo credentials: %w", err)
	}
	return nil
}

// demoFlagDefaults makes `foresight demo -h` tell the demo's own defaults
// of the server flags it shares with serve. Their usage keeps naming their
// variables, which the demo reads as serve does; only --dev-allow-insecure
// names none, since the demo always turns it on.
func demoFlagDefaults(e *envFlags) {
	for name, def := range map[string]string{
		"database-url":     "sqlite:DIR/foresight-demo.db",
		"market-feed":      "simulator",
		"feed-interval":    "5s",
		"simulator-period": "1m0s",
	} {
		e.fs.Lookup(name).DefValue = def
	}
	e.fs.Lookup("admin-token").Usage = "bearer token of /admin/v1 (default: generated on the first run and kept in DIR/" + demoCredentialsFile + ") ($" + e.envs["admin-token"] + ")"
	insecure := e.fs.Lookup("dev-allow-insecure")
	insecure.DefValue, insecure.Usage = "true", "always on in the demo: the sandboxes and images are on http://127.0.0.1"
}

// selfCommand is how to run this program again from the directory it was
// started in, for the commands the demo prints: "foresight" when that
// name on PATH is this program, "go run ./cmd/foresight" when go run
// built it, and otherwise the program's own path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "foresight"
	}
	if p, err := exec.LookPath("foresight"); err == nil && sameFile(p, exe) {
		return "foresight"
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/foresight"
	}
	return exe
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
