-- counterattackd schema 34: how each player's turn notices are mailed. 'each':
-- a mail per game when the decision passes to them (as before); 'digest': at most
-- one mail per digest_hours listing every game that waits for them; 'off': none.
-- digest_sent_unix: when the last digest went (0: none yet), so that a restart
-- keeps the interval.
ALTER TABLE users ADD COLUMN turn_mail TEXT NOT NULL DEFAULT 'each';
ALTER TABLE users ADD COLUMN digest_hours INTEGER NOT NULL DEFAULT 24;
ALTER TABLE users ADD COLUMN digest_sent_unix INTEGER NOT NULL DEFAULT 0;
