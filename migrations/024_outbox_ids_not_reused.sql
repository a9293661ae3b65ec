-- counterattackd schema 24: outbox ids are never used again. A message deleted
-- while the sender holds it (its address replaced) must not lend its id to a new
-- one, which the sender's removal of the old would then take away unsent.
CREATE TABLE outbox_next (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  to_address        TEXT NOT NULL,
  subject           TEXT NOT NULL,
  body              TEXT NOT NULL,
  created_unix      INTEGER NOT NULL,
  attempts          INTEGER NOT NULL DEFAULT 0,
  next_attempt_unix INTEGER NOT NULL,
  user_id           INTEGER NOT NULL DEFAULT 0
);
INSERT INTO outbox_next (id, to_address, subject, body, created_unix, attempts, next_attempt_unix, user_id)
  SELECT id, to_address, subject, body, created_unix, attempts, next_attempt_unix, user_id FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_next RENAME TO outbox;
CREATE INDEX outbox_by_due ON outbox(next_attempt_unix);
CREATE INDEX outbox_by_user ON outbox(user_id) WHERE user_id <> 0;
