-- Feedback on a repository's rules, kept in the personal store. A repository's
-- .cass/playbook.yaml is written by whoever wrote the repository, so the trust fields in it
-- (helpfulCount, feedbackEvents, maturity) are ignored when it is read; what this user's
-- marks and outcomes said about its rules lives here, keyed by the file and the rule's id in it,
-- and never goes into the file.
CREATE TABLE IF NOT EXISTS repo_rule_feedback (
    repo TEXT NOT NULL,
    rule_id TEXT NOT NULL,
    events TEXT NOT NULL,
    PRIMARY KEY (repo, rule_id)
) WITHOUT ROWID;
