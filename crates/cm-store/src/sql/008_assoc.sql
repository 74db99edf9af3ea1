-- The offline association layer (src/episodic/assoc/): which words go together in the user's
-- own sessions, learned from the indexed conversation text, bounded in size.
-- assoc_terms: the vocabulary, one row per stemmed term (capped, rarest pruned first).
CREATE TABLE assoc_terms (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    term TEXT NOT NULL UNIQUE,   -- the stem (src/context/stem.rs)
    word TEXT NOT NULL,          -- a form seen in the text, to search the full-text index with
    df   INTEGER NOT NULL        -- learned messages holding it
);
-- assoc_links: each term's strongest associates, one blob of at most 32 entries
-- (associate id u32, co-occurrence count u32, strength f32; little-endian, strongest first).
CREATE TABLE assoc_links (
    id    INTEGER PRIMARY KEY,   -- assoc_terms.id
    links BLOB NOT NULL
);
-- How far learning got: messages with rowid <= learned_through have been learned from.
CREATE TABLE assoc_state (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    learned_through INTEGER NOT NULL,
    messages        INTEGER NOT NULL,
    pruned          INTEGER NOT NULL DEFAULT 0
);
