#include "status.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>
#include <vector>

#include "backups.h"
#include "moderation.h"

namespace counterattack::server {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kHour = 3600, kDay = 86400;
// A running server marks itself alive at least every 30 seconds: four times as
// long without a mark, it holds its lock but may be stuck.
constexpr std::int64_t kSilentTooLong = 120;
// Mail that has waited this long for a mail server that is set up is stuck.
constexpr std::int64_t kMailStuckAfter = kHour;
// A failed backup is tried again within the hour: a backup is overdue once its
// interval has passed by more than that.
constexpr std::int64_t kBackupGrace = kHour;

// Whether the kernel lists a lock on the file at `path` now (/proc/locks). Looked
// at, never taken: a server starting meanwhile must not find its lock taken.
// nullopt when the list cannot be read.
std::optional<bool> locked_now(const std::string& path) {
  struct stat file {};
  if (::stat(path.c_str(), &file) != 0) return false;
  std::ifstream locks("/proc/locks");
  if (!locks) return std::nullopt;
  char id[64];
  std::snprintf(id, sizeof id, "%02x:%02x:%llu", major(file.st_dev), minor(file.st_dev),
                static_cast<unsigned long long>(file.st_ino));
  std::string line, word;
  while (std::getline(locks, line)) {
    std::istringstream words(line);
    while (words >> word) {
      if (word == id) return true;
    }
  }
  return false;
}

// Whether the process `pid` is known to be another program than counterattackd
// (a killed server's pid taken since); false when /proc cannot say.
bool pid_reused(long pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!comm || !std::getline(comm, name)) return false;
  return name.rfind("counterattackd", 0) != 0;
}

// The server's lock file: the pid that last held it and its word (running,
// stopped, restoring, restored; empty without a file), and whether it is held now.
struct Holder {
  long pid = 0;
  std::string word;
  bool held = false;
};

Holder lock_holder(const std::string& lock_path) {
  Holder h;
  std::ifstream in(lock_path);
  if (!in) return h;
  in >> h.pid >> h.word;
  // On some filesystems the kernel's list names another device than stat() does:
  // nothing found there, a live counterattackd of the pid that says "running" is believed.
  if (const auto held = locked_now(lock_path); held && *held) {
    h.held = true;
  } else {
    h.held = (h.word == "running" || h.word == "restoring") && h.pid > 0 &&
             (::kill(static_cast<pid_t>(h.pid), 0) == 0 || errno == EPERM) && !pid_reused(h.pid);
  }
  return h;
}

std::string ago(std::int64_t seconds) {
  seconds = std::max<std::int64_t>(seconds, 0);
  if (seconds < 120) return std::to_string(seconds) + " s";
  if (seconds < 2 * kHour) return std::to_string(seconds / 60) + " min";
  if (seconds < 2 * kDay) return std::to_string(seconds / kHour) + " h";
  return std::to_string(seconds / kDay) + " days";
}

std::string size_text(std::uintmax_t bytes) {
  const std::pair<double, const char*> units[] = {{1024.0 * 1024 * 1024, "GB"}, {1024.0 * 1024, "MB"}, {1024.0, "KB"}};
  for (const auto& [size, name] : units) {
    if (static_cast<double>(bytes) >= size) {
      char out[32];
      std::snprintf(out, sizeof out, "%.1f %s", static_cast<double>(bytes) / size, name);
      return out;
    }
  }
  return std::to_string(bytes) + " bytes";
}

std::string counted(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : n;
}

// What the database says, read at one commit.
struct Figures {
  int schema = 0;
  // server_state: the running server's record.
  std::int64_t alive = 0, started = 0, pid = 0, connections = 0, held = 0, mail_dropped = 0, backup_every = 0;
  std::string version, listen, backup_dir;
  bool mail = false;
  std::int64_t logged_in = 0, online = 0;
  std::int64_t accounts = 0, closed = 0, active = 0, on_vacation = 0, suspended = 0, chat_banned = 0;
  // Of the open games, those kept for one player (challenges, rematches) and the private ones.
  std::int64_t open_kept = 0, open_private = 0;
  std::int64_t open = 0, per_move = 0, on_clock = 0, untimed = 0, finished_day = 0, finished_week = 0;
  std::int64_t orders_hour = 0, orders_day = 0;
  std::int64_t waiting = 0, oldest = 0, refused = 0;
  std::int64_t reports = 0;
};

void read_figures(Db& db, std::int64_t now, Figures& f) {
  auto& v = db.prepare("PRAGMA user_version");
  v.bind_all();
  while (v.step()) f.schema = static_cast<int>(v.integer(0));
  auto& s = db.prepare(
      "SELECT alive_unix, started_unix, pid, version, listen, mail, backup_dir, backup_every_seconds, connections,"
      " games_in_memory, mail_dropped FROM server_state WHERE id = 1");
  s.bind_all();
  while (s.step()) {
    f.alive = s.integer(0), f.started = s.integer(1), f.pid = s.integer(2), f.version = s.text(3), f.listen = s.text(4);
    f.mail = s.integer(5) != 0, f.backup_dir = s.text(6), f.backup_every = s.integer(7), f.connections = s.integer(8);
    f.held = s.integer(9), f.mail_dropped = s.integer(10);
  }
  auto& u = db.prepare(
      "SELECT COALESCE(SUM(closed_unix = 0), 0), COALESCE(SUM(closed_unix <> 0), 0),"
      " COALESCE(SUM(closed_unix = 0 AND (online > 0 OR last_seen_unix >= ?1)), 0),"
      " COALESCE(SUM(online > 0), 0), COALESCE(SUM(online), 0) FROM users");
  u.bind_all(now - 7 * kDay);
  while (u.step()) {
    f.accounts = u.integer(0), f.closed = u.integer(1), f.active = u.integer(2), f.online = u.integer(3), f.logged_in = u.integer(4);
  }
  // The partial indexes hold only accounts with a suspension or a chat ban.
  auto& sus = db.prepare("SELECT count(*) FROM users WHERE suspended_until <> 0 AND suspended_until > ? AND closed_unix = 0");
  sus.bind_all(now);
  while (sus.step()) f.suspended = sus.integer(0);
  auto& ban = db.prepare("SELECT count(*) FROM users WHERE chat_banned_until <> 0 AND chat_banned_until > ? AND closed_unix = 0");
  ban.bind_all(now);
  while (ban.step()) f.chat_banned = ban.integer(0);
  auto& vac = db.prepare("SELECT count(DISTINCT user_id) FROM vacations WHERE end_unix > ?1 AND start_unix <= ?1");
  vac.bind_all(now);
  while (vac.step()) f.on_vacation = vac.integer(0);
  // A game clock counts before a time per move, as the clocks themselves take it.
  auto& g = db.prepare(
      "SELECT COALESCE(SUM(status = 'open'), 0), COALESCE(SUM(status = 'playing' AND clock_seconds = 0 AND move_seconds > 0), 0),"
      " COALESCE(SUM(status = 'playing' AND clock_seconds > 0), 0),"
      " COALESCE(SUM(status = 'playing' AND clock_seconds = 0 AND move_seconds = 0), 0),"
      " COALESCE(SUM(status = 'open' AND reserved_for <> 0), 0), COALESCE(SUM(status = 'open' AND reserved_for = 0 AND private = 1), 0)"
      " FROM games WHERE status IN ('open', 'playing')");
  g.bind_all();
  while (g.step()) {
    f.open = g.integer(0), f.per_move = g.integer(1), f.on_clock = g.integer(2), f.untimed = g.integer(3);
    f.open_kept = g.integer(4), f.open_private = g.integer(5);
  }
  // Finished as --players counts them: played by two, and ended with a result.
  auto& fin = db.prepare(
      "SELECT COALESCE(SUM(updated_unix >= ?1), 0), count(*) FROM games WHERE status = 'finished' AND updated_unix >= ?2"
      " AND soviet_id IS NOT NULL AND german_id IS NOT NULL AND result NOT IN ('Cancelled', 'Declined', 'Aborted')");
  fin.bind_all(now - kDay, now - 7 * kDay);
  while (fin.step()) f.finished_day = fin.integer(0), f.finished_week = fin.integer(1);
  // Only a game in play, or one that ended within the day, has orders of the last
  // day: their logs alone are read, not every order ever played.
  auto& o = db.prepare(
      "SELECT COALESCE(SUM(o.created_unix >= ?1), 0), count(*) FROM games g CROSS JOIN orders o ON o.game_id = g.id"
      " WHERE (g.status = 'playing' OR (g.status = 'finished' AND g.updated_unix >= ?2)) AND o.created_unix >= ?2");
  o.bind_all(now - kHour, now - kDay);
  while (o.step()) f.orders_hour = o.integer(0), f.orders_day = o.integer(1);
  auto& m = db.prepare("SELECT count(*), COALESCE(MIN(created_unix), 0), COALESCE(SUM(attempts > 0), 0) FROM outbox");
  m.bind_all();
  while (m.step()) f.waiting = m.integer(0), f.oldest = m.integer(1), f.refused = m.integer(2);
  auto& r = db.prepare("SELECT count(*) FROM chat_reports WHERE handled_unix = 0");
  r.bind_all();
  while (r.step()) f.reports = r.integer(0);
}

}  // namespace

void record_start(Storage& storage, const ServerStart& start) {
  std::promise<void> stored;
  storage.write(
      [start, now = unix_now(), pid = static_cast<std::int64_t>(::getpid())](Db& db) {
        db.prepare(
              "UPDATE server_state SET started_unix = ?, pid = ?, version = ?, listen = ?, mail = ?, backup_dir = ?,"
              " backup_every_seconds = ?, connections = 0, games_in_memory = 0, mail_dropped = 0 WHERE id = 1")
            .run(now, pid, start.version, start.listen, start.mail ? 1 : 0, start.backup_dir, start.backup_every_seconds);
      },
      [&stored](bool) { stored.set_value(); });
  stored.get_future().wait();
}

int server_status(const Config& cfg, bool json, std::string& said) {
  const auto now = unix_now();
  const Holder holder = lock_holder(cfg.database + ".lock");
  // As found: the last connection to close folds the WAL into the database.
  const auto database_bytes = size_of(cfg.database), wal_bytes = size_of(cfg.database + "-wal");
  Figures f;
  // A restore swaps the database's files: a reader now could hold the old ones open.
  if (holder.held && holder.word == "restoring") {
    const std::string why = "a restore is under way (pid " + std::to_string(holder.pid) + "): the status is read once it is done";
    said = json ? nlohmann::ordered_json{{"server", {{"state", "restoring"}, {"pid", holder.pid}}}, {"error", why}, {"exit_status", kStatusNotRunning}}.dump(2) + "\n" : why + "\n";
    return kStatusNotRunning;
  }
  {
    std::string error;
    auto db = open_for_moderation(cfg.database, error, kSchemaWithStatus);
    if (!db) {
      said = error;
      return kStatusUnreadable;
    }
    try {
      db->exec("PRAGMA query_only = ON");
      db->exec("BEGIN");
      read_figures(*db, now, f);
      db->exec("COMMIT");
    } catch (const DbError& e) {
      said = std::string("the database: ") + e.what();
      return kStatusUnreadable;
    }
  }

  const bool restoring = holder.held && holder.word == "restoring";
  const bool running = holder.held && !restoring;
  // The settings the server runs with, as it recorded them at its start.
  const bool recorded = f.started > 0;
  const bool mail = recorded ? f.mail : !cfg.smtp_url.empty();
  std::error_code dir_ec;
  const std::string backup_dir = recorded ? f.backup_dir : fs::absolute(cfg.backup_dir, dir_ec).string();
  const std::int64_t every = recorded ? f.backup_every : cfg.backup_every_seconds;

  std::vector<std::string> warnings;
  const std::int64_t silent = f.alive > 0 ? now - f.alive : -1;
  if (running && (silent < 0 || silent > kSilentTooLong)) {
    warnings.push_back("the server holds its lock but has not marked itself alive " +
                       (silent < 0 ? std::string("yet") : "for " + ago(silent)) +
                       " (it does every 30 s at least): it may be stuck");
  }
  const auto newest = every > 0 ? newest_backup(backup_dir) : NewestBackup{};
  bool backup_overdue = false;
  if (every > 0 && !newest.name.empty()) {
    backup_overdue = now - newest.written_unix > every + kBackupGrace;
    if (backup_overdue) {
      warnings.push_back("the backup is overdue: the last was taken " + ago(now - newest.written_unix) + " ago, and one is due every " +
                         ago(every) + " (see the server's log for \"backup failed\")");
    }
  } else if (every > 0 && recorded) {
    backup_overdue = now - f.started > std::min(every, kHour) + kBackupGrace;
    if (backup_overdue) {
      warnings.push_back("the backup is overdue: none has been taken in " + backup_dir + " since the server's start, " +
                         ago(now - f.started) + " ago (see its log for \"backup failed\")");
    }
  }
  const bool mail_stuck = mail && f.waiting > 0 && now - f.oldest > kMailStuckAfter;
  if (mail_stuck) {
    warnings.push_back("mail is stuck: the oldest message has waited " + ago(now - f.oldest) +
                       " for the mail server (see the server's log for \"mail server unreachable\")");
  }
  const int status = !running ? kStatusNotRunning : warnings.empty() ? kStatusAllWell : kStatusWarning;

  if (json) {
    using J = nlohmann::ordered_json;
    J server = {{"state", running ? "running" : restoring ? "restoring" : "not running"},
                {"pid", holder.held ? J(holder.pid) : J(nullptr)},
                {"since_unix", running && recorded ? J(f.started) : J(nullptr)},
                {"last_seen_unix", f.alive > 0 ? J(f.alive) : J(nullptr)},
                {"last_seen_seconds_ago", f.alive > 0 ? J(now - f.alive) : J(nullptr)},
                {"version", recorded ? J(f.version) : J(nullptr)},
                {"listen", recorded ? J(f.listen) : J(nullptr)},
                {"connections", running ? J(f.connections) : J(nullptr)},
                {"logged_in", running ? J(f.logged_in) : J(nullptr)},
                {"players_online", running ? J(f.online) : J(nullptr)},
                {"games_in_memory", running ? J(f.held) : J(nullptr)},
                {"stopped_cleanly", holder.held || holder.word.empty() ? J(nullptr) : J(holder.word != "running")}};
    J out = {
        {"server", server},
        {"games",
         {{"open", f.open},
          {"open_kept_for_a_player", f.open_kept},
          {"open_private", f.open_private},
          {"in_play", f.per_move + f.on_clock + f.untimed},
          {"time_per_move", f.per_move},
          {"clock", f.on_clock},
          {"untimed", f.untimed},
          {"finished_last_day", f.finished_day},
          {"finished_last_week", f.finished_week},
          {"orders_last_hour", f.orders_hour},
          {"orders_last_day", f.orders_day}}},
        {"players",
         {{"accounts", f.accounts},
          {"closed", f.closed},
          {"active_last_7_days", f.active},
          {"on_vacation", f.on_vacation},
          {"suspended", f.suspended},
          {"chat_banned", f.chat_banned}}},
        {"storage",
         {{"database_bytes", database_bytes},
          {"wal_bytes", wal_bytes},
          {"schema", f.schema},
          {"backup_dir", backup_dir},
          {"backup_every_seconds", every},
          {"last_backup", newest.name.empty() ? J(nullptr) : J{{"file", newest.name}, {"age_seconds", now - newest.written_unix}}},
          {"backup_overdue", backup_overdue}}},
        {"mail",
         {{"enabled", mail},
          {"waiting", f.waiting},
          {"oldest_waiting_seconds", f.waiting > 0 ? J(now - f.oldest) : J(nullptr)},
          {"refused_waiting", f.refused},
          {"dropped_since_start", recorded ? J(f.mail_dropped) : J(nullptr)},
          {"stuck", mail_stuck}}},
        {"moderation", {{"chat_reports_waiting", f.reports}}},
        {"warnings", warnings},
        {"exit_status", status}};
    said = out.dump(2) + "\n";
    return status;
  }

  std::string server;
  if (running) {
    server = "running" + (recorded ? " since " + utc_minute(f.started) : std::string()) + " (pid " + std::to_string(holder.pid) +
             (f.version.empty() ? "" : ", counterattackd " + f.version) + (f.listen.empty() ? "" : ", listening on " + f.listen) +
             "), last seen " + (f.alive > 0 ? ago(now - f.alive) + " ago" : "never") + "; " +
             counted(f.connections, "connection", "connections") + " open, " + counted(f.online, "player", "players") + " online (" +
             std::to_string(f.logged_in) + " logged in), " + counted(f.held, "game", "games") + " in memory";
  } else {
    server = restoring ? "not running: a restore (pid " + std::to_string(holder.pid) + ") is under way" : "not running";
    server += " (last seen " + (f.alive > 0 ? utc_minute(f.alive) + ", " + ago(now - f.alive) + " ago" : std::string("never"));
    if (!restoring && holder.word == "running") server += "; it did not stop cleanly: killed, or the machine went down";
    if (!restoring && holder.word == "stopped") server += "; it stopped cleanly";
    if (!restoring && holder.word == "restored") server += "; its database was restored from a backup since";
    server += ")";
  }
  said = "Server: " + server + "\n";
  std::string open_parts;
  if (f.open_kept > 0) open_parts += std::to_string(f.open_kept) + " kept for a player";
  if (f.open_private > 0) open_parts += (open_parts.empty() ? "" : ", ") + std::to_string(f.open_private) + " private";
  said += "Games: " + std::to_string(f.open) + " open" + (open_parts.empty() ? "" : " (" + open_parts + ")") + ", " + std::to_string(f.per_move + f.on_clock + f.untimed) + " in play (" +
          std::to_string(f.per_move) + " with a time per move, " + std::to_string(f.on_clock) + " on a clock, " +
          std::to_string(f.untimed) + " untimed); finished: " + std::to_string(f.finished_day) + " in the last day, " +
          std::to_string(f.finished_week) + " in the last week; orders: " + std::to_string(f.orders_hour) + " in the last hour, " +
          std::to_string(f.orders_day) + " in the last day\n";
  said += "Players: " + counted(f.accounts, "account", "accounts") + (f.closed > 0 ? " (and " + std::to_string(f.closed) + " closed)" : "") +
          ", " + std::to_string(f.active) + " active in the last 7 days, " + std::to_string(f.on_vacation) + " on vacation, " +
          std::to_string(f.suspended) + " suspended, " + std::to_string(f.chat_banned) + " barred from chat\n";
  said += "Storage: database " + size_text(database_bytes) + ", WAL " + size_text(wal_bytes) + ", schema " + std::to_string(f.schema) + "; ";
  if (every <= 0) {
    said += "scheduled backups are off (backup_every_seconds = 0)";
  } else {
    said += (newest.name.empty() ? "no backup yet" : "last backup " + newest.name + ", " + ago(now - newest.written_unix) + " ago") +
            " (one every " + ago(every) + " into " + backup_dir + ")" + (backup_overdue ? ": overdue" : "");
  }
  said += "\n";
  said += "Mail: " + std::string(mail ? "set up" : "not set up (no smtp_url)") + "; " + std::to_string(f.waiting) + " waiting" +
          (f.waiting > 0 ? ", the oldest for " + ago(now - f.oldest) : "") + ", " + std::to_string(f.refused) +
          " refused by the mail server and to be tried again" +
          (recorded ? ", " + std::to_string(f.mail_dropped) + " dropped after the last attempt since the start" : "") + "\n";
  said += "Moderation: " + counted(f.reports, "chat report", "chat reports") + " waiting" +
          (f.reports > 0 ? " (--reports lists them)" : "") + "\n";
  for (const auto& w : warnings) said += "Warning: " + w + "\n";
  return status;
}

}  // namespace counterattack::server
