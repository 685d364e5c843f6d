package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
)

// AuditStore returns the database as an audit.Store.
func (d *DB) AuditStore() audit.Store { return auditStore{d} }

type auditStore struct{ d *DB }

var _ audit.Store = auditStore{}

// jsonState is a state as a jsonb parameter: NULL for none.
func jsonState(state json.RawMessage) *string {
	if len(state) == 0 || string(state) == "null" {
		return nil
	}
	s := string(state)
	return &s
}

func (s auditStore) Append(ctx context.Context, e audit.Entry) (bool, error) {
	var key *string
	if e.Key != "" {
		key = &e.Key
	}
	var seq int64
	err := s.d.pool.QueryRow(ctx, `INSERT INTO audit_entries (id, at, actor_kind, actor_name, actor_credential_id, actor_operator_id,
			action, target_kind, target_id, operator_id, client_address, request_id, before_state, after_state, entry_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14::jsonb, $15)
		ON CONFLICT (entry_key) DO NOTHING RETURNING seq`,
		e.ID, e.At, e.Actor.Kind, e.Actor.Name, e.Actor.CredentialID, e.Actor.OperatorID,
		e.Action, e.TargetKind, e.TargetID, e.OperatorID, e.ClientAddress, e.RequestID, jsonState(e.Before), jsonState(e.After), key).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (s auditStore) List(ctx context.Context, f audit.Filter) ([]audit.Entry, error) {
	var where []string
	args := sqlargs.Numbered()
	for _, c := range []struct {
		column, value string
	}{
		{"operator_id", f.OperatorID}, {"action", f.Action}, {"actor_kind", f.ActorKind}, {"actor_credential_id", f.CredentialID},
		{"target_kind", f.TargetKind}, {"target_id", f.TargetID},
	} {
		if c.value != "" {
			where = append(where, c.column+" = "+args.Add(c.value))
		}
	}
	if !f.Since.IsZero() {
		where = append(where, "at >= "+args.Add(f.Since))
	}
	if !f.Until.IsZero() {
		where = append(where, "at < "+args.Add(f.Until))
	}
	if f.BeforeSeq != 0 {
		where = append(where, "seq < "+args.Add(f.BeforeSeq))
	}
	q := `SELECT seq, id::text, at, actor_kind, actor_name, actor_credential_id, actor_operator_id, action, target_kind, target_id,
		operator_id, client_address, request_id, before_state::text, after_state::text FROM audit_entries`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY seq DESC LIMIT " + args.Add(f.Limit)
	return queryList(ctx, s.d.pool, q, args.Values(), rowscan.AuditEntry)
}
