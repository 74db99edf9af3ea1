-- Episodic memory: agents' session logs, the files they came from, and a full-text index.

-- One row per source file (or database) a connector found, with what incremental indexing needs:
-- its identity (device + inode), the size and mtime seen last, where reading stopped (byte offset
-- just past the last complete line, and that line's number), the connector's private state, and
-- what went wrong. A file whose identity changes, or that shrinks below `offset`, is re-read.
CREATE TABLE episodic_files (
    id                INTEGER PRIMARY KEY,
    path              TEXT NOT NULL UNIQUE,
    agent             TEXT NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('lines', 'document')),
    parent_session_id TEXT,
    dev               INTEGER,
    ino               INTEGER,
    size              INTEGER NOT NULL DEFAULT 0,
    mtime_ns          INTEGER NOT NULL DEFAULT 0,
    -- Hash of the first `head_len` bytes: catches a file rewritten in place under the same inode.
    head_hash         INTEGER,
    head_len          INTEGER NOT NULL DEFAULT 0,
    offset            INTEGER NOT NULL DEFAULT 0,
    next_line         INTEGER NOT NULL DEFAULT 1,
    state             TEXT,
    messages          INTEGER NOT NULL DEFAULT 0,
    skipped           INTEGER NOT NULL DEFAULT 0,
    -- {"reason": count, ...} over the file's lifetime in the index.
    skip_reasons      TEXT,
    redactions        INTEGER NOT NULL DEFAULT 0,
    capped            INTEGER NOT NULL DEFAULT 0,
    last_error        TEXT,
    indexed_at        TEXT
);

-- One row per session (agent + session id). Times and counts are kept current by the indexer.
CREATE TABLE episodic_sessions (
    id                INTEGER PRIMARY KEY,
    agent             TEXT NOT NULL,
    session_id        TEXT NOT NULL,
    parent_session_id TEXT,
    file_id           INTEGER NOT NULL,
    workspace         TEXT,
    git_branch        TEXT,
    title             TEXT,
    model             TEXT,
    started_at        TEXT,
    ended_at          TEXT,
    message_count     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (agent, session_id)
);
CREATE INDEX episodic_sessions_file ON episodic_sessions(file_id);
CREATE INDEX episodic_sessions_ended ON episodic_sessions(ended_at);

-- One row per message. The body lives in exactly one of three columns, by kind: `text` for what
-- the user and the assistant said (and thinking), `tool_text` for tool calls and results, and
-- `hidden_text` for injected scaffolding, which is kept but never searched. `ts` is the
-- timestamp in Unix milliseconds, for the days filter and recency.
CREATE TABLE episodic_messages (
    id                INTEGER PRIMARY KEY,
    file_id           INTEGER NOT NULL,
    agent             TEXT NOT NULL,
    session_id        TEXT NOT NULL,
    parent_session_id TEXT,
    line_number       INTEGER NOT NULL,
    workspace         TEXT,
    git_branch        TEXT,
    role              TEXT NOT NULL,
    kind              TEXT NOT NULL,
    created_at        TEXT,
    ts                INTEGER,
    model             TEXT,
    text              TEXT,
    tool_text         TEXT,
    hidden_text       TEXT,
    tool_name         TEXT,
    tool_args         TEXT,
    is_error          INTEGER NOT NULL DEFAULT 0,
    -- Bytes dropped from the middle of a huge body (0 when kept whole).
    capped_bytes      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX episodic_messages_file_line ON episodic_messages(file_id, line_number);

-- Full-text index over the messages (external content: the text is stored once, in
-- episodic_messages). Columns are weighted at query time so conversation outranks tool output.
-- Rows are added and deleted by the indexer explicitly; scaffolding rows are never added.
-- Tool arguments are not indexed on their own: connectors render a call's arguments into its
-- text (the command, the path, the edit), so indexing the JSON too would tokenize them twice.
CREATE VIRTUAL TABLE episodic_fts USING fts5(
    text,
    tool_text,
    content = 'episodic_messages',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Merge segments in larger groups: about 10% less work while indexing in bulk, for a few more
-- segments to read per query.
INSERT INTO episodic_fts(episodic_fts, rank) VALUES ('automerge', 8);
