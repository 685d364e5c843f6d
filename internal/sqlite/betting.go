package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
	_, err = s.d.writer.exec(ctx, `INSERT INTO betting_operators (id, doc, created_at) VALUES (?, ?, ?)`, o.ID, string(doc), micros(o.CreatedAt))
	if isUniqueViolation(err) {
		return &betting.Error{Code: betting.ErrConflict, Message: "operator " + o.ID + " exists"}
	}
	return err
}

func (s bettingStore) GetOperator(ctx context.Context, id string) (betting.Operator, error) {
	o, err := rowscan.JSON[betting.Operator](s.d.reader.queryRow(ctx, `SELECT doc FROM betting_operators WHERE id = ?`, id))
	return o, rowscan.BettingNotFound(err, "operator", id)
}

func (s bettingStore) ListOperators(ctx context.Context) ([]betting.Operator, error) {
	return queryList(ctx, s.d.reader, `SELECT doc FROM betting_operators ORDER BY id`, nil, rowscan.JSON[betting.Operator])
}

// UpdateOperator compares the stored document with prev's encoding, which
// is the stored text itself: documents are only ever written by
// json.Marshal of an Operator, whose output decodes and re-encodes the same.
func (s bettingStore) UpdateOperator(ctx context.Context, o, prev betting.Operator) error {
	doc, err := json.Marshal(o)
	if err != nil {
		return err
	}
	prevDoc, err := json.Marshal(prev)
	if err != nil {
		return err
	}
	n, err := rowsChanged(s.d.writer.exec(ctx, `UPDATE betting_operators SET doc = ? WHERE id = ? AND doc = ?`, string(doc), o.ID, string(prevDoc)))
	if err != nil {
		return fmt.Errorf("update operator %s: %w", o.ID, err)
	}
	if n == 0 {
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
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO betting_events (id, category, status, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.Category, e.Status, string(doc), micros(e.CreatedAt), micros(e.UpdatedAt)); err != nil {
		return err
	}
	for _, m := range e.Markets {
		if _, err := tx.ExecContext(ctx, `INSERT INTO betting_markets (id, event_id) VALUES (?, ?)`, m.ID, e.ID); err != nil {
			return err
		}
		if err := insertPricePoint(ctx, tx, betting.PricePointOf(m, e.CreatedAt)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func scanEvent(row rowscan.Row, id string) (betting.Event, error) {
	e, err := rowscan.JSON[betting.Event](row)
	return e, rowscan.BettingNotFound(err, "event", id)
}

func (s bettingStore) GetEvent(ctx context.Context, id string) (betting.Event, error) {
	return scanEvent(s.d.reader.queryRow(ctx, `SELECT doc FROM betting_events WHERE id = ?`, id), id)
}

func (s bettingStore) EventOfMarket(ctx context.Context, marketID string) (betting.Event, error) {
	e, err := scanEvent(s.d.reader.queryRow(ctx,
		`SELECT e.doc FROM betting_markets m JOIN betting_events e ON e.id = m.event_id WHERE m.id = ?`, marketID), marketID)
	var be *betting.Error
	if errors.As(err, &be) && be.Code == betting.ErrNotFound {
		return e, betting.NotFound("market", marketID)
	}
	return e, err
}

func (s bettingStore) UpdateEvent(ctx context.Context, e betting.Event, prev time.Time) error {
	return replaceEvent(ctx, s.d.writer.db, e, prev)
}

// eventWriter is a transaction or the writer pool.
type eventWriter interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// replaceEvent writes e over the stored event when the stored one is still
// the version of prev (optimistic concurrency): ErrNotFound when there is
// no such event, ErrConflict when it changed meanwhile.
func replaceEvent(ctx context.Context, w eventWriter, e betting.Event, prev time.Time) error {
	doc, err := json.Marshal(e)
	if err != nil {
		return err
	}
	n, err := rowsChanged(w.ExecContext(ctx, `UPDATE betting_events SET status = ?, doc = ?, updated_at = ? WHERE id = ? AND updated_at = ?`,
		e.Status, string(doc), micros(e.UpdatedAt), e.ID, micros(prev)))
	if err != nil {
		return fmt.Errorf("replace event %s: %w", e.ID, err)
	}
	if n > 0 {
		return nil
	}
	var exists bool
	if err := w.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM betting_events WHERE id = ?)`, e.ID).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		return betting.NotFound("event", e.ID)
	}
	return &betting.Error{Code: betting.ErrConflict, Message: "event " + e.ID + " changed meanwhile"}
}

func (s bettingStore) ListEvents(ctx context.Context, f betting.EventFilter) ([]betting.Event, error) {
	args := sqlargs.Positional()
	q := `SELECT doc FROM betting_events WHERE 1 = 1` + sqlargs.AndEqual(args, "category", f.Category)
	q += sqlargs.AndEqual(args, "status", f.Status)
	return queryNewestFirst(ctx, s.d.reader, q, args, f.BeforeCreatedAt, f.BeforeID, f.Limit,
		func(row rowscan.Row) (betting.Event, error) { return scanEvent(row, "") })
}

func (s bettingStore) SettleMarket(ctx context.Context, e betting.Event, prev time.Time, marketID string) error {
	return s.updateEvent(ctx, e, prev, func(tx *sql.Tx) error {
		if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.SettleMarketArgs{MarketID: marketID}, nil); err != nil {
			return fmt.Errorf("enqueue settlement: %w", err)
		}
		return nil
	})
}

// updateEvent writes e over the stored event as replaceEvent does and
// runs also in the same transaction: both or neither.
func (s bettingStore) updateEvent(ctx context.Context, e betting.Event, prev time.Time, also func(tx *sql.Tx) error) error {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := replaceEvent(ctx, tx, e, prev); err != nil {
		return err
	}
	if err := also(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// ListenCatalog calls listening and returns: a SQLite database has one
// process (see StartWorkers), so no other node changes its catalog.
func (d *DB) ListenCatalog(ctx context.Context, changed func(betting.CatalogChange), listening func()) {
	listening()
}
