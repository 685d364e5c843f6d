package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/conformance"
)

// echo answers every request with its method, path and body, and the
// headers it got as X-Got-* headers.
func echo() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Got-User-Agent", r.Header.Get("User-Agent"))
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(`{"method":"` + r.Method + `","body":` + string(body) + "}\n"))
	}))
}

func TestRunnerVerdicts(t *testing.T) {
	t.Parallel()
	srv := echo()
	defer srv.Close()
	tests := []struct {
		name    string
		run     func(ctx context.Context, t *conformance.T)
		cleanup error
		status  conformance.Status
		reason  string
		// findings is the number of findings; stopped tells whether the
		// code after the verdict must not run.
		findings int
	}{
		{name: "pass", run: func(context.Context, *conformance.T) {}, status: conformance.Pass},
		{name: "warn goes on", run: func(_ context.Context, t *conformance.T) {
			t.Warnf(nil, "odd %d", 1)
			t.Warnf(nil, "odd %d", 2)
		}, status: conformance.Warn, reason: "odd 2", findings: 2},
		{name: "fail stops", run: func(_ context.Context, t *conformance.T) {
			t.Warnf(nil, "first a warning")
			t.Fatalf(nil, "broken: %s", "why")
			t.Warnf(nil, "never reached")
		}, status: conformance.Fail, reason: "broken: why", findings: 2},
		{name: "skip stops", run: func(_ context.Context, t *conformance.T) {
			t.Skipf("no money")
			t.Fatalf(nil, "never reached")
		}, status: conformance.Skip, reason: "no money", findings: 1},
		{name: "a panic fails", run: func(context.Context, *conformance.T) {
			var m map[string]int
			//lint:ignore SA5000 the check panics on purpose
			m["x"]++
		}, status: conformance.Fail, reason: "internal error", findings: 1},
		{name: "a failing cleanup warns", run: func(context.Context, *conformance.T) {},
			cleanup: errors.New("5.00 stays debited"), status: conformance.Warn, reason: "cleanup: 5.00 stays debited", findings: 1},
		{name: "a cleanup runs after a failure", run: func(_ context.Context, t *conformance.T) {
			t.Fatalf(nil, "broken")
		}, cleanup: errors.New("could not undo"), status: conformance.Fail, reason: "broken", findings: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := conformance.NewRunner(conformance.NewClient(nil, 0))
			cleaned := false
			res := r.Run(context.Background(), conformance.Check{Name: "c", Rule: "rule", Spec: "spec", Run: func(ctx context.Context, ct *conformance.T) {
				ct.Cleanup(func(ctx context.Context) error {
					cleaned = true
					ct.Do(ctx, "cleanup request", conformance.Request{Method: http.MethodPost, URL: srv.URL + "/undo", Body: []byte(`{}`)})
					return tt.cleanup
				})
				tt.run(ctx, ct)
			}})
			if res.Status != tt.status || !strings.Contains(res.Reason(), tt.reason) || len(res.Findings) != tt.findings {
				t.Errorf("status %s, reason %q, %d findings; want %s, %q, %d", res.Status, res.Reason(), len(res.Findings), tt.status, tt.reason, tt.findings)
			}
			if tt.status == conformance.Pass && res.Reason() != "" {
				t.Errorf("a pass has reason %q", res.Reason())
			}
			if !cleaned || len(res.Exchanges) != 1 || res.Exchanges[0].Step != "cleanup request" || len(r.History()) != 1 {
				t.Errorf("cleanup ran %v, exchanges %d, history %d", cleaned, len(res.Exchanges), len(r.History()))
			}
		})
	}
}

func TestRunnerSkipsWhenInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	res := conformance.NewRunner(conformance.NewClient(nil, 0)).Run(ctx, conformance.Check{Name: "c", Run: func(context.Context, *conformance.T) { ran = true }})
	if ran || res.Status != conformance.Skip || !strings.Contains(res.Reason(), "context canceled") {
		t.Errorf("ran %v, %s %q", ran, res.Status, res.Reason())
	}

	// Interrupted while running: what the check saw says nothing about the
	// wallet, and its cleanup still runs.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	cleaned := false
	res = conformance.NewRunner(conformance.NewClient(nil, 0)).Run(ctx, conformance.Check{Name: "c", Run: func(_ context.Context, ct *conformance.T) {
		ct.Cleanup(func(ctx context.Context) error {
			cleaned = ctx.Err() == nil
			return nil
		})
		cancel()
		ct.Fatalf(nil, "no answer: context canceled")
	}})
	if !cleaned || res.Status != conformance.Skip || !strings.HasPrefix(res.Reason(), "interrupted") {
		t.Errorf("cleanup with a live context %v, %s %q", cleaned, res.Status, res.Reason())
	}
}

func TestClientSendsAsBuilt(t *testing.T) {
	t.Parallel()
	srv := echo()
	defer srv.Close()
	c := conformance.NewClient(nil, 0)
	resp := c.Send(context.Background(), conformance.Request{Method: http.MethodDelete, URL: srv.URL + "/x", Body: []byte(`{"a":1}`)})
	if resp.Err != nil || resp.Status != http.StatusTeapot || string(resp.Body) != `{"method":"DELETE","body":{"a":1}}`+"\n" {
		t.Errorf("answer %d %q %v", resp.Status, resp.Body, resp.Err)
	}
	if ua := resp.Header.Get("X-Got-User-Agent"); ua != "" {
		t.Errorf("the client added User-Agent %q", ua)
	}
	redirect := c.Send(context.Background(), conformance.Request{Method: http.MethodPost, URL: srv.URL + "/redirect"})
	if redirect.Status != http.StatusFound || redirect.Header.Get("Location") != "/elsewhere" {
		t.Errorf("a redirect was followed: %d", redirect.Status)
	}
}

func TestReportText(t *testing.T) {
	t.Parallel()
	ex := conformance.Exchange{Seq: 7, Check: "bad", Step: "withdrawal signed wrong",
		Request: conformance.Request{Method: http.MethodPost, URL: "https://wallet.example/v1/withdrawals",
			Header: http.Header{"Content-Type": {"application/json"}, "X-Nonce": {"n-1"}}, Body: []byte(`{"amount":"1.00"}`)},
		Response: conformance.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}, "Server": {"x"}},
			Body: []byte("{\"balance\":\"9.00\"}\x01\n")}}
	tests := []struct {
		name    string
		results []conformance.Result
		passed  bool
		want    []string
		absent  []string
	}{
		{
			name:    "all pass",
			results: []conformance.Result{{Name: "good", Rule: "does right", Status: conformance.Pass}},
			passed:  true,
			want:    []string{"Conformance of the operator wallet at https://wallet.example", "  bettor b", "PASS  good  does right", "Summary: 1 checks: 1 passed, 0 warned, 0 skipped, 0 failed; the wallet conforms.", "a note"},
		},
		{
			name: "a warning passes",
			results: []conformance.Result{{Name: "odd", Rule: "r", Status: conformance.Warn, Spec: "s",
				Findings: []conformance.Finding{{Status: conformance.Warn, Message: "not quite", Exchange: &ex}}}},
			passed: true,
			want:   []string{"WARN  odd  r", "      warning: not quite", "      request #7 (withdrawal signed wrong, check bad):"},
			absent: []string{"requests of this check:"},
		},
		{
			name: "a failure shows its request and answer",
			results: []conformance.Result{
				{Name: "good", Rule: "does right", Status: conformance.Pass},
				{Name: "bad", Rule: "refuses wrong signatures", Spec: "spec › Authentication", Status: conformance.Fail, Exchanges: []conformance.Exchange{ex},
					Findings: []conformance.Finding{{Status: conformance.Fail, Message: "accepted", Exchange: &ex}}},
			},
			want: []string{
				"FAIL  bad   refuses wrong signatures",
				"      failed: accepted",
				"      spec: spec › Authentication",
				"      requests of this check:",
				"        #7 withdrawal signed wrong: POST /v1/withdrawals → 200",
				"        POST https://wallet.example/v1/withdrawals",
				"        Content-Type: application/json",
				"        X-Nonce: n-1",
				`        {"amount":"1.00"}`,
				"      answer:",
				"        HTTP 200 OK",
				`        {"balance":"9.00"}\x01`,
				"1 failed; the wallet does not conform.",
			},
			absent: []string{"Server: x"},
		},
		{
			name:    "a skip fails the run",
			results: []conformance.Result{{Name: "s", Rule: "r", Status: conformance.Skip, Findings: []conformance.Finding{{Status: conformance.Skip, Message: "no money"}}}},
			want:    []string{"SKIP  s  r", "      skipped: no money", "1 skipped, 0 failed; the wallet does not conform."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := &conformance.Report{Title: "operator wallet", Target: "https://wallet.example", Settings: []string{"bettor b"},
				Results: tt.results, Notes: []string{"a note"}}
			text := rep.String()
			if rep.Passed() != tt.passed {
				t.Errorf("Passed() = %v", rep.Passed())
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w+"\n") {
					t.Errorf("the report lacks the line %q:\n%s", w, text)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(text, a) {
					t.Errorf("the report has %q:\n%s", a, text)
				}
			}
		})
	}
}

func TestPlainDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want, err string
	}{
		{`"10.50"`, "10.50", ""},
		{`"-3"`, "-3", ""},
		{`"0.000000000001"`, "0.000000000001", ""},
		{`10.5`, "", "the JSON number 10.5, not a string"},
		{`"1e3"`, "", `"1e3" is not a plain decimal`},
		{`"+1"`, "", "not a plain decimal"},
		{`" 1"`, "", "not a plain decimal"},
		{`"1."`, "", "not a plain decimal"},
		{`".5"`, "", "not a plain decimal"},
		{`true`, "", "a JSON boolean (true), not a string"},
		{`null`, "", "missing"},
		{``, "", "missing"},
	}
	for _, tt := range tests {
		got, err := conformance.PlainDecimal(json.RawMessage(tt.raw))
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("PlainDecimal(%s) = %q, %v; want %q", tt.raw, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("PlainDecimal(%s) error %v, want %q", tt.raw, err, tt.err)
		}
	}
	if conformance.FractionDigits("10.500") != 3 || conformance.FractionDigits("7") != 0 || conformance.IntegerDigits("-123.4") != 3 {
		t.Error("FractionDigits or IntegerDigits miscounts")
	}
}

func TestReadDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
		ok        bool
	}{
		{`"10.50"`, "10.5", true},
		{`10.5`, "10.5", true},
		{`"1e2"`, "100", true},
		{`"ten"`, "", false},
		{`null`, "", false},
		{`{}`, "", false},
	}
	for _, tt := range tests {
		d, err := conformance.ReadDecimal(json.RawMessage(tt.raw))
		if (err == nil) != tt.ok || (tt.ok && d.String() != tt.want) {
			t.Errorf("ReadDecimal(%s) = %s, %v; want %s", tt.raw, d, err, tt.want)
		}
	}
}

func TestSameJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"a":"1","b":[1,2]}`, "{ \"b\": [1, 2], \"a\": \"1\" }\n", true},
		{`{"a":"1.0"}`, `{"a":"1"}`, false},
		{`{"a":1.0}`, `{"a":1}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`not json`, `not json`, true},
		{`not json`, `{}`, false},
	}
	for _, tt := range tests {
		if got := conformance.SameJSON([]byte(tt.a), []byte(tt.b)); got != tt.same {
			t.Errorf("SameJSON(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

func TestObject(t *testing.T) {
	t.Parallel()
	o, err := conformance.ParseObject([]byte(`{"s":"x","n":1,"o":{"k":"v"},"a":[1],"z":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := o.Text("s"); !ok || s != "x" {
		t.Errorf("Text(s) = %q, %v", s, ok)
	}
	if _, ok := o.Text("n"); ok {
		t.Error("Text reads a number")
	}
	if inner, ok := o.Object("o"); !ok || !inner.Has("k") {
		t.Error("Object(o)")
	}
	if items, ok := o.Array("a"); !ok || len(items) != 1 {
		t.Error("Array(a)")
	}
	if o.Has("z") || o.Has("missing") {
		t.Error("Has counts null or missing members")
	}
	for _, bad := range []string{`[]`, `null`, `{} {}`, `{`} {
		if _, err := conformance.ParseObject([]byte(bad)); err == nil {
			t.Errorf("ParseObject(%s) succeeded", bad)
		}
	}
}
