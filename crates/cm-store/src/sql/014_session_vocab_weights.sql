-- A session's vocabulary now weighs the user's words 6 (was 3) and plain tool output 0.2 (was
-- 0.5) (docs/context.md, recall round 4). The cached vocabularies were computed with the old
-- weights and are only recomputed when a transcript grows, so they are dropped here and every
-- rule is re-indexed once: the next writer (`cm context`, `cm history index`, the post-session
-- job) rebuilds them; the read-only hooks use the stored index until then.
DELETE FROM session_vocab;
INSERT OR IGNORE INTO context_dirty (bullet_id) SELECT id FROM bullets;
