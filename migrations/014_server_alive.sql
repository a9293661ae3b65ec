-- counterattackd schema 14: when the server was last alive, written every second
-- while a game clock runs. At the next start, the time it was down is given back
-- to every running game clock: a live game does not lose time to a restart.

CREATE TABLE server_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  alive_unix INTEGER NOT NULL
);
INSERT INTO server_state (id, alive_unix) VALUES (1, 0);
