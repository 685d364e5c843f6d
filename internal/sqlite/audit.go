package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// AuditStore returns the database as an audit.Store.
func (d *DB) AuditStore() audit.Store { return auditStore{d} }

type auditStore struct{ d *DB }

var _ audit.Store = auditStore{}

// nullJSON is a state as a column value: NULL for none.
func nullJSON(state json.RawMessage) sql.NullString {
	if len(state) == 0 || string(state) == "null" {
		return sql.NullString{}
	}
	return sql.NullString{String: string(state), Valid: true}
}

// Append joins the writer's group commit (a deposit's entry shares the
// commit of concurrent bets and movements), in a savepoint of its own so
// that a failed insert leaves the batch's other writes alone.
func (s auditStore) Append(ctx context.Context, e audit.Entry) (bool, error) {
	var key sql.NullString
	if e.Key != "" {
		key = sql.NullString{String: e.Key, Valid: true}
	}
	appended := false
	err := s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		if _, err := tx.tx.ExecContext(ctx, `SAVEPOINT audit_append`); err != nil {
			return nil, err
		}
		var seq int64
		ierr := tx.queryRow(ctx, auditAppendSQL,
			e.ID, micros(e.At), e.Actor.Kind, e.Actor.Name, e.Actor.CredentialID, e.Actor.OperatorID,
			e.Action, e.TargetKind, e.TargetID, e.OperatorID, e.ClientAddress, e.RequestID, nullJSON(e.Before), nullJSON(e.After), key).Scan(&seq)
		switch {
		case ierr == nil:
			appended = true
		case errors.Is(ierr, sql.ErrNoRows):
			ierr = nil // the key's entry is stored already
		default:
			if _, err := tx.tx.ExecContext(ctx, `ROLLBACK TO audit_append`); err != nil {
				return nil, fmt.Errorf("roll back a failed audit append: %w", err)
			}
		}
		if _, err := tx.tx.ExecContext(ctx, `RELEASE audit_append`); err != nil {
			return nil, err
		}
		return ierr, nil
	})
	return appended && err == nil, err
}

const auditAppendSQL = `INSERT INTO audit_entries (id, at, actor_kind, actor_name, actor_credential_id, actor_operator_id,
		action, target_kind, target_id, operator_id, client_address, request_id, before_state, after_state, entry_key)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (entry_key) DO NOTHING RETURNING seq`

func (s auditStore) List(ctx context.Context, f audit.Filter) ([]audit.Entry, error) {
	var where []string
	var args []any
	for _, c := range []struct {
		column, value string
	}{
		{"operator_id", f.OperatorID}, {"action", f.Action}, {"actor_kind", f.ActorKind}, {"actor_credential_id", f.CredentialID},
		{"target_kind", f.TargetKind}, {"target_id", f.TargetID},
	} {
		if c.value != "" {
			where = append(where, c.column+" = ?")
			args = append(args, c.value)
		}
	}
	if !f.Since.IsZero() {
		where = append(where, "at >= ?")
		args = append(args, micros(f.Since))
	}
	if !f.Until.IsZero() {
		where = append(where, "at < ?")
		args = append(args, micros(f.Until))
	}
	if f.BeforeSeq != 0 {
		where = append(where, "seq < ?")
		args = append(args, f.BeforeSeq)
	}
	q := `SELECT seq, id, at, actor_kind, actor_name, actor_credential_id, actor_operator_id, action, target_kind, target_id,
		operator_id, client_address, request_id, before_state, after_state FROM audit_entries`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY seq DESC LIMIT ?"
	// Not through the statement cache: each combination of filters is a
	// query of its own.
	rows, err := s.d.reader.db.QueryContext(ctx, q, append(args, f.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rowscan.All(rows, rowscan.AuditEntry)
}
