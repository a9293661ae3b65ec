-- counterattackd schema 12: game clocks for live play. Instead of a time per
-- move, each player has clock_seconds for the whole game and gets
-- increment_seconds back each time the decision passes from them. *_left is
-- each player's time when their clock last stopped; the clock of the player to
-- decide runs until deadline_unix.

ALTER TABLE games ADD COLUMN clock_seconds INTEGER NOT NULL DEFAULT 0;      -- 0: no game clock
ALTER TABLE games ADD COLUMN increment_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN soviet_left INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN german_left INTEGER NOT NULL DEFAULT 0;
