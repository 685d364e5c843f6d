package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
)

const adminUsage = `Usage: foresight admin [--url URL] [--token TOKEN] <command> [flags]

Commands:
  ticket-clients create --name NAME
  ticket-clients list
  ticket-clients get --client ID
  ticket-clients update --client ID [--suspended true|false] [--tickets-enabled true|false]
  ticket-keys create --client ID --scopes tickets:submit,tickets:read,tickets:cancel [--expires-at RFC3339]
  ticket-keys list --client ID
  ticket-keys revoke --client ID --key KEY_ID
  ticket-jobs list [--client ID] [--status STATUS] [--limit N] [--cursor CURSOR]
  ticket-jobs get --job ID
  operator-credentials issue --operator ID --name NAME [--expires-at RFC3339]
  operator-credentials list --operator ID
  operator-credentials revoke --operator ID --credential ID

The server is $FORESIGHT_ADMIN_URL, else $FORESIGHT_PUBLIC_URL, else http://$FORESIGHT_ADDR
(default http://127.0.0.1:8080); the token is $FORESIGHT_ADMIN_TOKEN. Answers print as JSON.
`

func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, adminUsage) }
	defaultURL := getenv("FORESIGHT_ADMIN_URL")
	if defaultURL == "" {
		defaultURL = getenv("FORESIGHT_PUBLIC_URL")
	}
	if defaultURL == "" {
		addr := getenv("FORESIGHT_ADDR")
		if addr == "" {
			addr = "127.0.0.1:8080"
		}
		defaultURL = "http://" + addr
	}
	c := &admin.Client{}
	fs.StringVar(&c.BaseURL, "url", defaultURL, "server URL")
	fs.StringVar(&c.Token, "token", getenv("FORESIGHT_ADMIN_TOKEN"), "admin token ($FORESIGHT_ADMIN_TOKEN)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) < 2 {
		fs.Usage()
		return flag.ErrHelp
	}
	if c.Token == "" {
		return fmt.Errorf("no admin token: set $FORESIGHT_ADMIN_TOKEN or pass --token")
	}
	sub := flag.NewFlagSet("admin "+rest[0]+" "+rest[1], flag.ContinueOnError)
	sub.SetOutput(stderr)
	var (
		name, clientID, keyID, scopes, expiresAt, suspended, ticketsEnabled string
		jobID, status, cursor, operatorID, credentialID                     string
		limit                                                               int
	)
	sub.StringVar(&name, "name", "", "client or credential name")
	sub.StringVar(&clientID, "client", "", "client id")
	sub.StringVar(&keyID, "key", "", "key id")
	sub.StringVar(&scopes, "scopes", "", "comma-separated scopes")
	sub.StringVar(&expiresAt, "expires-at", "", "key or credential expiry, RFC 3339")
	sub.StringVar(&operatorID, "operator", "", "operator id")
	sub.StringVar(&credentialID, "credential", "", "operator credential id")
	sub.StringVar(&suspended, "suspended", "", "true or false")
	sub.StringVar(&ticketsEnabled, "tickets-enabled", "", "true or false")
	sub.StringVar(&jobID, "job", "", "ticket job id")
	sub.StringVar(&status, "status", "", "job status (queued, processing, completed, failed, cancel_requested, cancelled, expired)")
	sub.StringVar(&cursor, "cursor", "", "next_cursor of the previous page")
	sub.IntVar(&limit, "limit", 0, "page size, 1 to 100 (default 20)")
	if err := sub.Parse(rest[2:]); err != nil {
		return err
	}
	require := func(v, flagName string) error {
		if v == "" {
			return fmt.Errorf("%s %s needs --%s", rest[0], rest[1], flagName)
		}
		return nil
	}

	var out any
	var err error
	switch rest[0] + " " + rest[1] {
	case "ticket-clients create":
		if err = require(name, "name"); err == nil {
			out, err = c.CreateTicketClient(ctx, name)
		}
	case "ticket-clients list":
		out, err = c.ListTicketClients(ctx)
	case "ticket-clients get":
		if err = require(clientID, "client"); err == nil {
			out, err = c.GetTicketClient(ctx, clientID)
		}
	case "ticket-clients update":
		if err = require(clientID, "client"); err != nil {
			break
		}
		var s, t *bool
		if s, err = optionalBool(suspended, "suspended"); err != nil {
			break
		}
		if t, err = optionalBool(ticketsEnabled, "tickets-enabled"); err != nil {
			break
		}
		out, err = c.UpdateTicketClient(ctx, clientID, s, t)
	case "ticket-keys create":
		if err = require(clientID, "client"); err != nil {
			break
		}
		if err = require(scopes, "scopes"); err != nil {
			break
		}
		var exp *time.Time
		if exp, err = optionalTime(expiresAt, "expires-at"); err != nil {
			break
		}
		out, err = c.CreateTicketKey(ctx, clientID, strings.Split(scopes, ","), exp)
	case "ticket-keys list":
		if err = require(clientID, "client"); err == nil {
			out, err = c.ListTicketKeys(ctx, clientID)
		}
	case "ticket-keys revoke":
		if err = require(clientID, "client"); err != nil {
			break
		}
		if err = require(keyID, "key"); err != nil {
			break
		}
		if err = c.RevokeTicketKey(ctx, clientID, keyID); err == nil {
			out = map[string]string{"revoked": keyID}
		}
	case "ticket-jobs list":
		var items []admin.TicketJob
		var next string
		items, next, err = c.ListTicketJobs(ctx, admin.TicketJobQuery{ClientID: clientID, Status: status, Limit: limit, Cursor: cursor})
		page := map[string]any{"items": items, "next_cursor": nil}
		if next != "" {
			page["next_cursor"] = next
		}
		out = page
	case "ticket-jobs get":
		if err = require(jobID, "job"); err == nil {
			out, err = c.GetTicketJob(ctx, jobID)
		}
	case "operator-credentials issue":
		if err = require(operatorID, "operator"); err != nil {
			break
		}
		if err = require(name, "name"); err != nil {
			break
		}
		var exp *time.Time
		if exp, err = optionalTime(expiresAt, "expires-at"); err != nil {
			break
		}
		out, err = c.IssueOperatorCredential(ctx, operatorID, name, exp)
	case "operator-credentials list":
		if err = require(operatorID, "operator"); err == nil {
			out, err = c.ListOperatorCredentials(ctx, operatorID)
		}
	case "operator-credentials revoke":
		if err = require(operatorID, "operator"); err != nil {
			break
		}
		if err = require(credentialID, "credential"); err != nil {
			break
		}
		if err = c.RevokeOperatorCredential(ctx, operatorID, credentialID); err == nil {
			out = map[string]string{"revoked": credentialID}
		}
	default:
		fs.Usage()
		return fmt.Errorf("unknown admin command %q", rest[0]+" "+rest[1])
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func optionalTime(v, name string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, fmt.Errorf("--%s %q is not RFC 3339 (2026-12-31T00:00:00Z)", name, v)
	}
	return &t, nil
}

func optionalBool(v, name string) (*bool, error) {
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, fmt.Errorf("--%s %q: want true or false", name, v)
	}
	return &b, nil
}
