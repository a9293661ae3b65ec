-- counterattackd schema 15: a cancelled tournament keeps why and by whom, and is
-- marked unannounced until its entrants are told, so that a server stopped in
-- between tells them when it starts again. From this version on,
-- tournament_entrants.draw holds a Swiss entrant's seed (by rating).

ALTER TABLE tournaments ADD COLUMN cancel_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE tournaments ADD COLUMN cancelled_by INTEGER NOT NULL DEFAULT 0;  -- 0: the server (too few at a set start)
