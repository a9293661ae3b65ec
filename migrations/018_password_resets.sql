-- counterattackd schema 18: a forgotten password is reset with a code mailed
-- to the player's confirmed address, stored as its SHA-256 hash until it is
-- used or expires.

ALTER TABLE users ADD COLUMN reset_code_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN reset_code_expires_unix INTEGER NOT NULL DEFAULT 0;
