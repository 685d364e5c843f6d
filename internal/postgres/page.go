package postgres

import (
	"time"

	"github.com/foresight-dev/foresight/internal/sqlargs"
)

// newestFirst is the end of a newest-first list query: rows strictly older
// than (beforeAt, beforeID) when beforeID is set (keyset paging on
// created_at and id), newest first, at most limit. Its arguments are
// added to args.
func newestFirst(args *sqlargs.List, beforeAt time.Time, beforeID string, limit int) string {
	q := ""
	if beforeID != "" {
		q = ` AND (created_at, id) < (` + args.Add(beforeAt) + `, ` + args.Add(beforeID) + `::uuid)`
	}
	return q + ` ORDER BY created_at DESC, id DESC LIMIT ` + args.Add(limit)
}
