// Package api holds the OpenAPI 3.1 documents of Foresight's HTTP APIs:
// tickets.yaml (the ticket API), admin.yaml (the admin API) and bettor.yaml
// (the bettor API, /api/v1).
//
// The documents are the machine-readable form of the contracts in the specs
// and the project guide. They are served by the service and used by tests to
// validate real HTTP exchanges (see internal/openapitest).
package api

import "embed"

// Documents holds the OpenAPI 3.1.0 documents, by file name:
//
//   - tickets.yaml: the ticket generation API (/tickets/v1 and the
//     /v1/task-generation compatibility alias).
//   - admin.yaml: the admin API (/admin/v1): ticket clients and keys, operators, events and markets.
//   - bettor.yaml: the bettor API (/api/v1): events, bet placement, bets and
//     history, portfolio, profile and the odds stream.
//   - aggregator.yaml: the aggregator's calls (/v2/agg_provider.*), the
//     session exchange (POST /api/v1/sessions) and the platform's JWKS.
//
//go:embed tickets.yaml admin.yaml bettor.yaml aggregator.yaml
var Documents embed.FS
