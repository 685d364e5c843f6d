package postgres

import "time"

// newestFirst is the end of a newest-first list query: rows strictly older
// than (beforeAt, beforeID) when beforeID is set (keyset paging on
// created_at and id), newest first, at most limit. arg adds a parameter
// and returns its placeholder.
func newestFirst(arg func(any) string, beforeAt time.Time, beforeID string, limit int) string {
	q := ""
	if beforeID != "" {
		q = ` AND (created_at, id) < (` + arg(beforeAt) + `, ` + arg(beforeID) + `::uuid)`
	}
	return q + ` ORDER BY created_at DESC, id DESC LIMIT ` + arg(limit)
}
