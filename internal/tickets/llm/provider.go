package llm

import (
	"context"
	"fmt"
	"net/http"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// RefusalError is the error a Model returns when the model declines to
// answer: model_output_invalid, as an answer that is no result.
func RefusalError() error {
	return &tickets.Error{Code: tickets.CodeModelOutputInvalid, Message: "The model refused to answer."}
}

// ProviderError is the error a Model returns when a call to its provider
// fails, with none of the provider's own message, which may quote the API
// key. When ctx has ended it is the context's error, for the engine to
// classify. Otherwise it is a *tickets.Error with engine_unavailable whose
// message says what the HTTP status means, naming the provider as what
// ("model API", "model server"); status 0 means the provider could not be
// reached. cause becomes the error's cause.
func ProviderError(ctx context.Context, what string, status int, cause error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var msg string
	switch status {
	case 0:
		msg = fmt.Sprintf("The %s cannot be reached.", what)
	case http.StatusUnauthorized, http.StatusForbidden:
		msg = fmt.Sprintf("The %s refused Foresight's API key (HTTP %d).", what, status)
	case http.StatusNotFound:
		msg = fmt.Sprintf("The %s does not know the configured model or path (HTTP 404).", what)
	case http.StatusTooManyRequests, 529: // 529: Anthropic's "overloaded"
		msg = fmt.Sprintf("The %s is overloaded or rate limiting Foresight (HTTP %d).", what, status)
	default:
		msg = fmt.Sprintf("The %s answered HTTP %d.", what, status)
	}
	return &tickets.Error{Code: tickets.CodeEngineUnavailable, Message: msg, Err: cause}
}
