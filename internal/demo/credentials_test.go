package demo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/demo"
)

// A directory without a credentials file starts empty; saved credentials
// read back the same, from a file only its owner reads.
func TestCredentialsSaveAndLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got, err := demo.LoadCredentials(dir)
	if err != nil || got != (demo.Credentials{}) {
		t.Fatalf("LoadCredentials(new dir) = %+v, %v; want empty, nil", got, err)
	}
	want := demo.Credentials{AdminToken: "admin", OperatorKey: "op", SportsbookKey: "book",
		TicketClientID: "client", TicketWebhookSecret: "hook", TicketKey: "key"}
	if err := demo.SaveCredentials(dir, want); err != nil {
		t.Fatal(err)
	}
	if got, err := demo.LoadCredentials(dir); err != nil || got != want {
		t.Errorf("LoadCredentials after save = %+v, %v; want %+v", got, err, want)
	}
	info, err := os.Stat(filepath.Join(dir, demo.CredentialsFile))
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("credentials file mode %v, want 0600", mode)
	}
}

// A credentials file that is not JSON is an error that names the file and
// says how to start over.
func TestCredentialsUnreadableFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, demo.CredentialsFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := demo.LoadCredentials(dir)
	if err == nil || !strings.Contains(err.Error(), demo.CredentialsFile) || !strings.Contains(err.Error(), "delete the file") {
		t.Errorf("LoadCredentials(bad file) = %v, want an error naming the file and saying to delete it", err)
	}
}
