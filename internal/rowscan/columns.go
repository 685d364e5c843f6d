package rowscan

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// The destinations below read a column the two engines store
// differently into one Go value, so a scan function serves both. Each is
// a struct of one pointer: passing it to Scan allocates nothing. On
// PostgreSQL pgx calls their ScanTimestamptz and ScanText (its own
// decoding, no database/sql conversion); on SQLite database/sql calls
// Scan.

// Time reads a time column into *t, in UTC: INTEGER microseconds since
// the Unix epoch on SQLite (as the SQLite store writes times),
// timestamptz on PostgreSQL. NULL is an error.
func Time(t *time.Time) TimeColumn { return TimeColumn{t} }

// NullTime reads a nullable time column into *t, as Time does: nil for
// NULL.
func NullTime(t **time.Time) NullTimeColumn { return NullTimeColumn{t} }

// Text reads a nullable text column into *s: "" for NULL.
func Text(s *string) TextColumn { return TextColumn{s} }

// TimeColumn is the destination Time returns.
type TimeColumn struct{ t *time.Time }

// Scan reads a database/sql value: int64 microseconds or a time.Time.
func (c TimeColumn) Scan(src any) error {
	t, ok, err := sqlTime(src)
	if err == nil && !ok {
		err = errors.New("rowscan: NULL in a time column that has no NULL")
	}
	*c.t = t
	return err
}

// ScanTimestamptz reads a PostgreSQL timestamptz.
func (c TimeColumn) ScanTimestamptz(v pgtype.Timestamptz) error {
	t, ok, err := pgTime(v)
	if err == nil && !ok {
		err = errors.New("rowscan: NULL in a time column that has no NULL")
	}
	*c.t = t
	return err
}

// NullTimeColumn is the destination NullTime returns.
type NullTimeColumn struct{ t **time.Time }

// Scan reads a database/sql value: NULL, int64 microseconds or a
// time.Time.
func (c NullTimeColumn) Scan(src any) error {
	t, ok, err := sqlTime(src)
	c.set(t, ok)
	return err
}

// ScanTimestamptz reads a PostgreSQL timestamptz.
func (c NullTimeColumn) ScanTimestamptz(v pgtype.Timestamptz) error {
	t, ok, err := pgTime(v)
	c.set(t, ok)
	return err
}

func (c NullTimeColumn) set(t time.Time, ok bool) {
	if !ok {
		*c.t = nil
		return
	}
	*c.t = &t
}

func sqlTime(src any) (time.Time, bool, error) {
	switch v := src.(type) {
	case nil:
		return time.Time{}, false, nil
	case int64:
		return time.UnixMicro(v).UTC(), true, nil
	case time.Time:
		return v.UTC(), true, nil
	}
	return time.Time{}, false, fmt.Errorf("rowscan: cannot read %T as a time", src)
}

func pgTime(v pgtype.Timestamptz) (time.Time, bool, error) {
	switch {
	case !v.Valid:
		return time.Time{}, false, nil
	case v.InfinityModifier != pgtype.Finite:
		return time.Time{}, false, errors.New("rowscan: an infinite timestamptz is not a time")
	}
	return v.Time.UTC(), true, nil
}

// TextColumn is the destination Text returns.
type TextColumn struct{ s *string }

// Scan reads a database/sql value: NULL, a string or bytes.
func (c TextColumn) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.s = ""
	case string:
		*c.s = v
	case []byte:
		*c.s = string(v)
	default:
		return fmt.Errorf("rowscan: cannot read %T as text", src)
	}
	return nil
}

// ScanText reads a PostgreSQL text value.
func (c TextColumn) ScanText(v pgtype.Text) error {
	*c.s = v.String
	return nil
}
