-- counterattackd schema 29: an organiser may withdraw an entrant, with a reason.
-- Under way, the reason their opponents are told when the games in play are
-- resigned (empty for an entrant who withdrew themselves); before the start, the
-- entrant is struck off, and kept from entering that tournament again.
ALTER TABLE tournament_entrants ADD COLUMN withdrawn_reason TEXT NOT NULL DEFAULT '';
CREATE TABLE tournament_struck_off (
  tournament_id TEXT NOT NULL REFERENCES tournaments(id),
  user_id       INTEGER NOT NULL REFERENCES users(id),
  reason        TEXT NOT NULL,
  PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;
