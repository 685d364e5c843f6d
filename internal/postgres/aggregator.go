package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// AggregatorStore returns the database as an aggregator.Store.
func (d *DB) AggregatorStore() aggregator.Store { return aggregatorStore{d} }

type aggregatorStore struct{ d *DB }

var _ aggregator.Store = aggregatorStore{}

func (s aggregatorStore) CreateLaunch(ctx context.Context, l aggregator.Launch) error {
	_, err := s.d.pool.Exec(ctx, `INSERT INTO agg_launches (token_hash, operator_id, casino_id, account_id, currency, session_id, locale, demo,
		created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		l.TokenHash, l.OperatorID, l.CasinoID, l.AccountID, l.Currency, l.SessionID, l.Locale, l.Demo, l.CreatedAt, l.ExpiresAt)
	return err
}

func (s aggregatorStore) UseLaunch(ctx context.Context, tokenHash string, now time.Time) (aggregator.Launch, error) {
	l, err := rowscan.AggregatorLaunch(s.d.pool.QueryRow(ctx, `UPDATE agg_launches SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1
		RETURNING token_hash, operator_id, casino_id, account_id, currency, session_id, locale, demo, created_at, expires_at`,
		now, tokenHash))
	if errors.Is(err, pgx.ErrNoRows) {
		return l, aggregator.ErrLaunchInvalid
	}
	return l, err
}

func (s aggregatorStore) DeleteLaunches(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.d.pool.Exec(ctx, `DELETE FROM agg_launches WHERE expires_at < $1`, before)
	return int(tag.RowsAffected()), err
}

func (s aggregatorStore) PlatformKeys(ctx context.Context) ([]aggregator.StoredKey, error) {
	return queryList(ctx, s.d.pool, `SELECT kid, private_pem, created_at FROM platform_keys ORDER BY created_at, kid`, nil, rowscan.PlatformKey)
}

func (s aggregatorStore) AddPlatformKey(ctx context.Context, k aggregator.StoredKey) error {
	_, err := s.d.pool.Exec(ctx, `INSERT INTO platform_keys (kid, private_pem, created_at) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING`,
		k.ID, k.PrivatePEM, k.CreatedAt)
	return err
}
