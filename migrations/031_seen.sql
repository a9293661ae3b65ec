-- counterattackd schema 31: what each seated player has been shown of a game.
-- The highest version a player was shown, recorded only on rare events (a
-- connection stops watching the game, the player reads its log): a player's own
-- orders (the orders table, by side) imply they saw up to each, unwritten here.
CREATE TABLE seen (
  game_id TEXT NOT NULL REFERENCES games(id),
  side    INTEGER NOT NULL,                  -- counterattack.game.Side
  version INTEGER NOT NULL,
  PRIMARY KEY (game_id, side)
) WITHOUT ROWID;
