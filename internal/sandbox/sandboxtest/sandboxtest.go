// Package sandboxtest runs the real Foresight platform in-process, on
// loopback and SQLite, for the tests of the sandbox partners: a partner's
// registration goes through the platform's admin API and its lobby calls
// the platform's own launcher, so the tests check the partner against the
// platform's real code (signatures, paths, bodies) rather than a copy.
package sandboxtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/apitest"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/server/servertest"
)

// AdminToken is the platform's admin token.
const AdminToken = "sandbox-test-admin-token"

// Platform is a running platform.
type Platform struct {
	// URL is its base URL (FORESIGHT_PUBLIC_URL), http://127.0.0.1:port.
	URL string
}

// StartPlatform serves a platform (every API, no background workers) with
// a fresh SQLite database until the test ends. Partner URLs may be http://
// and loopback (FORESIGHT_DEV_ALLOW_INSECURE) and the launcher has no rate
// limit.
func StartPlatform(t testing.TB) *Platform {
	t.Helper()
	cfg, l := servertest.Loopback(t, "platform.db", AdminToken)
	servertest.ServeAPIs(t, cfg, l)
	return &Platform{URL: cfg.PublicURL}
}

// Admin calls the admin API with the platform's token and returns the
// status and body.
func (p *Platform) Admin(t testing.TB, method, path string, body []byte) (int, []byte) {
	t.Helper()
	_, r := apitest.Do(t, method, p.URL+path, AdminToken, body)
	return r.Status, r.Body
}

// Served is a sandbox Site's handler served on loopback for one test, with
// a client for its pages and its control API.
type Served struct {
	T   testing.TB
	Srv *httptest.Server
	// NoGo is a client of Srv that does not follow redirects.
	NoGo *http.Client
}

// Site is what a sandbox Site is to its tests.
type Site interface {
	Handler() http.Handler
	Close() error
}

// OpenSite changes *cfg with mutate, opens a Site with open and *cfg, and
// serves it until the test ends, when it is closed.
func OpenSite[C any, S Site](t testing.TB, open func(context.Context, C) (S, error), cfg *C, mutate ...func(*C)) (S, *Served) {
	t.Helper()
	for _, m := range mutate {
		m(cfg)
	}
	s, err := open(context.Background(), *cfg)
	if err != nil {
		t.Fatalf("OpenSite: %v", err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	noGo := &http.Client{
		Transport:     srv.Client().Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s, &Served{T: t, Srv: srv, NoGo: noGo}
}

// Restart opens a Site with open and cfg, calls before on it, closes it
// and opens it again with the same cfg, as a restart of the sandbox does.
// The second Site is closed when the test ends.
func Restart[C any, S Site](t testing.TB, open func(context.Context, C) (S, error), cfg C, before func(S)) S {
	t.Helper()
	first, err := open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	before(first)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	return second
}

// WantOpenRefused fails t for each of cfgs that open accepts (the Site is
// closed again).
func WantOpenRefused[C any, S Site](t testing.TB, open func(context.Context, C) (S, error), cfgs ...C) {
	t.Helper()
	for _, cfg := range cfgs {
		if s, err := open(context.Background(), cfg); err == nil {
			s.Close()
			t.Errorf("OpenSite(%+v) succeeded", cfg)
		}
	}
}

// Handled is a sandbox (casino.Casino, operator.Operator) to its tests:
// its wallet API.
type Handled interface {
	Handler() http.Handler
}

// ServeNew changes cfg with mutate, makes a sandbox of it with newFn and
// serves its Handler on loopback until the test ends. An error of newFn
// fails t.
func ServeNew[C any, P Handled](t testing.TB, newFn func(C) (P, error), cfg C, mutate []func(*C)) (P, *httptest.Server) {
	t.Helper()
	for _, m := range mutate {
		m(&cfg)
	}
	p, err := newFn(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(p.Handler())
	t.Cleanup(srv.Close)
	return p, srv
}

// Get fetches a page and returns its status, body and headers.
func (s *Served) Get(path string) (int, string, http.Header) {
	s.T.Helper()
	resp, err := s.Srv.Client().Get(s.Srv.URL + path)
	if err != nil {
		s.T.Fatal(err)
	}
	return read(s.T, resp)
}

// Form posts a form with the given headers (name, value pairs), without
// following a redirect, and returns the status, body and headers.
func (s *Served) Form(path string, v url.Values, header ...string) (int, string, http.Header) {
	s.T.Helper()
	req, _ := http.NewRequest("POST", s.Srv.URL+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return read(s.T, s.do(req, header))
}

// Control sends a control request with a JSON body (none when nil) and
// the given headers (name, value pairs) and decodes the JSON answer.
func (s *Served) Control(method, path string, body any, header ...string) (int, map[string]any) {
	s.T.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.Srv.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp := s.do(req, header)
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func (s *Served) do(req *http.Request, header []string) *http.Response {
	s.T.Helper()
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.NoGo.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	return resp
}

func read(t testing.TB, resp *http.Response) (int, string, http.Header) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// OpenJournal opens (creating) the sandbox journal at path, closed when
// the test ends; a journal that cannot be opened fails t.
func OpenJournal(t testing.TB, path string) *journal.Journal {
	t.Helper()
	j, err := journal.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// Journalled is what a sandbox showed before its restart from its
// journal.
type Journalled[E any] struct {
	Secret  string   // its signing secret
	Ledger  []E      // its ledger
	Answers [][]byte // its first answers to the requests sent again after the restart
}

// WantRestored fails t unless the sandbox restarted from the journal shows
// what j holds: the signing secret, the ledger (ledger reads it) and, for
// each of j.Answers, the same answer to the request sent again (again(i)
// sends the i-th, and returns what it was and its answer), with no new
// ledger entry.
func (j Journalled[E]) WantRestored(t testing.TB, secret string, ledger func() []E, again func(i int) (what string, answer []byte)) {
	t.Helper()
	if secret != j.Secret {
		t.Errorf("secret after the restart %q, want %q", secret, j.Secret)
	}
	if got := ledger(); !reflect.DeepEqual(got, j.Ledger) {
		t.Errorf("ledger after the restart:\n%+v\nwant\n%+v", got, j.Ledger)
	}
	for i, first := range j.Answers {
		if what, answer := again(i); !bytes.Equal(answer, first) {
			t.Errorf("%s again after the restart: %s, first %s", what, answer, first)
		}
	}
	if n := len(ledger()); n != len(j.Ledger) {
		t.Errorf("replayed requests made %d ledger entries", n-len(j.Ledger))
	}
}

// JSON encodes v, failing the test if it cannot.
func JSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RefuseAppends makes every append to the sandbox journal at path fail, as
// a full disk would, until the returned function is called.
func RefuseAppends(t testing.TB, path string) (restore func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'disk full'); END`); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if _, err := db.Exec(`DROP TRIGGER refuse`); err != nil {
			t.Fatal(err)
		}
	}
}

// WantSplit checks that of statuses, succeeded answered 200 and the rest
// refused (answered status refused): what concurrent requests racing for
// one balance must give.
func WantSplit(t testing.TB, statuses []int, refused, succeeded, refusals int) {
	t.Helper()
	ok, no := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case refused:
			no++
		}
	}
	if ok != succeeded || no != refusals {
		t.Errorf("%d succeeded and %d were refused, want %d and %d", ok, no, succeeded, refusals)
	}
}

// ArmFault arms a fault through the control API with fields over defaults
// (name, value pairs); the test stops unless it is answered 200.
func (s *Served) ArmFault(fields map[string]string, defaults ...string) {
	s.T.Helper()
	body := map[string]string{}
	for i := 0; i+1 < len(defaults); i += 2 {
		body[defaults[i]] = defaults[i+1]
	}
	for k, v := range fields {
		body[k] = v
	}
	if status, m := s.Control("POST", "/sandbox/api/faults", body); status != http.StatusOK {
		s.T.Fatalf("arm: %d %v", status, m)
	}
}

// ArmedFaults returns the faults the control API's state lists as armed.
func (s *Served) ArmedFaults() []any {
	s.T.Helper()
	_, m := s.Control("GET", "/sandbox/api/state", nil)
	armed, _ := m["faults"].([]any)
	return armed
}

// FaultArmer is a Site's test handle (embedding *Served) that arms faults
// through the control API.
type FaultArmer interface {
	ArmFault(fields map[string]string, defaults ...string)
	ArmedFaults() []any
}

// ControlFault is a fault armed through the control API, for the wallet
// "victim" or for every wallet, and what the requests of "victim" and of
// "bystander" then get: W is what a sandbox's test wants of one answer.
type ControlFault[W any] struct {
	Name string
	// Body is the fault's fields, without the endpoint (ControlFaults').
	Body              map[string]string
	Victim, Bystander W
}

// ControlFaults is a sandbox's test of the faults armed through its
// control API on one endpoint.
type ControlFaults[S FaultArmer, W any] struct {
	Endpoint string
	// NewSite opens a Site for one case.
	NewSite func(*testing.T) S
	// Request sends the wallet who's request to Endpoint and checks its
	// answer against want.
	Request func(t *testing.T, s S, who string, want W)
	// After, when set, runs once the requests used every fault up.
	After func(t *testing.T, s S)
}

// Run arms each case's fault on a new Site, in parallel subtests, sends
// the victim's request and then the bystander's, and checks that no fault
// is left armed.
func (c ControlFaults[S, W]) Run(t *testing.T, cases []ControlFault[W]) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			s := c.NewSite(t)
			s.ArmFault(tt.Body, "endpoint", c.Endpoint)
			c.Request(t, s, "victim", tt.Victim)
			c.Request(t, s, "bystander", tt.Bystander)
			if left := s.ArmedFaults(); len(left) != 0 {
				t.Errorf("faults left: %v", left)
			}
			if c.After != nil {
				c.After(t, s)
			}
		})
	}
}

// Do sends req with client and returns the answer's status, body and
// headers; the test stops if there is no answer.
func Do(t testing.TB, client *http.Client, req *http.Request) (int, []byte, http.Header) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// WantInvalidFault checks that the control API refuses to arm the fault
// body describes with 400 invalid_request.
func (s *Served) WantInvalidFault(body map[string]string) {
	s.T.Helper()
	if status, m := s.Control("POST", "/sandbox/api/faults", body); status != http.StatusBadRequest || m["error"] != "invalid_request" {
		s.T.Errorf("%v = %d %v", body, status, m)
	}
}

// HMACHex is the client side of both wallet protocols' signature, written
// independently of the sandboxes' code: the lowercase hex HMAC-SHA256 of
// the raw body, keyed with secret.
func HMACHex(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// WantGuarded sends the control request method path body with each way of
// presenting the admin token token (none, a wrong one, the bearer token,
// the cookie, from another site's page, from the site's own page) and
// checks that the guard admits exactly the right ones, and that GET
// /sandbox/api/state is admitted alike. It returns how many times the
// request was admitted.
func (s *Served) WantGuarded(token, method, path string, body any) (admitted int) {
	s.T.Helper()
	tests := []struct {
		name   string
		header []string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", []string{"Authorization", "Bearer wrong-" + token}, http.StatusUnauthorized},
		{"token", []string{"Authorization", "Bearer " + token}, http.StatusOK},
		{"cookie", []string{"Cookie", "sandbox_admin=" + token}, http.StatusOK},
		{"wrong cookie", []string{"Cookie", "sandbox_admin=wrong-" + token}, http.StatusUnauthorized},
		{"another site's page with the token", []string{"Authorization", "Bearer " + token, "Origin", "https://evil.example"}, http.StatusForbidden},
		{"another site's page with the cookie", []string{"Cookie", "sandbox_admin=" + token, "Origin", "http://evil.example"}, http.StatusForbidden},
		{"its own page", []string{"Authorization", "Bearer " + token, "Origin", s.Srv.URL}, http.StatusOK},
	}
	for _, tt := range tests {
		status, m := s.Control(method, path, body, tt.header...)
		if status != tt.want {
			s.T.Errorf("%s: %d %v, want %d", tt.name, status, m, tt.want)
		}
		if status == http.StatusOK {
			admitted++
		}
		if status, _ := s.Control("GET", "/sandbox/api/state", nil, tt.header...); status != tt.want {
			s.T.Errorf("%s: state = %d, want %d", tt.name, status, tt.want)
		}
	}
	return admitted
}

// WantPanics calls each function of calls and checks that it panics (a
// misuse of a sandbox's API, such as an unknown endpoint).
func WantPanics(t testing.TB, calls map[string]func()) {
	t.Helper()
	for name, f := range calls {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
