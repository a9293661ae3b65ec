-- counterattackd schema 25: accounts the operator has suspended. Until the time
-- given (or until reinstated) the player cannot log in; the reason is what they
-- are told. 0: not suspended.
ALTER TABLE users ADD COLUMN suspended_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN suspended_reason TEXT NOT NULL DEFAULT '';
CREATE INDEX users_suspended ON users(suspended_until) WHERE suspended_until <> 0;
-- The games a suspended player is in, read every few seconds while any is suspended.
CREATE INDEX games_playing_by_soviet ON games(soviet_id) WHERE status = 'playing';
CREATE INDEX games_playing_by_german ON games(german_id) WHERE status = 'playing';
