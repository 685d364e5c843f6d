package sandboxweb_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

func TestOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080", true},
		{"https://Platform.Example:443/base", "https://platform.example", true},
		{"http://platform.example:80", "http://platform.example", true},
		{"http://platform.example:8443", "http://platform.example:8443", true},
		{"ftp://platform.example", "", false},
		{"platform.example", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := sandboxweb.Origin(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("Origin(%q) = %q, %v; want %q ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, contentType, body string
		want                    map[string]string
		wantErr                 bool
	}{
		{"json", "application/json", `{"bettor_id":"a","count":2,"on":true,"none":null}`, map[string]string{"bettor_id": "a", "count": "2", "on": "true"}, false},
		{"json with charset", "application/json; charset=utf-8", `{"a":"b"}`, map[string]string{"a": "b"}, false},
		{"form", "application/x-www-form-urlencoded", "bettor_id=a+b&amount=1.50", map[string]string{"bettor_id": "a b", "amount": "1.50"}, false},
		{"empty", "", "", map[string]string{}, false},
		{"nested", "application/json", `{"a":{"b":1}}`, nil, true},
		{"array", "application/json", `[1]`, nil, true},
		{"text", "text/plain", `a=b`, nil, true},
		{"too large", "application/json", `{"a":"` + strings.Repeat("x", 70<<10) + `"}`, nil, true},
	}
	for _, tt := range tests {
		var got map[string]string
		var gotErr error
		h := sandboxweb.Control(func(w http.ResponseWriter, r *http.Request, f map[string]string) { got = f })
		r := httptest.NewRequest("POST", "/sandbox/api/x", strings.NewReader(tt.body))
		r.Header.Set("Content-Type", tt.contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusBadRequest {
			gotErr = io.EOF
		}
		if (gotErr != nil) != tt.wantErr || (!tt.wantErr && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("%s: fields %v, status %d; want %v (error %v)", tt.name, got, rec.Code, tt.want, tt.wantErr)
		}
	}
}

func TestCountAndDuration(t *testing.T) {
	t.Parallel()
	f := map[string]string{"n": "3", "neg": "-1", "word": "many", "d": "1500ms", "ms": "250", "bad": "soon", "long": "48h"}
	counts := []struct {
		name string
		want int
		ok   bool
	}{{"n", 3, true}, {"missing", 7, true}, {"neg", 0, false}, {"word", 0, false}}
	for _, c := range counts {
		got, err := sandboxweb.Count(f, c.name, 7)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("Count(%s) = %d, %v", c.name, got, err)
		}
	}
	durations := []struct {
		name string
		want time.Duration
		ok   bool
	}{{"d", 1500 * time.Millisecond, true}, {"ms", 250 * time.Millisecond, true}, {"missing", time.Second, true}, {"bad", 0, false}, {"long", 0, false}}
	for _, c := range durations {
		got, err := sandboxweb.Duration(f, c.name, time.Second)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("Duration(%s) = %v, %v", c.name, got, err)
		}
	}
}

func TestFormAnswersRedirectToTheirPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, referer string
		fail                bool
		want                string
	}{
		{"return page", "return=%2Fsandbox%2Fcontrols%3Fbettor_id%3Da", "", false, "/sandbox/controls?bettor_id=a&notice=done"},
		{"error", "return=%2Fsandbox%2Fcontrols", "", true, "/sandbox/controls?error=broken"},
		{"foreign return", "return=https%3A%2F%2Fevil.example%2F", "", false, "/sandbox/?notice=done"},
		{"referer", "", "http://example.com/sandbox/ledger?x=1", false, "/sandbox/ledger?notice=done&x=1"},
		{"foreign referer", "", "http://evil.example/sandbox/ledger", false, "/sandbox/?notice=done"},
	}
	for _, tt := range tests {
		h := sandboxweb.Control(func(w http.ResponseWriter, r *http.Request, f map[string]string) {
			if tt.fail {
				sandboxweb.Fail(w, r, http.StatusBadRequest, "invalid_request", "broken")
				return
			}
			sandboxweb.Done(w, r, "done", nil)
		})
		r := httptest.NewRequest("POST", "http://example.com/sandbox/api/x", strings.NewReader(tt.body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tt.referer != "" {
			r.Header.Set("Referer", tt.referer)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != tt.want {
			t.Errorf("%s: %d to %q, want %q", tt.name, rec.Code, rec.Header().Get("Location"), tt.want)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sandboxweb.Static())
	defer srv.Close()
	for name, contentType := range map[string]string{"sandbox.css": "text/css", "frame.js": "text/javascript", "missing.js": "text/plain"} {
		resp, err := http.Get(srv.URL + "/sandbox/static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := http.StatusOK
		if name == "missing.js" {
			want = http.StatusNotFound
		}
		if resp.StatusCode != want || len(body) == 0 || !strings.HasPrefix(resp.Header.Get("Content-Type"), contentType) {
			t.Errorf("%s = %d %s", name, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	// The platform's pages' policy: reading only, no directory listing.
	for _, c := range []struct {
		method, name string
		want         int
	}{{"POST", "sandbox.css", http.StatusMethodNotAllowed}, {"DELETE", "frame.js", http.StatusMethodNotAllowed}, {"GET", "", http.StatusNotFound}} {
		req, _ := http.NewRequest(c.method, srv.URL+"/sandbox/static/"+c.name, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s /sandbox/static/%s = %d, want %d", c.method, c.name, resp.StatusCode, c.want)
		}
	}
}

// TestServeStopsCleanly cancels the context while a request waits on
// something only stop releases: Serve must call stop, let the request
// finish and return nil.
func TestServeStopsCleanly(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "released")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- sandboxweb.Serve(ctx, l, handler, func() { close(release) }) }()
	answered := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + l.Addr().String() + "/")
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	<-entered
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if got := <-answered; got != "released" {
		t.Errorf("the waiting request got %q", got)
	}
}

// TestServeStopsWithASilentConnection: a client that connected but sent
// nothing yet (a dial finished after its request was cancelled, a
// preconnect) must not hold the stop: net/http's Shutdown waits 5 s for
// such a connection, as long as Serve allows for requests under way.
func TestServeStopsWithASilentConnection(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- sandboxweb.Serve(ctx, l, http.NotFoundHandler(), func() {}) }()
	silent, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The server has accepted the connection once it answers another one.
	if resp, err := http.Get("http://" + l.Addr().String() + "/"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestNewPage: the navigation is the partner's first page, the ledger and
// the controls, the current one marked; notice and error come from the
// query.
func TestNewPage(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/sandbox/ledger?notice=saved&error=", nil)
	p := sandboxweb.NewPage(r, "Sandbox casino c1", sandboxweb.Link{Href: "/sandbox/lobby", Label: "Lobby"}, "Ledger", "/sandbox/ledger", 7)
	want := sandboxweb.Page{Title: "Ledger", Partner: "Sandbox casino c1", Notice: "saved", Data: 7, Nav: []sandboxweb.Link{
		{Href: "/sandbox/lobby", Label: "Lobby"},
		{Href: "/sandbox/ledger", Label: "Ledger", Current: true},
		{Href: "/sandbox/controls", Label: "Controls"},
	}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("page = %+v\nwant %+v", p, want)
	}
}

// TestCurrencyCodes: a copy of the accepted decimals, or the error that
// names the field and the code.
func TestCurrencyCodes(t *testing.T) {
	t.Parallel()
	cc := sandboxweb.CurrencyCodes{Pattern: regexp.MustCompile(`^[A-Z]{3,5}$`), Described: "3 to 5 upper-case letters", MaxDecimals: 8}
	if err := cc.Check("usd"); err == nil || err.Error() != `currency "usd" must be 3 to 5 upper-case letters` {
		t.Errorf("Check(usd) = %v", err)
	}
	given := map[string]int32{"BTC": 8, "JPY": 0}
	got, err := cc.Decimals(given)
	if err != nil || !reflect.DeepEqual(got, given) {
		t.Fatalf("Decimals = %v, %v", got, err)
	}
	if got["BTC"] = 2; given["BTC"] != 8 {
		t.Error("Decimals returned the given map, not a copy")
	}
	for in, want := range map[string]string{
		"btc": `Config.Decimals: currency "btc" must be 3 to 5 upper-case letters`,
		"BTC": "Config.Decimals: BTC must have 0 to 8 decimals, not 9",
	} {
		if _, err := cc.Decimals(map[string]int32{in: 9}); err == nil || err.Error() != want {
			t.Errorf("Decimals(%s: 9) = %v, want %s", in, err, want)
		}
	}
}

// TestChoices: the selected value is chosen, another value chooses the
// first.
func TestChoices(t *testing.T) {
	t.Parallel()
	values := []string{"en", "es", "fr"}
	for selected, want := range map[string]string{"es": "es", "pt": "en", "": "en"} {
		got := sandboxweb.Choices(values, selected)
		if len(got) != len(values) || sandboxweb.Chosen(got) != want {
			t.Errorf("Choices(%q) = %v, want %s chosen", selected, got, want)
		}
		n := 0
		for _, c := range got {
			if c.Selected {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Choices(%q) selects %d values", selected, n)
		}
	}
	if got := sandboxweb.Chosen(nil); got != "" {
		t.Errorf("Chosen(nil) = %q", got)
	}
}

// A page whose template fails is answered 500 with a fixed text, not the
// template's error.
func TestRenderHidesATemplateError(t *testing.T) {
	t.Parallel()
	pages := sandboxweb.ParsePages(fstest.MapFS{"broken.html": {Data: []byte(`{{define "content"}}{{.Data.NoSuchField}}{{end}}`)}}, "broken.html")
	w := httptest.NewRecorder()
	pages.Render(w, "broken.html", sandboxweb.Page{Title: "Broken", Data: struct{}{}}, "")
	if body := w.Body.String(); w.Code != http.StatusInternalServerError || strings.Contains(body, "NoSuchField") {
		t.Errorf("Render answered %d %q, want 500 without the template's error", w.Code, body)
	}
}

// A journal's failure reaches the control API and the ledger page as fixed
// text, without the storage error.
func TestJournalFailureIsFixedText(t *testing.T) {
	t.Parallel()
	errJournal := errors.New("operator: the journal failed; nothing changed")
	storage := fmt.Errorf("%w: disk I/O error at /var/lib/sandbox.db", errJournal)
	ws := sandboxweb.Wallets{Sandbox: "operator", ErrJournal: errJournal}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/sandbox/api/credit", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "application/json")
	ws.Fail(w, r, storage)
	if body := w.Body.String(); w.Code != http.StatusServiceUnavailable || !strings.Contains(body, "storage_unavailable") || strings.Contains(body, "disk") {
		t.Errorf("control API answered %d %s, want 503 storage_unavailable without the storage error", w.Code, body)
	}
	var l sandboxweb.Ledger[struct{}, struct{}]
	l.Fail(nil)
	if l.Failed != "" {
		t.Errorf("Failed = %q without a failure", l.Failed)
	}
	l.Fail(storage)
	if l.Failed == "" || strings.Contains(l.Failed, "disk") {
		t.Errorf("Failed = %q, want a fixed text", l.Failed)
	}
}

// TestGuardWithoutTokenWantsALoopbackHost: without an admin token the
// control API answers loopback clients that address it as this machine; a
// page of another site whose name was rebound to 127.0.0.1 (DNS
// rebinding) sends its own name as Host and Origin, and is refused.
func TestGuardWithoutTokenWantsALoopbackHost(t *testing.T) {
	t.Parallel()
	h := sandboxweb.Guard{}.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"127.0.0.1:8081", "", http.StatusNoContent},
		{"localhost:8081", "http://localhost:8081", http.StatusNoContent},
		{"[::1]:8081", "", http.StatusNoContent},
		{"127.0.0.1", "", http.StatusNoContent},
		{"evil.example:8081", "http://evil.example:8081", http.StatusForbidden},
		{"evil.example:8081", "", http.StatusForbidden},
		{"10.0.0.5:8081", "", http.StatusForbidden},
	} {
		r := httptest.NewRequest(http.MethodPost, "/sandbox/api/credit", strings.NewReader(`{}`))
		r.RemoteAddr = "127.0.0.1:50000"
		r.Host = c.host
		r.Header.Set("Content-Type", "application/json")
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, w.Code, c.want)
		}
	}
}
