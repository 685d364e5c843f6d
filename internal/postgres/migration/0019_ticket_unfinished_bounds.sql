-- An upper bound of each client's unfinished (queued, processing,
-- cancel_requested) jobs, so that a submission need not count them: a batch
-- whose jobs fit under the client's bound of unfinished jobs by this number
-- alone skips the count, and only a client near its bound is counted again
-- (docs/performance.md, "Job submission on PostgreSQL: a bound instead of a
-- count"). Only submissions write it, under the client's submission lock:
-- each sets it to the number it used (the bound or the count) plus the jobs
-- it inserted. Finishing a job writes nothing here, which keeps the bound
-- above the true number, since a finished job never becomes unfinished
-- again.
CREATE TABLE ticket_unfinished_bounds (
    client_id UUID PRIMARY KEY REFERENCES ticket_clients (id) ON DELETE CASCADE,
    at_most INTEGER NOT NULL
);
