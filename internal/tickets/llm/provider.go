package llm

import (
	"context"
	"fmt"
	"net/http"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// ProviderConfig configures a model adapter (openai, anthropic): the
// connection to the provider's API and the model.
type ProviderConfig struct {
	// BaseURL of the provider's API; empty means the provider's own.
	BaseURL string
	APIKey  string
	Model   string
	// Temperature; 0 asks for the most deterministic answer.
	Temperature float64
	// MaxTokens bounds the answer; 0 means DefaultAnswerTokens.
	MaxTokens int64
	// MaxRetries of the provider's SDK on connection errors, 408, 409, 429
	// and 5xx.
	MaxRetries int
	// HTTPClient, when set, replaces the SDK's default client.
	HTTPClient *http.Client
}

// WithDefaults returns c with MaxTokens defaulted to DefaultAnswerTokens.
// Without a model name it fails, naming the engine and modelSetting, the
// setting that names the model.
func (c ProviderConfig) WithDefaults(engine, modelSetting string) (ProviderConfig, error) {
	if c.Model == "" {
		return c, fmt.Errorf("%s engine: a model name is required (%s)", engine, modelSetting)
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultAnswerTokens
	}
	return c, nil
}

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
