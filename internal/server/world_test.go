package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/apitest"
	"github.com/foresight-dev/foresight/internal/openapitest"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

func TestMain(m *testing.M) {
	if db := os.Getenv(childServeEnv); db != "" {
		os.Exit(serveAsChild(db))
	}
	os.Exit(pgtest.Main(m))
}

const adminToken = "test-admin-token-0123456789abcdef0123"

// forEachDatabase runs f on SQLite and on PostgreSQL, each with its own
// empty database.
func forEachDatabase(t *testing.T, f func(t *testing.T, databaseURL string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, pgtest.NewDatabase(t))
	})
}

// forEachDatabaseB is forEachDatabase for a benchmark: a sub-benchmark on
// a fresh SQLite database, then one on a fresh PostgreSQL database.
func forEachDatabaseB(b *testing.B, f func(b *testing.B, databaseURL string)) {
	b.Run("sqlite", func(b *testing.B) { f(b, "sqlite:"+filepath.Join(b.TempDir(), "foresight.db")) })
	b.Run("postgres", func(b *testing.B) { f(b, pgtest.NewDatabase(b)) })
}

// world is a running Foresight server with an admin client and a ticket
// client that holds a key with every scope.
type world struct {
	t      testing.TB
	url    string
	srv    *server.Server
	admin  *admin.Client
	client admin.TicketClient
	key    string
	api    *openapitest.Validator
	// adminSpec is api/admin.yaml, which adminDo checks the admin API's
	// exchanges against; nil with noContractCheck.
	adminSpec *openapitest.Validator
	stop      func()
	// log receives the server's logs; nil discards them.
	log *slog.Logger
}

type worldOptions struct {
	// noWorkers serves the API without running workers: jobs stay queued.
	noWorkers bool
	config    func(*server.Config)
	// noContractCheck skips the OpenAPI validation of exchanges
	// (benchmarks).
	noContractCheck bool
	// log receives the server's logs; nil discards them.
	log *slog.Logger
	// partner, when set, wraps the sandbox operator's handler (betting
	// worlds): tests count the wallet requests with it.
	partner func(http.Handler) http.Handler
	// casino, when set, wraps the sandbox casino's handler (aggregator
	// worlds): tests read the wallet requests with it.
	casino func(http.Handler) http.Handler
}

func testConfig(databaseURL string) server.Config {
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = databaseURL
	cfg.AdminToken = adminToken
	cfg.RateLimit = 0
	cfg.AuthFailuresPerMinute = 0
	cfg.BetRateLimit = 0 // TestBetRateLimitPerBettor sets its own
	cfg.Queue.PollInterval = 50 * time.Millisecond
	cfg.Tickets.CancelPollInterval = 50 * time.Millisecond
	return cfg
}

func newWorld(t testing.TB, databaseURL string, opts worldOptions) *world {
	t.Helper()
	cfg := testConfig(databaseURL)
	if opts.config != nil {
		opts.config(&cfg)
	}
	w := &world{t: t, log: opts.log}
	if !opts.noContractCheck {
		w.api = openapitest.Load(t, "tickets.yaml")
		w.adminSpec = openapitest.Load(t, "admin.yaml")
	}
	w.start(cfg, opts.noWorkers)
	t.Cleanup(func() { w.stop() })
	w.client, w.key = w.newClient("team", "tickets:submit", "tickets:read", "tickets:cancel")
	return w
}

// start runs a server with cfg; the world's stop stops it.
func (w *world) start(cfg server.Config, noWorkers bool) {
	t := w.t
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, w.log)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	done := make(chan error, 1)
	var hs *http.Server
	if noWorkers {
		hs = &http.Server{Handler: srv.Handler()}
		go func() { done <- hs.Serve(l) }()
	} else {
		go func() { done <- srv.Run(ctx, l) }()
	}
	var once sync.Once
	w.stop = func() {
		once.Do(func() {
			cancel()
			if hs != nil {
				hs.Close()
				<-done
			} else if err := <-done; err != nil {
				t.Errorf("server.Run: %v", err)
			}
			srv.Close()
		})
	}
	w.srv, w.url = srv, cfg.PublicURL
	w.admin = &admin.Client{BaseURL: w.url, Token: adminToken}
}

// anotherNode starts another server on the database db (PostgreSQL: the
// nodes share it) with plain-http wallets allowed, as the betting worlds'
// sandboxes need, and change (when not nil) applied to its Config; it
// stops at the test's end.
func anotherNode(t testing.TB, db string, change func(*server.Config)) *world {
	t.Helper()
	other := &world{t: t}
	cfg := testConfig(db)
	cfg.DevAllowInsecure = true
	if change != nil {
		change(&cfg)
	}
	other.start(cfg, false)
	t.Cleanup(func() { other.stop() })
	return other
}

func (w *world) newClient(name string, scopes ...string) (admin.TicketClient, string) {
	w.t.Helper()
	ctx := context.Background()
	c, err := w.admin.CreateTicketClient(ctx, name)
	if err != nil {
		w.t.Fatalf("create client: %v", err)
	}
	k, err := w.admin.CreateTicketKey(ctx, c.ID, scopes, nil)
	if err != nil {
		w.t.Fatalf("create key: %v", err)
	}
	return c, k.Key
}

// response is a finished HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// errorCode returns error.code of an error body.
func (r response) errorCode(t testing.TB) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	code, _ := e["code"].(string)
	if code == "" {
		t.Fatalf("no error.code in %s", r.body)
	}
	return code
}

// do sends a request with key (none when empty) and validates the exchange
// against the OpenAPI document.
func (w *world) do(method, path, key string, body []byte, header ...string) response {
	w.t.Helper()
	req, r := w.exchange(method, path, key, body, header...)
	if w.api != nil {
		w.api.Check(w.t, req, body, r.status, r.header, r.body)
	}
	return r
}

// send is do without the OpenAPI check, for requests outside the document.
func (w *world) send(method, path, key string, body []byte, header ...string) response {
	w.t.Helper()
	_, r := w.exchange(method, path, key, body, header...)
	return r
}

func (w *world) exchange(method, path, key string, body []byte, header ...string) (*http.Request, response) {
	w.t.Helper()
	return roundTrip(w.t, method, w.url+path, key, body, header...)
}

// checkedTrip is roundTrip with a string body ("" sends none) whose
// exchange is checked against spec.
func checkedTrip(t testing.TB, spec *openapitest.Validator, method, url, token, body string, header ...string) response {
	t.Helper()
	var b []byte // no body and no Content-Type for ""
	if body != "" {
		b = []byte(body)
	}
	req, r := roundTrip(t, method, url, token, b, header...)
	spec.Check(t, req, b, r.status, r.header, r.body)
	return r
}

// roundTrip is apitest.Do with its answer as a response.
func roundTrip(t testing.TB, method, url, token string, body []byte, header ...string) (*http.Request, response) {
	t.Helper()
	req, r := apitest.Do(t, method, url, token, body, header...)
	return req, response{status: r.Status, header: r.Header, body: r.Body}
}

func submitBody(key, spec string, extra map[string]any) []byte {
	m := map[string]any{"schema_version": "tickets.input.v1", "idempotency_key": key, "title": "Spec " + key, "spec": spec}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// submit creates a job and returns its id.
func (w *world) submit(key, spec string, extra map[string]any) string {
	w.t.Helper()
	r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody(key, spec, extra))
	if r.status != http.StatusAccepted {
		w.t.Fatalf("submit = %d %s", r.status, r.body)
	}
	return r.json(w.t)["job_id"].(string)
}

// waitFor polls the job until its status is one of want.
func (w *world) waitFor(id string, want ...tickets.Status) map[string]any {
	w.t.Helper()
	var job map[string]any
	waitfor.Check(w.t, func() error {
		r := w.do("GET", "/tickets/v1/jobs/"+id, w.key, nil)
		if r.status != http.StatusOK {
			w.t.Fatalf("get job = %d %s", r.status, r.body)
		}
		job = r.json(w.t)
		for _, s := range want {
			if job["status"] == string(s) {
				return nil
			}
		}
		return fmt.Errorf("job %s is %v, want one of %v", id, job["status"], want)
	})
	return job
}

// blockingEngine stands in for a model that answers only when cancelled.
type blockingEngine struct{ started atomic.Int32 }

func (*blockingEngine) Name() string { return "blocking" }

func (e *blockingEngine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	req.Progress(tickets.StageGeneratingTickets)
	e.started.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

// countingEngine wraps an engine and counts generations.
type countingEngine struct {
	tickets.Engine
	calls atomic.Int32
}

func (e *countingEngine) Generate(ctx context.Context, req tickets.GenerationRequest) (*tickets.Result, error) {
	e.calls.Add(1)
	return e.Engine.Generate(ctx, req)
}

// callbackReceiver is a TLS server that records callbacks; the returned
// transport routes every host name to it and trusts its certificate.
type callbackReceiver struct {
	*httptest.Server
	status atomic.Int32
	got    chan callbackRequest
}

type callbackRequest struct {
	header http.Header
	body   []byte
}

func newCallbackReceiver(t *testing.T) (*callbackReceiver, *http.Transport) {
	r := &callbackReceiver{got: make(chan callbackRequest, 100)}
	r.status.Store(http.StatusNoContent)
	r.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.got <- callbackRequest{req.Header.Clone(), body}
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.Close)
	tr := r.Client().Transport.(*http.Transport).Clone()
	addr := r.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return r, tr
}

// newCallbackWorld starts a callbackReceiver and a world (newWorld) whose
// callbacks all go to it; config, when not nil, changes the server's
// configuration after that.
func newCallbackWorld(t *testing.T, db string, config func(*server.Config)) (*world, *callbackReceiver) {
	t.Helper()
	recv, tr := newCallbackReceiver(t)
	w := newWorld(t, db, worldOptions{config: func(c *server.Config) {
		c.CallbackTransport = tr
		if config != nil {
			config(c)
		}
	}})
	return w, recv
}

// next returns the next callback the receiver gets; when none comes
// within d the test fails, naming what it waited for.
func (r *callbackReceiver) next(t testing.TB, d time.Duration, what string) callbackRequest {
	t.Helper()
	select {
	case got := <-r.got:
		return got
	case <-time.After(d):
		t.Fatalf("no %s in %v", what, d)
		return callbackRequest{}
	}
}
