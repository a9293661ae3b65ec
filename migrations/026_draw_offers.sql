-- counterattackd schema 26: a draw offer waits for its answer however long the
-- opponent is away, and across a restart. The seat that offered: 0 Soviet,
-- 1 German, -1 none.
ALTER TABLE games ADD COLUMN draw_offer INTEGER NOT NULL DEFAULT -1;
