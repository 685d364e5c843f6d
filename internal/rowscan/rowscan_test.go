package rowscan_test

import (
	"database/sql"
	"errors"
	"slices"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/foresight-dev/foresight/internal/rowscan"
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
