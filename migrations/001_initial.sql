-- counterattackd schema 1: accounts, sessions, games, the order log, snapshots, chat.
-- Applied once, in a transaction, when PRAGMA user_version < 1.

CREATE TABLE users (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,               -- libsodium crypto_pwhash_str (Argon2id)
  created_unix  INTEGER NOT NULL
);

CREATE TABLE sessions (
  token_hash   TEXT PRIMARY KEY,             -- hex SHA-256 of the token; the token itself is never stored
  user_id      INTEGER NOT NULL REFERENCES users(id),
  created_unix INTEGER NOT NULL,
  expires_unix INTEGER NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions(expires_unix);

CREATE TABLE games (
  id              TEXT PRIMARY KEY,
  scenario        TEXT NOT NULL,
  options         TEXT NOT NULL,             -- optional rule keys, comma-separated
  seed            BLOB NOT NULL,             -- 32 bytes: the dice generator's initial state (secret until the end)
  seed_commitment TEXT NOT NULL,             -- hex SHA-256 of seed
  creator_id      INTEGER NOT NULL REFERENCES users(id),
  soviet_id       INTEGER REFERENCES users(id),
  german_id       INTEGER REFERENCES users(id),
  private         INTEGER NOT NULL,
  invite_code     TEXT NOT NULL,
  status          TEXT NOT NULL,             -- open, playing, finished
  result          TEXT NOT NULL DEFAULT '',
  result_reason   TEXT NOT NULL DEFAULT '',
  created_unix    INTEGER NOT NULL,
  updated_unix    INTEGER NOT NULL
);
CREATE INDEX games_by_status ON games(status, private, created_unix);
CREATE INDEX games_by_soviet ON games(soviet_id);
CREATE INDEX games_by_german ON games(german_id);

-- The order log: the source of truth. Version n is the state after n accepted orders.
CREATE TABLE orders (
  game_id         TEXT NOT NULL REFERENCES games(id),
  version         INTEGER NOT NULL,
  side            INTEGER NOT NULL,          -- counterattack.game.Side
  idempotency_key TEXT NOT NULL,
  entry           BLOB NOT NULL,             -- counterattack.wire.LoggedOrder: the order and its events
  state_hash      INTEGER NOT NULL,          -- after the order: checked when the log is replayed
  created_unix    INTEGER NOT NULL,
  PRIMARY KEY (game_id, version)
) WITHOUT ROWID;
CREATE UNIQUE INDEX orders_by_key ON orders(game_id, side, idempotency_key);

-- Rejected orders, so that a retry with the same key gets the same answer.
CREATE TABLE rejections (
  game_id         TEXT NOT NULL REFERENCES games(id),
  side            INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL,
  order_bytes     BLOB NOT NULL,             -- counterattack.game.Order as sent
  rejection       BLOB NOT NULL,             -- counterattack.game.Rejection
  at_version      INTEGER NOT NULL,
  created_unix    INTEGER NOT NULL,
  PRIMARY KEY (game_id, side, idempotency_key)
) WITHOUT ROWID;

-- Periodic snapshots for fast loading: the state and the dice after `version` orders.
CREATE TABLE snapshots (
  game_id TEXT NOT NULL REFERENCES games(id),
  version INTEGER NOT NULL,
  state   BLOB NOT NULL,
  dice    BLOB NOT NULL,
  PRIMARY KEY (game_id, version)
) WITHOUT ROWID;

CREATE TABLE chat (
  id        INTEGER PRIMARY KEY,
  game_id   TEXT NOT NULL REFERENCES games(id),
  channel   INTEGER NOT NULL,                -- counterattack.wire.Channel
  user_id   INTEGER NOT NULL REFERENCES users(id),
  text      TEXT NOT NULL,
  sent_unix INTEGER NOT NULL
);
CREATE INDEX chat_by_game ON chat(game_id, id);
