// Server settings: embedded defaults, a config file, then command-line flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proxies.h"

namespace counterattack::server {

struct Config {
  std::string listen = "127.0.0.1:8443";
  std::string data_dir = "./data";
  std::string database;          // default: <data_dir>/counterattack.db
  std::string tls_cert;          // default: <data_dir>/tls/cert.pem (made on first start)
  std::string tls_key;           // default: <data_dir>/tls/key.pem
  bool plain = false;            // plain WebSocket, loopback only
  int threads = 0;               // network threads; 0: one fewer than the cores, at least one

  // Limits
  std::size_t max_message_bytes = 64 * 1024;  // larger frames get TOO_LARGE
  double messages_per_second = 1000;          // per connection, token bucket
  int message_burst = 2000;
  int idle_timeout_seconds = 60;              // a peer that answers no ping is dropped
  int handshake_timeout_seconds = 10;
  std::size_t max_queued_frames = 8192;       // a slower reader is disconnected
  std::size_t max_queued_bytes = 32u << 20;   // and one whose unread frames weigh more
  // Unread frames of all connections together: beyond, each connection holding more
  // than a megabyte of them is disconnected as it is sent more.
  std::size_t max_queued_bytes_total = 256u << 20;
  int max_watches_per_connection = 64;
  int max_finished_games_held = 1000;         // read back for watchers; beyond, a Watch is answered once
  int max_connections = 10000;                // open at once; more are closed as they come
  int max_connections_per_address = 200;      // per remote address, loopback not counted
  TrustedProxies trusted_proxies;             // reverse proxies whose X-Forwarded-For is believed
  bool proxy_protocol = false;                // trusted proxies open each connection with a PROXY header

  // Accounts
  int session_days = 30;
  int login_failures_per_name = 5;            // per login_window_seconds
  int login_failures_per_address = 30;        // per login_window_seconds, loopback not counted
  int registrations_per_address_per_hour = 30;  // loopback not counted
  int auth_attempts_per_connection = 20;      // register, login, resume per login_window_seconds
  int login_window_seconds = 60;
  std::uint64_t argon2_opslimit = 2;          // crypto_pwhash_OPSLIMIT_INTERACTIVE
  std::uint64_t argon2_memlimit_kib = 64 * 1024;

  // Mail: turn notices to players who are away, and the codes that confirm an
  // address. No smtp_url: the server sends no mail.
  std::string smtp_url;                       // smtp://host:587 (STARTTLS) or smtps://host:465
  std::string smtp_user, smtp_password;       // with a user, smtp:// must upgrade to TLS
  std::string mail_from = "counterattackd@localhost";
  std::string public_url;                     // how players reach this server, named in the mail
  int email_changes_per_hour = 5;             // per player: each sends a code to some address
  int email_codes_per_address_per_hour = 10;  // per client address, loopback not counted
  int mail_attempts = 8;                      // a message the SMTP server keeps refusing is dropped after these
  int mail_retry_seconds = 30;                // before the second attempt; each later wait doubles, up to an hour
  int digest_hour_seconds = 3600;             // the hour a digest's interval counts in; tests shorten it

  // Time per move: the bounds a game's creator chooses within.
  std::int64_t min_move_seconds = 3600;
  std::int64_t max_move_seconds = 30 * 86400;
  // Game clock: the least time for a whole game; its most, and an increment's, is max_move_seconds.
  std::int64_t min_clock_seconds = 60;
  // Vacation: whole days a player's clocks stand still, per 365 days; 0: none.
  int vacation_days_per_year = 30;
  // An open game nobody has joined this long after its creation (a rematch
  // offer too) is withdrawn, as its maker could; 0: open games wait for ever.
  std::int64_t open_game_expiry_seconds = 14 * 86400;

  // Tournaments: a round robin of n entrants makes n(n-1) games, all at once.
  int tournament_max_players = 8;             // at most 12 (132 games)
  int open_tournaments_per_user = 5;          // organised and not yet started

  // Storage and games
  std::string synchronous = "full";           // SQLite: "full" (durable) or "normal"
  int snapshot_every = 100;                   // orders between state snapshots
  int delta_history = 64;                     // recent deltas kept per viewer
  int recent_events = 50;                     // events sent with a snapshot
  int chat_history = 100;
  int chat_messages_per_minute = 20;          // per player or spectator, over all games
  int refused_orders_per_minute = 60;         // stored per player over all games; more are answered, not stored

  // Backups: a consistent copy of the database, taken while the server runs, into
  // backup_dir every backup_every_seconds (0: never); the newest backup_keep are kept.
  std::string backup_dir;                     // default: <data_dir>/backups
  std::int64_t backup_every_seconds = 86400;
  int backup_keep = 7;

  // Logs
  std::string log_format = "kv";              // "kv" (key=value) or "json"
  std::string log_level = "info";

  // Paths derived from data_dir where left empty.
  void resolve();
};

// Sets one key from text; false with a sentence in `error` for an unknown key or a bad value.
bool set_config_value(Config& c, const std::string& key, const std::string& value, std::string& error);
// Reads "key = value" lines ('#' starts a comment) or a JSON object.
bool load_config_file(const std::string& path, Config& c, std::string& error);
// "127.0.0.1:8443", "[::1]:0".
bool split_listen(const std::string& listen, std::string& host, unsigned short& port, std::string& error);

}  // namespace counterattack::server
