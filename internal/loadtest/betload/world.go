// Package betload measures the betting platform under load over HTTP. It
// sets up a World (a server in this process on loopback, or a running one
// named as a Target, with one open two-outcome market, a standalone
// operator whose wallet is the sandbox operator in this process and an
// aggregator whose wallet is the sandbox casino in this process), then
// drives one kind of load against it and writes the report's lines to an
// io.Writer: RunBets times bet placement, the backlog of a pause and the
// settlement; RunAggregator times the aggregator's launcher, round details
// and bets. Each phase is an open-loop run of package loadtest.
package betload

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
)

// casinoSecret is the secret the load's aggregator shares with the
// platform.
const casinoSecret = "load-test-casino-secret"

// Target names a server in another process or node to load instead of one
// in the load's own process.
type Target struct {
	// URL is the server's base URL; "" runs a server in this process.
	URL string
	// AdminToken is the server's admin token.
	AdminToken string
	// WalletListen is the address the sandbox wallets listen on; the
	// server calls them at http://WalletListen (or the address the
	// listener got, for port 0).
	WalletListen string
}

// Config says where a World runs.
type Config struct {
	// DatabaseURL is the database of the server in this process; unused
	// with a Target.
	DatabaseURL string
	// DatabaseName is how reports name that database (its URL with the
	// password hidden).
	DatabaseName string
	Target       Target
	// Conns bounds the client's connections to the server.
	Conns int
}

// World is what the betting loads run against: a server (in this process
// on loopback, or the Target) with one open two-outcome market, a
// standalone operator whose wallet is the sandbox operator in this process
// (signed requests), and an aggregator whose wallet is the sandbox casino
// in this process. Its operator and aggregator are this run's own, so that
// runs against one target do not share bets.
type World struct {
	// Operator is the standalone operator's wallet.
	Operator *operator.Operator
	// Base is the server's URL.
	Base string
	// Market is the open market the bets go to.
	Market Market
	// Client keeps at most Config.Conns connections to the server.
	Client *http.Client

	// casino is the wallet of the aggregator (casino id casinoID, currency
	// EUR).
	casino *casino.Casino
	// srv and dbURL are the server in this process and its database; nil
	// and "" against a target. dbName is how reports name the database.
	srv           *server.Server
	dbURL, dbName string
	// walletURL is where the sandbox wallets listen, as the server calls
	// them.
	walletURL string
	// operatorID, aggregatorID and casinoID are this run's own.
	operatorID, aggregatorID, casinoID string
	// adminToken is the server's admin token.
	adminToken string
	// undo stops what Start started, last first.
	undo []func()
}

// Market is a market of the World as the admin API returns it.
type Market struct {
	ID       string `json:"id"`
	Version  int64  `json:"version"`
	Outcomes []struct {
		ID string `json:"id"`
	} `json:"outcomes"`
}

// Start starts the sandbox wallets and, without a target, the server on
// cfg.DatabaseURL; then it creates this run's operator, aggregator and
// market through the admin API. On an error it stops what it started.
// Close stops the World.
func Start(ctx context.Context, cfg Config) (_ *World, err error) {
	suffix := loadtest.NewRunID()
	w := &World{operatorID: "load-" + suffix, aggregatorID: "loadagg-" + suffix, casinoID: "casino-load-" + suffix}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	if err := w.startWallets(cfg.Target.WalletListen); err != nil {
		return nil, err
	}
	if cfg.Target.URL == "" {
		if err := w.startServer(ctx, cfg.DatabaseURL); err != nil {
			return nil, err
		}
		w.dbName = cfg.DatabaseName
	} else {
		w.Base, w.adminToken = strings.TrimSuffix(cfg.Target.URL, "/"), cfg.Target.AdminToken
	}
	w.Client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Conns, MaxConnsPerHost: cfg.Conns}}
	if err := w.createPartners(ctx); err != nil {
		return nil, err
	}
	if w.Market, err = w.createMarket(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// startWallets starts the sandbox operator and casino on one listener at
// listen: the operator's wallet under /, the casino's under /casino/.
func (w *World) startWallets(listen string) (err error) {
	if w.Operator, err = operator.New(operator.Config{ID: w.operatorID, SigningSecret: "load-test-signing-secret", StartingBalance: "1000000000.00"}); err != nil {
		return err
	}
	if w.casino, err = casino.New(casino.Config{SigningSecret: casinoSecret, StartingBalance: "1000000000.00"}); err != nil {
		return err
	}
	walletL, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("wallet listener: %w", err)
	}
	wallets := http.NewServeMux()
	wallets.Handle("/", w.Operator.Handler())
	wallets.Handle("/casino/", http.StripPrefix("/casino", w.casino.Handler()))
	walletSrv := &http.Server{Handler: wallets}
	go walletSrv.Serve(walletL)
	w.undo = append(w.undo, func() { walletSrv.Close() })
	w.walletURL = "http://" + walletL.Addr().String()
	return nil
}

// startServer starts a server with its workers in this process on
// loopback, on the database at dbURL, with a fresh admin token, the
// launcher's and Round/Details' rate limits off (the load comes from one
// address) and the bettors' rate limit off (each of the load's bettors
// places up to 15 bets a second, and the backlog phase queues hundreds
// each).
func (w *World) startServer(ctx context.Context, dbURL string) error {
	cfg := server.DefaultConfig()
	cfg.DatabaseURL, cfg.AdminToken, cfg.DevAllowInsecure = dbURL, admin.NewToken(), true
	cfg.LauncherRateLimit, cfg.RoundDetailsRateLimit, cfg.BetRateLimit = 0, 0, 0
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	srv, err := server.New(ctx, cfg, nil)
	if err != nil {
		l.Close()
		return err
	}
	w.undo = append(w.undo, func() { srv.Close() })
	w.srv, w.dbURL, w.Base, w.adminToken = srv, dbURL, cfg.PublicURL, cfg.AdminToken
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(runCtx, l) }()
	w.undo = append(w.undo, func() { stopRun(); <-ran })
	return nil
}

// createPartners creates this run's standalone operator, whose wallet is
// the sandbox operator, and its aggregator, whose wallet is the sandbox
// casino.
func (w *World) createPartners(ctx context.Context) error {
	if err := w.Admin(ctx, "POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Load","integration":"standalone",
		"wallet_url":%q,"signing_secret":"load-test-signing-secret","jwks_url":%q,"currencies":[{"code":"USD","decimals":2}],
		"margin":{"method":"odds_ratio","value":"0.05"},"limits":{"USD":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},
		"odds_tolerance":"0.05"}`, w.operatorID, w.walletURL, w.walletURL+"/.well-known/jwks.json"), nil); err != nil {
		return fmt.Errorf("create the load's operator (a target must run with FORESIGHT_DEV_ALLOW_INSECURE=true): %w", err)
	}
	return w.Admin(ctx, "POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Load aggregator","integration":"aggregator",
		"wallet_url":%q,"signing_secret":%q,"casino_ids":[%q],"currencies":[{"code":"EUR","decimals":2}],
		"margin":{"method":"odds_ratio","value":"0.05"},"limits":{"EUR":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},
		"odds_tolerance":"0.05"}`, w.aggregatorID, w.walletURL+"/casino", casinoSecret, w.casinoID), nil)
}

// createMarket creates an event with one market of two even outcomes.
func (w *World) createMarket(ctx context.Context) (Market, error) {
	var ev struct {
		Markets []Market `json:"markets"`
	}
	if err := w.Admin(ctx, "POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Load"},"markets":[{"question":{"en":"Who wins?"},
		"outcomes":[{"name":{"en":"A"},"probability":"0.5"},{"name":{"en":"B"},"probability":"0.5"}]}]}`, &ev); err != nil {
		return Market{}, err
	}
	return ev.Markets[0], nil
}

// Close stops what Start started, last first.
func (w *World) Close() {
	for _, f := range slices.Backward(w.undo) {
		f()
	}
}

// Admin calls the admin API with the server's admin token and decodes a
// JSON answer into out (nil: the answer is dropped). An answer of 300 or
// above is an error holding its status and body.
func (w *World) Admin(ctx context.Context, method, path, body string, out any) error {
	return w.adminWith(ctx, method, path, body, nil, out)
}

// adminWith is Admin that also sends header.
func (w *World) adminWith(ctx context.Context, method, path, body string, header http.Header, out any) error {
	req, _ := http.NewRequestWithContext(ctx, method, w.Base+path, strings.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+w.adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// Describe names what the load runs against, for the first line of a
// report: the target's URL, or the database of the server in this process.
func (w *World) Describe() string {
	if w.srv == nil {
		return "target " + w.Base
	}
	return "database " + w.dbName
}

// betRequests returns the i-th bet of a load: 1.00 on the market's first
// or second outcome in turn, by the bettors of tokens in turn, each with a
// fresh Idempotency-Key.
func (w *World) betRequests(tokens []string) func(i int) (*http.Request, error) {
	return func(i int) (*http.Request, error) {
		body := fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":"1.00"}`, w.Market.ID, w.Market.Outcomes[i%2].ID)
		req, err := http.NewRequest("POST", w.Base+"/api/v1/bettor/bets", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tokens[i%len(tokens)])
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
		return req, nil
	}
}

// accepted says whether a bet's placement was accepted (202).
func accepted(status int) bool { return status == http.StatusAccepted }
