package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestDemo runs `foresight demo` as a new user would: it starts, prints
// its URLs and credentials, the pages answer, the demo bettors' bets are
// placed and confirmed, the sandbox operator's wallet passes the
// conformance check printed in the banner, a restart on the same
// directory works, and Ctrl-C stops it cleanly.
func TestDemo(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "demo") // a directory the demo creates
	addrs := []string{freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t)}
	start := func() (string, func()) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		out, errOut := newOutputWatch(), &bytes.Buffer{}
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"demo", "--dir", dir, "--addr", addrs[0], "--operator-addr", addrs[1], "--casino-addr", addrs[2],
				"--sportsbook-addr", addrs[3]},
				envOf(nil), out, errOut)
		}()
		select {
		case <-out.ready:
		case err := <-done:
			cancel()
			t.Fatalf("demo ended at start: %v\n%s", err, errOut.String())
		case <-time.After(60 * time.Second):
			cancel()
			t.Fatalf("demo printed no banner: %s", out.String())
		}
		return out.String(), func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("demo stopped with %v", err)
			}
		}
	}

	banner, stop := start()
	// A first run says what it is doing before the banner.
	for _, step := range []string{"Starting the platform on " + addrs[0], "Registering the sandbox operator", "Waiting for the simulator's first markets"} {
		if i := strings.Index(banner, step); i < 0 || i > strings.Index(banner, "Foresight demo is running.") {
			t.Errorf("the demo does not say %q before its banner:\n%s", step, banner)
		}
	}
	platform, operatorURL, casinoURL := "http://"+addrs[0], "http://"+addrs[1], "http://"+addrs[2]
	for _, page := range []string{operatorURL + "/sandbox/host", casinoURL + "/sandbox/lobby", operatorURL + "/sandbox/ledger", platform + "/openapi/bettor.yaml", platform + "/backoffice/"} {
		if !strings.Contains(banner, page) {
			t.Errorf("the banner does not show %s:\n%s", page, banner)
		}
		resp, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %d", page, resp.StatusCode)
		}
	}
	sportsbookPlay(t, "http://"+addrs[3], banner)
	adminToken := regexp.MustCompile(`adm_[0-9a-f]+`).FindString(banner)
	operatorKey := regexp.MustCompile(`fso_[0-9a-f]{32}_[A-Za-z0-9_-]+`).FindString(banner)
	if who := whoami(t, platform, operatorKey); who != 200 {
		t.Errorf("the banner's operator key %q: whoami = %d", operatorKey, who)
	}
	bets := 0
	confirmed := func() map[string]string {
		req, _ := http.NewRequest("GET", platform+"/admin/v1/bets?operator_id=demo-operator&limit=50", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct {
			Items []struct {
				BettorID string `json:"bettor_id"`
				Status   string `json:"status"`
			} `json:"items"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		bets = len(page.Items)
		for _, b := range page.Items {
			got[b.BettorID] = b.Status
		}
		return got
	}
	waitfor.Check(t, func() error {
		if got := confirmed(); got["alice"] == "pending" || got["bob"] == "pending" || got["carol"] == "pending" || len(got) < 3 {
			return fmt.Errorf("demo bets %v, want three bets out of pending", got)
		}
		return nil
	})
	if got := confirmed(); got["alice"] == "rejected" {
		t.Fatalf("demo bets %v: alice's bet was rejected", got)
	}

	launchWithBannerCredentials(t, platform, banner)
	submitBannerTicketJob(t, platform, banner)

	checks := regexp.MustCompile(`foresight (conformance (operator|aggregator)-wallet [^\n]+)`).FindAllStringSubmatch(banner, -1)
	if len(checks) != 2 {
		t.Fatalf("the banner shows %d conformance commands, want 2:\n%s", len(checks), banner)
	}
	for _, check := range checks {
		var report bytes.Buffer
		if err := run(context.Background(), strings.Fields(check[1]), envOf(nil), &report, io.Discard); err != nil {
			t.Fatalf("%s: %v\n%s", check[1], err, report.String())
		}
	}
	stop()

	// A second start on the same directory finds its partners registered,
	// prints the same credentials, which still work, and does not place the
	// demo bets again.
	ticketKey := regexp.MustCompile(`Ticket API key +(\S+)`).FindStringSubmatch(banner)
	banner, stop = start()
	if got := regexp.MustCompile(`adm_[0-9a-f]+`).FindString(banner); got != adminToken {
		t.Errorf("admin token after a restart %q, want the first run's %q", got, adminToken)
	}
	if got := regexp.MustCompile(`fso_[0-9a-f]{32}_[A-Za-z0-9_-]+`).FindString(banner); got != operatorKey {
		t.Errorf("operator key after a restart %q, want the first run's %q", got, operatorKey)
	}
	if who := whoami(t, platform, operatorKey); who != 200 {
		t.Errorf("the first run's operator key after a restart: whoami = %d, want 200", who)
	}
	if got := regexp.MustCompile(`Ticket API key +(\S+)`).FindStringSubmatch(banner); len(got) < 2 || len(ticketKey) < 2 || got[1] != ticketKey[1] {
		t.Errorf("ticket key after a restart %q, want the first run's %q", got, ticketKey)
	}
	if got := confirmed(); bets != 3 {
		t.Errorf("%d bets after a restart (%v), want the first run's three", bets, got)
	}
	stop()
}

// whoami returns the status of GET /admin/v1/whoami with key.
func whoami(t *testing.T, platform, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", platform+"/admin/v1/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sportsbookPlay checks the demo's bundled operator as a bettor meets it:
// the banner shows its page, which opens a session and embeds the widget,
// and its deposit form credits play money in the platform's ledger once,
// however often the form is sent.
func sportsbookPlay(t *testing.T, base, banner string) {
	t.Helper()
	if !strings.Contains(banner, base+"/sandbox/host") {
		t.Errorf("the banner does not show the sportsbook's page %s/sandbox/host:\n%s", base, banner)
	}
	page := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s = %d %s", resp.Request.URL, resp.StatusCode, b)
		}
		return string(b)
	}
	body := page(http.Get(base + "/sandbox/host?bettor_id=dora"))
	if !regexp.MustCompile(`<iframe id="game"[^>]+src="http://[^"]+session_request_id=`).MatchString(body) {
		t.Fatalf("the sportsbook's page embeds no widget with a session:\n%s", body)
	}
	key := regexp.MustCompile(`name="key" value="([0-9a-f-]{36})"`).FindStringSubmatch(body)
	if key == nil {
		t.Fatalf("the sportsbook's page has no deposit form:\n%s", body)
	}
	form := url.Values{"bettor_id": {"dora"}, "key": {key[1]}, "amount": {"100.00"}}
	for range 2 { // the same form twice: one credit
		body = page(http.PostForm(base+"/sandbox/deposit", form))
	}
	if !strings.Contains(body, `id="balance" class="balance">100.00 USD<`) {
		t.Errorf("after a deposit of 100.00 sent twice, the sportsbook's page shows:\n%s", body)
	}
}

// launchWithBannerCredentials launches the game as an aggregator's
// integrator does, with nothing but what the banner shows: its aggregator
// id, casino_id and shared secret sign a Launcher/Real that the platform
// answers with a launch URL of that aggregator.
func launchWithBannerCredentials(t *testing.T, platform, banner string) {
	t.Helper()
	m := regexp.MustCompile(`Aggregator +id (\S+) +casino_id (\S+) +shared secret (\S+)`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("the banner shows no aggregator id, casino_id and shared secret:\n%s", banner)
	}
	body := fmt.Sprintf(`{"casino_id":%q,"game":"prediction-markets","session_id":"1b4e28ba-2fa1-41d2-883f-0016d3cca427","urls":{},"account":{"id":"player-1","currency":"USD"}}`, m[2])
	req, _ := http.NewRequest("POST", platform+"/v2/agg_provider.Launcher/Real", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(m[3]), []byte(body)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var launch struct {
		URL string `json:"launch_url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&launch); err != nil || resp.StatusCode != 200 || !strings.Contains(launch.URL, "operator="+m[1]) {
		t.Errorf("Launcher/Real signed with the banner's casino_id %s and shared secret: %d %+v (%v), want 200 and a launch URL of %s", m[2], resp.StatusCode, launch, err, m[1])
	}
}

// submitBannerTicketJob sends the banner's ticket job as printed and
// checks that its spec comes back as several kinds of tickets: stories,
// tasks, a spike for its open question.
func submitBannerTicketJob(t *testing.T, platform, banner string) {
	t.Helper()
	key := regexp.MustCompile(`Ticket API key +(\S+)`).FindStringSubmatch(banner)
	job := regexp.MustCompile(`-d '([^']+)'`).FindStringSubmatch(banner)
	if key == nil || job == nil {
		t.Fatalf("the banner shows no ticket key or job:\n%s", banner)
	}
	call := func(method, url, body string, out any) int {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key[1])
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(out)
		return resp.StatusCode
	}
	var accepted struct {
		ResultURL string `json:"result_url"`
	}
	if status := call("POST", platform+"/tickets/v1/jobs", job[1], &accepted); status != http.StatusAccepted {
		t.Fatalf("the banner's ticket job: %d, want 202", status)
	}
	var result struct {
		Tickets []struct {
			Type string `json:"ticket_type"`
		} `json:"tickets"`
		OpenQuestions []json.RawMessage `json:"open_questions"`
	}
	waitfor.Check(t, func() error {
		if status := call("GET", accepted.ResultURL, "", &result); status != 200 {
			return fmt.Errorf("the job's result: %d", status)
		}
		return nil
	})
	kinds := map[string]int{}
	for _, tk := range result.Tickets {
		kinds[tk.Type]++
	}
	if kinds["story"] < 2 || kinds["task"] < 2 || kinds["spike"] != 1 || len(result.OpenQuestions) != 1 {
		t.Errorf("the banner's ticket job gave tickets %v and %d open questions, want stories, tasks, a spike and one question", kinds, len(result.OpenQuestions))
	}
}

// TestDemoListenErrorNamesTheFlag: an address in use stops the demo with
// an error that names the flag and its variable, not the address alone.
func TestDemoListenErrorNamesTheFlag(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	err = run(context.Background(), []string{"demo", "--dir", t.TempDir(), "--addr", freeAddr(t), "--operator-addr", freeAddr(t),
		"--casino-addr", addr, "--sportsbook-addr", freeAddr(t)}, envOf(nil), io.Discard, io.Discard)
	if want := "listen on --casino-addr " + addr + " ($FORESIGHT_DEMO_CASINO_ADDR): "; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("demo on a casino address in use: %v, want an error starting %q that is EADDRINUSE", err, want)
	}
}

// TestDemoReadsServeVariables: the server settings the demo gives its own
// defaults read their FORESIGHT_* variables as serve does, and demo -h
// names each variable.
func TestDemoReadsServeVariables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"FORESIGHT_DEMO_DIR": dir, "FORESIGHT_DATABASE_URL": "sqlite:" + filepath.Join(dir, "other.db"),
		"FORESIGHT_MARKET_FEED": "manual", "FORESIGHT_FEED_INTERVAL": "7s", "FORESIGHT_SIMULATOR_PERIOD": "3m", "FORESIGHT_ADMIN_TOKEN": longToken}
	o, err := parseDemoFlags(nil, envOf(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{o.dir, o.cfg.DatabaseURL, o.cfg.MarketFeed, o.cfg.FeedInterval, o.cfg.Simulator.Period, o.cfg.AdminToken}
	want := []any{dir, env["FORESIGHT_DATABASE_URL"], "manual", 7 * time.Second, 3 * time.Minute, longToken}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("demo settings from the environment %v, want %v", got, want)
	}
	var usage bytes.Buffer
	if err := run(context.Background(), []string{"demo", "-h"}, envOf(nil), io.Discard, &usage); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("demo -h: %v", err)
	}
	for name := range env {
		if !strings.Contains(usage.String(), "($"+name+")") {
			t.Errorf("demo -h does not name $%s:\n%s", name, usage.String())
		}
	}
}
