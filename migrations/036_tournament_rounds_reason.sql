-- counterattackd schema 36: why a Swiss plays fewer rounds than its organiser
-- set, cut at its start to what its entrants can play without meeting twice
-- (empty: it plays them all, or is not a Swiss), told with its start and shown with it.
ALTER TABLE tournaments ADD COLUMN rounds_reason TEXT NOT NULL DEFAULT '';
