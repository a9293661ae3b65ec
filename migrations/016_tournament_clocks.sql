-- counterattackd schema 16: a tournament may give its games a game clock (each
-- player's time for the whole game, and an increment) instead of a time per move.

ALTER TABLE tournaments ADD COLUMN clock_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN increment_seconds INTEGER NOT NULL DEFAULT 0;
