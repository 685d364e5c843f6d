// Package conformancetest is the test support of the wallet checkers: a
// wrapper that breaks one rule of a sandbox wallet, and the assertions on
// a checker's report that every broken wallet must meet.
package conformancetest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

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
