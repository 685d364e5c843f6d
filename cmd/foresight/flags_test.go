package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestCommandFlags: each command takes only its own flags (a flag of
// another command is refused, not ignored), -h asks for the usage (exit 0)
// while a call without a command is a misuse (exit 2).
func TestCommandFlags(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_ADMIN_URL": "http://127.0.0.1:1"})
	for _, tt := range []struct {
		args []string
		want string // in the error; "" for flag.ErrHelp
		is   error
	}{
		{[]string{"admin", "ticket-clients", "list", "--name", "x"}, "flag provided but not defined: -name", nil},
		{[]string{"admin", "ticket-keys", "revoke", "--client", "c", "--scopes", "s"}, "flag provided but not defined: -scopes", nil},
		{[]string{"admin", "ticket-keys", "revoke", "--client", "c"}, "ticket-keys revoke needs --key", nil},
		{[]string{"admin", "ticket-jobs", "list", "--limit", "ten"}, `--limit "ten": want a whole number`, nil},
		{[]string{"admin", "ticket-clients", "list", "extra"}, `unexpected argument "extra"`, nil},
		{[]string{"admin", "ticket-clients", "create", "-h"}, "", flag.ErrHelp},
		{[]string{"admin"}, "", errUsage},
		{[]string{"tickets", "bench", "--admin-token", longToken}, "flag provided but not defined: -admin-token", nil},
		{[]string{"tickets", "measure", "--database-url", "sqlite:x.db"}, "flag provided but not defined: -database-url", nil},
		{[]string{"tickets"}, "", errUsage},
		{[]string{}, "", errUsage},
		{[]string{"serve", "-h"}, "", flag.ErrHelp},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, env, &stdout, &stderr)
		switch {
		case tt.is != nil && !errors.Is(err, tt.is):
			t.Errorf("foresight %s: %v, want %v", strings.Join(tt.args, " "), err, tt.is)
		case tt.is == nil && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("foresight %s: %v, want an error with %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

// TestCommandHelp: help, -h or --help in place of a command prints that
// level's usage to stdout and succeeds (exit 0).
func TestCommandHelp(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string // in the usage
	}{
		{[]string{"help"}, "foresight serve [flags]"},
		{[]string{"--help"}, "foresight serve [flags]"},
		{[]string{"tickets", "-h"}, "foresight tickets lint"},
		{[]string{"sandbox", "--help"}, "foresight sandbox operator"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), tt.args, envOf(nil), &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("foresight %s: %v, stdout %q; want nil and a usage with %q", strings.Join(tt.args, " "), err, stdout.String(), tt.want)
		}
	}
}

// TestAdminUnreachableServerNamesTheSetting: when nothing answers at the
// admin API's URL, the error names that URL and the settings that choose
// it, so that a server on another port is one flag away.
func TestAdminUnreachableServerNamesTheSetting(t *testing.T) {
	t.Parallel()
	url := "http://" + freeAddr(t)
	err := run(context.Background(), []string{"admin", "ticket-clients", "list"},
		envOf(map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_ADMIN_URL": url}), &bytes.Buffer{}, &bytes.Buffer{})
	if want := "(is the server at " + url + "? set its URL with --url or $FORESIGHT_ADMIN_URL)"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("admin with no server at %s: %v, want an error ending %q", url, err, want)
	}
}

// TestMisuseIsAUsageError: every wrong call (an unknown command or flag,
// a stray argument, a required flag missing) is errUsage, so the program
// exits 2 as Go's flag package does; a command that ran and failed is not.
func TestMisuseIsAUsageError(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_ADMIN_URL": "http://127.0.0.1:1"})
	for _, args := range [][]string{
		{"bogus"},
		{"serve", "--bogus"},
		{"serve", "extra"},
		{"admin", "bogus", "command"},
		{"admin", "ticket-keys", "revoke", "--client", "c"},
		{"admin", "ticket-clients", "list", "extra"},
		{"loadtest", "bogus"},
		{"loadtest", "--bogus"},
		{"loadtest", "bets", "--bogus"},
		{"tickets", "lint"},
		{"conformance", "operator-wallet"},
		{"sandbox", "bogus"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, env, &stdout, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("foresight %s: %v, want a usage error (exit 2)", strings.Join(args, " "), err)
		}
	}
	err := run(context.Background(), []string{"admin", "ticket-clients", "list"}, env, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || errors.Is(err, errUsage) {
		t.Errorf("admin with no server: %v, want an error that is not a usage error (exit 1)", err)
	}
}

// TestAdminFlagValueIsAUsageError: an admin command's flag given a value
// its kind refuses (a number, a boolean, an RFC 3339 time) is a usage
// error, exit 2 like a value Go's flag package refuses, with the message
// that names the flag and the form it wants; the server is never asked.
func TestAdminFlagValueIsAUsageError(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_ADMIN_URL": "http://127.0.0.1:1"})
	for _, tt := range []struct {
		args []string
		want string // the error's message
	}{
		{[]string{"ticket-jobs", "list", "--limit", "ten"}, `--limit "ten": want a whole number`},
		{[]string{"audit", "list", "--limit", "2.5"}, `--limit "2.5": want a whole number`},
		{[]string{"ticket-clients", "update", "--client", "c", "--suspended", "maybe"}, `--suspended "maybe": want true or false`},
		{[]string{"ticket-clients", "update", "--client", "c", "--tickets-enabled", "yes"}, `--tickets-enabled "yes": want true or false`},
		{[]string{"ticket-keys", "create", "--client", "c", "--scopes", "tickets:read", "--expires-at", "2026-12-31"},
			`--expires-at "2026-12-31" is not RFC 3339 (2026-12-31T00:00:00Z)`},
		{[]string{"operator-credentials", "issue", "--operator", "o", "--name", "n", "--expires-at", "tomorrow"},
			`--expires-at "tomorrow" is not RFC 3339 (2026-12-31T00:00:00Z)`},
		{[]string{"audit", "list", "--since", "yesterday"}, `--since "yesterday" is not RFC 3339 (2026-12-31T00:00:00Z)`},
		{[]string{"audit", "list", "--until", "2026-13-01T00:00:00Z"}, `--until "2026-13-01T00:00:00Z" is not RFC 3339 (2026-12-31T00:00:00Z)`},
	} {
		args := append([]string{"admin"}, tt.args...)
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, env, &stdout, &stderr)
		if !errors.Is(err, errUsage) || err.Error() != tt.want {
			t.Errorf("foresight %s: %v, want the usage error (exit 2) %q", strings.Join(args, " "), err, tt.want)
		}
	}
}
