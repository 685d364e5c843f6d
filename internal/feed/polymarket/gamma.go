package polymarket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// errNotFound is a 404 answer.
var errNotFound = errors.New("not found")

// StatusError is an HTTP answer other than 200 (and other than the 404 of
// a tracked event).
type StatusError struct {
	// Method and Path are the request's ("GET", "/events/26359"), without
	// the query.
	Method, Path string
	// Status is the HTTP status code.
	Status int
	// Body is the start of the answer's body (at most 200 bytes).
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("polymarket: %s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Body)
}

// transportError is a request that got no complete answer: a connection,
// TLS or timeout error, or a body cut short.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// retryable reports whether a request that failed with err is tried again:
// HTTP 429, HTTP 5xx and transport errors.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status == http.StatusTooManyRequests || se.Status >= 500
	}
	var te *transportError
	return errors.As(err, &te)
}

// get GETs path with q and returns the 200 answer's body. A 404 is
// errNotFound. It waits for the rate limiter before every attempt and
// retries as the package doc says.
func (s *Source) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	target := s.base + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	for attempt := 1; ; attempt++ {
		if err := s.limiter.Wait(ctx); err != nil {
			return nil, fmt.Errorf("polymarket: GET %s: %w", path, ctxErr(ctx, err))
		}
		body, retryAfter, err := s.do(ctx, path, target)
		if err == nil || !retryable(err) {
			return body, err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("polymarket: GET %s: %w", path, ctx.Err())
		}
		if attempt >= s.maxAttempts {
			return nil, fmt.Errorf("polymarket: GET %s: giving up after %d attempts: %w", path, attempt, err)
		}
		wait := s.backoffFor(attempt)
		if retryAfter >= 0 {
			if retryAfter > s.maxRetryAfter {
				return nil, fmt.Errorf("polymarket: GET %s: Retry-After %s is longer than %s: %w", path, retryAfter, s.maxRetryAfter, err)
			}
			wait = max(wait, retryAfter)
		}
		s.log.Warn("polymarket: request failed; retrying", "path", path, "attempt", attempt, "wait", wait, "err", err)
		if err := s.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("polymarket: GET %s: %w", path, ctxErr(ctx, err))
		}
	}
}

// do sends one request, for at most the request timeout. retryAfter is
// the answer's Retry-After, or -1.
func (s *Source) do(ctx context.Context, path, target string) (body []byte, retryAfter time.Duration, err error) {
	attemptCtx, cancel := context.WithTimeout(ctx, s.requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(attemptCtx, http.MethodGet, target, nil)
	if err != nil {
		return nil, -1, fmt.Errorf("polymarket: GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, fmt.Errorf("polymarket: GET %s: %w", path, ctx.Err())
		}
		return nil, -1, &transportError{fmt.Errorf("polymarket: GET %s: %w", path, err)}
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, s.maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, fmt.Errorf("polymarket: GET %s: %w", path, ctx.Err())
		}
		return nil, -1, &transportError{fmt.Errorf("polymarket: GET %s: reading the body: %w", path, err)}
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		if int64(len(body)) > s.maxBody {
			return nil, -1, fmt.Errorf("polymarket: GET %s: the body is larger than %d bytes: %w", path, s.maxBody, errTooLarge)
		}
		return body, -1, nil
	case resp.StatusCode == http.StatusNotFound && strings.HasPrefix(path, "/events/"):
		return nil, -1, errNotFound
	}
	snippet := strings.ToValidUTF8(string(body[:min(len(body), 200)]), "?")
	return nil, s.retryAfter(resp.Header.Get("Retry-After")),
		&StatusError{Method: http.MethodGet, Path: path, Status: resp.StatusCode, Body: snippet}
}

// errTooLarge is a body above Config.MaxBodyBytes; it is not retried.
var errTooLarge = errors.New("response too large")

// retryAfter reads a Retry-After value: seconds or an HTTP date; -1 when
// absent or unreadable, 0 for a date in the past.
func (s *Source) retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return -1
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(s.now()), 0)
	}
	return -1
}

// backoffFor is the wait after the failed attempt n (1-based) when the
// answer gave no Retry-After: Backoff × 2^(n−1), at most MaxBackoff.
func (s *Source) backoffFor(n int) time.Duration {
	d := s.backoff
	for i := 1; i < n && d < s.maxBackoff; i++ {
		d *= 2
	}
	return min(d, s.maxBackoff)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ctxErr prefers ctx's own error to the limiter's or the sleep's
// description of it.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
