package betload

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

// AggregatorOptions describe a RunAggregator.
type AggregatorOptions struct {
	Phases
	// Players is the number of players the launches and bets are spread
	// over.
	Players int
}

// RunAggregator measures the aggregator path over HTTP, whose wallet is
// the sandbox casino, and writes the report's lines to report:
// Launcher/Real and Round/Details at o.Rate, then aggregator bets as fast
// as possible until every round is open, then a backlog placed with
// placement paused. It fails on the first failed launch, session or bet
// outside the measured phases, when bets are refused for the bettors'
// rate, or when bets stay pending too long.
func RunAggregator(ctx context.Context, w *World, o AggregatorOptions, report io.Writer) error {
	fmt.Fprintf(report, "%s, concurrency %d, %v per phase, %d players, sandbox casino wallet at %s/casino\n", w.Describe(), o.Concurrency, o.Duration, o.Players, w.walletURL)
	launch := w.launchRequests(o.Players)
	ok200 := func(s int) bool { return s == http.StatusOK }

	// Sessions of every player, outside the measurement.
	tokens := make([]string, o.Players)
	for i := range tokens {
		var err error
		if tokens[i], err = w.aggregatorSession(ctx, launch, i); err != nil {
			return err
		}
	}
	r := loadtest.Run(ctx, w.Client, loadtest.Options{Rate: o.Rate, Concurrency: o.Concurrency, Duration: o.Duration, NewRequest: launch, OK: ok200})
	fmt.Fprintf(report, "%-40s %s\n", fmt.Sprintf("Launcher/Real, %.0f/s", o.Rate), r)

	p := betPhase{w: w, operatorID: w.aggregatorID, newBet: w.betRequests(tokens), Phases: o.Phases}
	rounds, err := openRounds(ctx, p, o.Players)
	if err != nil {
		return err
	}
	details := func(i int) (*http.Request, error) {
		return w.casinoRequest("/v2/agg_provider.Round/Details", fmt.Sprintf(`{"casino_id":%q,"round_id":%q,"locale":"en"}`, w.casinoID, rounds[i%len(rounds)]))
	}
	r = loadtest.Run(ctx, w.Client, loadtest.Options{Rate: o.Rate, Concurrency: o.Concurrency, Duration: o.Duration, NewRequest: details, OK: ok200})
	fmt.Fprintf(report, "%-40s %s\n", fmt.Sprintf("Round/Details, %.0f/s", o.Rate), r)

	start := time.Now()
	r = loadtest.Run(ctx, w.Client, p.options(0, o.Duration))
	fmt.Fprintf(report, "%-40s %s\n", "aggregator bets, max", r)
	if err := notRateLimited(r); err != nil {
		return err
	}
	if err := w.waitConfirmed(ctx, w.aggregatorID, 5*time.Minute); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(report, "%-40s %d rounds open %v after the first bet was sent: %.0f/s\n", "bets to round pending (BetWin 200)", r.Succeeded,
		took.Round(time.Millisecond), float64(r.Succeeded)/took.Seconds())
	return placeBacklog(ctx, report, w, w.aggregatorID, p.options(0, o.Duration))
}

// casinoRequest returns a POST of body to path of the aggregator API,
// signed as the sandbox casino signs.
func (w *World) casinoRequest(path, body string) (*http.Request, error) {
	req, err := http.NewRequest("POST", w.Base+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(casinoSecret), []byte(body)))
	return req, nil
}

// launchRequests returns the i-th Launcher/Real of a load: a fresh
// session of the players in turn, of players in all.
func (w *World) launchRequests(players int) func(i int) (*http.Request, error) {
	return func(i int) (*http.Request, error) {
		return w.casinoRequest("/v2/agg_provider.Launcher/Real", fmt.Sprintf(`{"casino_id":%q,"game":"prediction-markets","locale":"en",
			"ip":"203.0.113.7","client_type":"desktop","session_id":%q,"urls":{},"account":{"id":"player-%d","currency":"EUR"}}`,
			w.casinoID, uuid.NewString(), i%players))
	}
}

// openRounds places a bet of each of n players, the rounds Round/Details
// reads, and waits until every round is open. It returns the rounds' ids.
func openRounds(ctx context.Context, p betPhase, n int) ([]string, error) {
	rounds := make([]string, 0, n)
	for i := range n {
		id, err := placeOne(p.w.Client, p.newBet, i)
		if err != nil {
			return nil, err
		}
		rounds = append(rounds, id)
	}
	if err := p.w.waitConfirmed(ctx, p.operatorID, time.Minute); err != nil {
		return nil, err
	}
	return rounds, nil
}

// aggregatorSession launches player i and exchanges the launch token for a
// session token.
func (w *World) aggregatorSession(ctx context.Context, launch func(int) (*http.Request, error), i int) (string, error) {
	req, err := launch(i)
	if err != nil {
		return "", err
	}
	var launched struct {
		LaunchURL string `json:"launch_url"`
	}
	if err := doJSON(w.Client, req.WithContext(ctx), &launched); err != nil {
		return "", fmt.Errorf("Launcher/Real: %w", err)
	}
	u, err := url.Parse(launched.LaunchURL)
	if err != nil {
		return "", err
	}
	req, err = http.NewRequestWithContext(ctx, "POST", w.Base+"/api/v1/sessions",
		strings.NewReader(fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id"))))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	var session struct {
		AuthToken string `json:"auth_token"`
	}
	if err := doJSON(w.Client, req, &session); err != nil {
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

// doJSON sends req and decodes a 2xx answer into out; another status is
// an error holding it and the body.
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
