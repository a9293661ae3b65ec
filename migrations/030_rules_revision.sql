-- counterattackd schema 30: the revision of the rules a game began with. A game
-- keeps its revision (its dice generator among them), so that its stored log
-- replays the same: the games stored before this are revision 1. A tournament's
-- later games take the revision its row names; those under way take revision 2.
ALTER TABLE games ADD COLUMN rules_revision INTEGER NOT NULL DEFAULT 1;
ALTER TABLE tournaments ADD COLUMN rules_revision INTEGER NOT NULL DEFAULT 2;
