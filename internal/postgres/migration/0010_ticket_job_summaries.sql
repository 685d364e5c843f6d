-- What the admin API's job list shows of a job beyond its status: when a
-- worker first took it up and when it finished (jobs from before this
-- migration have neither), the engine that last worked it, how many times a
-- worker took it up, its result's ticket count (kept after the result
-- expires) and when a callback was last delivered.
ALTER TABLE ticket_jobs
    ADD COLUMN started_at TIMESTAMPTZ,
    ADD COLUMN finished_at TIMESTAMPTZ,
    ADD COLUMN engine TEXT NOT NULL DEFAULT '',
    ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN ticket_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN callback_delivered_at TIMESTAMPTZ;

-- Results are validated tickets.result.v1 documents before they are stored.
UPDATE ticket_jobs SET ticket_count = coalesce(jsonb_array_length(convert_from(result, 'UTF8')::jsonb -> 'tickets'), 0)
WHERE result IS NOT NULL AND jsonb_typeof(convert_from(result, 'UTF8')::jsonb -> 'tickets') = 'array';

-- The list's filters, each served in order by an index: every client's
-- jobs, by status, by client (ticket_jobs_client_created), and by client
-- and status (this one also counts a client's unfinished jobs, as the index
-- it replaces did).
DROP INDEX ticket_jobs_client_status;
CREATE INDEX ticket_jobs_client_status ON ticket_jobs (client_id, status, created_at DESC, id DESC);
CREATE INDEX ticket_jobs_created ON ticket_jobs (created_at DESC, id DESC);
CREATE INDEX ticket_jobs_status_created ON ticket_jobs (status, created_at DESC, id DESC);
