package sportsbook_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/sportsbook"
)

// platform is a fake admin API: it records the paths called and answers
// every call with status and body.
type platform struct {
	status int
	body   string

	mu    sync.Mutex
	paths []string
}

func (p *platform) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.Path)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(p.status)
	io.WriteString(w, p.body)
}

func (p *platform) called() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.paths...)
}

// site serves a sportsbook on p and returns its URL and its log.
func site(t *testing.T, p *platform) (string, *bytes.Buffer) {
	t.Helper()
	platformSrv := httptest.NewServer(p)
	t.Cleanup(platformSrv.Close)
	var log bytes.Buffer
	book, err := sportsbook.New(sportsbook.Config{OperatorID: "book", PlatformURL: platformSrv.URL, Credential: "key",
		Currency: "USD", HTTP: platformSrv.Client(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(book.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, &log
}

// noRedirects is a client that reports a redirect instead of following it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func TestDepositCreditsThroughTheCashier(t *testing.T) {
	t.Parallel()
	p := &platform{status: http.StatusCreated, body: `{}`}
	base, _ := site(t, p)
	resp, err := noRedirects.PostForm(base+"/sandbox/deposit", url.Values{"bettor_id": {"alice"}, "amount": {"100.00"}, "key": {uuid.NewString()}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(loc, "notice=") {
		t.Errorf("deposit answered %s to %q, want 303 with a notice", resp.Status, loc)
	}
	if got := p.called(); len(got) != 1 || got[0] != "/admin/v1/operators/book/bettors/alice/deposits" {
		t.Errorf("platform calls %v, want the deposit", got)
	}
}

func TestDepositRefusesALargeBody(t *testing.T) {
	t.Parallel()
	p := &platform{status: http.StatusCreated, body: `{}`}
	base, _ := site(t, p)
	form := url.Values{"bettor_id": {"alice"}, "amount": {"100.00"}, "key": {uuid.NewString()}, "padding": {strings.Repeat("x", 8<<10)}}
	resp, err := noRedirects.PostForm(base+"/sandbox/deposit", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("deposit of an 8 KiB form answered %s, want 413", resp.Status)
	}
	if got := p.called(); len(got) != 0 {
		t.Errorf("platform calls %v, want none", got)
	}
}

func TestHostPageHidesAnUnreadableAnswer(t *testing.T) {
	t.Parallel()
	p := &platform{status: http.StatusOK, body: `<html>not the platform</html>`}
	base, log := site(t, p)
	resp, err := http.Get(base + "/sandbox/host?bettor_id=alice")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if !strings.Contains(page, "the platform&#39;s answer could not be read") || strings.Contains(page, "invalid character") {
		t.Errorf("the page does not give the fixed text alone:\n%s", page)
	}
	if !strings.Contains(log.String(), "invalid character") {
		t.Errorf("the decoding error is not logged: %q", log.String())
	}
}
