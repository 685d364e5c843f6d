-- The job queue's nodes and their last beat (jobqueue.Recovery): the
-- running jobs of a node whose last beat is old enough are made available
-- again within seconds instead of after River's rescue of stuck jobs.
CREATE TABLE IF NOT EXISTS queue_nodes (
    id TEXT PRIMARY KEY,
    beat_at TIMESTAMPTZ NOT NULL
);
