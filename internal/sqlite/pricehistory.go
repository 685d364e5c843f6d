package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
)

// insertPricePoint records p in tx.
func insertPricePoint(ctx context.Context, tx *sql.Tx, p betting.PricePoint) error {
	outcomes, err := json.Marshal(p.Outcomes)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO betting_price_points (market_id, at, outcomes) VALUES (?, ?, ?)`,
		p.MarketID, micros(p.At), string(outcomes))
	return err
}

func (s bettingStore) RepriceMarket(ctx context.Context, e betting.Event, prev time.Time, marketID string) error {
	m, ok := e.Market(marketID)
	if !ok {
		return betting.NotFound("market", marketID)
	}
	return s.updateEvent(ctx, e, prev, func(tx *sql.Tx) error {
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(at) FROM betting_price_points WHERE market_id = ?`, m.ID).Scan(&last); err != nil {
			return err
		}
		if err := insertPricePoint(ctx, tx, betting.PricePointOf(*m, e.UpdatedAt)); err != nil {
			return err
		}
		if !last.Valid {
			return nil
		}
		return thinPriceHistory(ctx, tx, m.ID, fromMicros(last.Int64), e.UpdatedAt)
	})
}

// thinPriceHistory applies betting.PriceHistoryRetention to the market
// whose newest point moved from last to now. Times are microseconds from
// the Unix epoch, so a bucket is the integer part of at / its width; the
// primary key serves the range and both probes.
func thinPriceHistory(ctx context.Context, tx *sql.Tx, marketID string, last, now time.Time) error {
	for _, tier := range betting.PriceHistoryRetention {
		from, before := tier.Window(last, now)
		_, err := tx.ExecContext(ctx, `DELETE FROM betting_price_points AS p
			 WHERE p.market_id = ?1 AND p.at >= ?2 AND p.at < ?3
			   AND EXISTS (SELECT 1 FROM betting_price_points f WHERE f.market_id = ?1 AND f.at < p.at)
			   AND EXISTS (SELECT 1 FROM betting_price_points l WHERE l.market_id = ?1 AND l.at > p.at AND l.at < (p.at / ?4 + 1) * ?4)`,
			marketID, micros(from), micros(before), tier.Bucket.Microseconds())
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
	args := sqlargs.Positional()
	q := `SELECT at, outcomes FROM betting_price_points WHERE market_id = ` + args.Add(f.MarketID)
	if !f.From.IsZero() {
		market, from := args.Add(f.MarketID), args.Add(micros(f.From))
		q += ` AND at >= COALESCE((SELECT MAX(at) FROM betting_price_points WHERE market_id = ` + market + ` AND at <= ` + from + `), ` +
			args.Add(micros(f.From)) + `)`
	}
	if !f.After.IsZero() {
		q += ` AND at > ` + args.Add(micros(f.After))
	}
	if !f.To.IsZero() {
		q += ` AND at < ` + args.Add(micros(f.To))
	}
	q += ` ORDER BY at LIMIT ` + args.Add(f.Limit)
	out, err := queryList(ctx, s.d.reader, q, args.Values(), func(row rowscan.Row) (betting.PricePoint, error) {
		var at int64
		var outcomes string
		if err := row.Scan(&at, &outcomes); err != nil {
			return betting.PricePoint{}, err
		}
		p := betting.PricePoint{MarketID: f.MarketID, At: fromMicros(at)}
		return p, json.Unmarshal([]byte(outcomes), &p.Outcomes)
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		var id string
		if err := s.d.reader.queryRow(ctx, `SELECT id FROM betting_markets WHERE id = ?`, f.MarketID).Scan(&id); err != nil {
			return nil, rowscan.BettingNotFound(err, "market", f.MarketID)
		}
	}
	return out, nil
}
