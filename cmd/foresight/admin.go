package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
)

// adminFlags describes every flag an admin command may take.
var adminFlags = map[string]string{
	"name":            "client or credential name",
	"client":          "ticket client id",
	"key":             "key id",
	"scopes":          "comma-separated scopes (tickets:submit,tickets:read,tickets:cancel)",
	"expires-at":      "expiry, RFC 3339 (2026-12-31T00:00:00Z)",
	"operator":        "operator id",
	"credential":      "operator credential id",
	"suspended":       "true or false",
	"tickets-enabled": "true or false",
	"job":             "ticket job id",
	"status":          "job status (queued, processing, completed, failed, cancel_requested, cancelled, expired)",
	"cursor":          "next_cursor of the previous page",
	"limit":           "page size, 1 to 100 (default 20)",
	"action":          "audit action (market.resolved, operator.updated, bettor.credited, …)",
	"actor":           "admin, or an operator credential id",
	"target-kind":     "audit target kind (market, operator, operator_credential, bettor, ticket_client, ticket_key)",
	"target-id":       "audit target id",
	"since":           "from this time on, RFC 3339",
	"until":           "before this time, RFC 3339",
}

// adminCommand is one `foresight admin <group> <verb>`: the flags it
// requires and those it accepts besides, and what it does with their
// values. A flag it does not name is refused.
type adminCommand struct {
	name     string
	required []string
	optional []string
	run      func(ctx context.Context, c *admin.Client, v adminValues) (any, error)
}

// adminValues are a command's flag values by name; a flag not given is "".
type adminValues map[string]string

var adminCommands = []adminCommand{
	{name: "ticket-clients create", required: []string{"name"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return c.CreateTicketClient(ctx, v["name"])
		}},
	{name: "ticket-clients list",
		run: func(ctx context.Context, c *admin.Client, _ adminValues) (any, error) {
			return c.ListTicketClients(ctx)
		}},
	{name: "ticket-clients get", required: []string{"client"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return c.GetTicketClient(ctx, v["client"])
		}},
	{name: "ticket-clients update", required: []string{"client"}, optional: []string{"suspended", "tickets-enabled"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			suspended, err := optionalBool(v["suspended"], "suspended")
			if err != nil {
				return nil, err
			}
			enabled, err := optionalBool(v["tickets-enabled"], "tickets-enabled")
			if err != nil {
				return nil, err
			}
			return c.UpdateTicketClient(ctx, v["client"], suspended, enabled)
		}},
	{name: "ticket-keys create", required: []string{"client", "scopes"}, optional: []string{"expires-at"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			exp, err := optionalTime(v["expires-at"], "expires-at")
			if err != nil {
				return nil, err
			}
			return c.CreateTicketKey(ctx, v["client"], strings.Split(v["scopes"], ","), exp)
		}},
	{name: "ticket-keys list", required: []string{"client"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return c.ListTicketKeys(ctx, v["client"])
		}},
	{name: "ticket-keys revoke", required: []string{"client", "key"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return map[string]string{"revoked": v["key"]}, c.RevokeTicketKey(ctx, v["client"], v["key"])
		}},
	{name: "ticket-jobs list", optional: []string{"client", "status", "limit", "cursor"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			limit, err := optionalInt(v["limit"], "limit")
			if err != nil {
				return nil, err
			}
			items, next, err := c.ListTicketJobs(ctx, admin.TicketJobQuery{ClientID: v["client"], Status: v["status"], Limit: limit, Cursor: v["cursor"]})
			page := map[string]any{"items": items, "next_cursor": nil}
			if next != "" {
				page["next_cursor"] = next
			}
			return page, err
		}},
	{name: "ticket-jobs get", required: []string{"job"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return c.GetTicketJob(ctx, v["job"])
		}},
	{name: "operator-credentials issue", required: []string{"operator", "name"}, optional: []string{"expires-at"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			exp, err := optionalTime(v["expires-at"], "expires-at")
			if err != nil {
				return nil, err
			}
			return c.IssueOperatorCredential(ctx, v["operator"], v["name"], exp)
		}},
	{name: "operator-credentials list", required: []string{"operator"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return c.ListOperatorCredentials(ctx, v["operator"])
		}},
	{name: "operator-credentials revoke", required: []string{"operator", "credential"},
		run: func(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
			return map[string]string{"revoked": v["credential"]}, c.RevokeOperatorCredential(ctx, v["operator"], v["credential"])
		}},
	{name: "ledger verify", run: runLedgerVerify},
	{name: "audit list", optional: []string{"operator", "action", "actor", "target-kind", "target-id", "since", "until", "limit", "cursor"},
		run: runAuditList},
}

// adminUsage lists the commands with their flags, from adminCommands.
func adminUsage() string {
	var b strings.Builder
	b.WriteString("Usage: foresight admin [--url URL] [--token TOKEN] <command> [flags]\n\nCommands:\n")
	for _, cmd := range adminCommands {
		b.WriteString("  " + cmd.name)
		for _, f := range cmd.required {
			b.WriteString(" --" + f + " " + strings.ToUpper(strings.ReplaceAll(f, "-", "_")))
		}
		for _, f := range cmd.optional {
			b.WriteString(" [--" + f + " " + strings.ToUpper(strings.ReplaceAll(f, "-", "_")) + "]")
		}
		b.WriteString("\n")
	}
	b.WriteString(`
The server is $FORESIGHT_ADMIN_URL, else $FORESIGHT_PUBLIC_URL, else http://$FORESIGHT_ADDR
(default http://127.0.0.1:8080); the token is $FORESIGHT_ADMIN_TOKEN. Answers print as JSON.
Run "foresight admin <command> -h" for a command's flags.
`)
	return b.String()
}

// runAdmin runs one admin command through the admin API and prints its
// answer as JSON. When the server cannot be reached, the error says which
// URL was tried and how to set another.
func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("admin", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, adminUsage()) }
	c := &admin.Client{}
	e := &envFlags{fs: fs, getenv: getenv}
	e.String(&c.BaseURL, "url", "FORESIGHT_ADMIN_URL", "", "server URL")
	e.String(&c.Token, "token", "FORESIGHT_ADMIN_TOKEN", "", "admin token")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := e.applyEnv(); err != nil {
		return err
	}
	if c.BaseURL == "" {
		c.BaseURL = defaultAdminURL(getenv)
	}
	rest := fs.Args()
	if len(rest) < 2 {
		fs.Usage()
		return errUsage
	}
	name := rest[0] + " " + rest[1]
	i := slices.IndexFunc(adminCommands, func(cmd adminCommand) bool { return cmd.name == name })
	if i < 0 {
		fs.Usage()
		return usageError{fmt.Errorf("unknown admin command %q", name)}
	}
	cmd := adminCommands[i]
	values, err := cmd.parse(rest[2:], stderr)
	if err != nil {
		return err
	}
	if c.Token == "" {
		return errors.New("no admin token: set $FORESIGHT_ADMIN_TOKEN or pass --token")
	}
	out, err := cmd.run(ctx, c, values)
	var unreachable *url.Error
	if errors.As(err, &unreachable) {
		return fmt.Errorf("%w (is the server at %s? set its URL with --url or $FORESIGHT_ADMIN_URL)", err, c.BaseURL)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// parse reads args with a flag set of the command's own flags only and
// checks that the required ones are given.
func (cmd adminCommand) parse(args []string, stderr io.Writer) (adminValues, error) {
	fs := newFlagSet("admin "+cmd.name, stderr)
	values := adminValues{}
	ptrs := map[string]*string{}
	for _, f := range slices.Concat(cmd.required, cmd.optional) {
		ptrs[f] = fs.String(f, "", adminFlags[f])
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("%s: unexpected argument %q", cmd.name, fs.Arg(0))}
	}
	for f, p := range ptrs {
		values[f] = *p
	}
	for _, f := range cmd.required {
		if values[f] == "" {
			return nil, usageError{fmt.Errorf("%s needs --%s", cmd.name, f)}
		}
	}
	return values, nil
}

// defaultAdminURL is the admin API's server when neither --url nor
// $FORESIGHT_ADMIN_URL names it: $FORESIGHT_PUBLIC_URL, else http:// +
// $FORESIGHT_ADDR or its default.
func defaultAdminURL(getenv func(string) string) string {
	if u := getenv("FORESIGHT_PUBLIC_URL"); u != "" {
		return u
	}
	addr := getenv("FORESIGHT_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	return "http://" + addr
}

// optionalTime is the RFC 3339 time of flag name's value v, or nil when v
// is empty; any other value is a usageError.
func optionalTime(v, name string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, usageError{fmt.Errorf("--%s %q is not RFC 3339 (2026-12-31T00:00:00Z)", name, v)}
	}
	return &t, nil
}

// optionalBool is the boolean of flag name's value v (as strconv.ParseBool
// reads it), or nil when v is empty; any other value is a usageError.
func optionalBool(v, name string) (*bool, error) {
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, usageError{fmt.Errorf("--%s %q: want true or false", name, v)}
	}
	return &b, nil
}

// optionalInt is the whole number of flag name's value v, or 0 when v is
// empty; any other value is a usageError.
func optionalInt(v, name string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, usageError{fmt.Errorf("--%s %q: want a whole number", name, v)}
	}
	return n, nil
}
