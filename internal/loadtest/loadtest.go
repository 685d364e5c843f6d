// Package loadtest drives HTTP load and measures throughput and latency
// percentiles. At a fixed rate it is open-loop: latency is measured from
// the moment a request was due, not from when a worker got to send it, so
// a slow server cannot hide its queueing (no coordinated omission).
package loadtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/foresight-dev/foresight/internal/cputime"
)

// Options describe one run.
type Options struct {
	// Rate is requests per second; 0 sends as fast as Concurrency allows.
	Rate float64
	// Concurrency is the number of requests in flight at most.
	Concurrency int
	Duration    time.Duration
	// NewRequest builds the i-th request.
	NewRequest func(i int) (*http.Request, error)
	// OK reports whether a status counts as success.
	OK func(status int) bool
}

// Result summarises a run.
type Result struct {
	Sent, Succeeded int
	// Statuses counts answers by HTTP status; 0 counts transport errors.
	Statuses           map[int]int
	Elapsed            time.Duration
	Throughput         float64 // successful requests per second
	P50, P90, P99, Max time.Duration
	// CPU is the CPU time (user and system) the whole process used during
	// the run: with the server in the process, divided by Succeeded it is
	// the cost of a request on both ends, which other processes on the
	// machine disturb less than they disturb Throughput. Zero where the
	// system does not report it.
	CPU time.Duration
}

func (r Result) String() string {
	s := fmt.Sprintf("%d ok of %d in %v: %.0f/s, p50 %v, p90 %v, p99 %v, max %v, statuses %v",
		r.Succeeded, r.Sent, r.Elapsed.Round(time.Millisecond), r.Throughput,
		r.P50.Round(10*time.Microsecond), r.P90.Round(10*time.Microsecond), r.P99.Round(10*time.Microsecond),
		r.Max.Round(10*time.Microsecond), r.Statuses)
	if r.CPU > 0 && r.Succeeded > 0 {
		s += fmt.Sprintf(", process CPU %v (%v per ok)", r.CPU.Round(time.Millisecond), (r.CPU / time.Duration(r.Succeeded)).Round(100*time.Nanosecond))
	}
	return s
}

// sample is one request's outcome: its status (0 for a transport error)
// and its latency from the moment it was due.
type sample struct {
	status  int
	latency time.Duration
}

// Run sends requests with client until Duration has passed or ctx ends.
func Run(ctx context.Context, client *http.Client, o Options) Result {
	if o.OK == nil {
		o.OK = func(s int) bool { return s >= 200 && s < 300 }
	}
	due := make(chan time.Time, o.Concurrency)
	samples := make(chan sample, 4096)
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()

	workers := startWorkers(client, o, due, samples)
	collected := collect(samples, o.OK)
	start, cpuStart := time.Now(), cputime.Process()
	schedule(ctx, o.Rate, start, due)
	close(due)
	workers.Wait()
	close(samples)
	r := <-collected
	r.Elapsed = time.Since(start)
	r.CPU = cputime.Process() - cpuStart
	r.Throughput = float64(r.Succeeded) / r.Elapsed.Seconds()
	return r
}

// startWorkers starts o.Concurrency workers (at least one). For each time
// received from due, a worker sends the next request of o with client,
// reads the answer whole and puts a sample on samples, its latency
// measured from that time (from when the worker took it when zero). The
// returned group is done once due is closed and every request answered.
func startWorkers(client *http.Client, o Options, due <-chan time.Time, samples chan<- sample) *sync.WaitGroup {
	var mu sync.Mutex
	next := 0
	nextIndex := func() int {
		mu.Lock()
		defer mu.Unlock()
		next++
		return next - 1
	}
	var wg sync.WaitGroup
	for range max(1, o.Concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for at := range due {
				if at.IsZero() {
					at = time.Now()
				}
				status := 0
				req, err := o.NewRequest(nextIndex())
				if err == nil {
					var resp *http.Response
					resp, err = client.Do(req)
					if err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						status = resp.StatusCode
					}
				}
				samples <- sample{status, time.Since(at)}
			}
		}()
	}
	return &wg
}

// collect summarises the samples received until samples is closed and
// then sends the Result on the returned channel: requests sent, statuses,
// and the successes' count and latency percentiles, a success being a
// status ok accepts.
func collect(samples <-chan sample, ok func(status int) bool) <-chan Result {
	collected := make(chan Result)
	go func() {
		r := Result{Statuses: map[int]int{}}
		var lat []time.Duration
		for s := range samples {
			r.Sent++
			r.Statuses[s.status]++
			if ok(s.status) {
				r.Succeeded++
				lat = append(lat, s.latency)
			}
		}
		slices.Sort(lat)
		r.P50, r.P90, r.P99 = Quantile(lat, 0.50), Quantile(lat, 0.90), Quantile(lat, 0.99)
		if len(lat) > 0 {
			r.Max = lat[len(lat)-1]
		}
		collected <- r
	}()
	return collected
}

// schedule sends on due the times requests are due until ctx ends: rate
// a second from start (open loop), or, when rate is 0, a zero time
// whenever a worker is free to take one (closed loop).
func schedule(ctx context.Context, rate float64, start time.Time, due chan<- time.Time) {
	if rate > 0 {
		interval := time.Duration(float64(time.Second) / rate)
		for i := 0; ; i++ {
			at := start.Add(time.Duration(i) * interval)
			if d := time.Until(at); d > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(d):
				}
			}
			if ctx.Err() != nil {
				return
			}
			due <- at
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case due <- time.Time{}:
		}
	}
}

// Quantile returns the p quantile (0 < p < 1) of sorted latencies, zero
// for none.
func Quantile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
