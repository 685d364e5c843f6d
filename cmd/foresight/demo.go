package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net"
	"path/filepath"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// runDemo serves a local world on SQLite: a generated admin token and a
// ticket client with a key of every scope, printed with a curl example.
func runDemo(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg, logFormat, e := serverFlags(fs, getenv)
	var dir string
	e.String(&dir, "dir", "FORESIGHT_DEMO_DIR", ".", "directory of the demo database (foresight-demo.db)")
	if err := e.parse(args); err != nil {
		return err
	}
	if getenv("FORESIGHT_DATABASE_URL") == "" && !flagSet(fs, "database-url") {
		cfg.DatabaseURL = "sqlite:" + filepath.Join(dir, "foresight-demo.db")
	}
	if cfg.AdminToken == "" {
		cfg.AdminToken = randomToken()
	}
	l, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + l.Addr().String()
	}
	srv, err := server.New(ctx, *cfg, newLogger(*logFormat, stderr))
	if err != nil {
		l.Close()
		return err
	}
	defer srv.Close()
	svc := srv.Tickets()
	client, err := svc.CreateClient(ctx, "demo team")
	if err != nil {
		return err
	}
	_, key, err := svc.CreateKey(ctx, client.ID, []tickets.Scope{tickets.ScopeSubmit, tickets.ScopeRead, tickets.ScopeCancel}, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `Foresight demo is running.

  API base URL     %[1]s
  Database         %[2]s
  Admin token      %[3]s   (Authorization: Bearer … on %[1]s/admin/v1)
  Ticket client    %[4]s   webhook secret %[5]s
  Ticket API key   %[6]s   (scopes tickets:submit tickets:read tickets:cancel)
  OpenAPI          %[1]s/openapi/tickets.yaml  %[1]s/openapi/admin.yaml
  Health, metrics  %[1]s/healthz  %[1]s/metrics

Try it:

  curl -s -X POST %[1]s/tickets/v1/jobs \
    -H 'Authorization: Bearer %[6]s' -H 'Content-Type: application/json' \
    -d '{"schema_version":"tickets.input.v1","idempotency_key":"demo-1","title":"Login","spec":"# Login\n- Users must sign in with email and password.\n- Lock the account after 5 failed attempts?"}'

Press Ctrl-C to stop.
`, cfg.PublicURL, cfg.DatabaseURL, cfg.AdminToken, client.ID, client.WebhookSecret, key)
	return srv.Run(ctx, l)
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func randomToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "adm_" + hex.EncodeToString(b)
}
