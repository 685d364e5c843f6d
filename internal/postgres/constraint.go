package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes of the errors the stores turn into domain errors
// (PostgreSQL's Appendix A).
const (
	uniqueViolation           = "23505"
	foreignKeyViolation       = "23503"
	invalidTextRepresentation = "22P02"
)

// hasSQLState reports whether err is PostgreSQL refusing a statement with
// the SQLSTATE code.
func hasSQLState(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// isUniqueViolation: err is a write refused by a UNIQUE or PRIMARY KEY
// constraint.
func isUniqueViolation(err error) bool { return hasSQLState(err, uniqueViolation) }

// isForeignKeyViolation: err is a write refused by a FOREIGN KEY
// constraint (the row it names does not exist).
func isForeignKeyViolation(err error) bool { return hasSQLState(err, foreignKeyViolation) }

// badID reports an id PostgreSQL cannot read as a UUID: such a row does
// not exist.
func badID(err error) bool { return hasSQLState(err, invalidTextRepresentation) }
