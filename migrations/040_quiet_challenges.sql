-- counterattackd schema 40: whether a challenge was made without telling its player (they
-- had muted its maker), so that its withdrawal or lapse stays as quiet after a restart.
-- -1: made before this was stored (the mutes decide then), 0: told, 1: quiet.
ALTER TABLE games ADD COLUMN offer_quiet INTEGER NOT NULL DEFAULT -1;
