// Package openai is the ticket engine's adapter for any OpenAI-compatible
// chat-completions server (OpenAI, vLLM, Ollama, llama.cpp server, LM
// Studio), through the official openai-go SDK with a JSON Schema
// response_format (strict where the server supports it).
package openai

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/llm"
)

// Config configures the connection and the model. BaseURL is the
// server's API, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
// for Ollama; empty means OpenAI. MaxTokens is sent as max_tokens, which
// every compatible server understands; 0 means llm.DefaultAnswerTokens.
type Config = llm.ProviderConfig

// Model talks to one model. It implements llm.Model.
type Model struct {
	client sdk.Client
	cfg    Config
}

// New returns a Model; it fails without a model name. Its responses are
// read up to llm.ResponseLimit of its MaxTokens, no further.
func New(cfg Config) (*Model, error) {
	cfg, err := cfg.WithDefaults("openai", "FORESIGHT_OPENAI_MODEL")
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

// Complete sends the conversation with the schema as response_format.
func (m *Model) Complete(ctx context.Context, c llm.Conversation) (llm.Answer, error) {
	msgs := []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(c.System)}
	for _, msg := range c.Messages {
		if msg.Role == llm.RoleAssistant {
			msgs = append(msgs, sdk.AssistantMessage(msg.Content))
		} else {
			msgs = append(msgs, sdk.UserMessage(msg.Content))
		}
	}
	resp, err := m.client.Chat.Completions.New(ctx, sdk.ChatCompletionNewParams{
		Model:       m.cfg.Model,
		Messages:    msgs,
		Temperature: sdk.Float(m.cfg.Temperature),
		MaxTokens:   sdk.Int(m.cfg.MaxTokens),
		ResponseFormat: sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: c.SchemaName, Schema: c.Schema, Strict: sdk.Bool(true)},
		}},
	})
	if err != nil {
		return llm.Answer{}, providerError(ctx, err)
	}
	if len(resp.Choices) == 0 {
		return llm.Answer{}, &tickets.Error{Code: tickets.CodeModelOutputInvalid, Message: "The model server answered without a choice."}
	}
	choice := resp.Choices[0]
	a := llm.Answer{Text: choice.Message.Content, Model: resp.Model, FinishReason: choice.FinishReason,
		Truncated: choice.FinishReason == "length"}
	if a.Model == "" {
		a.Model = m.cfg.Model
	}
	if resp.JSON.Usage.Valid() {
		p, c := resp.Usage.PromptTokens, resp.Usage.CompletionTokens
		a.PromptTokens, a.CompletionTokens = &p, &c
	}
	if choice.Message.Refusal != "" && a.Text == "" {
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
		return llm.ProviderError(ctx, "model server", apiErr.StatusCode, fmt.Errorf("openai: HTTP %d %s", apiErr.StatusCode, apiErr.Type))
	}
	return llm.CallError(ctx, "model server", err)
}
