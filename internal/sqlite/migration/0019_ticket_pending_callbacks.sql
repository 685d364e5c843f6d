-- The jobs whose callback is owed (a callback_url, neither delivered nor
-- failed for good), by client and last update: a submission with a
-- callback_url counts its client's, up to the bound of pending callbacks,
-- reading only those (docs/decisions.md, "Callbacks owed, per client").
CREATE INDEX ticket_jobs_pending_callbacks ON ticket_jobs (client_id, updated_at)
    WHERE callback_delivered_at IS NULL AND callback_failed = 0 AND json_extract(request, '$.callback_url') IS NOT NULL;
