-- counterattackd schema 6: Glicko-2 ratings, one per player and scenario. A
-- rated game's end updates both players' rows in the transaction that stores
-- the end, and records what it changed.

CREATE TABLE ratings (
  user_id      INTEGER NOT NULL REFERENCES users(id),
  scenario     TEXT NOT NULL,
  rating       REAL NOT NULL,
  deviation    REAL NOT NULL,
  volatility   REAL NOT NULL,
  games        INTEGER NOT NULL,
  wins         INTEGER NOT NULL,
  draws        INTEGER NOT NULL,
  losses       INTEGER NOT NULL,
  updated_unix INTEGER NOT NULL,             -- the last rated game's end
  PRIMARY KEY (user_id, scenario)
) WITHOUT ROWID;
CREATE INDEX ratings_by_rating ON ratings(scenario, rating DESC);

CREATE TABLE rating_changes (
  game_id TEXT NOT NULL REFERENCES games(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  before  REAL NOT NULL,
  after   REAL NOT NULL,
  PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;

-- Games made before ratings existed count for none.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
