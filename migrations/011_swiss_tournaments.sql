-- counterattackd schema 11: Swiss tournaments. A tournament with rounds > 0 is
-- played round by round: each round pairs the entrants by their standings,
-- without rematches while that is possible, and is made when the round before
-- it is over. A bye (an odd number of entrants) is worth two points.

ALTER TABLE tournaments ADD COLUMN rounds INTEGER NOT NULL DEFAULT 0;  -- 0: a round robin
ALTER TABLE tournaments ADD COLUMN round INTEGER NOT NULL DEFAULT 0;   -- the round made last
ALTER TABLE games ADD COLUMN tournament_round INTEGER NOT NULL DEFAULT 0;
-- 1 from the write that makes games (a start, a round) until they are announced,
-- so that a server stopped in between announces them when it starts again.
ALTER TABLE tournaments ADD COLUMN unannounced INTEGER NOT NULL DEFAULT 0;
-- A Swiss's draw for the first round: the last tie-break when pairing the next.
ALTER TABLE tournament_entrants ADD COLUMN draw INTEGER NOT NULL DEFAULT 0;

CREATE TABLE tournament_byes (
  tournament_id TEXT NOT NULL REFERENCES tournaments(id),
  round         INTEGER NOT NULL,
  user_id       INTEGER NOT NULL REFERENCES users(id),
  PRIMARY KEY (tournament_id, round)
) WITHOUT ROWID;
