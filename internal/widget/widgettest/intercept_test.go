package widgettest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// seen is a request of the page as the interceptor saw it.
type seen struct {
	Method, URL, Key string // Key: the Idempotency-Key header
	Token            string // the bearer token of the Authorization header
	Stage            string // "request" or "response"
	Status           int64  // at the response stage
}

// path is the request's path and query after the host.
func (s seen) path() string {
	if i := strings.Index(s.URL, "/api/"); i >= 0 {
		return s.URL[i:]
	}
	return s.URL
}

// verdict is what happens to a paused request: it waits for wait (when
// set), then fails as a lost connection, is answered with status and body
// without reaching the server (at the request stage) or instead of the
// server's answer (at the response stage), or goes on unchanged.
type verdict struct {
	wait   <-chan struct{}
	fail   bool
	status int64
	body   string
}

// interceptor pauses the tab's requests to the bettor API (the Fetch
// domain), records them in order, and lets decide choose each one's fate.
// Its goroutines belong to the tab: they end with its context.
type interceptor struct {
	mu     sync.Mutex
	log    []seen
	decide func(s seen) verdict
}

// intercept starts intercepting the requests to /api/v1/ of the tab; the
// requests to the bettor's bets (POST) are also paused at the response
// stage, so that a test can lose an answer the server gave.
func (tb *tab) intercept(decide func(s seen) verdict) *interceptor {
	tb.T.Helper()
	ic := &interceptor{decide: decide}
	var wg sync.WaitGroup
	ctx, stop := context.WithCancel(tb.Ctx)
	events := chromedp.Events(ctx, fetch.RequestPaused)
	tb.T.Cleanup(func() {
		stop()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ev, err := range events {
			if err != nil {
				return
			}
			s := seen{Method: ev.Request.Method, URL: ev.Request.URL, Stage: "request"}
			if ev.ResponseStatusCode != 0 || ev.ResponseErrorReason != "" {
				s.Stage, s.Status = "response", ev.ResponseStatusCode
			}
			for k, v := range ev.Request.Headers {
				if strings.EqualFold(k, "Idempotency-Key") {
					s.Key = fmt.Sprint(v)
				}
				if strings.EqualFold(k, "Authorization") {
					s.Token = strings.TrimPrefix(fmt.Sprint(v), "Bearer ")
				}
			}
			ic.mu.Lock()
			ic.log = append(ic.log, s)
			ic.mu.Unlock()
			v := verdict{}
			if ic.decide != nil {
				v = ic.decide(s)
			}
			wg.Add(1)
			go func(id fetch.RequestID, stage string) {
				defer wg.Done()
				if v.wait != nil {
					select {
					case <-v.wait:
					case <-ctx.Done():
						return
					}
				}
				switch {
				case v.fail:
					chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonConnectionReset})
				case v.status != 0:
					chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: id, ResponseCode: v.status,
						ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/problem+json"}}, Body: []byte(v.body)})
				case stage == "response":
					chromedp.Call(ctx, fetch.ContinueResponse, fetch.ContinueResponseParams{RequestID: id})
				default:
					chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
				}
			}(ev.RequestID, s.Stage)
		}
	}()
	_, err := chromedp.Call(tb.Ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "*/api/v1/*", RequestStage: fetch.RequestStageRequest},
		{URLPattern: "*/api/v1/bettor/bets", RequestStage: fetch.RequestStageResponse},
	}})
	if err != nil {
		tb.T.Fatalf("Fetch.enable: %v", err)
	}
	return ic
}

// requests returns the requests seen so far whose method and path (from
// /api/) start as given ("" matches all).
func (ic *interceptor) requests(method, pathPrefix string) []seen {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	var out []seen
	for _, s := range ic.log {
		if (method == "" || s.Method == method) && strings.HasPrefix(s.path(), pathPrefix) {
			out = append(out, s)
		}
	}
	return out
}

// all returns every request seen, in order.
func (ic *interceptor) all() []seen {
	return ic.requests("", "")
}
