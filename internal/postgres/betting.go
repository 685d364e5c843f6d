package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
)

// BettingStore returns the database as a betting.Store. Operators and
// events are stored as JSON documents; markets are indexed by id.
func (d *DB) BettingStore() betting.Store { return bettingStore{d} }

type bettingStore struct{ d *DB }

var _ betting.Store = bettingStore{}

func (s bettingStore) CreateOperator(ctx context.Context, o betting.Operator) error {
	doc, err := json.Marshal(o)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO betting_operators (id, doc, created_at) VALUES ($1, $2, $3)`, o.ID, doc, o.CreatedAt); err != nil {
			return err
		}
		return notifyChange(ctx, tx, betting.ChangedOperator, o.ID)
	})
	if isUniqueViolation(err) {
		return &betting.Error{Code: betting.ErrConflict, Message: "operator " + o.ID + " exists"}
	}
	return err
}

func (s bettingStore) GetOperator(ctx context.Context, id string) (betting.Operator, error) {
	o, err := rowscan.JSON[betting.Operator](s.d.pool.QueryRow(ctx, `SELECT doc FROM betting_operators WHERE id = $1`, id))
	return o, rowscan.BettingNotFound(err, "operator", id)
}

func (s bettingStore) ListOperators(ctx context.Context) ([]betting.Operator, error) {
	return queryList(ctx, s.d.pool, `SELECT doc FROM betting_operators ORDER BY id`, nil, rowscan.JSON[betting.Operator])
}

func (s bettingStore) UpdateOperator(ctx context.Context, o, prev betting.Operator) error {
	doc, err := json.Marshal(o)
	if err != nil {
		return err
	}
	prevDoc, err := json.Marshal(prev)
	if err != nil {
		return err
	}
	var updated int64
	err = pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE betting_operators SET doc = $1 WHERE id = $2 AND doc = $3::jsonb`, doc, o.ID, prevDoc)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		updated = tag.RowsAffected()
		return notifyChange(ctx, tx, betting.ChangedOperator, o.ID)
	})
	if err != nil {
		return err
	}
	if updated == 0 {
		if _, err := s.GetOperator(ctx, o.ID); err != nil {
			return err
		}
		return &betting.Error{Code: betting.ErrConflict, Message: "operator " + o.ID + " changed meanwhile"}
	}
	return nil
}

func (s bettingStore) CreateEvent(ctx context.Context, e betting.Event) error {
	doc, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO betting_events (id, category, status, doc, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			e.ID, e.Category, e.Status, doc, e.CreatedAt, e.UpdatedAt); err != nil {
			return err
		}
		for _, m := range e.Markets {
			if _, err := tx.Exec(ctx, `INSERT INTO betting_markets (id, event_id) VALUES ($1, $2)`, m.ID, e.ID); err != nil {
				return err
			}
			if err := insertPricePoint(ctx, tx, betting.PricePointOf(m, e.CreatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
}

func scanEventDoc(row rowscan.Row, what, id string) (betting.Event, error) {
	e, err := rowscan.JSON[betting.Event](row)
	if errors.Is(err, pgx.ErrNoRows) || badID(err) {
		return betting.Event{}, betting.NotFound(what, id)
	}
	return e, err
}

func (s bettingStore) GetEvent(ctx context.Context, id string) (betting.Event, error) {
	return scanEventDoc(s.d.pool.QueryRow(ctx, `SELECT doc FROM betting_events WHERE id = $1`, id), "event", id)
}

func (s bettingStore) EventOfMarket(ctx context.Context, marketID string) (betting.Event, error) {
	return scanEventDoc(s.d.pool.QueryRow(ctx,
		`SELECT e.doc FROM betting_markets m JOIN betting_events e ON e.id = m.event_id WHERE m.id = $1`, marketID), "market", marketID)
}

// catalogChannel is the NOTIFY channel of catalog changes, delivered at
// commit to every node. The payload is the kind of what changed and its
// id: "event:<id>" or "operator:<id>".
const catalogChannel = "foresight_catalog"

// notifyChange tells every node, at commit, that an operator or an event
// changed.
func notifyChange(ctx context.Context, tx pgx.Tx, kind, id string) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, catalogChannel, kind+":"+id)
	return err
}

func (s bettingStore) UpdateEvent(ctx context.Context, e betting.Event, prev time.Time) error {
	return s.updateEvent(ctx, e, prev, nil)
}

// updateEvent stores e if its stored version is still prev, runs also (when
// set) in the same transaction, and notifies every node at commit.
func (s bettingStore) updateEvent(ctx context.Context, e betting.Event, prev time.Time, also func(tx pgx.Tx) error) error {
	doc, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE betting_events SET status = $1, doc = $2, updated_at = $3 WHERE id = $4 AND updated_at = $5`,
			e.Status, doc, e.UpdatedAt, e.ID, prev)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM betting_events WHERE id = $1)`, e.ID).Scan(&exists); err != nil && !badID(err) {
				return err
			}
			if !exists {
				return betting.NotFound("event", e.ID)
			}
			return &betting.Error{Code: betting.ErrConflict, Message: "event " + e.ID + " changed meanwhile"}
		}
		if also != nil {
			if err := also(tx); err != nil {
				return err
			}
		}
		return notifyChange(ctx, tx, betting.ChangedEvent, e.ID)
	})
}

// ListenCatalog calls changed with every operator and event changed by
// any node, until ctx ends; it reconnects after a lost connection. listening
// is called each time the subscription is in place.
func (d *DB) ListenCatalog(ctx context.Context, changed func(betting.CatalogChange), listening func()) {
	for ctx.Err() == nil {
		err := d.listen(ctx, changed, listening)
		if ctx.Err() != nil {
			return
		}
		d.log.Warn("catalog notifications lost; reconnecting", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (d *DB) listen(ctx context.Context, changed func(betting.CatalogChange), listening func()) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+catalogChannel); err != nil {
		return err
	}
	defer execCleanup(ctx, conn, "UNLISTEN "+catalogChannel)
	listening()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		kind, id, ok := strings.Cut(n.Payload, ":")
		if !ok {
			d.log.Warn("unreadable catalog notification", "payload", n.Payload)
			continue
		}
		changed(betting.CatalogChange{Kind: kind, ID: id})
	}
}

func (s bettingStore) ListEvents(ctx context.Context, f betting.EventFilter) ([]betting.Event, error) {
	args := sqlargs.Numbered()
	q := `SELECT doc FROM betting_events WHERE TRUE` + sqlargs.AndEqual(args, "category", f.Category)
	q += sqlargs.AndEqual(args, "status", f.Status)
	q += newestFirst(args, f.BeforeCreatedAt, f.BeforeID, f.Limit)
	return queryList(ctx, s.d.pool, q, args.Values(), func(row rowscan.Row) (betting.Event, error) { return scanEventDoc(row, "event", "") })
}

func (s bettingStore) SettleMarket(ctx context.Context, e betting.Event, prev time.Time, marketID string) error {
	return s.updateEvent(ctx, e, prev, func(tx pgx.Tx) error {
		if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.SettleMarketArgs{MarketID: marketID}, nil); err != nil {
			return fmt.Errorf("enqueue settlement: %w", err)
		}
		return nil
	})
}
