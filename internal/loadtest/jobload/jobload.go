// Package jobload measures job submission (POST /tickets/v1/jobs) over
// real HTTP on loopback, against a server it starts in this process or
// against a running one, beside a bare net/http handler in this process
// that answers what a submission answers and does nothing else, measured
// in the same run: each as fast as possible, then each at a fixed rate,
// every phase an open-loop run of package loadtest.
package jobload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Options describe a Run.
type Options struct {
	// DatabaseURL is the database of the server in this process; unused
	// with a TargetURL.
	DatabaseURL string
	// DatabaseName is how the report names that database (its URL with
	// the password hidden).
	DatabaseName string
	// Workers runs the server's generation workers during the load.
	Workers bool
	// TargetURL is the base URL of a running server to load instead of one
	// in this process, AdminToken its admin token.
	TargetURL, AdminToken string
	// Clients is the number of ticket clients the submissions are spread
	// over.
	Clients int
	// Duration is the length of each phase.
	Duration time.Duration
	// Concurrency is the number of requests in flight at most.
	Concurrency int
	// Rate is the rate of the fixed-rate phases, per second.
	Rate float64
}

// Run starts the server (or prepares the target) and the bare handler,
// runs the four phases and writes the report's lines to report; an error
// stopping the server in this process goes to errs. It fails when the
// server does not start, a ticket client cannot be created, or ctx ends.
func Run(ctx context.Context, o Options, report, errs io.Writer) error {
	var s jobServer
	var err error
	if o.TargetURL == "" {
		s, err = startJobServer(ctx, o.DatabaseURL, o.Workers, o.Clients)
	} else {
		s, err = targetJobServer(ctx, o.TargetURL, o.AdminToken, o.Clients)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := s.close(); err != nil {
			fmt.Fprintln(errs, "server:", err)
		}
	}()
	bare, stopBare, err := startBareHandler()
	if err != nil {
		return err
	}
	defer stopBare()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Concurrency * 2, MaxConnsPerHost: o.Concurrency * 2}}
	phases := []struct {
		name string
		url  string
		rate float64
	}{
		{"bare net/http handler, max", bare + "/tickets/v1/jobs", 0},
		{"POST /tickets/v1/jobs, max", s.base + "/tickets/v1/jobs", 0},
		{fmt.Sprintf("bare net/http handler, %.0f/s", o.Rate), bare + "/tickets/v1/jobs", o.Rate},
		{fmt.Sprintf("POST /tickets/v1/jobs, %.0f/s", o.Rate), s.base + "/tickets/v1/jobs", o.Rate},
	}
	if o.TargetURL == "" {
		fmt.Fprintf(report, "database %s, workers %v, concurrency %d, %v per phase\n", o.DatabaseName, o.Workers, o.Concurrency, o.Duration)
	} else {
		fmt.Fprintf(report, "target %s (its own workers), %d clients, concurrency %d, %v per phase\n", s.base, len(s.keys), o.Concurrency, o.Duration)
	}
	for _, p := range phases {
		r := loadtest.Run(ctx, client, loadtest.Options{Rate: p.rate, Concurrency: o.Concurrency, Duration: o.Duration,
			NewRequest: submissions(p.url, s.keys), OK: func(s int) bool { return s == http.StatusAccepted }})
		fmt.Fprintf(report, "%-40s %s\n", p.name, r)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// startBareHandler starts, on loopback, the baseline: a handler that
// answers what a submission answers, doing nothing else. It returns its
// base URL and how to stop it.
func startBareHandler() (base string, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	accepted := []byte(`{"schema_version":"tickets.job.v1","job_id":"00000000-0000-4000-8000-000000000000","status":"queued",` +
		`"status_url":"x","result_url":"x","created_at":"2026-01-01T00:00:00Z"}`)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		w.Write(accepted)
	})}
	go srv.Serve(l)
	return "http://" + l.Addr().String(), func() { srv.Close() }, nil
}

// submissions returns the i-th submission of a phase to url: a job of a
// 20-line spec with a fresh idempotency key, by the clients of keys in
// turn.
func submissions(url string, keys []string) func(i int) (*http.Request, error) {
	spec := strings.Repeat("- Users must be able to export the report as CSV.\n", 20)
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

// jobServer is the server a job submission load runs against: its base
// URL, a submit key of each of the run's ticket clients, and how to stop
// it.
type jobServer struct {
	base  string
	keys  []string
	close func() error
}

// startJobServer starts a server in this process on dbURL, with its
// generation workers when workers is set, and creates clients ticket
// clients with a submit key each.
func startJobServer(ctx context.Context, dbURL string, workers bool, clients int) (jobServer, error) {
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = dbURL
	cfg.AdminToken = admin.NewToken()
	cfg.RateLimit = 0
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return jobServer{}, err
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	srv, err := server.New(ctx, cfg, nil)
	if err != nil {
		l.Close()
		return jobServer{}, err
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
	s := jobServer{base: cfg.PublicURL, close: func() error {
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
			return jobServer{}, err
		}
	}
	return s, nil
}

// targetJobServer creates clients ticket clients, each with a submit key,
// on the server at targetURL through its admin API.
func targetJobServer(ctx context.Context, targetURL, adminToken string, clients int) (jobServer, error) {
	s := jobServer{base: strings.TrimSuffix(targetURL, "/"), close: func() error { return nil }}
	api := &admin.Client{BaseURL: s.base, Token: adminToken, HTTP: &http.Client{Timeout: 30 * time.Second}}
	run := loadtest.NewRunID()
	for i := range clients {
		c, err := api.CreateTicketClient(ctx, fmt.Sprintf("load-%s-%d", run, i))
		if err != nil {
			return jobServer{}, fmt.Errorf("create the load's ticket clients on %s: %w", s.base, err)
		}
		k, err := api.CreateTicketKey(ctx, c.ID, []string{string(tickets.ScopeSubmit)}, nil)
		if err != nil {
			return jobServer{}, fmt.Errorf("create the load's ticket keys on %s: %w", s.base, err)
		}
		s.keys = append(s.keys, k.Key)
	}
	return s, nil
}
