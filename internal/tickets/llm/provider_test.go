package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/llm"
)

func TestProviderError(t *testing.T) {
	t.Parallel()
	cause := errors.New("HTTP 401 with sk-SECRET")
	for _, tt := range []struct {
		status int
		want   string
	}{
		{0, "The model API cannot be reached."},
		{401, "The model API refused Foresight's API key (HTTP 401)."},
		{403, "The model API refused Foresight's API key (HTTP 403)."},
		{404, "The model API does not know the configured model or path (HTTP 404)."},
		{429, "The model API is overloaded or rate limiting Foresight (HTTP 429)."},
		{529, "The model API is overloaded or rate limiting Foresight (HTTP 529)."},
		{500, "The model API answered HTTP 500."},
	} {
		err := llm.ProviderError(context.Background(), "model API", tt.status, cause)
		if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable || tickets.ErrorMessage(err) != tt.want || !errors.Is(err, cause) {
			t.Errorf("%d: %v (%q), want engine_unavailable %q caused by the SDK's error", tt.status, err, tickets.ErrorMessage(err), tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := llm.ProviderError(ctx, "model API", 500, cause); err != context.Canceled {
		t.Errorf("ended context: %v, want context.Canceled", err)
	}
}

func TestProviderConfigWithDefaults(t *testing.T) {
	t.Parallel()
	c, err := llm.ProviderConfig{Model: "m"}.WithDefaults("openai", "FORESIGHT_OPENAI_MODEL")
	if err != nil || c.MaxTokens != llm.DefaultAnswerTokens || c.Model != "m" {
		t.Errorf("defaults = %+v, %v; want MaxTokens %d", c, err, llm.DefaultAnswerTokens)
	}
	if c, _ := (llm.ProviderConfig{Model: "m", MaxTokens: 100}).WithDefaults("openai", "FORESIGHT_OPENAI_MODEL"); c.MaxTokens != 100 {
		t.Errorf("MaxTokens 100 became %d", c.MaxTokens)
	}
	_, err = llm.ProviderConfig{}.WithDefaults("anthropic", "FORESIGHT_ANTHROPIC_MODEL")
	if err == nil || err.Error() != "anthropic engine: a model name is required (FORESIGHT_ANTHROPIC_MODEL)" {
		t.Errorf("no model: %v", err)
	}
}
