-- Working memory: one diary entry per reflected session, and what reflection did with it.
-- Owned by src/reflect/tables.rs.
CREATE TABLE diary_entries (
    id          TEXT PRIMARY KEY,
    agent       TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    source_path TEXT,
    workspace   TEXT,
    status      TEXT NOT NULL CHECK (status IN ('success', 'failure', 'mixed')),
    created_at  TEXT NOT NULL,
    -- The whole entry as JSON (accomplishments, decisions, challenges, learnings, ...).
    doc         TEXT NOT NULL,
    UNIQUE (agent, session_id)
);
CREATE INDEX diary_entries_created ON diary_entries(created_at);
CREATE INDEX diary_entries_workspace ON diary_entries(workspace, created_at);

-- A session is reflected once: this row says when, on how many messages, and what came of it.
-- A session that grew since (resumed later) is reflected again; every delta is idempotent.
CREATE TABLE reflections (
    agent         TEXT NOT NULL,
    session_id    TEXT NOT NULL,
    message_count INTEGER NOT NULL,
    reflected_at  TEXT NOT NULL,
    -- {"added": [...], "feedback": [...], "rejected": [...]}
    result        TEXT NOT NULL,
    PRIMARY KEY (agent, session_id)
);
