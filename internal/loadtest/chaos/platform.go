package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
)

// statusError is a non-2xx answer of the platform.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s", e.status, e.body) }

// platform calls the platform's APIs on whichever node is up, trying
// another node (or the same one after its restart) when a node dies under
// a request.
type platform struct {
	cl         *cluster
	client     *http.Client
	adminToken string
}

// retryable reports whether a request may be sent again elsewhere: no
// answer, or a 5xx of a node that is stopping.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.status >= 500
	}
	return err != nil && !errors.Is(err, context.Canceled)
}

// send sends one request to node n and decodes a 2xx answer into out.
func (p *platform) send(ctx context.Context, n *node, method, path, body string, header http.Header, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, n.url+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		return &statusError{status: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// do sends a request to a node that is up, again to another when the
// node dies under it, for at most limit.
func (p *platform) do(ctx context.Context, limit time.Duration, method, path, body string, header http.Header, out any) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last *node
	var err error
	for {
		n := p.cl.pick(last)
		if n != nil {
			rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
			err = p.send(rctx, n, method, path, body, header, out)
			rcancel()
			if !retryable(err) {
				return err
			}
			last = n
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = errNoNode
			}
			return fmt.Errorf("%s %s: %w (gave up after %v)", method, path, err, limit)
		case <-time.After(time.Duration(50+rand.IntN(200)) * time.Millisecond):
		}
	}
}

// admin calls the admin API.
func (p *platform) admin(ctx context.Context, method, path, body string, out any) error {
	return p.do(ctx, 2*time.Minute, method, path, body, http.Header{"Authorization": {"Bearer " + p.adminToken}}, out)
}

// bets lists every bet of an operator, in status when not empty.
func (p *platform) bets(ctx context.Context, operator, status string) ([]Bet, error) {
	var out []Bet
	cursor := ""
	for {
		q := url.Values{"operator_id": {operator}, "limit": {"100"}}
		if status != "" {
			q.Set("status", status)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			Items      []Bet   `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := p.admin(ctx, "GET", "/admin/v1/bets?"+q.Encode(), "", &page); err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			return out, nil
		}
		cursor = *page.NextCursor
	}
}

// BetTotal is one status and currency of an operator's bets as GET
// /admin/v1/bets/totals counts and sums them.
type BetTotal struct {
	Status                string       `json:"status"`
	Currency              string       `json:"currency"`
	Bets                  int          `json:"bets"`
	Stake                 money.Amount `json:"stake"`
	Payout                money.Amount `json:"payout"`
	PayoutsConfirmed      int          `json:"payouts_confirmed"`
	LastPayoutConfirmedAt *time.Time   `json:"last_payout_confirmed_at"`
}

// BetTotals are the totals of the run's operators.
type BetTotals []BetTotal

// betTotals reads the totals of the operators' bets: one request each,
// however many bets they hold.
func (p *platform) betTotals(ctx context.Context, operators []string) (BetTotals, error) {
	var out BetTotals
	for _, op := range operators {
		var page struct {
			Items []BetTotal `json:"items"`
		}
		if err := p.admin(ctx, "GET", "/admin/v1/bets/totals?"+url.Values{"operator_id": {op}}.Encode(), "", &page); err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
	}
	return out, nil
}

// Count is the number of bets in the statuses.
func (ts BetTotals) Count(statuses ...string) int {
	n := 0
	for _, t := range ts {
		if slices.Contains(statuses, t.Status) {
			n += t.Bets
		}
	}
	return n
}

// Paid is the number of settled and voided bets whose payout the
// platform recorded as confirmed (lost bets included), and the latest
// confirmation.
func (ts BetTotals) Paid() (int, time.Time) {
	var n int
	var last time.Time
	for _, t := range ts {
		if t.Status == "settled" || t.Status == "voided" {
			n += t.PayoutsConfirmed
			if t.LastPayoutConfirmedAt != nil {
				last = later(last, *t.LastPayoutConfirmedAt)
			}
		}
	}
	return n, last
}

// Done reports whether every bet is final and every payout confirmed: no
// bet pending or confirmed, every settled and voided bet's payout
// confirmed.
func (ts BetTotals) Done() bool {
	paid, _ := ts.Paid()
	return ts.Count("pending", "confirmed") == 0 && paid == ts.Count("settled", "voided")
}

// walletTransactions reads a bet's wallet transactions.
func (p *platform) walletTransactions(ctx context.Context, betID string) ([]WalletTransaction, error) {
	var page struct {
		Items []WalletTransaction `json:"items"`
	}
	err := p.admin(ctx, "GET", "/admin/v1/bets/"+betID+"/wallet-transactions", "", &page)
	return page.Items, err
}

// market is the one market of a run.
type market struct {
	EventID  string
	ID       string
	Outcomes []string
}

// setUp registers the partners and creates the event and its market.
func (p *platform) setUp(ctx context.Context, pt *partners) (market, error) {
	if err := p.admin(ctx, "POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Chaos operator","integration":"standalone",
		"wallet_url":%q,"signing_secret":%q,"jwks_url":%q,"currencies":[{"code":"USD","decimals":2}],
		"margin":{"method":"odds_ratio","value":"0.05"},"limits":{"USD":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},
		"odds_tolerance":"0.05"}`, operatorID, pt.opURL, pt.opSecret, pt.opURL+"/.well-known/jwks.json"), nil); err != nil {
		return market{}, err
	}
	if pt.casino != nil {
		if err := p.admin(ctx, "POST", "/admin/v1/operators", fmt.Sprintf(`{"id":%q,"name":"Chaos aggregator","integration":"aggregator",
			"wallet_url":%q,"signing_secret":%q,"casino_ids":[%q],"currencies":[{"code":"EUR","decimals":2}],
			"margin":{"method":"odds_ratio","value":"0.05"},"limits":{"EUR":{"min_stake":"1","max_stake":"1000","max_payout":"100000","outcome_exposure":"1000000000"}},
			"odds_tolerance":"0.05"}`, aggregatorID, pt.casinoURL, pt.casinoSecret, casinoID), nil); err != nil {
			return market{}, err
		}
	}
	var ev struct {
		ID      string `json:"id"`
		Markets []struct {
			ID       string `json:"id"`
			Outcomes []struct {
				ID string `json:"id"`
			} `json:"outcomes"`
		} `json:"markets"`
	}
	if err := p.admin(ctx, "POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Chaos"},"markets":[{"question":{"en":"Who wins?"},
		"outcomes":[{"name":{"en":"A"},"probability":"0.5"},{"name":{"en":"B"},"probability":"0.5"}]}]}`, &ev); err != nil {
		return market{}, err
	}
	m := market{EventID: ev.ID, ID: ev.Markets[0].ID}
	for _, o := range ev.Markets[0].Outcomes {
		m.Outcomes = append(m.Outcomes, o.ID)
	}
	return m, nil
}

// bettor is one bettor of the load, with its bearer token.
type bettor struct {
	operator string
	token    string
}

// bettors makes n bettors of the operator (standalone tokens minted by the
// sandbox operator) or of the aggregator (sessions opened through
// Launcher/Real, signed as the casino).
func (p *platform) bettors(ctx context.Context, pt *partners, operator string, n int) ([]bettor, error) {
	out := make([]bettor, n)
	for i := range out {
		out[i].operator = operator
		if operator == operatorID {
			t, err := pt.op.MintToken(fmt.Sprint("bettor-", i), "USD")
			if err != nil {
				return nil, err
			}
			out[i].token = t
			continue
		}
		body := fmt.Sprintf(`{"casino_id":%q,"game":"prediction-markets","locale":"en","ip":"203.0.113.7","client_type":"desktop",
			"session_id":%q,"urls":{},"account":{"id":"player-%d","currency":"EUR"}}`, casinoID, uuid.NewString(), i)
		var launched struct {
			LaunchURL string `json:"launch_url"`
		}
		sign := http.Header{"X-Request-Sign": {casino.Sign([]byte(pt.casinoSecret), []byte(body))}}
		if err := p.do(ctx, time.Minute, "POST", "/v2/agg_provider.Launcher/Real", body, sign, &launched); err != nil {
			return nil, err
		}
		u, err := url.Parse(launched.LaunchURL)
		if err != nil {
			return nil, err
		}
		var session struct {
			AuthToken string `json:"auth_token"`
		}
		if err := p.do(ctx, time.Minute, "POST", "/api/v1/sessions",
			fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id")), nil, &session); err != nil {
			return nil, err
		}
		out[i].token = session.AuthToken
	}
	return out, nil
}

// waitMarketSeen waits until every node shows the event to a bettor: a
// node learns of a new event within its catalog cache's lifetime.
func (p *platform) waitMarketSeen(ctx context.Context, m market, b bettor) error {
	deadline := time.Now().Add(time.Minute)
	for _, n := range p.cl.nodes {
		for {
			err := p.send(ctx, n, "GET", "/api/v1/events/"+m.EventID, "", http.Header{"Authorization": {"Bearer " + b.token}}, nil)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("node %d does not show the event: %w", n.index, err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// sender places bets on random living nodes, each with its own
// Idempotency-Key, sending a request that found its node dying again with
// the same key elsewhere.
type sender struct {
	p       *platform
	m       market
	bettors []bettor
	// retryLimit bounds the time one bet is retried for.
	retryLimit time.Duration

	mu        sync.Mutex
	sent      int
	retries   int
	accepted  map[string]string // bet id → operator
	refused   map[int]int       // status → bets refused at the door
	abandoned int
	problems  []Discrepancy
}

func newSender(p *platform, m market, bettors []bettor) *sender {
	return &sender{p: p, m: m, bettors: bettors, retryLimit: 2 * time.Minute,
		accepted: map[string]string{}, refused: map[int]int{}}
}

// place places one bet of a random bettor, outcome and stake.
func (s *sender) place(ctx context.Context) {
	b := s.bettors[rand.IntN(len(s.bettors))]
	key := uuid.NewString()
	body := fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":"%d.%02d"}`,
		s.m.ID, s.m.Outcomes[rand.IntN(len(s.m.Outcomes))], 1+rand.IntN(20), 25*rand.IntN(4))
	header := http.Header{"Authorization": {"Bearer " + b.token}, "Idempotency-Key": {key}}
	s.mu.Lock()
	s.sent++
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.retryLimit)
	defer cancel()
	var last *node
	retried := false
	for {
		if n := s.p.cl.pick(last); n != nil {
			if last != nil {
				retried = true
				s.mu.Lock()
				s.retries++
				s.mu.Unlock()
			}
			last = n
			var acc struct {
				ID string `json:"id"`
			}
			rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
			err := s.p.send(rctx, n, "POST", "/api/v1/bettor/bets", body, header, &acc)
			rcancel()
			var se *statusError
			switch {
			case err == nil:
				s.mu.Lock()
				s.accepted[acc.ID] = b.operator
				s.mu.Unlock()
				if retried {
					s.checkRepeat(ctx, body, header, acc.ID)
				}
				return
			case errors.As(err, &se) && se.status < 500:
				s.mu.Lock()
				s.refused[se.status]++
				s.mu.Unlock()
				return
			}
		}
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.abandoned++
			s.mu.Unlock()
			return
		case <-time.After(time.Duration(50+rand.IntN(200)) * time.Millisecond):
		}
	}
}

// checkRepeat sends a retried bet's request once more, with its key, to
// any node: the answer must name the same bet.
func (s *sender) checkRepeat(ctx context.Context, body string, header http.Header, id string) {
	var again struct {
		ID string `json:"id"`
	}
	if err := s.p.do(ctx, time.Minute, "POST", "/api/v1/bettor/bets", body, header, &again); err != nil {
		return
	}
	if again.ID != id {
		s.mu.Lock()
		s.problems = append(s.problems, Discrepancy{BetID: id,
			What: fmt.Sprintf("its Idempotency-Key %s, sent again, answered bet %s", header.Get("Idempotency-Key"), again.ID)})
		s.mu.Unlock()
	}
}

// run places bets at rate for d, at most inFlight at once; it returns
// when the last bet is answered or abandoned.
func (s *sender) run(ctx context.Context, rate float64, d time.Duration, inFlight int) {
	paced(ctx, rate, d, inFlight, s.place)
}

// paced calls do rate times per second for d, on schedule (open loop: a
// slow call does not delay the next), at most inFlight at once, until d
// is over or ctx ends; it returns when the last call has returned.
func paced(ctx context.Context, rate float64, d time.Duration, inFlight int, do func(context.Context)) {
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if at.Sub(start) >= d {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(at)):
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			do(ctx)
		})
	}
	wg.Wait()
}

// pendingSeen is what the polls saw of one pending bet.
type pendingSeen struct {
	created, last time.Time
}

// pendingWatch polls the pending bets of operators every interval and
// keeps when each was last seen pending.
type pendingWatch struct {
	p         *platform
	operators []string
	mu        sync.Mutex
	seen      map[string]*pendingSeen
}

// run polls until ctx ends.
func (w *pendingWatch) run(ctx context.Context, interval time.Duration) {
	for {
		for _, op := range w.operators {
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			bets, err := w.p.bets(pctx, op, "pending")
			cancel()
			if err != nil {
				continue
			}
			now := time.Now()
			w.mu.Lock()
			for _, b := range bets {
				s := w.seen[b.ID]
				if s == nil {
					s = &pendingSeen{created: b.CreatedAt}
					w.seen[b.ID] = s
				}
				s.last = now
			}
			w.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// PendingAfterRestart is how long one bet stayed pending after a node's
// restart.
type PendingAfterRestart struct {
	BetID string
	// Node and For are the restart the bet stayed pending longest after,
	// and how long: an upper bound when several nodes run (see
	// afterRestarts).
	Node int
	For  time.Duration
	// AfterLatest is how long it stayed pending after the latest restart
	// of any node, until it was final or a node was killed again: a lower
	// bound.
	AfterLatest time.Duration
}

// afterRestarts measures, for every bet seen pending, how long it stayed
// pending after a restart that came while it was pending: from the
// restarted node's first healthy answer until the bet was last seen
// pending or that node was killed again, whichever came first. Which node
// holds a bet's placement is not visible from outside, so on several
// nodes every node's restarts count, and the longest is an upper bound:
// when kills come closer together than a dead node's jobs take to come
// back, a bet stranded by one node's death is also charged to another
// node's restart. AfterLatest is the lower bound, from the latest restart
// of any node. kills are every node's kill times. It returns the bets
// sorted longest first.
func (w *pendingWatch) afterRestarts(windows []nodeWindow, kills []time.Time) []PendingAfterRestart {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []PendingAfterRestart
	for id, s := range w.seen {
		best := PendingAfterRestart{BetID: id, Node: -1}
		var latest time.Time
		for _, win := range windows {
			if win.start.Before(s.created) || !win.start.Before(s.last) {
				continue
			}
			end := s.last
			if !win.end.IsZero() && win.end.Before(end) {
				end = win.end
			}
			if d := end.Sub(win.start); d > best.For {
				best.For, best.Node = d, win.node
			}
			latest = later(latest, win.start)
		}
		if best.Node < 0 {
			continue
		}
		end := s.last
		for _, k := range kills {
			if k.After(latest) && k.Before(end) {
				end = k
			}
		}
		best.AfterLatest = end.Sub(latest)
		out = append(out, best)
	}
	sortPending(out)
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// newHTTPClient is the client of the platform's APIs: many connections to
// each node, every request bounded by its context.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512, IdleConnTimeout: 30 * time.Second}}
}
