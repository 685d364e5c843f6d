package admin_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/server"
)

// exampleServer serves a new Foresight on SQLite in a temporary directory
// with the admin token token, as `foresight serve` would; stop closes it
// and removes the directory.
func exampleServer(token string) (url string, stop func()) {
	dir, err := os.MkdirTemp("", "foresight-example-")
	if err != nil {
		log.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = "sqlite:" + filepath.Join(dir, "foresight.db")
	cfg.AdminToken = token
	srv, err := server.New(context.Background(), cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	return hs.URL, func() {
		hs.Close()
		srv.Close()
		os.RemoveAll(dir)
	}
}

// A team gets a ticket client and an API key that may submit and read
// jobs; the key is shown once, when it is created.
func ExampleClient_CreateTicketKey() {
	url, stop := exampleServer("example-admin-token-0123456789abcdef")
	defer stop()
	ctx := context.Background()

	c := &admin.Client{BaseURL: url, Token: "example-admin-token-0123456789abcdef"}
	team, err := c.CreateTicketClient(ctx, "payments team")
	if err != nil {
		log.Fatal(err)
	}
	key, err := c.CreateTicketKey(ctx, team.ID, []string{"tickets:submit", "tickets:read"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(team.Name, "enabled:", team.TicketsEnabled)
	fmt.Println("scopes:", strings.Join(key.Scopes, " "))
	fmt.Println("key shown once:", key.Key != "")

	keys, err := c.ListTicketKeys(ctx, team.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("key listed later:", keys[0].ID == key.ID, keys[0].Key != "")
	// Output:
	// payments team enabled: true
	// scopes: tickets:read tickets:submit
	// key shown once: true
	// key listed later: true false
}

// A refusal comes back as a *admin.Problem whose Code says what went
// wrong; its Status is the HTTP status.
func ExampleProblem() {
	url, stop := exampleServer("example-admin-token-0123456789abcdef")
	defer stop()
	ctx := context.Background()

	c := &admin.Client{BaseURL: url, Token: "example-admin-token-0123456789abcdef"}
	_, err := c.GetTicketClient(ctx, "2b0d7c1e-0000-4000-8000-000000000000")
	var p *admin.Problem
	if errors.As(err, &p) {
		fmt.Println(p.Status, p.Code)
	}

	wrong := &admin.Client{BaseURL: url, Token: "not-the-admin-token-0123456789abcdef"}
	_, err = wrong.ListTicketClients(ctx)
	if errors.As(err, &p) {
		fmt.Println(p.Status, p.Code)
	}
	// Output:
	// 404 not_found
	// 401 unauthorized
}
