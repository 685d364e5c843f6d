package demo

import (
	"encoding/json"
	"io"
	"path/filepath"
	"text/template"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

// Banner is what the demo prints once it runs: every URL and credential,
// and the commands to try.
type Banner struct {
	Platform, Database, AdminToken, Self, CredentialsFile string
	Operator, Casino, Sportsbook                          string
	OperatorID, AggregatorID, CasinoID                    string
	OperatorSecret, CasinoSecret, OperatorKey             string
	TicketClientID, TicketWebhookSecret, TicketKey        string
	TicketJob                                             string // the JSON body of the printed ticket job
}

// NewBanner is the banner of the platform at platformURL with its database
// and admin token, the demo's credentials file in dir, and the partners at
// operatorURL, casinoURL and sportsbookURL, before the set-up issues their
// secrets. self is how to run this program again (its commands).
func NewBanner(platformURL, database, adminToken, self, dir, operatorURL, casinoURL, sportsbookURL string) Banner {
	return Banner{Platform: platformURL, Database: database, AdminToken: adminToken, Self: self,
		Operator: operatorURL, Casino: casinoURL, Sportsbook: sportsbookURL, CredentialsFile: filepath.Join(dir, CredentialsFile),
		OperatorID: OperatorID, AggregatorID: AggregatorID, CasinoID: CasinoID, TicketJob: ticketJob()}
}

// AddSecrets completes b with the sandboxes' signing secrets and the
// credentials the set-up issued.
func (b *Banner) AddSecrets(opSite *operator.Site, casinoSite *casino.Site, creds Credentials) {
	b.OperatorSecret, b.CasinoSecret = opSite.Operator().SigningSecret(), casinoSite.Casino().SigningSecret()
	b.OperatorKey, b.TicketClientID, b.TicketWebhookSecret, b.TicketKey = creds.OperatorKey, creds.TicketClientID, creds.TicketWebhookSecret, creds.TicketKey
}

// Write prints b to w.
func (b Banner) Write(w io.Writer) error { return bannerTemplate.Execute(w, b) }

var bannerTemplate = template.Must(template.New("banner").Parse(`Foresight demo is running.

  Operator host page  {{.Operator}}/sandbox/host     (a bettor in the widget, standalone path)
  Casino lobby        {{.Casino}}/sandbox/lobby    (the game through an aggregator)
  Sportsbook          {{.Sportsbook}}/sandbox/host     (a bundled operator: balances in the platform's ledger)
  Sandbox ledgers     {{.Operator}}/sandbox/ledger  {{.Casino}}/sandbox/ledger
  Backoffice          {{.Platform}}/backoffice/   (sign in with the admin token, or the operator key)
  API base URL        {{.Platform}}
  API documents       {{.Platform}}/openapi/bettor.yaml  {{.Platform}}/openapi/admin.yaml  {{.Platform}}/openapi/aggregator.yaml  {{.Platform}}/openapi/tickets.yaml
  Admin token         {{.AdminToken}}   (Authorization: Bearer … on {{.Platform}}/admin/v1)
  Operator key        {{.OperatorKey}}   (the demo operator's staff: its bets, exposure and settings only)
  Ticket client       {{.TicketClientID}}   webhook secret {{.TicketWebhookSecret}}
  Ticket API key      {{.TicketKey}}   (scopes tickets:submit tickets:read tickets:cancel)
  Database            {{.Database}}
  Health, metrics     {{.Platform}}/healthz  {{.Platform}}/metrics   (metrics: Authorization: Bearer <admin token>)

The sandbox partners, as registered on the platform:

  Standalone operator  id {{.OperatorID}}   signing secret {{.OperatorSecret}}
                       (X-Payload-Signature of the platform's calls to {{.Operator}}/v1/…)
  Aggregator           id {{.AggregatorID}}   casino_id {{.CasinoID}}   shared secret {{.CasinoSecret}}
                       (X-REQUEST-SIGN of launches at {{.Platform}}/v2/agg_provider.Launcher/Real and of the wallet calls)

The catalog comes from the simulator: new events every minute, markets that resolve and pay out
on their own. Conformance checks of the sandbox partners' wallets:

  {{.Self}} conformance operator-wallet --url {{.Operator}} --secret {{.OperatorSecret}} --bettor conformance-bettor
  {{.Self}} conformance aggregator-wallet --url {{.Casino}} --secret {{.CasinoSecret}} --account conformance-account

Submit a spec to the ticket service (a small product spec in Markdown, in the body's "spec"),
then read the tickets at the result_url of its answer once the job is completed:

  curl -s -X POST {{.Platform}}/tickets/v1/jobs \
    -H 'Authorization: Bearer {{.TicketKey}}' -H 'Content-Type: application/json' \
    -d '{{.TicketJob}}'
  curl -s -H 'Authorization: Bearer {{.TicketKey}}' {{.Platform}}/tickets/v1/jobs/<job_id>/result

The credentials are kept in {{.CredentialsFile}}, the sandboxes' signing secrets in their
databases, and stay the same when the demo starts again in this directory; delete that file to
have new keys and tokens.

Press Ctrl-C to stop.
`))

// ticketSpec is the spec of the ticket job the demo prints: small, with
// user stories, requirements, an acceptance criterion and an open
// question, so that one job shows several kinds of tickets (stories,
// tasks, a spike, a risk). It holds no single quote (ticketJob).
const ticketSpec = `# Password reset

Users who forgot their password reset it themselves by email, without calling support.

## User stories
1. As a user who forgot my password, I want a reset link by email so that I can sign in again.
2. As a security officer, I want a reset to sign the user out everywhere else so that a stolen session stops working.

## Requirements
- Users must request a reset link with the email address of their account.
- The link must expire after 30 minutes and work only once.
- The new password must be at least 12 characters long.
- The system must send no email to an address without an account, and answer the same way.

## Acceptance criteria
- The system must offer a new link when an expired or used link is opened.

## Open questions
- Is a locked account unlocked by a reset?
`

// ticketJob is the JSON body of the ticket job the demo prints, on one
// line and without a single quote (it is printed inside '…').
func ticketJob() string {
	b, _ := json.Marshal(struct {
		SchemaVersion  string `json:"schema_version"`
		IdempotencyKey string `json:"idempotency_key"`
		Title          string `json:"title"`
		Spec           string `json:"spec"`
	}{"tickets.input.v1", "demo-password-reset", "Password reset", ticketSpec})
	return string(b)
}
