package rowscan_test

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/tickets"
)

var errStop = errors.New("stop")

// memoryDB opens an in-memory SQLite database, closed when the test ends.
func memoryDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAll(t *testing.T) {
	db := memoryDB(t)
	for _, tc := range []struct {
		name    string
		query   string
		scan    func(rowscan.Row) (int, error)
		want    []int
		wantErr error
	}{
		{"rows in order", `SELECT column1 FROM (VALUES (3), (1), (2))`, rowscan.Value[int], []int{3, 1, 2}, nil},
		{"no rows is an empty list", `SELECT 1 WHERE 0`, rowscan.Value[int], []int{}, nil},
		{"a scan error stops", `SELECT column1 FROM (VALUES (1), (2))`, func(row rowscan.Row) (int, error) {
			n, _ := rowscan.Value[int](row)
			if n == 2 {
				return 0, errStop
			}
			return n, nil
		}, nil, errStop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := db.Query(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			got, err := rowscan.All(rows, tc.scan)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestEachStopsAtError reads the rows through Calling, whose fn stops
// at the second.
func TestEachStopsAtError(t *testing.T) {
	rows, err := memoryDB(t).Query(`SELECT column1 FROM (VALUES (1), (2), (3))`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var seen []int
	err = rowscan.Each(rows, rowscan.Calling(rowscan.Value[int], func(n int) error {
		seen = append(seen, n)
		if n == 2 {
			return errStop
		}
		return nil
	}))
	if !errors.Is(err, errStop) || !slices.Equal(seen, []int{1, 2}) {
		t.Errorf("Each: err %v, saw %v; want errStop after 1, 2", err, seen)
	}
}

func TestJSON(t *testing.T) {
	db := memoryDB(t)
	type doc struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	got, err := rowscan.JSON[doc](db.QueryRow(`SELECT '{"name": "a", "n": 2}'`))
	if err != nil || got != (doc{Name: "a", N: 2}) {
		t.Errorf("JSON = %+v, %v; want {a 2}", got, err)
	}
	if _, err := rowscan.JSON[doc](db.QueryRow(`SELECT 'not json'`)); err == nil {
		t.Error("JSON of a column that is not JSON: no error")
	}
	if _, err := rowscan.JSON[doc](db.QueryRow(`SELECT 1 WHERE 0`)); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("JSON of no row: %v, want sql.ErrNoRows", err)
	}
}

func TestFound(t *testing.T) {
	db := memoryDB(t)
	for _, tc := range []struct {
		name    string
		query   string
		want    int
		wantOK  bool
		wantErr bool
	}{
		{"a row", `SELECT 7`, 7, true, false},
		{"no row", `SELECT 1 WHERE 0`, 0, false, false},
		{"an error", `SELECT 'x'`, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := rowscan.Found(rowscan.Value[int](db.QueryRow(tc.query)))
			if got != tc.want || ok != tc.wantOK || (err != nil) != tc.wantErr {
				t.Errorf("Found = %d, %v, %v; want %d, %v, error %v", got, ok, err, tc.want, tc.wantOK, tc.wantErr)
			}
		})
	}
}

// TestNotFound: each store's not-found error replaces the error of no row
// (also when wrapped, and pgx's ErrNoRows, which wraps sql.ErrNoRows), and any
// other error or none passes through.
func TestNotFound(t *testing.T) {
	for _, tc := range []struct {
		name       string
		classify   func(error) error
		isNotFound func(error) bool
	}{
		{"betting", func(err error) error { return rowscan.BettingNotFound(err, "bet", "b1") }, func(err error) bool {
			var be *betting.Error
			return errors.As(err, &be) && be.Code == betting.ErrNotFound && be.Message == "no bet b1"
		}},
		{"ledger", func(err error) error { return rowscan.LedgerNotFound(err, "account", "a1") }, func(err error) bool {
			var le *ledger.Error
			return errors.As(err, &le) && le.Code == ledger.ErrNotFound && le.Message == "no account a1"
		}},
		{"tickets", rowscan.TicketsNotFound, func(err error) bool { return err == tickets.ErrNotFound }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, noRow := range []error{sql.ErrNoRows, fmt.Errorf("query: %w", sql.ErrNoRows), pgx.ErrNoRows} {
				if err := tc.classify(noRow); !tc.isNotFound(err) {
					t.Errorf("%v: got %v, want the store's not-found error", noRow, err)
				}
			}
			if err := tc.classify(nil); err != nil {
				t.Errorf("no error: got %v, want none", err)
			}
			if err := tc.classify(errStop); err != errStop {
				t.Errorf("another error: got %v, want it unchanged", err)
			}
		})
	}
}
