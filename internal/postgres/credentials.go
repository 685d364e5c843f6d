package postgres

import (
	"context"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// CredentialStore returns the database as a betting.CredentialStore.
func (d *DB) CredentialStore() betting.CredentialStore { return credentialStore{d} }

type credentialStore struct{ d *DB }

var _ betting.CredentialStore = credentialStore{}

func (s credentialStore) CreateCredential(ctx context.Context, c betting.Credential) error {
	_, err := s.d.pool.Exec(ctx, `INSERT INTO operator_credentials (id, operator_id, name, key_hash, created_at, expires_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		c.ID, c.OperatorID, c.Name, c.KeyHash, c.CreatedAt, c.ExpiresAt, c.RevokedAt)
	if isUniqueViolation(err) {
		return &betting.Error{Code: betting.ErrConflict, Message: "credential " + c.ID + " exists"}
	}
	return err
}

const credentialColumns = `id::text, operator_id, name, key_hash, created_at, expires_at, revoked_at`

func (s credentialStore) CredentialByHash(ctx context.Context, hash []byte) (betting.Credential, error) {
	c, err := rowscan.Credential(s.d.pool.QueryRow(ctx, `SELECT `+credentialColumns+` FROM operator_credentials WHERE key_hash = $1`, hash))
	return c, rowscan.BettingNotFound(err, "credential", "with that key")
}

func (s credentialStore) ListCredentials(ctx context.Context, operatorID string) ([]betting.Credential, error) {
	return queryList(ctx, s.d.pool, `SELECT `+credentialColumns+` FROM operator_credentials WHERE operator_id = $1 ORDER BY created_at, id`,
		[]any{operatorID}, rowscan.Credential)
}

func (s credentialStore) RevokeCredential(ctx context.Context, operatorID, id string, at time.Time) error {
	tag, err := s.d.pool.Exec(ctx, `UPDATE operator_credentials SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 AND operator_id = $3`,
		at, id, operatorID)
	if badID(err) || err == nil && tag.RowsAffected() == 0 {
		return betting.NotFound("credential", id)
	}
	return err
}
