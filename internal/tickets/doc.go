// Package tickets is the ticket generation service's domain: jobs, their
// statuses and stages, the validation of a submitted spec and of the result
// an engine returns, API keys and clients, callbacks, and the runner that
// takes a claimed job through an Engine. The engines (heuristic, and llm
// with its openai and anthropic adapters) and HTTP (tickethttp) live in
// subpackages; the stores (internal/sqlite, internal/postgres) and the job
// queue (internal/jobqueue) implement the interfaces declared here (Store,
// Engine, CallbackSender, CallbackWaker). The rules live here.
package tickets
