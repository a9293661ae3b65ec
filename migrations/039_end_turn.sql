-- counterattackd schema 39: the turn a finished game ended on, written with its end,
-- so that a finished game read from its row shows it as one held in memory does.
-- 0 for a game that ended before this was stored (or whose log could not be read): not known.
ALTER TABLE games ADD COLUMN end_turn INTEGER NOT NULL DEFAULT 0;
