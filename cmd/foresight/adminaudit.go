package main

import (
	"context"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
)

// runAuditList is `foresight admin audit list`: one page of the audit
// trail, newest first, with the cursor of the next.
func runAuditList(ctx context.Context, c *admin.Client, v adminValues) (any, error) {
	limit, err := optionalInt(v["limit"], "limit")
	if err != nil {
		return nil, err
	}
	q := admin.AuditQuery{OperatorID: v["operator"], Action: v["action"], Actor: v["actor"], TargetKind: v["target-kind"],
		TargetID: v["target-id"], Limit: limit, Cursor: v["cursor"]}
	for _, bound := range []struct {
		name string
		dst  *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		t, err := optionalTime(v[bound.name], bound.name)
		if err != nil {
			return nil, err
		}
		if t != nil {
			*bound.dst = *t
		}
	}
	items, next, err := c.AuditEntries(ctx, q)
	if err != nil {
		return nil, err
	}
	page := map[string]any{"items": items, "next_cursor": nil}
	if next != "" {
		page["next_cursor"] = next
	}
	return page, nil
}
