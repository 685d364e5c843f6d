// Package tickets is the ticket generation service's domain: jobs, their
// statuses and stages, the validation of a submitted spec and of the result
// an engine returns, API keys and clients, callbacks, and the runner that
// takes a claimed job through an Engine. It declares the interfaces its
// parts implement: Engine (heuristic, and llm with its openai and anthropic
// adapters), Store (internal/sqlite, internal/postgres), CallbackSender
// (internal/webhook) and CallbackWaker (internal/jobqueue). HTTP lives in
// tickethttp. The rules live here.
package tickets
