-- The session-start hook lists a workspace's newest sessions: an index that answers that with a
-- seek, so the plan never depends on statistics (the query names it with INDEXED BY).
CREATE INDEX episodic_sessions_workspace ON episodic_sessions(workspace, ended_at);
