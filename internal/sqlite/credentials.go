package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// CredentialStore returns the database as a betting.CredentialStore.
func (d *DB) CredentialStore() betting.CredentialStore { return credentialStore{d} }

type credentialStore struct{ d *DB }

var _ betting.CredentialStore = credentialStore{}

func (s credentialStore) CreateCredential(ctx context.Context, c betting.Credential) error {
	_, err := s.d.writer.exec(ctx, `INSERT INTO operator_credentials (id, operator_id, name, key_hash, created_at, expires_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.OperatorID, c.Name, c.KeyHash, micros(c.CreatedAt), nullMicros(c.ExpiresAt), nullMicros(c.RevokedAt))
	if isUniqueViolation(err) {
		return &betting.Error{Code: betting.ErrConflict, Message: "credential " + c.ID + " exists"}
	}
	return err
}

const credentialColumns = `id, operator_id, name, key_hash, created_at, expires_at, revoked_at`

func (s credentialStore) CredentialByHash(ctx context.Context, hash []byte) (betting.Credential, error) {
	c, err := rowscan.Credential(s.d.reader.queryRow(ctx, `SELECT `+credentialColumns+` FROM operator_credentials WHERE key_hash = ?`, hash))
	return c, rowscan.BettingNotFound(err, "credential", "with that key")
}

func (s credentialStore) ListCredentials(ctx context.Context, operatorID string) ([]betting.Credential, error) {
	return queryList(ctx, s.d.reader, `SELECT `+credentialColumns+` FROM operator_credentials WHERE operator_id = ? ORDER BY created_at, id`,
		[]any{operatorID}, rowscan.Credential)
}

func (s credentialStore) RevokeCredential(ctx context.Context, operatorID, id string, at time.Time) error {
	n, err := rowsChanged(s.d.writer.exec(ctx, `UPDATE operator_credentials SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND operator_id = ?`,
		micros(at), id, operatorID))
	if err != nil {
		return fmt.Errorf("revoke credential %s: %w", id, err)
	}
	if n == 0 {
		return betting.NotFound("credential", id)
	}
	return nil
}
