// Package cursor encodes the opaque cursors of Foresight's paged lists: a
// position (creation time and id) in a listing ordered newest first.
package cursor

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Encode returns the cursor after the row created at at with id.
func Encode(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "|" + id))
}

// Decode returns the position of a cursor, or false when c is not one
// Encode made (the id must be a UUID).
func Decode(c string) (time.Time, string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", false
	}
	us, id, ok := strings.Cut(string(b), "|")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || uuid.Validate(id) != nil {
		return time.Time{}, "", false
	}
	return time.UnixMicro(n).UTC(), id, true
}

// Page cuts rows, read with a limit of limit+1 (one more row than the
// page holds, which tells whether more follow), to the page's first limit
// rows, and returns the cursor next makes of the page's last row when more
// follow ("" when rows was the last page).
func Page[T any](rows []T, limit int, next func(T) string) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, next(rows[limit-1])
}
