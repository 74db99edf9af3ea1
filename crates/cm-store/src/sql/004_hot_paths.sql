-- The session-start hook lists a workspace's newest sessions: an index that answers that with a
-- seek, so the plan never depends on statistics (the query names it with INDEXED BY).
CREATE INDEX episodic_sessions_workspace ON episodic_sessions(workspace, ended_at);

-- Recall reinforcement remembers the newest feedback event it has counted, so checking for new
-- helpful marks is one primary-key lookup instead of a pass over every event.
ALTER TABLE recall_scan ADD COLUMN last_event_seq INTEGER NOT NULL DEFAULT 0;

-- An explicit merge (run by the indexer after it adds messages) merges levels holding two or
-- more segments, not four: an index grown one session at a time keeps a few segments, and every
-- query term is looked up once per segment.
INSERT INTO episodic_fts(episodic_fts, rank) VALUES ('usermerge', 2);

-- Both context hooks ask when the index was last refreshed: the newest indexed_at, by a seek.
CREATE INDEX episodic_files_indexed ON episodic_files(indexed_at);
