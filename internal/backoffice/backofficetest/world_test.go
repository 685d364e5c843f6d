package backofficetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/browsertest"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

const adminToken = "backoffice-test-admin-token"

// world is a running Foresight server (SQLite) on loopback and its admin
// API client, with the sandbox operator's wallet served beside it (not yet
// registered: tests register it when they need bets).
type world struct {
	*browsertest.World
	admin *admin.Client
}

// newWorld starts the world; configure, when given, changes the server's
// configuration first.
func newWorld(t *testing.T, configure ...func(*server.Config)) *world {
	t.Helper()
	browsertest.Browser(t)
	base := browsertest.StartServer(t, adminToken, configure...)
	op, err := operator.New(operator.Config{ID: "sandbox", SigningSecret: browsertest.SandboxSigningSecret})
	if err != nil {
		t.Fatal(err)
	}
	partner := httptest.NewServer(op.Handler())
	t.Cleanup(partner.Close)
	return &world{World: &browsertest.World{T: t, URL: base, Op: op, Partner: partner.URL}, admin: &admin.Client{BaseURL: base, Token: adminToken}}
}

// call sends an admin request and fails the test on an error answer.
func (w *world) call(method, path string, body, out any) {
	w.T.Helper()
	if err := w.admin.Do(context.Background(), method, path, body, out); err != nil {
		w.T.Fatalf("%s %s: %v", method, path, err)
	}
}

// signIn opens the backoffice in a new tab and signs in with the admin
// token.
func (w *world) signIn() *tab {
	w.T.Helper()
	tb := newTab(w.T)
	tb.openSignIn(w.URL + "/backoffice/")
	tb.submitToken(adminToken)
	tb.WaitFor("the signed-in page", "document.body.dataset.signedIn === 'true'")
	return tb
}

// openScreen signs in (signIn) in a desktop-sized window and opens the
// backoffice's screen (the route after "#/").
func (w *world) openScreen(screen string) *tab {
	w.T.Helper()
	tb := w.signIn()
	tb.Viewport(1200, 900)
	tb.Navigate(w.URL + "/backoffice/#/" + screen)
	return tb
}

// registerSandbox registers the sandbox operator "sandbox" (USD, 2
// decimals, outcome exposure limit 150) through the admin API.
func (w *world) registerSandbox() {
	w.T.Helper()
	w.call("POST", "/admin/v1/operators", map[string]any{
		"id": "sandbox", "name": "Sandbox Bets", "integration": "standalone",
		"wallet_url": w.Partner, "signing_secret": browsertest.SandboxSigningSecret, "jwks_url": w.Partner + "/.well-known/jwks.json",
		"currencies": []any{map[string]any{"code": "USD", "decimals": 2}},
		"margin":     map[string]any{"method": "odds_ratio", "value": "0.05"},
		"limits":     map[string]any{"USD": map[string]any{"min_stake": "1", "max_stake": "100", "max_payout": "1000", "outcome_exposure": "150"}},
	}, nil)
}

// newSandboxWorld starts a world (newWorld) with the sandbox operator
// registered (registerSandbox).
func newSandboxWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	w.registerSandbox()
	return w
}

// newCupFinalWorld starts a world with the sandbox operator registered
// (newSandboxWorld) and a sports event, "Cup final", whose one market is
// "Who wins?" (createEvent); it returns the world and the event.
func newCupFinalWorld(t *testing.T) (*world, event) {
	t.Helper()
	w := newSandboxWorld(t)
	return w, w.createEvent("sports", "Cup final", "Who wins?")
}

// event is an event as the admin API answers it.
type event struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Markets []struct {
		ID               string `json:"id"`
		Status           string `json:"status"`
		Version          int    `json:"version"`
		WinningOutcomeID string `json:"winning_outcome_id"`
		Outcomes         []struct {
			ID          string `json:"id"`
			Probability string `json:"probability"`
		} `json:"outcomes"`
	} `json:"markets"`
}

// createEvent creates an event with markets of two outcomes each: the
// questions given, outcomes "Home" (0.2) and "Away" (0.8).
func (w *world) createEvent(category, title string, questions ...string) event {
	w.T.Helper()
	var markets []any
	for _, q := range questions {
		markets = append(markets, map[string]any{"question": map[string]string{"en": q},
			"outcomes": []any{map[string]any{"name": map[string]string{"en": "Home", "de": "Heim"}, "probability": "0.2"},
				map[string]any{"name": map[string]string{"en": "Away"}, "probability": "0.8"}}})
	}
	var e event
	w.call("POST", "/admin/v1/events", map[string]any{"category": category, "title": map[string]string{"en": title}, "markets": markets}, &e)
	return e
}

func (w *world) event(id string) event {
	w.T.Helper()
	var e event
	w.call("GET", "/admin/v1/events/"+id, nil, &e)
	return e
}

// placeBet places a bet through the bettor API with a token the sandbox
// operator signs (a new bettor gets 100.00 USD in the sandbox wallet
// first), and returns the bet's id once its stake is debited (confirmed).
func (w *world) placeBet(bettor, market, outcome, stake string) string {
	w.T.Helper()
	if _, ok := w.Op.Balance(bettor); !ok {
		if err := w.Op.SetBalance(bettor, "USD", "100.00"); err != nil {
			w.T.Fatal(err)
		}
	}
	token, err := w.Op.MintToken(bettor, "USD")
	if err != nil {
		w.T.Fatal(err)
	}
	body := fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":%q}`, market, outcome, stake)
	status, data := browsertest.Request(w.T, "POST", w.URL+"/api/v1/bettor/bets", token, body, "Idempotency-Key", uuid.NewString())
	var bet struct{ ID string }
	if status/100 != 2 || json.Unmarshal(data, &bet) != nil || bet.ID == "" {
		w.T.Fatalf("placing a bet = %d %s", status, data)
	}
	w.waitBet(bettor, bet.ID, "confirmed")
	return bet.ID
}

// bet is a bet as the admin API lists it.
type bet struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Stake        string `json:"stake"`
	PayoutAmount string `json:"payout_amount"`
	Potential    string `json:"potential_payout"`
}

// waitBet waits until the bettor's bet id has status, and returns it.
func (w *world) waitBet(bettor, id, status string) bet {
	w.T.Helper()
	var found bet
	waitfor.Check(w.T, func() error {
		var page struct{ Items []bet }
		w.call("GET", "/admin/v1/bets?operator_id=sandbox&bettor_id="+url.QueryEscape(bettor), nil, &page)
		for _, b := range page.Items {
			if b.ID == id && b.Status == status {
				found = b
				return nil
			}
		}
		return fmt.Errorf("%s's bets %+v; waited for %s to be %s", bettor, page.Items, id, status)
	})
	return found
}
