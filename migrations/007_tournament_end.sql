-- counterattackd schema 7: when a tournament's last game ended, so that its
-- end is announced once (0: not yet announced).

ALTER TABLE tournaments ADD COLUMN finished_unix INTEGER NOT NULL DEFAULT 0;
