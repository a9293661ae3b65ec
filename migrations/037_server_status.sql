-- counterattackd schema 37: what the operator's --status reads of the running
-- server. Written once at its start: when, its pid, release, listen address and
-- the settings --status judges by (whether mail is set up, where and how often
-- backups are taken). Written with each alive mark (every second while a game
-- clock runs, else every 30 seconds; never per order): connections open, games
-- held in memory, and mail dropped after its last attempt since the start.
ALTER TABLE server_state ADD COLUMN started_unix INTEGER NOT NULL DEFAULT 0;
ALTER TABLE server_state ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE server_state ADD COLUMN version TEXT NOT NULL DEFAULT '';
ALTER TABLE server_state ADD COLUMN listen TEXT NOT NULL DEFAULT '';
ALTER TABLE server_state ADD COLUMN mail INTEGER NOT NULL DEFAULT 0;
ALTER TABLE server_state ADD COLUMN backup_dir TEXT NOT NULL DEFAULT '';
ALTER TABLE server_state ADD COLUMN backup_every_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE server_state ADD COLUMN connections INTEGER NOT NULL DEFAULT 0;
ALTER TABLE server_state ADD COLUMN games_in_memory INTEGER NOT NULL DEFAULT 0;
ALTER TABLE server_state ADD COLUMN mail_dropped INTEGER NOT NULL DEFAULT 0;
