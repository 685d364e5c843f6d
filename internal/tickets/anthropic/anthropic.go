// Package anthropic is the ticket engine's adapter for the Anthropic
// Messages API, through the official anthropic-sdk-go with structured
// output (output_config.format json_schema).
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/foresight-dev/foresight/internal/tickets/llm"
)

// Config configures the connection and the model. An empty BaseURL means
// Anthropic's API; MaxTokens is required by the API, and 0 means
// llm.DefaultAnswerTokens.
type Config = llm.ProviderConfig

// Model talks to one Claude model. It implements llm.Model.
type Model struct {
	client sdk.Client
	cfg    Config
}

// New returns a Model; it fails without a model name. Its responses are
// read up to llm.ResponseLimit of its MaxTokens, no further.
func New(cfg Config) (*Model, error) {
	cfg, err := cfg.WithDefaults("anthropic", "FORESIGHT_ANTHROPIC_MODEL")
	if err != nil {
		return nil, err
	}
	opts := []option.RequestOption{option.WithMaxRetries(cfg.MaxRetries), option.WithAPIKey(cfg.APIKey),
		option.WithMiddleware(llm.LimitResponseBody(llm.ResponseLimit(cfg.MaxTokens)))}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Model{client: sdk.NewClient(opts...), cfg: cfg}, nil
}

// Complete sends the conversation with the schema as the output format.
func (m *Model) Complete(ctx context.Context, c llm.Conversation) (llm.Answer, error) {
	msgs := make([]sdk.MessageParam, 0, len(c.Messages))
	for _, msg := range c.Messages {
		block := sdk.NewTextBlock(msg.Content)
		if msg.Role == llm.RoleAssistant {
			msgs = append(msgs, sdk.NewAssistantMessage(block))
		} else {
			msgs = append(msgs, sdk.NewUserMessage(block))
		}
	}
	resp, err := m.client.Messages.New(ctx, sdk.MessageNewParams{
		Model:        sdk.Model(m.cfg.Model),
		MaxTokens:    m.cfg.MaxTokens,
		Temperature:  sdk.Float(m.cfg.Temperature),
		System:       []sdk.TextBlockParam{{Text: c.System}},
		Messages:     msgs,
		OutputConfig: sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: c.Schema}},
	})
	if err != nil {
		return llm.Answer{}, providerError(ctx, err)
	}
	var text strings.Builder
	for _, block := range resp.Content {
		if block.Type == "text" {
			text.WriteString(block.Text)
		}
	}
	in, out := resp.Usage.InputTokens, resp.Usage.OutputTokens
	a := llm.Answer{Text: text.String(), Model: string(resp.Model), FinishReason: string(resp.StopReason),
		Truncated: resp.StopReason == sdk.StopReasonMaxTokens, PromptTokens: &in, CompletionTokens: &out}
	if a.Model == "" {
		a.Model = m.cfg.Model
	}
	if resp.StopReason == sdk.StopReasonRefusal {
		return llm.Answer{}, llm.RefusalError()
	}
	return a, nil
}

// providerError is llm.ProviderError for an SDK error with an HTTP
// status, llm.CallError for any other (unreachable, or an answer beyond
// the response limit).
func providerError(ctx context.Context, err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return llm.ProviderError(ctx, "model API", apiErr.StatusCode, fmt.Errorf("anthropic: HTTP %d", apiErr.StatusCode))
	}
	return llm.CallError(ctx, "model API", err)
}
