package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CredentialsFile, in the demo's directory, keeps the credentials the demo
// printed, so that a restart in the same directory prints the same ones (a
// browser signed in to the backoffice stays signed in).
const CredentialsFile = "demo-credentials.json"

// Credentials are the credentials of one demo directory. The platform
// keeps only hashes of the keys; this file, readable by its owner only, is
// where the demo finds them again.
type Credentials struct {
	AdminToken          string `json:"admin_token"`
	OperatorKey         string `json:"operator_key,omitempty"`
	SportsbookKey       string `json:"sportsbook_key,omitempty"`
	TicketClientID      string `json:"ticket_client_id,omitempty"`
	TicketWebhookSecret string `json:"ticket_webhook_secret,omitempty"`
	TicketKey           string `json:"ticket_key,omitempty"`
}

// LoadCredentials reads dir's credentials file; a missing file gives
// empty credentials. A file that is not JSON is an error that says to
// delete it.
func LoadCredentials(dir string) (Credentials, error) {
	var c Credentials
	b, err := os.ReadFile(filepath.Join(dir, CredentialsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("demo credentials: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("demo credentials %s: %w (delete the file to have new ones)", filepath.Join(dir, CredentialsFile), err)
	}
	return c, nil
}

// SaveCredentials writes c to dir's credentials file, mode 0600, replacing
// it whole (a new file renamed over the old one).
func SaveCredentials(dir string, c Credentials) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, CredentialsFile)
	tmp := path + ".new"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("demo credentials: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("demo credentials: %w", err)
	}
	return nil
}
