package sqlite

import (
	"errors"
	"slices"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// violates reports whether err is SQLite refusing a write for one of the
// constraint kinds in codes (extended result codes, which the driver turns
// on for every connection).
func violates(err error, codes ...int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && slices.Contains(codes, se.Code())
}

// isUniqueViolation: err is a write refused by a UNIQUE or PRIMARY KEY
// constraint.
func isUniqueViolation(err error) bool {
	return violates(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// isForeignKeyViolation: err is a write refused by a FOREIGN KEY
// constraint.
func isForeignKeyViolation(err error) bool {
	return violates(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY)
}
