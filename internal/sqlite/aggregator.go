package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// AggregatorStore returns the database as an aggregator.Store.
func (d *DB) AggregatorStore() aggregator.Store { return aggregatorStore{d} }

type aggregatorStore struct{ d *DB }

var _ aggregator.Store = aggregatorStore{}

func (s aggregatorStore) CreateLaunch(ctx context.Context, l aggregator.Launch) error {
	_, err := s.d.writer.exec(ctx, `INSERT INTO agg_launches (token_hash, operator_id, casino_id, account_id, currency, session_id, locale, demo,
		created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.TokenHash, l.OperatorID, l.CasinoID, l.AccountID, l.Currency, l.SessionID, l.Locale, l.Demo, micros(l.CreatedAt), micros(l.ExpiresAt))
	return err
}

func (s aggregatorStore) UseLaunch(ctx context.Context, tokenHash string, now time.Time) (aggregator.Launch, error) {
	l, err := rowscan.AggregatorLaunch(s.d.writer.queryRow(ctx, `UPDATE agg_launches SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING token_hash, operator_id, casino_id, account_id, currency, session_id, locale, demo, created_at, expires_at`,
		micros(now), tokenHash, micros(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return l, aggregator.ErrLaunchInvalid
	}
	return l, err
}

func (s aggregatorStore) DeleteLaunches(ctx context.Context, before time.Time) (int, error) {
	res, err := s.d.writer.exec(ctx, `DELETE FROM agg_launches WHERE expires_at < ?`, micros(before))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (s aggregatorStore) PlatformKeys(ctx context.Context) ([]aggregator.StoredKey, error) {
	return queryList(ctx, s.d.reader, `SELECT kid, private_pem, created_at FROM platform_keys ORDER BY created_at, kid`, nil, rowscan.PlatformKey)
}

func (s aggregatorStore) AddPlatformKey(ctx context.Context, k aggregator.StoredKey) error {
	_, err := s.d.writer.exec(ctx, `INSERT INTO platform_keys (kid, private_pem, created_at) VALUES (?, ?, ?) ON CONFLICT (kid) DO NOTHING`,
		k.ID, k.PrivatePEM, micros(k.CreatedAt))
	return err
}
