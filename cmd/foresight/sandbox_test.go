package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"html"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

// outputWatch collects what a command prints and says when the start-up
// banner is complete.
type outputWatch struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func newOutputWatch() *outputWatch { return &outputWatch{ready: make(chan struct{})} }

func (w *outputWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), "Press Ctrl-C to stop.") {
		w.once.Do(func() { close(w.ready) })
	}
	return n, err
}

func (w *outputWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// runningSandbox is a sandbox command running until stop.
type runningSandbox struct {
	out  string
	stop func() error
}

// startSandbox runs `foresight sandbox <args>` until the banner is printed.
func startSandbox(t *testing.T, env map[string]string, args ...string) runningSandbox {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := newOutputWatch(), &bytes.Buffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"sandbox"}, args...), envOf(env), out, errOut) }()
	select {
	case <-out.ready:
	case err := <-done:
		cancel()
		t.Fatalf("foresight sandbox %v ended at start: %v\n%s%s", args, err, out.String(), errOut.String())
	}
	var once sync.Once
	var result error
	stop := func() error {
		once.Do(func() {
			cancel()
			result = <-done
		})
		return result
	}
	t.Cleanup(func() { stop() })
	return runningSandbox{out: out.String(), stop: stop}
}

var (
	printedBase   = regexp.MustCompile(`Wallet base URL  (\S+)`)
	printedSecret = regexp.MustCompile(`Signing secret   (\S+)`)
	printedToken  = regexp.MustCompile(`Admin token      (\S+)`)
	printedCurl   = regexp.MustCompile(`(?s)curl -X POST (\S+)/admin/v1/operators .*? -d '(.*?)'\n`)
)

func (r runningSandbox) field(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	m := re.FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("%s not printed in:\n%s", re, r.out)
	}
	return m[1]
}

// register runs the printed curl against the platform: the admin API must
// accept it.
func (r runningSandbox) register(t *testing.T, platform *sandboxtest.Platform) {
	t.Helper()
	m := printedCurl.FindStringSubmatch(r.out)
	if m == nil || m[1] != platform.URL {
		t.Fatalf("no registration curl to %s in:\n%s", platform.URL, r.out)
	}
	if status, body := platform.Admin(t, "POST", "/admin/v1/operators", []byte(m[2])); status != http.StatusCreated {
		t.Fatalf("the printed registration: %d %s", status, body)
	}
}

func getPage(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSandboxOperatorCommand(t *testing.T) {
	t.Parallel()
	platform := sandboxtest.StartPlatform(t)
	env := map[string]string{
		"FORESIGHT_SANDBOX_ADDR":         "127.0.0.1:0",
		"FORESIGHT_SANDBOX_DATABASE":     filepath.Join(t.TempDir(), "operator.db"),
		"FORESIGHT_SANDBOX_PLATFORM_URL": platform.URL,
		"FORESIGHT_SANDBOX_OPERATOR_ID":  "cmd-operator",
		"FORESIGHT_SANDBOX_CURRENCY":     "EUR",
	}
	s := startSandbox(t, env, "operator")
	base, secret := s.field(t, printedBase), s.field(t, printedSecret)
	for _, want := range []string{base + "/.well-known/jwks.json", base + "/sandbox/host", base + "/sandbox/ledger", base + "/sandbox/controls", "OPERATOR_ID cmd-operator", "loopback clients only"} {
		if !strings.Contains(s.out, want) {
			t.Errorf("the banner lacks %q:\n%s", want, s.out)
		}
	}
	s.register(t, platform)
	status, body := getPage(t, base+"/sandbox/host")
	if status != http.StatusOK || !strings.Contains(body, platform.URL+"/widget/?") || !strings.Contains(body, "1000.00 EUR") {
		t.Errorf("host page: %d\n%s", status, body)
	}
	if status, body := getPage(t, base+"/.well-known/jwks.json"); status != http.StatusOK || !strings.Contains(body, `"RS256"`) {
		t.Errorf("JWKS: %d %s", status, body)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	// Restarted on the same database: the same secret, the demo bettor
	// still there.
	again := startSandbox(t, env, "operator")
	if got := again.field(t, printedSecret); got != secret {
		t.Errorf("secret after a restart %q, want %q", got, secret)
	}
	if _, body := getPage(t, again.field(t, printedBase)+"/sandbox/ledger"); !strings.Contains(body, "demo-bettor") {
		t.Error("the ledger lost the demo bettor across a restart")
	}
	if err := again.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestSandboxCasinoCommand(t *testing.T) {
	t.Parallel()
	platform := sandboxtest.StartPlatform(t)
	s := startSandbox(t, nil, "casino", "--addr", "127.0.0.1:0", "--database", "", "--platform-url", platform.URL,
		"--aggregator-id", "cmd-agg", "--casino-id", "cmd-casino", "--signing-secret", "cmd-casino-secret-0123456789")
	base := s.field(t, printedBase)
	if got := s.field(t, printedSecret); got != "cmd-casino-secret-0123456789" {
		t.Errorf("secret %q", got)
	}
	if !strings.Contains(s.out, "memory only") || !strings.Contains(s.out, base+"/sandbox/lobby") {
		t.Errorf("banner:\n%s", s.out)
	}
	s.register(t, platform)
	resp, err := http.PostForm(base+"/sandbox/lobby", url.Values{"account_id": {"p1"}, "mode": {"real"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`<iframe id="game"[^>]* src="([^"]+)"`).FindStringSubmatch(string(body))
	if resp.StatusCode != http.StatusOK || m == nil || !strings.HasPrefix(html.UnescapeString(m[1]), platform.URL+"/widget/?") {
		t.Errorf("lobby launch: %d\n%s", resp.StatusCode, body)
	}
	if err := s.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestSandboxOffLoopbackNeedsAnAdminToken(t *testing.T) {
	t.Parallel()
	s := startSandbox(t, nil, "operator", "--addr", "0.0.0.0:0", "--database", "", "--platform-url", "http://platform.test")
	base, token := s.field(t, printedBase), s.field(t, printedToken)
	if len(token) != 32 || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("token %q, base %q", token, base)
	}
	for auth, want := range map[string]int{"": http.StatusUnauthorized, "Bearer " + token: http.StatusOK} {
		req, _ := http.NewRequest("GET", base+"/sandbox/api/state", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("state with %q = %d, want %d", auth, resp.StatusCode, want)
		}
	}
}

func TestSandboxCommandErrors(t *testing.T) {
	t.Parallel()
	wantCommandErrors(t, []commandError{
		{[]string{"sandbox"}, nil, errUsage.Error()},
		{[]string{"sandbox", "bank"}, nil, "unknown sandbox"},
		{[]string{"sandbox", "operator", "--addr", "127.0.0.1:0", "--database", "", "--operator-id", "Not An Id"}, nil, "operator id"},
		{[]string{"sandbox", "casino", "--addr", "127.0.0.1:0", "--database", ""}, map[string]string{"FORESIGHT_SANDBOX_PLATFORM_URL": "platform"}, "platform URL"},
		{[]string{"sandbox", "casino"}, map[string]string{"FORESIGHT_SANDBOX_ADDR": "nowhere"}, "nowhere"},
		{[]string{"sandbox", "operator", "--addr", "127.0.0.1:0", "--database", "", "--starting-balance", "lots"}, nil, "StartingBalance"},
		{[]string{"sandbox", "operator", "extra"}, nil, "unexpected arguments"},
	})
	// The usage names the variables and never shows a secret from them.
	var errOut bytes.Buffer
	env := envOf(map[string]string{"FORESIGHT_SANDBOX_SIGNING_SECRET": "hush-hush-secret", "FORESIGHT_SANDBOX_ADMIN_TOKEN": "hush-token"})
	if err := run(context.Background(), []string{"sandbox", "casino", "-h"}, env, &bytes.Buffer{}, &errOut); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	if strings.Contains(errOut.String(), "hush") || !strings.Contains(errOut.String(), "FORESIGHT_SANDBOX_SIGNING_SECRET") {
		t.Errorf("usage:\n%s", errOut.String())
	}
}
