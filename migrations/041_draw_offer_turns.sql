-- counterattackd schema 41: the game turn of each side's last draw offer (one a turn),
-- written with the offer, so that a restart does not let a side offer again that turn.
-- -1: none offered (or offered before this was stored).
ALTER TABLE games ADD COLUMN soviet_offered_turn INTEGER NOT NULL DEFAULT -1;
ALTER TABLE games ADD COLUMN german_offered_turn INTEGER NOT NULL DEFAULT -1;
