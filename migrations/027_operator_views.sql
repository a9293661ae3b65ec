-- counterattackd schema 27: what the operator's commands show of a running
-- server, and what they ask of it.
-- Connections logged in as the player now (set to 0 at each start), and when
-- the player last logged in or left.
ALTER TABLE users ADD COLUMN online INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN last_seen_unix INTEGER NOT NULL DEFAULT 0;
-- Games the operator has asked to end, with why; the server ends each within
-- seconds (or at its next start) and the request goes once the end is stored.
CREATE TABLE operator_game_ends (
  game_id    TEXT PRIMARY KEY REFERENCES games(id),
  reason     TEXT NOT NULL,
  asked_unix INTEGER NOT NULL
);
