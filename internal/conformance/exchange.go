package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// DefaultTimeout bounds one request (connect, send, answer and body) when
// the Client's timeout is zero.
const DefaultTimeout = 10 * time.Second

// MaxAnswerBody is how much of an answer's body is read (1 MiB).
const MaxAnswerBody = 1 << 20

// Request is an HTTP request exactly as the checker sends it.
type Request struct {
	// Method is the HTTP method.
	Method string
	// URL is the absolute URL.
	URL string
	// Header holds every header sent (Content-Type, signatures).
	Header http.Header
	// Body is the raw body; the signature, when there is one, covers these
	// bytes.
	Body []byte
}

// Response is an answer as received.
type Response struct {
	// Status is the HTTP status; 0 when no answer arrived.
	Status int
	// Header holds the answer's headers.
	Header http.Header
	// Body is the answer's body, at most MaxAnswerBody bytes.
	Body []byte
	// Err is why no (complete) answer arrived: a connection error, a
	// time-out, a body cut short. Nil for a complete answer.
	Err error
}

// Exchange is one request of a check and its answer.
type Exchange struct {
	// Seq numbers the exchanges of a run from 1, in the order they were
	// sent.
	Seq int
	// Check is the name of the check that sent the request.
	Check string
	// Step says what the request was for ("withdrawal with a wrong
	// signature").
	Step string
	// Request is what was sent.
	Request Request
	// Response is what came back.
	Response Response
}

// Path returns the path of the request's URL, for short listings.
func (e Exchange) Path() string {
	u, err := url.Parse(e.Request.URL)
	if err != nil || u.Path == "" {
		return e.Request.URL
	}
	return u.EscapedPath()
}

// Answered reports whether a complete answer arrived.
func (e Exchange) Answered() bool { return e.Response.Status != 0 && e.Response.Err == nil }

// Outcome is a short form of the answer: "200", "401", "no answer: …".
func (e Exchange) Outcome() string {
	switch {
	case e.Response.Status == 0 && e.Response.Err != nil:
		return "no answer: " + e.Response.Err.Error()
	case e.Response.Err != nil:
		return fmt.Sprintf("%d (body cut short: %v)", e.Response.Status, e.Response.Err)
	}
	return fmt.Sprint(e.Response.Status)
}

// Client sends the checker's requests as built: it adds no header, follows
// no redirect and reads at most MaxAnswerBody bytes of an answer. It is
// safe for concurrent use.
type Client struct {
	hc      *http.Client
	timeout time.Duration
}

// NewClient returns a Client that sends with hc (nil: a client of its own)
// and bounds each request by timeout (zero: DefaultTimeout). Redirects are
// never followed: a redirect is an answer like any other.
func NewClient(hc *http.Client, timeout time.Duration) *Client {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{hc: &c, timeout: timeout}
}

// Timeout returns the bound of one request.
func (c *Client) Timeout() time.Duration { return c.timeout }

// Send makes one request. Every failure is in the Response (Status 0 and
// Err when no answer came).
func (c *Client) Send(ctx context.Context, req Request) Response {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return Response{Err: err}
	}
	for k, vs := range req.Header {
		hr.Header[k] = append([]string(nil), vs...)
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		// An empty value tells net/http to send no User-Agent of its own.
		hr.Header["User-Agent"] = []string{""}
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		return Response{Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBody+1))
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: body, Err: err}
	if len(body) > MaxAnswerBody {
		out.Body, out.Err = body[:MaxAnswerBody], errors.New("the answer is longer than 1 MiB")
	}
	return out
}
