-- counterattackd schema 21: open games by their maker (the limit on how many one
-- player has open) and by whom a rematch is kept for (My games), so that each
-- looks at one player's few open games instead of every open game on the server.
CREATE INDEX games_open_by_creator ON games(creator_id) WHERE status = 'open';
CREATE INDEX games_open_by_reserved ON games(reserved_for) WHERE status = 'open';
