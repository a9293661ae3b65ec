-- counterattackd schema 17: knock-out tournaments. Entrants are seeded by rating
-- (tournament_entrants.draw, as a Swiss's) into a bracket; out_in_round is the
-- round in which an entrant was knocked out, 0 while still in. A knock-out's
-- first round may have several byes: tournament_byes takes one row per entrant.
-- tournaments.unannounced is 2 (not 1) while a knock-out's deciding games wait
-- to be announced.

ALTER TABLE tournaments ADD COLUMN knockout INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournament_entrants ADD COLUMN out_in_round INTEGER NOT NULL DEFAULT 0;

CREATE TABLE tournament_byes_17 (
  tournament_id TEXT NOT NULL REFERENCES tournaments(id),
  round         INTEGER NOT NULL,
  user_id       INTEGER NOT NULL REFERENCES users(id),
  PRIMARY KEY (tournament_id, round, user_id)
) WITHOUT ROWID;
INSERT INTO tournament_byes_17 (tournament_id, round, user_id) SELECT tournament_id, round, user_id FROM tournament_byes;
DROP TABLE tournament_byes;
ALTER TABLE tournament_byes_17 RENAME TO tournament_byes;
