-- counterattackd schema 32: why a Swiss ended before its set number of rounds
-- (empty: it ran its course, or has not ended), told to its entrants and shown with it.
ALTER TABLE tournaments ADD COLUMN end_reason TEXT NOT NULL DEFAULT '';
