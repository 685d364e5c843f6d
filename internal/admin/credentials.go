package admin

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
)

// Whoami is the answer of GET /admin/v1/whoami: Kind "admin" for the admin
// token, "operator" for an operator credential, with its operator.
type Whoami struct {
	Kind         string     `json:"kind"`
	OperatorID   string     `json:"operator_id,omitempty"`
	Name         string     `json:"name"`
	CredentialID string     `json:"credential_id,omitempty"`
	ExpiresAt    *time.Time `json:"expires_at,omitempty"`
}

// OperatorCredential is an operator credential as the admin API shows it;
// Key is set only in the answer that issued it.
type OperatorCredential struct {
	ID         string     `json:"id"`
	OperatorID string     `json:"operator_id"`
	Name       string     `json:"name"`
	Key        string     `json:"key,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

func toCredentialJSON(c betting.Credential) OperatorCredential {
	return OperatorCredential{ID: c.ID, OperatorID: c.OperatorID, Name: c.Name, CreatedAt: c.CreatedAt.UTC(), ExpiresAt: c.ExpiresAt, RevokedAt: c.RevokedAt}
}

func credentialID(c betting.Credential) string { return c.ID }

func (h *handler) credentialRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/v1/whoami", h.whoami)
	mux.HandleFunc("POST /admin/v1/operators/{op}/credentials", h.issueCredential)
	mux.HandleFunc("GET /admin/v1/operators/{op}/credentials", listWhole(h, "op", h.credentials.List, credentialID, toCredentialJSON))
	mux.HandleFunc("DELETE /admin/v1/operators/{op}/credentials/{id}", h.ids(h.revokeCredential))
}

func (h *handler) issueCredential(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name      *string    `json:"name"`
		ExpiresAt *time.Time `json:"expires_at"`
	}
	if err := decodeNamed(w, r, &req, &req.Name); err != nil {
		h.writeError(w, r, err)
		return
	}
	c, key, err := h.credentials.Issue(r.Context(), r.PathValue("op"), *req.Name, req.ExpiresAt)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.record(r, audit.Entry{Action: audit.CredentialIssued, TargetKind: audit.TargetCredential, TargetID: c.ID, OperatorID: c.OperatorID,
		After: credentialAudit(c)})
	out := toCredentialJSON(c)
	out.Key = key
	httpjson.Write(w, http.StatusCreated, out)
}

// revokeCredential revokes a credential; the audit trail records the first
// revocation only (revoking again changes nothing).
func (h *handler) revokeCredential(w http.ResponseWriter, r *http.Request) {
	before, found := h.credentialOf(r)
	if err := h.credentials.Revoke(r.Context(), r.PathValue("op"), r.PathValue("id")); err != nil {
		h.writeError(w, r, err)
		return
	}
	if after, ok := h.credentialOf(r); found && ok && before.RevokedAt == nil {
		h.record(r, audit.Entry{Action: audit.CredentialRevoked, TargetKind: audit.TargetCredential, TargetID: after.ID, OperatorID: after.OperatorID,
			Key: audit.CredentialRevoked + ":" + after.ID, Before: credentialAudit(before), After: credentialAudit(after)})
	}
	w.WriteHeader(http.StatusNoContent)
}

// Whoami returns who the client's token is.
func (c *Client) Whoami(ctx context.Context) (Whoami, error) {
	var out Whoami
	err := c.Do(ctx, http.MethodGet, "/admin/v1/whoami", nil, &out)
	return out, err
}

// IssueOperatorCredential issues a credential named name for an operator,
// valid until expiresAt (never when nil); the returned Key is shown once.
func (c *Client) IssueOperatorCredential(ctx context.Context, operatorID, name string, expiresAt *time.Time) (OperatorCredential, error) {
	var out OperatorCredential
	err := c.Do(ctx, http.MethodPost, "/admin/v1/operators/"+url.PathEscape(operatorID)+"/credentials", withExpiry(map[string]any{"name": name}, expiresAt), &out)
	return out, err
}

// ListOperatorCredentials returns an operator's credentials (without
// keys), oldest first, revoked and expired ones included, following
// cursors.
func (c *Client) ListOperatorCredentials(ctx context.Context, operatorID string) ([]OperatorCredential, error) {
	return getAll[OperatorCredential](ctx, c, "/admin/v1/operators/"+url.PathEscape(operatorID)+"/credentials")
}

// RevokeOperatorCredential revokes an operator's credential at once.
func (c *Client) RevokeOperatorCredential(ctx context.Context, operatorID, id string) error {
	return c.Do(ctx, http.MethodDelete, "/admin/v1/operators/"+url.PathEscape(operatorID)+"/credentials/"+url.PathEscape(id), nil, nil)
}
