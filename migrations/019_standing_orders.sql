-- counterattackd schema 19: standing orders, a player's answers given in
-- advance to the decisions the other side's play asks of them in one game. The
-- orders they answer go into the order log as any other; this keeps what the
-- player asked for, for the answers still to come.

CREATE TABLE standing_orders (
  game_id TEXT NOT NULL REFERENCES games(id),
  side    INTEGER NOT NULL,   -- counterattack.game.Side
  orders  BLOB NOT NULL,      -- counterattack.game.StandingOrders
  PRIMARY KEY (game_id, side)
) WITHOUT ROWID;

-- Keys that begin 'standing:' are the server's own from now on: a player's
-- order stored under one before keeps it, marked as the player's.
UPDATE orders SET idempotency_key = 'player:' || idempotency_key WHERE idempotency_key LIKE 'standing:%';
