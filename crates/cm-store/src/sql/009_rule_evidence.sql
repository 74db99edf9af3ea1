-- Where a rule comes from and what its situation looked like (docs/context.md, "Place and
-- evidence"). Owned by src/context/evidence/.

-- The sessions a rule was learned from (`source`) or marked helpful in (`helped`), by the
-- reference the rule carries: a transcript path (canonical when it could be resolved) or a
-- session id, with the indexed file it resolved to and that file's message count then (NULL when
-- it was not indexed). Rebuilt with the rule's terms; a file that has since appeared or grown
-- marks its rules for rebuilding.
CREATE TABLE rule_sessions (
    bullet_id TEXT NOT NULL,
    ref       TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('source', 'helped')),
    file_id   INTEGER,
    messages  INTEGER,
    PRIMARY KEY (bullet_id, ref)
) WITHOUT ROWID;
CREATE INDEX rule_sessions_ref ON rule_sessions(ref);

-- A rule's evidence vocabulary: the weighted words of its sessions (w in (0, 1], the rule's
-- strongest word 1), at most a few dozen per rule.
CREATE TABLE rule_evidence (
    term      TEXT NOT NULL,
    bullet_id TEXT NOT NULL,
    w         REAL NOT NULL,
    PRIMARY KEY (term, bullet_id)
) WITHOUT ROWID;
CREATE INDEX rule_evidence_bullet ON rule_evidence(bullet_id);

-- Where a rule was learned or helped: `workspace` (the session's working directory) and
-- `lang` (a language or tool stack its sessions touched), with how many sessions say so.
CREATE TABLE rule_places (
    bullet_id TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('workspace', 'lang')),
    value     TEXT NOT NULL,
    sessions  INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (bullet_id, kind, value)
) WITHOUT ROWID;
CREATE INDEX rule_places_value ON rule_places(kind, value);

-- One indexed transcript's vocabulary and places, computed once and reused by every rule citing
-- it; `messages` is the file's message count when computed (a grown file is read again).
CREATE TABLE session_vocab (
    file_id   INTEGER PRIMARY KEY,
    messages  INTEGER NOT NULL,
    workspace TEXT,
    langs     TEXT NOT NULL,
    terms     TEXT NOT NULL
);

-- Whether a rule has a place (so ranking may boost it: an upper bound for pruning) and an
-- evidence vocabulary (counted with the rule totals, for the evidence idf).
ALTER TABLE context_docs ADD COLUMN placed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE context_docs ADD COLUMN evidenced INTEGER NOT NULL DEFAULT 0;

-- Every rule is re-indexed once, so rules learned before this version get their evidence.
INSERT OR IGNORE INTO context_dirty (bullet_id) SELECT id FROM bullets;
