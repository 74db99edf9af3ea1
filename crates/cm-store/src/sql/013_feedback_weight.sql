-- How much a feedback event counts. An outcome scored from its implicit signals (duration,
-- errors, retries, sentiment) gives its events a weight from 0.1 to 2.0, which multiplies the
-- event's decayed value in the score. Every event before this had weight 1.0, the default, so
-- each existing rule scores exactly as before.
ALTER TABLE feedback_events ADD COLUMN weight REAL NOT NULL DEFAULT 1.0;

-- A recorded outcome's implicit signals and what they scored (JSON: type, weight, reasons,
-- sentiment and the signals given); NULL for an outcome recorded without any.
ALTER TABLE outcomes ADD COLUMN signals TEXT;
