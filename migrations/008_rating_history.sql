-- counterattackd schema 8: a player's rated games, newest first, are read by
-- player: an index for that.

CREATE INDEX rating_changes_by_user ON rating_changes(user_id);
