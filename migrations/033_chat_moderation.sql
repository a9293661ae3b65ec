-- counterattackd schema 33: chat moderation.
-- The players each player has muted: their chat is not delivered to the muter.
CREATE TABLE mutes (
  user_id      INTEGER NOT NULL REFERENCES users(id),
  muted_id     INTEGER NOT NULL REFERENCES users(id),
  created_unix INTEGER NOT NULL,
  PRIMARY KEY (user_id, muted_id)
) WITHOUT ROWID;
-- A player's report of another's chat in a game, for the operator. The evidence
-- is the reported player's lines the reporter could read, copied when reported,
-- one a line. handled_unix 0: not yet handled.
CREATE TABLE chat_reports (
  id           INTEGER PRIMARY KEY,
  reporter_id  INTEGER NOT NULL REFERENCES users(id),
  reported_id  INTEGER NOT NULL REFERENCES users(id),
  game_id      TEXT NOT NULL,
  reason       TEXT NOT NULL,
  evidence     TEXT NOT NULL,
  created_unix INTEGER NOT NULL,
  handled_unix INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chat_reports_unhandled ON chat_reports(id) WHERE handled_unix = 0;
-- One waiting report of a player in a game by each reporter.
CREATE UNIQUE INDEX chat_reports_waiting ON chat_reports(reporter_id, reported_id, game_id) WHERE handled_unix = 0;
-- The operator's chat ban: until then the player's chat is refused with the
-- reason; their account is otherwise as it was. 0: none.
ALTER TABLE users ADD COLUMN chat_banned_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN chat_ban_reason TEXT NOT NULL DEFAULT '';
CREATE INDEX users_chat_banned ON users(chat_banned_until) WHERE chat_banned_until <> 0;
