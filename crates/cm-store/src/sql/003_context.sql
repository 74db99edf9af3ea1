-- Context retrieval: a lexical term index over bullets, stored embeddings, recall reinforcement.

-- One row per indexed bullet: the hash of the text the terms came from, the weighted length, and
-- what ranking needs before loading the bullet: live (not deprecated or retired), anti-pattern,
-- `helpful` (helpful marks, undecayed: an upper bound for the feedback weight), and `scoped`
-- (workspace-scoped, so it may earn the scope boost).
CREATE TABLE context_docs (
    doc          INTEGER PRIMARY KEY,
    bullet_id    TEXT NOT NULL UNIQUE,
    content_hash TEXT NOT NULL,
    len          REAL NOT NULL,
    live         INTEGER NOT NULL,
    anti         INTEGER NOT NULL,
    helpful      REAL NOT NULL,
    scoped       INTEGER NOT NULL
);

-- Postings: weighted term frequency of each stemmed term in each bullet (content, category, tags).
CREATE TABLE context_terms (
    term TEXT NOT NULL,
    doc  INTEGER NOT NULL,
    tf   REAL NOT NULL,
    PRIMARY KEY (term, doc)
) WITHOUT ROWID;
CREATE INDEX context_terms_doc ON context_terms(doc);

-- Bullets whose terms must be recomputed. Filled by triggers, so every writer (add, import, mark,
-- undo, forget) keeps the index honest without knowing it exists; drained by `cm context`.
CREATE TABLE context_dirty (bullet_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TRIGGER context_bullet_insert AFTER INSERT ON bullets BEGIN
    INSERT OR IGNORE INTO context_dirty (bullet_id) VALUES (NEW.id);
END;
CREATE TRIGGER context_bullet_update AFTER UPDATE OF content, category, doc ON bullets BEGIN
    INSERT OR IGNORE INTO context_dirty (bullet_id) VALUES (NEW.id);
END;
CREATE TRIGGER context_bullet_delete AFTER DELETE ON bullets BEGIN
    INSERT OR IGNORE INTO context_dirty (bullet_id) VALUES (OLD.id);
END;
INSERT OR IGNORE INTO context_dirty (bullet_id) SELECT id FROM bullets;

-- Semantic search: one embedding per bullet, recomputed only when its text hash or model changes.
-- `vector` holds `dim` little-endian f32 values.
CREATE TABLE bullet_embeddings (
    bullet_id    TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    model        TEXT NOT NULL,
    dim          INTEGER NOT NULL,
    vector       BLOB NOT NULL,
    updated_at   TEXT NOT NULL
) WITHOUT ROWID;

-- Recall reinforcement: how often an item (a rule id) was actually used - cited by an agent in a
-- session after it was shown, or marked helpful - not how often it was displayed.
CREATE TABLE recall_reinforcement (
    item_id      TEXT PRIMARY KEY,
    uses         INTEGER NOT NULL DEFAULT 0,
    last_used_at TEXT,
    -- The newest evidence: "session:<agent>/<id>" or "helpful:<event id>".
    evidence     TEXT
) WITHOUT ROWID;

-- Evidence already counted, so re-scanning a session never counts a citation twice.
CREATE TABLE recall_evidence (
    item_id  TEXT NOT NULL,
    evidence TEXT NOT NULL,
    at       TEXT NOT NULL,
    PRIMARY KEY (item_id, evidence)
) WITHOUT ROWID;

-- How far the scan of indexed messages for cited rule ids has got (message rowid).
CREATE TABLE recall_scan (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    last_msg_id INTEGER NOT NULL DEFAULT 0
);
