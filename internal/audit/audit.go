// Package audit keeps the audit trail of staff actions: who (the admin
// token, or an operator credential and its operator) did what to what,
// when, from where, and the state before and after. Entries are
// append-only: a Store has no way to change or remove one, and the
// databases refuse UPDATE and DELETE on the table. An entry never holds a
// secret: Record refuses one whose before or after state carries a secret
// field with anything but a marker (SecretSet, SecretChanged).
package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Actor kinds.
const (
	// ActorAdmin is platform staff with the admin token.
	ActorAdmin = "admin"
	// ActorOperatorCredential is an operator's staff with one of its
	// credentials.
	ActorOperatorCredential = "operator_credential"
)

// Actor is who did an action: the admin token (Kind ActorAdmin), or an
// operator credential (its id and name) and the operator it belongs to.
type Actor struct {
	Kind         string `json:"kind"`
	Name         string `json:"name"`
	CredentialID string `json:"credential_id,omitempty"`
	OperatorID   string `json:"operator_id,omitempty"`
}

// Actions, named target kind then what happened to it.
const (
	MarketResolved      = "market.resolved"
	MarketCancelled     = "market.cancelled"
	MarketRepriced      = "market.repriced"
	MarketSuspended     = "market.suspended"
	MarketOpened        = "market.opened"
	OperatorCreated     = "operator.created"
	OperatorUpdated     = "operator.updated"
	CredentialIssued    = "operator_credential.issued"
	CredentialRevoked   = "operator_credential.revoked"
	BettorCredited      = "bettor.credited"
	BettorDebited       = "bettor.debited"
	TicketClientCreated = "ticket_client.created"
	TicketClientUpdated = "ticket_client.updated"
	TicketKeyCreated    = "ticket_key.created"
	TicketKeyRevoked    = "ticket_key.revoked"
)

// Actions lists every action, for validating filters.
var Actions = []string{MarketResolved, MarketCancelled, MarketRepriced, MarketSuspended, MarketOpened,
	OperatorCreated, OperatorUpdated, CredentialIssued, CredentialRevoked, BettorCredited, BettorDebited,
	TicketClientCreated, TicketClientUpdated, TicketKeyCreated, TicketKeyRevoked}

// Target kinds.
const (
	TargetMarket       = "market"
	TargetOperator     = "operator"
	TargetCredential   = "operator_credential"
	TargetBettor       = "bettor"
	TargetTicketClient = "ticket_client"
	TargetTicketKey    = "ticket_key"
)

// Markers stand for a secret's value in a state: the secret was set (on
// creation) or changed. The value itself is never recorded.
const (
	SecretSet     = "set"
	SecretChanged = "changed"
)

// Entry is one staff action.
type Entry struct {
	// ID is the entry's id, given by Record.
	ID string `json:"id"`
	// Seq orders the entries of a store; the store assigns it.
	Seq int64 `json:"-"`
	// At is when the entry was recorded, given by Record.
	At     time.Time `json:"at"`
	Actor  Actor     `json:"actor"`
	Action string    `json:"action"`
	// TargetKind and TargetID name what the action was done to.
	TargetKind string `json:"target_kind"`
	TargetID   string `json:"target_id"`
	// OperatorID is the operator the target belongs to (its operator, its
	// credential, its bettor); empty for what every operator shares (the
	// catalog) or no operator has (the ticket service).
	OperatorID string `json:"operator_id,omitempty"`
	// ClientAddress is the IP address of the request's client: its
	// connection's, or behind trusted proxies the one their
	// X-Forwarded-For names (clientaddr.Proxies.Of); RequestID the
	// request's X-Request-Id.
	ClientAddress string `json:"client_address"`
	RequestID     string `json:"request_id"`
	// Before and After are the target's state as JSON objects; Before is
	// null for a creation.
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
	// Key, when set, makes the entry unique: a second entry with the same
	// key is not stored (the replay of an idempotent request, or a
	// one-time change such as a revocation recorded twice). It is not
	// shown.
	Key string `json:"-"`
}

// Filter selects entries; empty fields select all.
type Filter struct {
	OperatorID string
	Action     string
	// ActorKind and CredentialID select the actor.
	ActorKind    string
	CredentialID string
	TargetKind   string
	TargetID     string
	// Since and Until bound At: Since <= At < Until.
	Since, Until time.Time
	// BeforeSeq, when not zero, selects entries older than it (paging).
	BeforeSeq int64
	// Limit is at most how many entries to return.
	Limit int
}

// Store is what the trail needs of a database.
type Store interface {
	// Append stores e and assigns its Seq. When e.Key is set and an
	// entry with that key is stored, it stores nothing and returns
	// false.
	Append(ctx context.Context, e Entry) (appended bool, err error)
	// List returns the entries f selects, newest (highest Seq) first, at
	// most f.Limit.
	List(ctx context.Context, f Filter) ([]Entry, error)
}

// ErrInvalid is the error of an entry or filter that breaks the rules;
// errors.Is matches it.
var ErrInvalid = errors.New("audit: invalid")

// Trail records and lists staff actions.
type Trail struct {
	store Store
	now   func() time.Time
}

// Options configure a Trail.
type Options struct {
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// New returns the trail over store.
func New(store Store, opts Options) *Trail {
	t := &Trail{store: store, now: opts.Now}
	if t.now == nil {
		t.now = time.Now
	}
	return t
}

// Record appends e with a new id and the time now. It returns whether e
// was stored: false when an entry with e.Key already is. Errors: ErrInvalid
// for an entry without actor, action or target, with a state that is not
// a JSON object, or with a secret in a state; storage failures.
func (t *Trail) Record(ctx context.Context, e Entry) (bool, error) {
	if err := check(e); err != nil {
		return false, err
	}
	e.ID = uuid.NewString()
	e.At = t.now().UTC().Truncate(time.Microsecond)
	appended, err := t.store.Append(ctx, e)
	if err != nil {
		return false, fmt.Errorf("audit: append %s of %s %s: %w", e.Action, e.TargetKind, e.TargetID, err)
	}
	return appended, nil
}

// List returns the entries f selects, newest first. Errors: ErrInvalid
// for a limit outside 1 to 1000; storage failures.
func (t *Trail) List(ctx context.Context, f Filter) ([]Entry, error) {
	if f.Limit < 1 || f.Limit > 1000 {
		return nil, fmt.Errorf("%w: limit %d is not between 1 and 1000", ErrInvalid, f.Limit)
	}
	return t.store.List(ctx, f)
}

func check(e Entry) error {
	switch {
	case e.Actor.Kind != ActorAdmin && e.Actor.Kind != ActorOperatorCredential:
		return fmt.Errorf("%w: actor kind %q", ErrInvalid, e.Actor.Kind)
	case e.Actor.Kind == ActorOperatorCredential && (e.Actor.CredentialID == "" || e.Actor.OperatorID == ""):
		return fmt.Errorf("%w: an operator credential actor needs its id and operator", ErrInvalid)
	case e.Action == "":
		return fmt.Errorf("%w: no action", ErrInvalid)
	case e.TargetKind == "" || e.TargetID == "":
		return fmt.Errorf("%w: no target", ErrInvalid)
	}
	for _, s := range []struct {
		name  string
		state json.RawMessage
	}{{"before", e.Before}, {"after", e.After}} {
		if len(s.state) == 0 || string(s.state) == "null" {
			continue
		}
		var v any
		if err := json.Unmarshal(s.state, &v); err != nil {
			return fmt.Errorf("%w: %s is not JSON: %v", ErrInvalid, s.name, err)
		}
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("%w: %s is not a JSON object", ErrInvalid, s.name)
		}
		if path := secretIn(v, s.name); path != "" {
			return fmt.Errorf("%w: %s holds a secret value; record %q or %q instead", ErrInvalid, path, SecretSet, SecretChanged)
		}
	}
	return nil
}

// IsSecretField reports whether a state field of that name holds a secret:
// a key, a token, a password or a secret by name. Such a field may only
// carry a marker (SecretSet, SecretChanged).
func IsSecretField(name string) bool {
	n := strings.ToLower(name)
	if n == "idempotency_key" {
		return false
	}
	for _, s := range []string{"secret", "password", "token"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return n == "key" || strings.HasSuffix(n, "_key") || strings.HasSuffix(n, "key_hash")
}

// secretIn returns the path of the first secret field of v whose value is
// not a marker, or "".
func secretIn(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		for name, field := range v {
			p := path + "." + name
			if IsSecretField(name) {
				if s, ok := field.(string); !ok || (s != SecretSet && s != SecretChanged) {
					return p
				}
				continue
			}
			if found := secretIn(field, p); found != "" {
				return found
			}
		}
	case []any:
		for i, item := range v {
			if found := secretIn(item, fmt.Sprintf("%s[%d]", path, i)); found != "" {
				return found
			}
		}
	}
	return ""
}

// State is v as a state of an entry: its JSON, or nil (null) when v is nil.
// It panics when v does not encode, which only a programming error does.
func State(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("audit: state does not encode: %v", err))
	}
	return b
}
