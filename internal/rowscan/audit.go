package rowscan

import (
	"encoding/json"

	"github.com/foresight-dev/foresight/internal/audit"
)

// AuditEntry reads an audit entry from seq, id, at, actor_kind,
// actor_name, actor_credential_id, actor_operator_id, action,
// target_kind, target_id, operator_id, client_address, request_id,
// before_state, after_state (JSON as text, NULL for none).
func AuditEntry(row Row) (audit.Entry, error) {
	var e audit.Entry
	var before, after string
	if err := row.Scan(&e.Seq, &e.ID, Time(&e.At), &e.Actor.Kind, &e.Actor.Name, &e.Actor.CredentialID, &e.Actor.OperatorID, &e.Action,
		&e.TargetKind, &e.TargetID, &e.OperatorID, &e.ClientAddress, &e.RequestID, Text(&before), Text(&after)); err != nil {
		return audit.Entry{}, err
	}
	if before != "" {
		e.Before = json.RawMessage(before)
	}
	if after != "" {
		e.After = json.RawMessage(after)
	}
	return e, nil
}
