-- counterattackd schema 28: an entrant may withdraw from a tournament under way.
-- Their games in play are resigned (the server's poll does it, and again after a
-- restart until none is left), and no later round pairs them. Their results stand.
ALTER TABLE tournament_entrants ADD COLUMN withdrawn_unix INTEGER NOT NULL DEFAULT 0;
-- The poll for their games reads the withdrawn entrants alone.
CREATE INDEX withdrawn_entrants ON tournament_entrants(user_id, tournament_id) WHERE withdrawn_unix <> 0;
