-- counterattackd schema 4: time per move, for games played over days. The
-- player to decide must answer by deadline_unix, or loses the game; each time
-- the decision passes to the other player their deadline is set afresh.

ALTER TABLE games ADD COLUMN move_seconds INTEGER NOT NULL DEFAULT 0;   -- 0: untimed
ALTER TABLE games ADD COLUMN deadline_unix INTEGER NOT NULL DEFAULT 0;  -- the decider's; 0 while untimed or not playing
