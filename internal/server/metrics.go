package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/ratelimit"
)

// registerStreamMetrics registers the odds streams' counts, read from
// the hub that feeds them: the streams open and the streams dropped for
// falling behind.
func registerStreamMetrics(reg prometheus.Registerer, hub *betting.Hub) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "foresight_odds_streams", Help: "Odds streams open on this process.",
		}, func() float64 { return float64(hub.Subscribers()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "foresight_odds_stream_drops_total",
			Help: "Odds streams this process ended because their client fell too many changes behind (the client reconnects).",
		}, func() float64 { return float64(hub.Dropped()) }),
	)
}

// httpMetrics counts requests and their durations per API and status.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "foresight_http_requests_total", Help: "HTTP requests by API, method and status.",
		}, []string{"api", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "foresight_http_request_duration_seconds", Help: "HTTP request durations by API.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"api"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (m *httpMetrics) wrap(api string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		m.duration.WithLabelValues(api).Observe(time.Since(start).Seconds())
		status := rec.status
		if status == 0 { // nothing written: net/http answers 200
			status = http.StatusOK
		}
		m.requests.WithLabelValues(api, methodLabel(r.Method), strconv.Itoa(status)).Inc()
	})
}

// methodLabel is the method label of a request: one of the methods of
// RFC 9110 and PATCH as is, "other" for any other. The method is chosen by
// the client, so taking it as is would let anyone add series without end.
// (The status is bounded already: net/http accepts codes 100 to 999 only.)
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// metricsAccess serves next to requests whose bearer token is one of
// tokens (compared over SHA-256 hashes in constant time, every one of them,
// so that neither which token nor its length leaks); any other request is
// 401. Wrong or missing tokens count against the client address's budget
// in failures; once the address has used it up they are 429 with
// Retry-After instead. A right token is served whatever the budget.
func metricsAccess(tokens []string, failures *ratelimit.FailureGuard, next http.Handler) http.Handler {
	hashes := make([][32]byte, 0, len(tokens))
	for _, t := range tokens {
		if t != "" {
			hashes = append(hashes, sha256.Sum256([]byte(t)))
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
		match := 0
		for _, h := range hashes {
			match |= subtle.ConstantTimeCompare(sum[:], h[:])
		}
		if match != 1 || !strings.EqualFold(scheme, "Bearer") {
			if refused, wait := failures.Failed(r); refused {
				httpjson.SetRetryAfter(w, wait)
				http.Error(w, "Too many wrong tokens from this address; retry after the time in Retry-After.", http.StatusTooManyRequests)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="foresight-metrics"`)
			http.Error(w, "The metrics token (or the admin token) is required: Authorization: Bearer <token>.", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
