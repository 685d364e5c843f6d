package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// runLoadtest measures job submission over real HTTP on loopback against
// an in-process server, beside a bare net/http handler measured in the
// same run.
func runLoadtest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dbURL       string
		duration    time.Duration
		concurrency int
		rate        float64
		clients     int
		workers     bool
		cpuProfile  string
	)
	fs.StringVar(&dbURL, "database-url", "", "database (default: a new SQLite file in a temporary directory)")
	fs.DurationVar(&duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&concurrency, "concurrency", 32, "requests in flight")
	fs.Float64Var(&rate, "rate", 1000, "rate of the fixed-rate phase, per second")
	fs.IntVar(&clients, "clients", 1000, "ticket clients the submissions are spread over (each may have 100 unfinished jobs)")
	fs.BoolVar(&workers, "workers", false, "run the generation workers during the load")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dbURL, done, err := loadSetup(cpuProfile, dbURL)
	if err != nil {
		return err
	}
	defer done()

	cfg := server.DefaultConfig()
	cfg.DatabaseURL = dbURL
	cfg.AdminToken = randomToken()
	cfg.RateLimit = 0
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	srv, err := server.New(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	if workers {
		go func() { served <- srv.Run(serveCtx, l) }()
	} else {
		hs := &http.Server{Handler: srv.Handler()}
		go func() { served <- hs.Serve(l) }()
		go func() { <-serveCtx.Done(); hs.Close() }()
	}
	defer func() {
		stopServe()
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(stderr, "server:", err)
		}
	}()

	var keys []string
	for i := range clients {
		c, err := srv.Tickets().CreateClient(ctx, fmt.Sprint("load-", i))
		if err != nil {
			return err
		}
		_, key, err := srv.Tickets().CreateKey(ctx, c.ID, []tickets.Scope{tickets.ScopeSubmit}, nil)
		if err != nil {
			return err
		}
		keys = append(keys, key)
	}

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
		{"POST /tickets/v1/jobs, max", cfg.PublicURL + "/tickets/v1/jobs", 0},
		{fmt.Sprintf("bare net/http handler, %.0f/s", rate), "http://" + baseL.Addr().String() + "/tickets/v1/jobs", rate},
		{fmt.Sprintf("POST /tickets/v1/jobs, %.0f/s", rate), cfg.PublicURL + "/tickets/v1/jobs", rate},
	}
	fmt.Fprintf(stdout, "database %s, workers %v, concurrency %d, %v per phase\n", redactURL(dbURL), workers, concurrency, duration)
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
		f, err := os.Create(cpuProfile)
		if err != nil {
			return "", nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return "", nil, err
		}
		undo = append(undo, func() { pprof.StopCPUProfile(); f.Close() })
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
