-- Onboarding progress: the sessions a person or agent marked as read (`cm onboard mark-done`).
-- Sessions whose rules cite them (`cm playbook add --session`) count as done without a row here.
-- Owned by src/onboard/progress.rs.
CREATE TABLE onboarding_sessions (
    agent           TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    source_path     TEXT,
    marked_at       TEXT NOT NULL,
    rules_extracted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent, session_id)
);
