-- Procedural memory: bullets, their feedback events, undo history, recorded outcomes.
CREATE TABLE bullets (
    id          TEXT PRIMARY KEY,
    content     TEXT NOT NULL,
    category    TEXT NOT NULL,
    type        TEXT NOT NULL,
    maturity    TEXT NOT NULL,
    deprecated  INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    -- The whole bullet as JSON, without its feedback events (they live in feedback_events).
    doc         TEXT NOT NULL
);
CREATE INDEX bullets_category ON bullets(category);
CREATE INDEX bullets_content ON bullets(lower(content));

CREATE TABLE feedback_events (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    bullet_id    TEXT NOT NULL REFERENCES bullets(id) ON DELETE CASCADE,
    type         TEXT NOT NULL CHECK (type IN ('helpful', 'harmful')),
    timestamp    TEXT NOT NULL,
    source       TEXT NOT NULL,
    session_path TEXT,
    reason       TEXT
);
CREATE INDEX feedback_events_bullet ON feedback_events(bullet_id, seq);

-- One row per change to a bullet, holding the bullet as it was before, so `cm undo` can restore
-- it exactly. `created` lists bullets the change created (an inverted anti-pattern).
CREATE TABLE bullet_revisions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    bullet_id  TEXT NOT NULL,
    action     TEXT NOT NULL,
    at         TEXT NOT NULL,
    before_doc TEXT,
    created    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX bullet_revisions_bullet ON bullet_revisions(bullet_id, seq);

CREATE TABLE outcomes (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    timestamp    TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('success', 'failure', 'mixed')),
    rules_used   TEXT NOT NULL,
    summary      TEXT,
    session_path TEXT,
    applied      INTEGER NOT NULL DEFAULT 0,
    applied_at   TEXT
);
