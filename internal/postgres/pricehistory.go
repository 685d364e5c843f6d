package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
)

// insertPricePoint records p in tx.
func insertPricePoint(ctx context.Context, tx pgx.Tx, p betting.PricePoint) error {
	outcomes, err := json.Marshal(p.Outcomes)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO betting_price_points (market_id, at, outcomes) VALUES ($1, $2, $3)`, p.MarketID, p.At, outcomes)
	return err
}

func (s bettingStore) RepriceMarket(ctx context.Context, e betting.Event, prev time.Time, marketID string) error {
	m, ok := e.Market(marketID)
	if !ok {
		return betting.NotFound("market", marketID)
	}
	point := betting.PricePointOf(*m, e.UpdatedAt)
	return s.updateEvent(ctx, e, prev, func(tx pgx.Tx) error {
		var last *time.Time
		if err := tx.QueryRow(ctx, `SELECT max(at) FROM betting_price_points WHERE market_id = $1`, m.ID).Scan(&last); err != nil {
			return err
		}
		if err := insertPricePoint(ctx, tx, point); err != nil {
			return err
		}
		if last == nil {
			return nil
		}
		return thinPriceHistory(ctx, tx, m.ID, *last, point.At)
	})
}

// thinPriceHistory applies betting.PriceHistoryRetention to the market
// whose newest point moved from last to now. A bucket starts at
// date_bin(width, at, the Unix epoch); the primary key serves the range
// and both probes.
func thinPriceHistory(ctx context.Context, tx pgx.Tx, marketID string, last, now time.Time) error {
	for _, tier := range betting.PriceHistoryRetention {
		from, before := tier.Window(last, now)
		_, err := tx.Exec(ctx, `DELETE FROM betting_price_points p
			 WHERE p.market_id = $1 AND p.at >= $2 AND p.at < $3
			   AND EXISTS (SELECT 1 FROM betting_price_points f WHERE f.market_id = $1 AND f.at < p.at)
			   AND EXISTS (SELECT 1 FROM betting_price_points l WHERE l.market_id = $1 AND l.at > p.at
			               AND l.at < date_bin($4::bigint * interval '1 microsecond', p.at, TIMESTAMPTZ '1970-01-01 00:00:00+00') + $4::bigint * interval '1 microsecond')`,
			marketID, from, before, tier.Bucket.Microseconds())
		if err != nil {
			return fmt.Errorf("thin the price history: %w", err)
		}
	}
	return nil
}

// PriceHistory reads the window's first point, the one in force at f.From,
// as the market's last point at or before it; the primary key (market_id,
// at) serves both that lookup and the range after it.
func (s bettingStore) PriceHistory(ctx context.Context, f betting.PriceHistoryFilter) ([]betting.PricePoint, error) {
	args := sqlargs.Numbered()
	q := `SELECT at, outcomes FROM betting_price_points WHERE market_id = ` + args.Add(f.MarketID)
	if !f.From.IsZero() {
		from := args.Add(f.From)
		q += ` AND at >= COALESCE((SELECT max(at) FROM betting_price_points WHERE market_id = $1 AND at <= ` + from + `), ` + from + `)`
	}
	if !f.After.IsZero() {
		q += ` AND at > ` + args.Add(f.After)
	}
	if !f.To.IsZero() {
		q += ` AND at < ` + args.Add(f.To)
	}
	q += ` ORDER BY at LIMIT ` + args.Add(f.Limit)
	out, err := queryList(ctx, s.d.pool, q, args.Values(), func(row rowscan.Row) (betting.PricePoint, error) {
		p := betting.PricePoint{MarketID: f.MarketID}
		var outcomes []byte
		if err := row.Scan(&p.At, &outcomes); err != nil {
			return p, err
		}
		p.At = p.At.UTC()
		return p, json.Unmarshal(outcomes, &p.Outcomes)
	})
	if badID(err) {
		return nil, betting.NotFound("market", f.MarketID)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		var exists bool
		if err := s.d.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM betting_markets WHERE id = $1)`, f.MarketID).Scan(&exists); err != nil {
			return nil, err
		}
		if !exists {
			return nil, betting.NotFound("market", f.MarketID)
		}
	}
	return out, nil
}
