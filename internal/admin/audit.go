package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/requestid"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// auditWriteTimeout bounds the write of an audit entry. The write does not
// end with the request: a client that hangs up once its action is done
// does not take the action's entry with it.
const auditWriteTimeout = 10 * time.Second

// actor is the principal as the audit trail names it.
func (p principal) actor() audit.Actor {
	if p.admin() {
		return audit.Actor{Kind: audit.ActorAdmin, Name: p.name}
	}
	return audit.Actor{Kind: audit.ActorOperatorCredential, Name: p.name, CredentialID: p.credentialID, OperatorID: p.operatorID}
}

// record writes the audit entry of an action that succeeded, with the
// request's caller, client address and request id. It is called after the
// action, never before: a refused request records nothing. An entry whose
// before and after states are the same is not written (the request changed
// nothing: a replay). A failed write cannot undo the action, so it is
// logged with the whole entry (which holds no secret) for someone to add
// by hand, and the caller still gets the action's answer
// (docs/decisions.md, "Audit trail").
func (h *handler) record(r *http.Request, e audit.Entry) {
	if h.audit == nil {
		return
	}
	if e.Before != nil && bytes.Equal(e.Before, e.After) {
		return
	}
	e.Actor = principalOf(r).actor()
	e.ClientAddress = h.proxies.Of(r)
	e.RequestID = requestid.FromContext(r.Context())
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), auditWriteTimeout)
	defer cancel()
	if _, err := h.audit.Record(ctx, e); err != nil {
		h.log.ErrorContext(ctx, "audit entry not written", requestid.Attr(ctx), "err", err,
			"action", e.Action, "target_kind", e.TargetKind, "target_id", e.TargetID, "operator_id", e.OperatorID,
			"actor", e.Actor, "client_address", e.ClientAddress, "before", string(e.Before), "after", string(e.After))
	}
}

// marketState is what the audit trail keeps of a market.
type marketState struct {
	EventID          string               `json:"event_id"`
	Status           betting.MarketStatus `json:"status"`
	WinningOutcomeID string               `json:"winning_outcome_id,omitempty"`
	Outcomes         []outcomeState       `json:"outcomes"`
}

type outcomeState struct {
	ID          string          `json:"id"`
	Probability decimal.Decimal `json:"probability"`
}

// marketAudit returns the state of the market marketID in e, null when e
// has no such market.
func marketAudit(e betting.Event, marketID string) json.RawMessage {
	m, ok := e.Market(marketID)
	if !ok {
		return nil
	}
	s := marketState{EventID: e.ID, Status: m.Status, WinningOutcomeID: m.WinningOutcomeID, Outcomes: []outcomeState{}}
	for _, o := range m.Outcomes {
		s.Outcomes = append(s.Outcomes, outcomeState{ID: o.ID, Probability: o.Probability})
	}
	return audit.State(s)
}

// marketBefore reads the market's state right before an action on it; an
// unknown market is null (the action will answer 404 and record nothing).
// A concurrent change between this read and the action (the market feed
// repricing) shows in it.
func (h *handler) marketBefore(r *http.Request) json.RawMessage {
	e, err := h.betting.EventOfMarket(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil
	}
	return marketAudit(e, r.PathValue("id"))
}

// recordMarket records action on the market {id}, from before to e's
// state. key, when set, makes the entry once-only (a market is resolved
// or cancelled once).
func (h *handler) recordMarket(r *http.Request, action string, before json.RawMessage, e betting.Event, once bool) {
	id := r.PathValue("id")
	entry := audit.Entry{Action: action, TargetKind: audit.TargetMarket, TargetID: id, Before: before, After: marketAudit(e, id)}
	if once {
		entry.Key = action + ":" + id
	}
	h.record(r, entry)
}

// operatorAudit returns what the audit trail keeps of an operator: every
// field the admin API shows, and for the signing secret only the marker
// secret ("" for none) when it was set or changed.
func operatorAudit(o betting.Operator, secret string) json.RawMessage {
	b, _ := json.Marshal(publicOperator(o))
	var m map[string]any
	json.Unmarshal(b, &m)
	delete(m, "signing_secret")
	if secret != "" {
		m["signing_secret"] = secret
	}
	return audit.State(m)
}

func (h *handler) recordOperator(r *http.Request, action string, before json.RawMessage, o betting.Operator, secret string) {
	h.record(r, audit.Entry{Action: action, TargetKind: audit.TargetOperator, TargetID: o.ID, OperatorID: o.ID,
		Before: before, After: operatorAudit(o, secret)})
}

func credentialAudit(c betting.Credential) json.RawMessage {
	return audit.State(toCredentialJSON(c))
}

// credentialOf returns the operator's credential id, false when there is
// none (or the list fails: the action then answers for it).
func (h *handler) credentialOf(r *http.Request) (betting.Credential, bool) {
	return findByID(r.Context(), h.credentials.List, r.PathValue("op"), r.PathValue("id"), credentialID)
}

// clientAudit is what the audit trail keeps of a ticket client; its
// webhook secret only as the marker secret when not empty.
func clientAudit(c tickets.Client, secret string) json.RawMessage {
	m := map[string]any{"id": c.ID, "name": c.Name, "suspended": c.Suspended, "tickets_enabled": c.TicketsEnabled}
	if secret != "" {
		m["webhook_secret"] = secret
	}
	return audit.State(m)
}

// keyAudit is what the audit trail keeps of a ticket API key: never the
// key.
func keyAudit(k tickets.APIKey) json.RawMessage {
	j := toKeyJSON(k)
	return audit.State(map[string]any{"id": j.ID, "client_id": j.ClientID, "scopes": j.Scopes, "expires_at": j.ExpiresAt,
		"revoked_at": j.RevokedAt})
}

// keyOf returns the client's key {key_id}, false when there is none (or
// the list fails).
func (h *handler) keyOf(r *http.Request) (tickets.APIKey, bool) {
	return findByID(r.Context(), h.tickets.ListKeys, r.PathValue("id"), r.PathValue("key_id"), keyID)
}

// findByID returns the item whose id is want among those read returns
// for parent; false when there is none or read fails.
func findByID[T any](ctx context.Context, read func(ctx context.Context, parentID string) ([]T, error), parent, want string, id func(T) string) (T, bool) {
	var none T
	items, err := read(ctx, parent)
	if err != nil {
		return none, false
	}
	i := slices.IndexFunc(items, func(it T) bool { return id(it) == want })
	if i < 0 {
		return none, false
	}
	return items[i], true
}

// cashierAudit is a bettor's balance in a currency, before or after a
// cashier movement; the balance is left out when it could not be read.
type cashierAudit struct {
	Currency       string `json:"currency"`
	Balance        string `json:"balance,omitempty"`
	Amount         string `json:"amount,omitempty"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	Reference      string `json:"reference,omitempty"`
	TransferID     string `json:"transfer_id,omitempty"`
}

// recordCashier records a deposit (bettor.credited) or withdrawal
// (bettor.debited) with the bettor's balance before and after it, read
// from the transfer's own entry (not the balance now, which a later
// movement may have changed). The entry's key is the movement's: a replay
// of the request adds no entry, and writes it if the first attempt's
// write failed. The read, like the write, outlives the request (the
// movement is done whether or not the client still waits); when it fails
// the entry is written without the balances.
func (h *handler) recordCashier(r *http.Request, operatorID string, cur betting.Currency, bettorID string, t ledger.Transfer, key string) {
	accountID := ledger.AccountID(operatorID, cur.Code, ledger.Bettor(bettorID))
	action := audit.BettorCredited
	if t.DebitAccountID == accountID {
		action = audit.BettorDebited
	}
	d := cur.Decimals
	before := cashierAudit{Currency: cur.Code}
	after := cashierAudit{Currency: cur.Code, Amount: t.Amount.StringFixed(d), IdempotencyKey: key, Reference: t.Reference, TransferID: t.ID}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), auditWriteTimeout)
	defer cancel()
	if e, err := h.transferEntry(ctx, t.ID, accountID); err != nil {
		h.log.WarnContext(ctx, "audit entry written without balances", requestid.Attr(ctx), "err", err, "transfer_id", t.ID)
	} else {
		before.Balance, after.Balance = e.BalanceAfter.Sub(e.Amount).StringFixed(d), e.BalanceAfter.StringFixed(d)
	}
	h.record(r, audit.Entry{Action: action, TargetKind: audit.TargetBettor, TargetID: bettorID, OperatorID: operatorID,
		Key: cashierKeyPrefix + operatorID + ":" + key, Before: audit.State(before), After: audit.State(after)})
}

// transferEntry returns the entry of transfer transferID on accountID.
func (h *handler) transferEntry(ctx context.Context, transferID, accountID string) (ledger.Entry, error) {
	entries, err := h.ledger.Store().TransferEntries(ctx, transferID)
	if err != nil {
		return ledger.Entry{}, err
	}
	i := slices.IndexFunc(entries, func(e ledger.Entry) bool { return e.AccountID == accountID })
	if i < 0 {
		return ledger.Entry{}, errors.New("the transfer has no entry on the bettor's account")
	}
	return entries[i], nil
}

// AuditEntry is an entry of the audit trail as the admin API shows it.
type AuditEntry = audit.Entry

// listAudit answers the audit trail, newest first, filtered by
// operator_id, action, actor ("admin" or a credential id), target_kind,
// target_id, since and until (RFC 3339; since ≤ at < until), cursor
// paged. An operator credential sees its own operator's entries only
// (routeAccess: ownQuery).
func (h *handler) listAudit() http.HandlerFunc {
	page := listPage(h, h.readAudit, func(e AuditEntry) string { return strconv.FormatInt(e.Seq, 10) }, asIs)
	return func(w http.ResponseWriter, r *http.Request) {
		if h.audit == nil {
			h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "This server keeps no audit trail."))
			return
		}
		page(w, r)
	}
}

// readAudit reads a page of the audit trail with listAudit's filters.
func (h *handler) readAudit(r *http.Request, limit int) ([]AuditEntry, error) {
	q := r.URL.Query()
	f := audit.Filter{OperatorID: q.Get("operator_id"), Action: q.Get("action"), TargetKind: q.Get("target_kind"), TargetID: q.Get("target_id"),
		Limit: limit}
	if err := checkOneOf("action", f.Action, audit.Actions); err != nil {
		return nil, err
	}
	switch actor := q.Get("actor"); {
	case actor == "":
	case actor == audit.ActorAdmin:
		f.ActorKind = audit.ActorAdmin
	case uuid.Validate(actor) == nil:
		f.CredentialID = actor
	default:
		return nil, problem(http.StatusBadRequest, CodeInvalidRequest, `actor must be "admin" or an operator credential id.`)
	}
	var err error
	if f.Since, err = queryTime(q, "since"); err != nil {
		return nil, err
	}
	if f.Until, err = queryTime(q, "until"); err != nil {
		return nil, err
	}
	if f.BeforeSeq, err = seqCursor(r, 1); err != nil {
		return nil, err
	}
	return h.audit.List(r.Context(), f)
}

// AuditQuery selects audit entries; empty fields select all, zero times
// bound nothing.
type AuditQuery struct {
	OperatorID string
	Action     string
	// Actor is "admin" or an operator credential id.
	Actor        string
	TargetKind   string
	TargetID     string
	Since, Until time.Time
	Limit        int
	Cursor       string
}

// AuditEntries returns one page of the audit trail, newest first, and the
// cursor of the next page ("" after the last). A *Problem with
// invalid_request for a bad action, actor, limit or cursor.
func (c *Client) AuditEntries(ctx context.Context, q AuditQuery) ([]AuditEntry, string, error) {
	v := url.Values{}
	setStrings(v, map[string]string{"operator_id": q.OperatorID, "action": q.Action, "actor": q.Actor,
		"target_kind": q.TargetKind, "target_id": q.TargetID})
	setTimes(v, map[string]time.Time{"since": q.Since, "until": q.Until})
	return getPage[AuditEntry](ctx, c, "/admin/v1/audit", v, q.Limit, q.Cursor)
}
