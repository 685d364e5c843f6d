package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// newServer answers 200 to even request indexes and 500 to odd ones.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		if i%2 == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func requests(url string) func(i int) (*http.Request, error) {
	return func(i int) (*http.Request, error) {
		return http.NewRequest("GET", url+"?i="+strconv.Itoa(i), nil)
	}
}

// checkCounts fails t unless r counts every request once, successes being
// the even indexes (200) and failures the odd ones (500).
func checkCounts(t *testing.T, r Result) {
	t.Helper()
	ok, failed := r.Statuses[http.StatusOK], r.Statuses[http.StatusInternalServerError]
	if r.Sent == 0 || ok+failed != r.Sent || r.Succeeded != ok || ok-failed < 0 || ok-failed > 1 {
		t.Errorf("result %v: want every request counted once, half of them ok", r)
	}
	if r.P50 > r.P90 || r.P90 > r.P99 || r.P99 > r.Max || r.Max == 0 {
		t.Errorf("latencies p50 %v p90 %v p99 %v max %v, want ordered and the max above zero", r.P50, r.P90, r.P99, r.Max)
	}
}

func TestRunAsFastAsConcurrencyAllows(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := Run(context.Background(), srv.Client(), Options{Concurrency: 4, Duration: 200 * time.Millisecond, NewRequest: requests(srv.URL)})
	checkCounts(t, r)
}

func TestRunAtAFixedRate(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := Run(context.Background(), srv.Client(), Options{Rate: 100, Concurrency: 4, Duration: 300 * time.Millisecond, NewRequest: requests(srv.URL)})
	checkCounts(t, r)
	// Requests are due every 10 ms from the start, the last one at the end.
	if r.Sent > 31 {
		t.Errorf("%d requests in 300 ms at 100 a second, want at most 31", r.Sent)
	}
}
