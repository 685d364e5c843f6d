// Package demo sets up the world `foresight demo` shows: the sandbox
// operator, the sandbox casino and the demo sportsbook registered as
// partners through the admin API, staff and ticket credentials kept in the
// demo's directory across restarts, a few bets placed through the bettor
// API on a new database, and the banner that prints every URL and
// credential. The ticket client and the wait for the first markets use the
// server's services in process. The command (cmd/foresight) parses the
// flags, listens and runs the servers.
package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/poll"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/sandbox/sportsbook"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Ids of the demo's partners on the platform.
const (
	OperatorID   = "demo-operator"
	AggregatorID = "demo-casino"
	// CasinoID is the sandbox casino's casino_id, the one its aggregator
	// launches the game for.
	CasinoID = casino.DefaultCasinoID
	// SportsbookID is the bundled operator: its balances are in the
	// platform's ledger.
	SportsbookID = "demo-sportsbook"
)

// staffName names the operator credential each start of the demo issues
// for the demo operator's staff (and revokes the previous one's);
// sportsbookServer the one of the sportsbook's server.
const (
	staffName        = "demo operator staff"
	sportsbookServer = "sportsbook server"
)

// bettors get a few bets when the demo starts on a new database.
var bettors = []string{"alice", "bob", "carol"}

// OpenSites opens the sandbox operator and the sandbox casino of the
// platform at platformURL, with their databases in dir; after a failure it
// closes what it opened.
func OpenSites(ctx context.Context, platformURL, dir string) (*operator.Site, *casino.Site, error) {
	opSite, err := operator.OpenSite(ctx, operator.SiteConfig{
		ID:           OperatorID,
		SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: filepath.Join(dir, "sandbox-operator.db")},
	})
	if err != nil {
		return nil, nil, err
	}
	casinoSite, err := casino.OpenSite(ctx, casino.SiteConfig{
		AggregatorID: AggregatorID, CasinoID: CasinoID,
		SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: filepath.Join(dir, "sandbox-casino.db")},
	})
	if err != nil {
		opSite.Close()
		return nil, nil, err
	}
	return opSite, casinoSite, nil
}

// Partners are the sandbox partners the demo registers, with the base URLs
// they listen on.
type Partners struct {
	Operator    *operator.Site
	OperatorURL string
	Casino      *casino.Site
	CasinoURL   string
}

// World sets the demo up through the platform's own APIs.
type World struct {
	platform    string
	client      *http.Client
	admin       *admin.Client
	credentials Credentials
	progress    io.Writer
	logger      *slog.Logger
}

// NewWorld returns the set-up of the platform at platformURL, called with
// client and adminToken, starting from the credentials an earlier run kept.
// It says what it is doing on progress; logger is the sportsbook's log.
func NewWorld(platformURL, adminToken string, client *http.Client, credentials Credentials, progress io.Writer, logger *slog.Logger) *World {
	return &World{platform: platformURL, client: client, admin: &admin.Client{BaseURL: platformURL, Token: adminToken, HTTP: client},
		credentials: credentials, progress: progress, logger: logger}
}

// Credentials are the credentials of the world: those it started from,
// completed by SetUp.
func (w *World) Credentials() Credentials { return w.credentials }

// SetUp waits until srv is healthy, registers the partners, the sportsbook
// and the demo's credentials (keeping an earlier run's that still sign
// in), on a fresh database places a bet for each demo bettor, keeps the
// credentials in dir (SaveCredentials), and returns the sportsbook's site,
// which calls the platform with the credential issued for it.
func (w *World) SetUp(ctx context.Context, srv *server.Server, p Partners, fresh bool, dir string) (*sportsbook.Site, error) {
	if err := w.register(ctx, srv, p, fresh); err != nil {
		return nil, err
	}
	if err := SaveCredentials(dir, w.credentials); err != nil {
		return nil, err
	}
	return sportsbook.New(sportsbook.Config{OperatorID: SportsbookID, PlatformURL: w.platform,
		Credential: w.credentials.SportsbookKey, Currency: "USD", HTTP: w.client, Logger: w.logger})
}

func (w *World) register(ctx context.Context, srv *server.Server, p Partners, fresh bool) error {
	if err := poll.Until(ctx, 10*time.Second, func() bool { return w.admin.Do(ctx, "GET", "/healthz", nil, nil) == nil }); err != nil {
		return errors.New("the platform did not become healthy")
	}
	fmt.Fprintln(w.progress, "Registering the sandbox operator, the sandbox casino and the sportsbook, and the demo's credentials …")
	if err := w.registerPartner(ctx, OperatorID, p.Operator.Registration(p.OperatorURL)); err != nil {
		return err
	}
	if err := w.registerPartner(ctx, AggregatorID, p.Casino.Registration(p.CasinoURL)); err != nil {
		return err
	}
	if err := w.registerPartner(ctx, SportsbookID, sportsbook.Registration(SportsbookID, "Demo sportsbook", "USD")); err != nil {
		return err
	}
	if err := w.staffKey(ctx, OperatorID, staffName, &w.credentials.OperatorKey); err != nil {
		return err
	}
	if err := w.staffKey(ctx, SportsbookID, sportsbookServer, &w.credentials.SportsbookKey); err != nil {
		return err
	}
	if err := w.ticketCredentials(ctx, srv.Tickets()); err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	fmt.Fprintln(w.progress, "Waiting for the simulator's first markets, then placing a bet for alice, bob and carol …")
	return w.placeBets(ctx, srv.Betting(), p.Operator.Operator())
}

// ticketCredentials keeps the earlier run's ticket client and key when the
// key still authenticates, and creates a client and a key of every scope
// otherwise (a new database, or a revoked key).
func (w *World) ticketCredentials(ctx context.Context, svc *tickets.Service) error {
	if w.credentials.TicketKey != "" {
		if p, err := svc.Authenticate(ctx, w.credentials.TicketKey); err == nil && p.ClientID == w.credentials.TicketClientID {
			return nil
		}
	}
	c, err := svc.CreateClient(ctx, "demo team")
	if err != nil {
		return err
	}
	_, key, err := svc.CreateKey(ctx, c.ID, []tickets.Scope{tickets.ScopeSubmit, tickets.ScopeRead, tickets.ScopeCancel}, nil)
	if err != nil {
		return err
	}
	w.credentials.TicketClientID, w.credentials.TicketWebhookSecret, w.credentials.TicketKey = c.ID, c.WebhookSecret, key
	return nil
}

// registerPartner creates the partner on the platform, or, when it exists
// from an earlier run, updates it to this run's URLs and secret.
func (w *World) registerPartner(ctx context.Context, id string, body []byte) error {
	var conflict *admin.Problem
	err := w.admin.Do(ctx, "POST", "/admin/v1/operators", json.RawMessage(body), nil)
	if errors.As(err, &conflict) && conflict.Code == admin.CodeConflict {
		err = w.admin.Do(ctx, "PATCH", "/admin/v1/operators/"+id, json.RawMessage(body), nil)
	}
	if err != nil {
		return fmt.Errorf("register %s: %w", id, err)
	}
	return nil
}

// staffKey keeps the earlier run's credential named name of operatorID (in
// *key) when it still signs in; otherwise it revokes any earlier credential
// of that name (only its hash is on the platform: it cannot be shown
// again) and issues a new one into *key.
func (w *World) staffKey(ctx context.Context, operatorID, name string, key *string) error {
	if *key != "" {
		staff := &admin.Client{BaseURL: w.admin.BaseURL, Token: *key, HTTP: w.admin.HTTP}
		var who struct {
			OperatorID string `json:"operator_id"`
		}
		if staff.Do(ctx, "GET", "/admin/v1/whoami", nil, &who) == nil && who.OperatorID == operatorID {
			return nil
		}
	}
	creds, err := w.admin.ListOperatorCredentials(ctx, operatorID)
	if err != nil {
		return fmt.Errorf("credentials of %s: %w", operatorID, err)
	}
	for _, c := range creds {
		if c.Name == name && c.RevokedAt == nil {
			if err := w.admin.RevokeOperatorCredential(ctx, operatorID, c.ID); err != nil {
				return fmt.Errorf("revoke the earlier %s key: %w", name, err)
			}
		}
	}
	c, err := w.admin.IssueOperatorCredential(ctx, operatorID, name, nil)
	if err != nil {
		return fmt.Errorf("issue the %s key: %w", name, err)
	}
	*key = c.Key
	return nil
}

// placeBets waits for the simulator's first events and places one bet per
// demo bettor through the bettor API, as the widget would.
func (w *World) placeBets(ctx context.Context, catalog *betting.Service, op *operator.Operator) error {
	var open []betting.Event
	err := poll.Until(ctx, 30*time.Second, func() bool {
		events, err := catalog.ListEvents(ctx, betting.EventFilter{Status: betting.StatusOpen, Limit: 50})
		open = nil
		for _, e := range events {
			if err == nil && len(e.Markets) > 0 && e.Markets[0].Status == betting.StatusOpen {
				open = append(open, e)
			}
		}
		return len(open) > 0
	})
	if err != nil {
		return errors.New("the simulator fed no open market within 30 s")
	}
	for i, bettor := range bettors {
		token, err := op.MintToken(bettor, "USD")
		if err != nil {
			return err
		}
		m := open[i%len(open)].Markets[0]
		o := m.Outcomes[i%len(m.Outcomes)]
		body, _ := json.Marshal(map[string]string{"market_id": m.ID, "outcome_id": o.ID, "stake": fmt.Sprintf("%d.00", 5*(i+1))})
		req, _ := http.NewRequestWithContext(ctx, "POST", w.platform+"/api/v1/bettor/bets", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
		resp, err := w.client.Do(req)
		if err != nil {
			return fmt.Errorf("place a bet for %s: %w", bettor, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("place a bet for %s: %s", bettor, resp.Status)
		}
	}
	return nil
}
