-- counterattackd schema 3: e-mail addresses for turn notices, and the outbox
-- the mailer sends from. An address gets mail only once its owner has entered
-- the code mailed to it; the users table keeps only the code's hash (the mail
-- that carries it waits in the outbox until the mail server has taken it).

ALTER TABLE users ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN email_confirmed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN email_code_hash TEXT NOT NULL DEFAULT '';   -- hex SHA-256 of the code
ALTER TABLE users ADD COLUMN email_code_expires_unix INTEGER NOT NULL DEFAULT 0;

-- Mail waiting to be sent: kept until the SMTP server has taken it, so that a
-- restart or an unreachable mail server delays a notice but does not lose it.
CREATE TABLE outbox (
  id                INTEGER PRIMARY KEY,
  to_address        TEXT NOT NULL,
  subject           TEXT NOT NULL,
  body              TEXT NOT NULL,
  created_unix      INTEGER NOT NULL,
  attempts          INTEGER NOT NULL DEFAULT 0,
  next_attempt_unix INTEGER NOT NULL
);
CREATE INDEX outbox_by_due ON outbox(next_attempt_unix);
