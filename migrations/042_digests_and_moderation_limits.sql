-- counterattackd schema 42: what a restart must not forget.
-- The games the last turn digest listed for each player, each in the state it
-- waited in (its version, doubled, plus one while a draw was offered to the
-- player): a digest goes only when a game waits that it did not list so.
CREATE TABLE digest_listed (
  user_id INTEGER NOT NULL REFERENCES users(id),
  game_id TEXT NOT NULL,
  state   INTEGER NOT NULL,
  PRIMARY KEY (user_id, game_id)
) WITHOUT ROWID;
-- Each mute and unmute of the last minute, for the limit on how fast a player
-- changes them; older ones are deleted as new ones are stored.
CREATE TABLE mute_changes (
  user_id      INTEGER NOT NULL REFERENCES users(id),
  changed_unix INTEGER NOT NULL
);
CREATE INDEX mute_changes_by_time ON mute_changes(changed_unix);
-- The reports of the last hour, read at the start for the limit on reports.
CREATE INDEX chat_reports_by_time ON chat_reports(created_unix);
