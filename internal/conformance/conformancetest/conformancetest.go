// Package conformancetest is the test harness both wallet checkers share:
// a wrapper that breaks one rule of a sandbox wallet, the assertions on the
// report of a conforming and of a broken wallet, and a Checker (a checker
// with the sandbox wallet it is written for) whose methods are the tests
// every checker gets: its run against the sandbox, against a table of
// breaks, against an unreachable wallet, on configuration errors and on
// its documentation. Each checker gives only its tables.
package conformancetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/conformance"
)

// Answer is an HTTP answer a broken wallet writes.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// BrokenWallet is a sandbox wallet (Inner) behind a wrapper that breaks one
// rule: Before may rewrite a request's body (or answer the request itself
// by returning an Answer), After may rewrite the sandbox's answer.
type BrokenWallet struct {
	Inner  http.Handler
	Before func(r *http.Request, body []byte) ([]byte, *Answer)
	After  func(r *http.Request, body []byte, a *Answer)
}

// ServeHTTP implements http.Handler.
func (b BrokenWallet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if b.Before != nil {
		var own *Answer
		if body, own = b.Before(r, body); own != nil {
			write(w, own)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rec := httptest.NewRecorder()
	b.Inner.ServeHTTP(rec, r)
	a := &Answer{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	if b.After != nil {
		b.After(r, body, a)
	}
	write(w, a)
}

// ProcessedThenRefused is a broken wallet: a request that wrong picks
// (a bad signature) is processed by inner all the same, as fix (which
// signs it right) makes it, and answered refusal: a refusal that moved
// money.
func ProcessedThenRefused(inner http.Handler, wrong func(*http.Request, []byte) bool, fix func(*http.Request, []byte), refusal Answer) http.Handler {
	return BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *Answer) {
		if !wrong(r, body) {
			return body, nil
		}
		fix(r, body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(httptest.NewRecorder(), r)
		a := refusal
		return body, &a
	}}
}

var balanceString = regexp.MustCompile(`"balance":"([0-9.]+)"`)

// BalancesAsNumbers is a broken wallet's After: every balance of its
// answers is a JSON number, not a string.
func BalancesAsNumbers(_ *http.Request, _ []byte, a *Answer) {
	a.Body = balanceString.ReplaceAll(a.Body, []byte(`"balance":$1`))
}

// AnswersContentType returns a broken wallet's After: its answers say
// Content-Type ct.
func AnswersContentType(ct string) func(*http.Request, []byte, *Answer) {
	return func(_ *http.Request, _ []byte, a *Answer) { a.Header.Set("Content-Type", ct) }
}

func write(w http.ResponseWriter, a *Answer) {
	for k, v := range a.Header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// Want is what a report of a broken wallet must show.
type Want struct {
	// Fail and Warn are the checks that fail and warn, in report order;
	// no check may be skipped.
	Fail, Warn []string
	// Check is the check that must explain the break: its reason contains
	// Message, and its section of the report contains Shown, the numbered
	// request and the answer.
	Check, Message string
	Shown          []string
}

// CheckReport reports on t every way rep differs from want; when a check
// fails, the summary must say that the wallet does not conform.
func CheckReport(t *testing.T, rep *conformance.Report, want Want) {
	t.Helper()
	text := rep.String()
	var fails, warns []string
	for _, res := range rep.Results {
		switch res.Status {
		case conformance.Pass:
		case conformance.Fail:
			fails = append(fails, res.Name)
		case conformance.Warn:
			warns = append(warns, res.Name)
		case conformance.Skip:
			t.Errorf("%s was skipped: %s", res.Name, res.Reason())
		}
	}
	if !slices.Equal(fails, want.Fail) || !slices.Equal(warns, want.Warn) {
		t.Errorf("failed %v and warned %v; want %v and %v\n%s", fails, warns, want.Fail, want.Warn, text)
	}
	if got := rep.Passed(); got != (len(want.Fail) == 0) {
		t.Errorf("Passed() = %v with failures %v", got, fails)
	}
	res, _ := rep.Result(want.Check)
	if !strings.Contains(res.Reason(), want.Message) {
		t.Errorf("%s: reason %q, want it to contain %q", want.Check, res.Reason(), want.Message)
	}
	section := Section(text, want.Check)
	for _, s := range append(slices.Clone(want.Shown), "request #", "answer:") {
		if !strings.Contains(section, s) {
			t.Errorf("the report's section of %s lacks %q:\n%s", want.Check, s, section)
		}
	}
	if len(want.Fail) > 0 && !strings.Contains(text, "the wallet does not conform") {
		t.Errorf("the summary does not say the wallet fails:\n%s", text)
	}
}

// CheckConforms reports on t every way rep, the report of a run of a
// checker with checks against a conforming wallet, falls short: every
// check passes, the summary says so and counts them, and the report never
// prints the signing secret.
func CheckConforms(t *testing.T, rep *conformance.Report, checks []conformance.Check, secret string) {
	t.Helper()
	text := rep.String()
	for _, res := range rep.Results {
		if res.Status != conformance.Pass {
			t.Errorf("%s: %s %s", res.Name, res.Status, res.Reason())
		}
	}
	if !rep.Passed() || !strings.Contains(text, fmt.Sprintf("%d passed", len(checks))) || !strings.Contains(text, "the wallet conforms") {
		t.Errorf("report:\n%s", text)
	}
	if got, want := len(rep.Results), len(checks); got != want {
		t.Errorf("%d results, %d checks", got, want)
	}
	if strings.Contains(text, secret) {
		t.Error("the report prints the signing secret")
	}
}

// Section returns the lines of a report's text from the check's status
// line to the next check's.
func Section(text, check string) string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if len(l) > 6 && l[0] != ' ' && l[4:6] == "  " && strings.ToUpper(l[:4]) == l[:4] {
			in = strings.HasPrefix(strings.TrimSpace(l[6:]), check+" ")
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Break is one way of breaking a sandbox wallet W, and what the checker
// must report about it.
type Break[W any] struct {
	Name string
	// Before and After break the sandbox wallet as a BrokenWallet's do;
	// Wrap, when set, breaks it instead, knowing the wallet w whose
	// handler is inner.
	Before func(r *http.Request, body []byte) ([]byte, *Answer)
	After  func(r *http.Request, body []byte, a *Answer)
	Wrap   func(w W, inner http.Handler) http.Handler
	// Fail and Warn are the checks expected to fail and to warn; every
	// other check passes.
	Fail, Warn []string
	// Check and Message: the reason of that check contains Message.
	Check, Message string
	// Shown is text the report must print for the check: a request header
	// or an answer line.
	Shown []string
}

// Handlered is a sandbox wallet: it serves its wallet endpoints.
type Handlered interface{ Handler() http.Handler }

// Checker is a wallet checker under test, with the sandbox wallet W it is
// written for; C is the checker's Config. Its methods are the tests every
// checker gets.
type Checker[W Handlered, C any] struct {
	// NewWallet returns a new sandbox wallet, which conforms.
	NewWallet func(*testing.T) W
	// Config is the configuration of a run against the wallet at url with
	// the secret Secret, timing requests out after timeout (0: the
	// checker's default).
	Config func(url string, timeout time.Duration) C
	// Run is the checker's Run; Checks lists its checks.
	Run    func(context.Context, C) (*conformance.Report, error)
	Checks []conformance.Check
	// Secret is the signing secret of NewWallet's wallets.
	Secret string
	// Balance is the test wallet's balance in w, written as w writes it.
	Balance func(w W) string
}

// Report runs the checker against h, served until the test ends.
func (c Checker[W, C]) Report(t *testing.T, h http.Handler) *conformance.Report {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rep, err := c.Run(context.Background(), c.Config(srv.URL, 0))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// CheckSandboxPasses runs the checker against a new sandbox wallet: the
// report must be as CheckConforms wants, the test wallet's balance
// afterwards must be start (the run undoes its money), and a second run
// must pass too (every id is fresh). It returns the first report.
func (c Checker[W, C]) CheckSandboxPasses(t *testing.T, start string) *conformance.Report {
	t.Helper()
	w := c.NewWallet(t)
	rep := c.Report(t, w.Handler())
	CheckConforms(t, rep, c.Checks, c.Secret)
	if bal := c.Balance(w); bal != start {
		t.Errorf("balance after the run = %s, want %s (the run undoes its money)", bal, start)
	}
	if again := c.Report(t, w.Handler()); !again.Passed() {
		t.Errorf("second run:\n%s", again)
	}
	return rep
}

// RunBreaks runs the checker against each break of a new sandbox wallet,
// in parallel subtests, and checks each report as CheckReport does.
func (c Checker[W, C]) RunBreaks(t *testing.T, breaks []Break[W]) {
	t.Helper()
	for _, b := range breaks {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			w := c.NewWallet(t)
			h := http.Handler(BrokenWallet{Inner: w.Handler(), Before: b.Before, After: b.After})
			if b.Wrap != nil {
				h = b.Wrap(w, w.Handler())
			}
			rep := c.Report(t, h)
			CheckReport(t, rep, Want{Fail: b.Fail, Warn: b.Warn, Check: b.Check, Message: b.Message, Shown: b.Shown})
		})
	}
}

// CheckUnreachable runs the checker against a URL where nothing listens:
// check must fail with a reason containing reason, and no check may pass.
func (c Checker[W, C]) CheckUnreachable(t *testing.T, check, reason string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	rep, err := c.Run(context.Background(), c.Config(url, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := rep.Result(check)
	if rep.Passed() || res.Status != conformance.Fail || !strings.Contains(res.Reason(), reason) {
		t.Errorf("%s: %s %q\n%s", check, res.Status, res.Reason(), rep)
	}
	if rep.Count(conformance.Pass) != 0 {
		t.Errorf("%d checks passed against no wallet", rep.Count(conformance.Pass))
	}
}

// ConfigError is a checker configuration Run must refuse with an error
// containing Want.
type ConfigError[C any] struct {
	Name string
	Cfg  C
	Want string
}

// CheckConfigErrors runs the checker on each configuration and checks
// its error.
func (c Checker[W, C]) CheckConfigErrors(t *testing.T, cases []ConfigError[C]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			_, err := c.Run(context.Background(), tt.Cfg)
			if err == nil || !strings.Contains(err.Error(), tt.Want) {
				t.Errorf("Run: %v, want an error containing %q", err, tt.Want)
			}
		})
	}
}

// CheckDocListsEveryCheck keeps a checker's package documentation (its
// doc.go, in the test's directory) true: it lists every check, and every
// check has a rule and a spec reference.
func (c Checker[W, C]) CheckDocListsEveryCheck(t *testing.T) {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, check := range c.Checks {
		if !regexp.MustCompile(`(?m)^//\t` + regexp.QuoteMeta(check.Name) + ` `).Match(doc) {
			t.Errorf("doc.go does not list the check %s", check.Name)
		}
		if check.Rule == "" || check.Spec == "" {
			t.Errorf("check %s has no rule or spec reference", check.Name)
		}
	}
}
