package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// runLoadtest measures job submission over real HTTP on loopback against
// an in-process server, or against a server in another process or node
// (--target), beside a bare net/http handler in the generator's process
// measured in the same run.
func runLoadtest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest", stderr)
	var (
		dbURL       string
		duration    time.Duration
		concurrency int
		rate        float64
		clients     int
		workers     bool
		cpuProfile  string
		target      loadTarget
	)
	fs.StringVar(&dbURL, "database-url", "", "database (default: a new SQLite file in a temporary directory)")
	fs.DurationVar(&duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&concurrency, "concurrency", 32, "requests in flight")
	fs.Float64Var(&rate, "rate", 1000, "rate of the fixed-rate phase, per second")
	fs.IntVar(&clients, "clients", 1000, "ticket clients the submissions are spread over (each may have 100 unfinished jobs)")
	fs.BoolVar(&workers, "workers", false, "run the generation workers during the load")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.StringVar(&target.url, "target", "", "base URL of a running foresight server to load instead of one in this process "+
		"(it runs its generation workers; start it with FORESIGHT_TICKETS_RATE_LIMIT=0)")
	fs.StringVar(&target.adminToken, "admin-token", "", "the target's admin token (with --target): the run creates its ticket clients and keys through the admin API")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := target.check(); err != nil {
		return err
	}
	if target.url != "" && dbURL != "" {
		return errors.New("--database-url names the database of a server in this process: not with --target")
	}
	dbURL, done, err := loadSetup(cpuProfile, dbURL)
	if err != nil {
		return err
	}
	defer done()
	var s jobLoadServer
	if target.url == "" {
		s, err = startJobLoadServer(ctx, dbURL, workers, clients)
	} else {
		s, err = targetJobLoadServer(ctx, target, clients)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := s.close(); err != nil {
			fmt.Fprintln(stderr, "server:", err)
		}
	}()
	keys := s.keys

	// The baseline answers what a submission answers, doing nothing else.
	baseL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	accepted := []byte(`{"schema_version":"tickets.job.v1","job_id":"00000000-0000-4000-8000-000000000000","status":"queued",` +
		`"status_url":"x","result_url":"x","created_at":"2026-01-01T00:00:00Z"}`)
	base := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		w.Write(accepted)
	})}
	go base.Serve(baseL)
	defer base.Close()

	spec := strings.Repeat("- Users must be able to export the report as CSV.\n", 20)
	submission := func(url string) func(i int) (*http.Request, error) {
		return func(i int) (*http.Request, error) {
			body := fmt.Sprintf(`{"schema_version":"tickets.input.v1","idempotency_key":"load-%d-%d","title":"Load %d","spec":%q}`,
				time.Now().UnixNano(), i, i, spec)
			req, err := http.NewRequest("POST", url, strings.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Authorization", "Bearer "+keys[i%len(keys)])
			req.Header.Set("Content-Type", "application/json")
			return req, nil
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency * 2, MaxConnsPerHost: concurrency * 2}}
	phases := []struct {
		name string
		url  string
		rate float64
	}{
		{"bare net/http handler, max", "http://" + baseL.Addr().String() + "/tickets/v1/jobs", 0},
		{"POST /tickets/v1/jobs, max", s.base + "/tickets/v1/jobs", 0},
		{fmt.Sprintf("bare net/http handler, %.0f/s", rate), "http://" + baseL.Addr().String() + "/tickets/v1/jobs", rate},
		{fmt.Sprintf("POST /tickets/v1/jobs, %.0f/s", rate), s.base + "/tickets/v1/jobs", rate},
	}
	if target.url == "" {
		fmt.Fprintf(stdout, "database %s, workers %v, concurrency %d, %v per phase\n", redactURL(dbURL), workers, concurrency, duration)
	} else {
		fmt.Fprintf(stdout, "target %s (its own workers), %d clients, concurrency %d, %v per phase\n", s.base, len(keys), concurrency, duration)
	}
	for _, p := range phases {
		r := loadtest.Run(ctx, client, loadtest.Options{Rate: p.rate, Concurrency: concurrency, Duration: duration,
			NewRequest: submission(p.url), OK: func(s int) bool { return s == http.StatusAccepted }})
		fmt.Fprintf(stdout, "%-40s %s\n", p.name, r)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// jobLoadServer is the server a job submission load runs against: its base
// URL, a submit key of each of the run's ticket clients, and how to stop it.
type jobLoadServer struct {
	base  string
	keys  []string
	close func() error
}

// startJobLoadServer starts a server in this process on dbURL, with its
// generation workers when workers is set, and creates clients ticket
// clients with a submit key each.
func startJobLoadServer(ctx context.Context, dbURL string, workers bool, clients int) (jobLoadServer, error) {
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = dbURL
	cfg.AdminToken = randomToken()
	cfg.RateLimit = 0
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return jobLoadServer{}, err
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	srv, err := server.New(ctx, cfg, nil)
	if err != nil {
		l.Close()
		return jobLoadServer{}, err
	}
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	if workers {
		go func() { served <- srv.Run(serveCtx, l) }()
	} else {
		hs := &http.Server{Handler: srv.Handler()}
		go func() { served <- hs.Serve(l) }()
		go func() { <-serveCtx.Done(); hs.Close() }()
	}
	s := jobLoadServer{base: cfg.PublicURL, close: func() error {
		stopServe()
		err := <-served
		srv.Close()
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}}
	for i := range clients {
		c, err := srv.Tickets().CreateClient(ctx, fmt.Sprint("load-", i))
		if err == nil {
			var key string
			_, key, err = srv.Tickets().CreateKey(ctx, c.ID, []tickets.Scope{tickets.ScopeSubmit}, nil)
			s.keys = append(s.keys, key)
		}
		if err != nil {
			s.close()
			return jobLoadServer{}, err
		}
	}
	return s, nil
}

// targetJobLoadServer creates clients ticket clients, each with a submit
// key, on the server at target through its admin API.
func targetJobLoadServer(ctx context.Context, target loadTarget, clients int) (jobLoadServer, error) {
	s := jobLoadServer{base: strings.TrimSuffix(target.url, "/"), close: func() error { return nil }}
	api := &admin.Client{BaseURL: s.base, Token: target.adminToken, HTTP: &http.Client{Timeout: 30 * time.Second}}
	run := randomToken()[:8]
	for i := range clients {
		c, err := api.CreateTicketClient(ctx, fmt.Sprintf("load-%s-%d", run, i))
		if err != nil {
			return jobLoadServer{}, fmt.Errorf("create the load's ticket clients on %s: %w", s.base, err)
		}
		k, err := api.CreateTicketKey(ctx, c.ID, []string{string(tickets.ScopeSubmit)}, nil)
		if err != nil {
			return jobLoadServer{}, fmt.Errorf("create the load's ticket keys on %s: %w", s.base, err)
		}
		s.keys = append(s.keys, k.Key)
	}
	return s, nil
}

// loadSetup prepares a load test: it starts profiling the CPU into
// cpuProfile when it is set, and returns dbURL, or without one a new SQLite
// file in a temporary directory. done stops the profile and removes the
// directory.
func loadSetup(cpuProfile, dbURL string) (url string, done func(), err error) {
	var undo []func()
	done = func() {
		for _, f := range slices.Backward(undo) {
			f()
		}
	}
	if cpuProfile != "" {
		stop, err := loadtest.StartCPUProfile(cpuProfile)
		if err != nil {
			return "", nil, err
		}
		undo = append(undo, stop)
	}
	if dbURL == "" {
		dir, err := os.MkdirTemp("", "foresight-load-")
		if err != nil {
			done()
			return "", nil, err
		}
		undo = append(undo, func() { os.RemoveAll(dir) })
		dbURL = "sqlite:" + filepath.Join(dir, "load.db")
	}
	return dbURL, done, nil
}
