package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
)

// runLoadtestAggregator measures the aggregator path over HTTP against an
// in-process server whose aggregator's wallet is the sandbox casino on
// loopback: Launcher/Real and Round/Details at a fixed rate (the launcher's
// rate limit off), then aggregator bets as fast as possible until every
// round is open, then a backlog placed with placement paused.
func runLoadtestAggregator(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest aggregator", stderr)
	var (
		f       betLoadFlags
		players int
	)
	f.register(fs, 200, "rate of the Launcher/Real and Round/Details phases, per second")
	fs.IntVar(&players, "players", 200, "players the bets are spread over")
	if err := fs.Parse(args); err != nil {
		return err
	}
	w, done, err := f.start(ctx)
	if err != nil {
		return err
	}
	defer done()
	duration, concurrency, rate := f.duration, f.concurrency, f.rate
	base := w.base
	signed := func(path, body string) (*http.Request, error) {
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(loadCasinoSecret), []byte(body)))
		return req, nil
	}
	launch := func(i int) (*http.Request, error) {
		return signed("/v2/agg_provider.Launcher/Real", fmt.Sprintf(`{"casino_id":%q,"game":"prediction-markets","locale":"en",
			"ip":"203.0.113.7","client_type":"desktop","session_id":%q,"urls":{},"account":{"id":"player-%d","currency":"EUR"}}`,
			w.casinoID, uuid.NewString(), i%players))
	}
	ok200 := func(s int) bool { return s == http.StatusOK }
	fmt.Fprintf(stdout, "%s, concurrency %d, %v per phase, %d players, sandbox casino wallet at %s/casino\n", w.describe(), concurrency, duration, players, w.walletURL)

	// Sessions of every player, outside the measurement.
	tokens := make([]string, players)
	for i := range tokens {
		if tokens[i], err = aggregatorSession(ctx, w.client, launch, base, i); err != nil {
			return err
		}
	}
	r := loadtest.Run(ctx, w.client, loadtest.Options{Rate: rate, Concurrency: concurrency, Duration: duration, NewRequest: launch, OK: ok200})
	fmt.Fprintf(stdout, "%-40s %s\n", fmt.Sprintf("Launcher/Real, %.0f/s", rate), r)

	newBet := w.betRequests(tokens)
	// Rounds to read, placed and opened outside the measurement.
	rounds := make([]string, 0, players)
	for i := range players {
		id, err := placeOne(w.client, newBet, i)
		if err != nil {
			return err
		}
		rounds = append(rounds, id)
	}
	if err := waitConfirmed(ctx, w.admin, w.aggregatorID, time.Minute); err != nil {
		return err
	}
	details := func(i int) (*http.Request, error) {
		return signed("/v2/agg_provider.Round/Details", fmt.Sprintf(`{"casino_id":%q,"round_id":%q,"locale":"en"}`, w.casinoID, rounds[i%len(rounds)]))
	}
	r = loadtest.Run(ctx, w.client, loadtest.Options{Rate: rate, Concurrency: concurrency, Duration: duration, NewRequest: details, OK: ok200})
	fmt.Fprintf(stdout, "%-40s %s\n", fmt.Sprintf("Round/Details, %.0f/s", rate), r)

	start := time.Now()
	r = loadtest.Run(ctx, w.client, loadtest.Options{Concurrency: concurrency, Duration: duration, NewRequest: newBet, OK: accepted})
	fmt.Fprintf(stdout, "%-40s %s\n", "aggregator bets, max", r)
	if err := waitConfirmed(ctx, w.admin, w.aggregatorID, 5*time.Minute); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(stdout, "%-40s %d rounds open %v after the first bet was sent: %.0f/s\n", "bets to round pending (BetWin 200)", r.Succeeded,
		took.Round(time.Millisecond), float64(r.Succeeded)/took.Seconds())
	return placeBacklog(ctx, stdout, w, w.aggregatorID, loadtest.Options{Concurrency: concurrency, Duration: duration, NewRequest: newBet, OK: accepted})
}

// aggregatorSession launches player i and exchanges the launch token for a
// session token.
func aggregatorSession(ctx context.Context, client *http.Client, launch func(int) (*http.Request, error), base string, i int) (string, error) {
	req, err := launch(i)
	if err != nil {
		return "", err
	}
	var launched struct {
		LaunchURL string `json:"launch_url"`
	}
	if err := doJSON(client, req.WithContext(ctx), &launched); err != nil {
		return "", fmt.Errorf("Launcher/Real: %w", err)
	}
	u, err := url.Parse(launched.LaunchURL)
	if err != nil {
		return "", err
	}
	req, err = http.NewRequestWithContext(ctx, "POST", base+"/api/v1/sessions",
		strings.NewReader(fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id"))))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	var session struct {
		AuthToken string `json:"auth_token"`
	}
	if err := doJSON(client, req, &session); err != nil {
		return "", fmt.Errorf("POST /api/v1/sessions: %w", err)
	}
	return session.AuthToken, nil
}

// placeOne places bet i and returns its id.
func placeOne(client *http.Client, newBet func(int) (*http.Request, error), i int) (string, error) {
	req, err := newBet(i)
	if err != nil {
		return "", err
	}
	var acc struct {
		ID string `json:"id"`
	}
	if err := doJSON(client, req, &acc); err != nil {
		return "", fmt.Errorf("POST /api/v1/bettor/bets: %w", err)
	}
	return acc.ID, nil
}

// doJSON sends req and decodes a 2xx answer into out.
func doJSON(client *http.Client, req *http.Request, out any) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%d %s", resp.StatusCode, b)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
