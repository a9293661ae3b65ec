-- counterattackd schema 29: an organiser may withdraw an entrant, with a reason
-- their opponents are told when the games in play are resigned; empty for an
-- entrant who withdrew themselves.
ALTER TABLE tournament_entrants ADD COLUMN withdrawn_reason TEXT NOT NULL DEFAULT '';
