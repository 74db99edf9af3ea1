-- One row per LLM call cm makes: what it was for, which provider and model, the tokens and what
-- they cost, how it ended, and the session it was about. A call is written 'pending' with its
-- estimated cost before anything is sent, inside the transaction that checks the budget, so
-- concurrent callers see each other's reservations; it is finished with the real figures.
-- Owned by src/llm/ledger.rs.
CREATE TABLE llm_usage (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    purpose TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('pending', 'ok', 'error')),
    error TEXT,
    session TEXT
);
CREATE INDEX llm_usage_at ON llm_usage(at);
