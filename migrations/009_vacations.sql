-- counterattackd schema 9: vacations. While one runs, the player's clocks stand
-- still; the days it takes count against an allowance per 365 days. A vacation
-- is charged in full when it starts; one ended early keeps the days it used.

CREATE TABLE vacations (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  start_unix INTEGER NOT NULL,
  end_unix INTEGER NOT NULL,      -- planned, or when it was ended
  days INTEGER NOT NULL           -- charged to the allowance
);
CREATE INDEX vacations_by_user ON vacations(user_id, start_unix);

-- The end of the vacation that holds the clock of a game's player to decide
-- (0: none): ending that vacation early gives back only what it added.
ALTER TABLE games ADD COLUMN held_until INTEGER NOT NULL DEFAULT 0;
