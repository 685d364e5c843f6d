package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// MinResponseBytes is the least response limit, whatever the token limit:
// 8 MiB, over a hundred times the longest answer of DefaultAnswerTokens
// at about 4 bytes a token of JSON text, and room for 131,072 tokens at
// ResponseBytesPerToken.
const MinResponseBytes = 8 << 20

// ResponseBytesPerToken is the room a response gets for each token of its
// answer limit: 64 bytes, ten times a token's 4 to 6 bytes once JSON
// escapes it, which also covers the response's envelope (ids, usage).
const ResponseBytesPerToken = 64

// ResponseLimit is the most bytes of one response the adapters read from a
// provider whose answers have at most maxTokens tokens:
// ResponseBytesPerToken for each token, and at least MinResponseBytes.
func ResponseLimit(maxTokens int64) int64 {
	if maxTokens > math.MaxInt64/ResponseBytesPerToken {
		return math.MaxInt64
	}
	return max(MinResponseBytes, maxTokens*ResponseBytesPerToken)
}

// ResponseTooLargeError is the error of reading a response body beyond its
// limit.
type ResponseTooLargeError struct {
	// Limit is the most bytes the body could have.
	Limit int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("the response body is larger than %d bytes", e.Limit)
}

// Middleware is a request middleware of the providers' SDKs: both
// option.Middleware of openai-go and of anthropic-sdk-go are this type. It
// gets the request and the rest of the chain, and returns the response.
type Middleware = func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// LimitResponseBody returns a Middleware whose responses' bodies, error
// answers' included, fail with a *ResponseTooLargeError once more than
// limit bytes are read. The SDKs read a body whole before decoding it: a
// limit that cut the body short instead could pass a valid prefix off as
// the whole answer, and no limit at all lets a provider, or whatever the
// base URL points at, fill the memory.
func LimitResponseBody(limit int64) Middleware {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(req)
		if err == nil && res != nil && res.Body != nil {
			res.Body = &limitedBody{ReadCloser: res.Body, left: limit, limit: limit}
		}
		return res, err
	}
}

// limitedBody is a response body that fails once more than limit bytes
// are read; left is what may still be read.
type limitedBody struct {
	io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &ResponseTooLargeError{Limit: b.limit}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed tells a body over the limit from one at it
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), &ResponseTooLargeError{Limit: b.limit}
	}
	return n, err
}

// CallError is the error a Model returns when a call to its provider got
// no HTTP error status: err is the SDK's error. A response beyond its
// limit is engine_unavailable saying so (a provider answering more than
// any answer needs is at fault, as one answering 5xx is), as is an answer
// that is not the API's (not its JSON); a failed exchange is ProviderError
// of a provider that cannot be reached, caused by what err wraps. When ctx has ended it is the context's error.
func CallError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var tooLarge *ResponseTooLargeError
	if errors.As(err, &tooLarge) {
		return &tickets.Error{Code: tickets.CodeEngineUnavailable, Err: tooLarge,
			Message: fmt.Sprintf("The %s's answer is larger than %d MiB, more than any answer within the token limit needs.", what, tooLarge.Limit>>20)}
	}
	if !unreachable(err) {
		return &tickets.Error{Code: tickets.CodeEngineUnavailable, Err: errors.Unwrap(err),
			Message: fmt.Sprintf("The %s answered, but not the API's answer (check the base URL: a proxy or a login page may answer in its place).", what)}
	}
	return ProviderError(ctx, what, 0, errors.Unwrap(err))
}

// unreachable reports whether err is a failure to exchange with the
// provider (a connection refused, reset or cut short, a name that does not
// resolve), as opposed to an answer that could not be read.
func unreachable(err error) bool {
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
