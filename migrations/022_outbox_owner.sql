-- counterattackd schema 22: whose mail each outbox message is (0: no player's),
-- so that an address its player replaces or removes is sent nothing more that
-- was still waiting for the mail server.
ALTER TABLE outbox ADD COLUMN user_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX outbox_by_user ON outbox(user_id) WHERE user_id <> 0;
