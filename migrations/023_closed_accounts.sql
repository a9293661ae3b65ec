-- counterattackd schema 23: accounts their players have closed. The row stays, so
-- that the name stays taken and the games played keep their player's name; it
-- holds no password, address or session any more.
ALTER TABLE users ADD COLUMN closed_unix INTEGER NOT NULL DEFAULT 0;
