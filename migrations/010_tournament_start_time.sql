-- counterattackd schema 10: a tournament may start at a set time by itself
-- (0: when full, or when its organiser starts it).

ALTER TABLE tournaments ADD COLUMN starts_unix INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tournaments_by_start ON tournaments(starts_unix) WHERE status = 'open' AND starts_unix > 0;
