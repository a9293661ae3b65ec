-- counterattackd schema 5: tournaments. A round robin in which every pair of
-- entrants plays two games, one with each side. Its games are ordinary games
-- that name their tournament; the standings are read from their results, so a
-- tournament keeps no score of its own, and it is over when all its games are.

CREATE TABLE tournaments (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  organiser_id INTEGER NOT NULL REFERENCES users(id),
  scenario     TEXT NOT NULL,
  options      TEXT NOT NULL,              -- optional rule keys, comma-separated
  move_seconds INTEGER NOT NULL,
  max_players  INTEGER NOT NULL,
  private      INTEGER NOT NULL,
  invite_code  TEXT NOT NULL,
  status       TEXT NOT NULL,              -- open, playing, cancelled (finished: every game finished)
  created_unix INTEGER NOT NULL,
  started_unix INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tournaments_by_status ON tournaments(status, private, created_unix);
CREATE INDEX tournaments_by_organiser ON tournaments(organiser_id);

CREATE TABLE tournament_entrants (
  tournament_id TEXT NOT NULL REFERENCES tournaments(id),
  user_id       INTEGER NOT NULL REFERENCES users(id),
  joined_unix   INTEGER NOT NULL,
  PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;
CREATE INDEX entrants_by_user ON tournament_entrants(user_id);

ALTER TABLE games ADD COLUMN tournament_id TEXT NOT NULL DEFAULT '';
CREATE INDEX games_by_tournament ON games(tournament_id) WHERE tournament_id != '';
