-- counterattackd schema 13: rematches. A rematch is a new game against the
-- opponent of a finished game, on its terms with the sides swapped; until that
-- opponent joins, nobody else may (reserved_for), and it is not listed as open.

ALTER TABLE games ADD COLUMN rematch_of TEXT NOT NULL DEFAULT '';     -- the finished game; '' for others
ALTER TABLE games ADD COLUMN reserved_for INTEGER NOT NULL DEFAULT 0; -- the user who alone may join; 0: anyone
CREATE INDEX games_by_rematch_of ON games(rematch_of) WHERE rematch_of <> '';
