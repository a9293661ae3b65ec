#include "backups.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "log.h"
#include "storage.h"

namespace counterattack::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "counterattack-";
constexpr const char* kSuffix = ".db";

// "counterattack-20261125-174502.db": names that sort by time.
std::string utc_stamp(std::time_t at);
std::string backup_name(std::time_t at) { return std::string(kPrefix) + utc_stamp(at) + kSuffix; }

bool is_backup(const std::string& name) {
  return name.starts_with(kPrefix) && name.ends_with(kSuffix) && name.size() == backup_name(0).size();
}

std::string utc_stamp(std::time_t at) {
  std::tm utc{};
  gmtime_r(&at, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  return stamp;
}

// Puts a file's contents, or a directory's entries, on disk.
bool sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.empty() ? "." : path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// The first value of a one-value query.
std::int64_t one_integer(Db& db, const char* sql) {
  auto& q = db.prepare(sql);
  q.bind_all();
  std::int64_t v = 0;
  while (q.step()) v = q.integer(0);
  return v;
}

// The scheduled backups in `dir`, oldest first.
std::vector<std::string> backups_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && is_backup(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string backup_database(const std::string& db_path, const std::string& to, const std::function<void(Db*)>& running) {
  std::error_code ec;
  if (fs::exists(to, ec)) return to + " exists already";
  if (!fs::exists(db_path, ec)) return "there is no database " + db_path;
  if (const auto parent = fs::path(to).parent_path(); !parent.empty() && !fs::is_directory(parent, ec)) {
    return "there is no directory " + parent.string() + " to write " + fs::path(to).filename().string() + " into";
  }
  // A name of this process's own: another backup under way keeps its own.
  const std::string partial = to + ".partial-" + std::to_string(::getpid());
  fs::remove(partial, ec);
  try {
    {
      std::string error;
      Db source(db_path, false, error);
      if (!source.ok()) return error;
      if (running) running(&source);
      try {
        source.prepare("VACUUM INTO ?").run(partial);
      } catch (...) {
        if (running) running(nullptr);
        throw;
      }
      if (running) running(nullptr);
    }
    // The copy must read back whole before it counts as a backup.
    std::string error;
    Db copy(partial, false, error);
    if (!copy.ok()) throw std::runtime_error(error);
    if (const auto verdict = quick_check(copy); verdict != "ok") throw std::runtime_error("the copy does not read back whole: " + verdict);
  } catch (const std::exception& x) {
    fs::remove(partial, ec);
    return std::string("backup failed: ") + x.what();
  }
  // link, unlike rename, never replaces a file that took the name meanwhile.
  const bool named = ::link(partial.c_str(), to.c_str()) == 0;
  const int link_errno = errno;
  fs::remove(partial, ec);
  if (!named) return "cannot name the backup " + to + ": " + std::generic_category().message(link_errno);
  sync_path(fs::path(to).parent_path().string(), true);  // the new name itself durable
  return "";
}

std::string backup_before_upgrade(const std::string& db_path, const std::string& backup_dir, std::string& taken) {
  taken.clear();
  std::error_code ec;
  if (!fs::exists(db_path, ec)) return "";
  int schema = 0;
  {
    std::string error;
    Db db(db_path, false, error);
    if (!db.ok()) return "";  // the start itself says why it cannot open it
    try {
      schema = static_cast<int>(one_integer(db, "PRAGMA user_version"));
    } catch (const DbError&) {
      return "";
    }
  }
  if (schema <= 0 || schema >= latest_schema()) return "";
  fs::create_directories(backup_dir, ec);
  if (ec) return "cannot create " + backup_dir + ": " + ec.message();
  taken = (fs::path(backup_dir) / ("counterattack-schema-" + std::to_string(schema) + "-before-upgrade-" +
                                   utc_stamp(std::time(nullptr)) + kSuffix))
              .string();
  auto why = backup_database(db_path, taken);
  if (!why.empty()) taken.clear();
  return why;
}

void remove_unfinished_restores(const std::string& db_path) {
  const auto path = fs::path(db_path);
  const std::string prefix = path.filename().string() + ".restoring-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path.parent_path().empty() ? fs::path(".") : path.parent_path(), ec)) {
    if (entry.path().filename().string().starts_with(prefix)) {
      std::error_code ignored;
      fs::remove(entry.path(), ignored);
    }
  }
}

std::string restore_database(const std::string& db_path, const std::string& from, std::string& said) {
  std::error_code ec;
  if (fs::is_directory(from, ec)) return from + " is a directory: name the backup file in it";
  if (!fs::is_regular_file(from, ec)) return "there is no backup " + from;
  if (fs::exists(db_path, ec) && fs::equivalent(from, db_path, ec)) return from + " is the database itself";
  const auto dir_path = fs::path(db_path).parent_path();
  const std::string dir = dir_path.string();
  if (!dir.empty()) fs::create_directories(dir_path, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  remove_unfinished_restores(db_path);  // a restore killed midway left its copy; none else runs now
  // SQLite would read a WAL or journal left at the database's name with the copy put there.
  if (!fs::exists(db_path, ec)) {
    for (const char* extra : {"-wal", "-journal"}) {
      if (fs::exists(db_path + extra, ec)) {
        return "there is a " + db_path + extra + " without its database: move it away first (it belongs to no backup)";
      }
    }
  }
  // The backup itself is only read: what is checked, and then put in place, is a copy;
  // with the WAL found beside it (a database copied with its files), that WAL too.
  const std::string copy = db_path + ".restoring-" + std::to_string(::getpid());
  auto drop_copy = [&] {
    std::error_code ignored;
    for (const char* extra : {"", "-wal", "-shm", "-journal"}) fs::remove(copy + extra, ignored);
  };
  const bool with_wal = fs::is_regular_file(from + "-wal", ec) && fs::file_size(from + "-wal", ec) > 0;
  fs::copy_file(from, copy, ec);
  if (!ec && with_wal) fs::copy_file(from + "-wal", copy + "-wal", ec);
  // The server's own alone, whatever the backup's mode was: it holds password hashes.
  for (const char* extra : {"", "-wal"}) {
    if (!ec && fs::exists(copy + extra, ec)) fs::permissions(copy + extra, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
  }
  if (ec || !sync_path(copy, false)) {
    drop_copy();
    return "cannot copy " + from + " beside the database: " + (ec ? ec.message() : std::string("the copy did not reach the disk"));
  }
  // Run as root for a service user, the database stays that user's, as the one it replaces is.
  struct stat owner {};
  if (::geteuid() == 0 && (::stat(db_path.c_str(), &owner) == 0 || ::stat(dir.empty() ? "." : dir.c_str(), &owner) == 0)) {
    for (const char* extra : {"", "-wal"}) {
      if (fs::exists(copy + extra, ec) && ::chown((copy + extra).c_str(), owner.st_uid, owner.st_gid) != 0) {
        const int chown_errno = errno;
        drop_copy();
        return "cannot give the copy the database's owner: " + std::generic_category().message(chown_errno);
      }
    }
  }
  int schema = 0;
  const int known = latest_schema();
  std::int64_t games = 0, players = 0;
  std::string refused;
  try {
    std::string error;
    Db db(copy, false, error);
    if (!db.ok()) throw std::runtime_error(error);
    if (const auto verdict = quick_check(db); verdict != "ok") throw std::runtime_error("it does not read back whole: " + verdict);
    schema = static_cast<int>(one_integer(db, "PRAGMA user_version"));
    if (schema > known) {
      refused = from + " was made by a newer counterattackd (schema " + std::to_string(schema) + "; this one knows up to " +
                std::to_string(known) + "): restore it with that release";
    } else if (schema < 1 ||
               one_integer(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('games', 'users', 'orders')") != 3) {
      throw std::runtime_error("it has no counterattackd tables");
    } else {
      games = one_integer(db, "SELECT COUNT(*) FROM games");
      players = one_integer(db, "SELECT COUNT(*) FROM users");
      // The record of the server the backup was taken from (its mail, its backup folder) is not
      // this one's: --status reads the settings instead until this server starts and records its own.
      // Its alive_unix stays: the clocks give back the time since it, as after any stop.
      if (one_integer(db, "SELECT COUNT(*) FROM pragma_table_info('server_state') WHERE name = 'started_unix'") > 0) {
        db.exec("UPDATE server_state SET started_unix = 0, pid = 0, connections = 0, games_in_memory = 0, mail_dropped = 0");
      }
      // What the WAL held folded into the copy's own file (closing folds in that change too).
      if (with_wal && db.checkpoint(SQLITE_CHECKPOINT_TRUNCATE) < 0) throw std::runtime_error("the WAL beside it cannot be folded in");
    }
  } catch (const DbError& x) {
    refused = from + " is not a counterattackd database to restore: " +
              (x.code == SQLITE_NOTADB ? std::string("it is not an SQLite database")
               : (x.code & 0xff) == SQLITE_CORRUPT
                   ? std::string("it is damaged or cut short (") + sqlite3_errstr(x.code) + "); try an older backup"
                   : std::string(sqlite3_errstr(x.code)));
  } catch (const std::exception& x) {
    refused = from + " is not a counterattackd database to restore: " + x.what();
  }
  if (!refused.empty()) {
    drop_copy();
    return refused;
  }
  // The database replaced is kept, WAL and all: first folded into its file where it
  // can be, so that the file alone holds everything; where not, its WAL goes with it.
  std::string kept;
  if (fs::exists(db_path, ec)) {
    bool folded = false;
    {
      std::string error;
      Db current(db_path, false, error);
      try {
        // A read first: until then the connection has not found the WAL to fold in.
        folded = current.ok() && one_integer(current, "PRAGMA user_version") >= 0 && current.checkpoint(SQLITE_CHECKPOINT_TRUNCATE) == 0;
      } catch (const DbError&) {
        // A database that does not read is kept as it is, WAL and all.
      }
    }
    const std::string wal = db_path + "-wal";
    const bool wal_left = fs::exists(wal, ec) && fs::file_size(wal, ec) > 0;
    kept = db_path + ".before-restore-" + utc_stamp(std::time(nullptr));
    for (int n = 2; fs::exists(kept, ec); ++n) kept = db_path + ".before-restore-" + utc_stamp(std::time(nullptr)) + "-" + std::to_string(n);
    // A link, so that the database stays whole at its own name until the copy takes it.
    if (::link(db_path.c_str(), kept.c_str()) != 0) {
      const int link_errno = errno;
      drop_copy();
      return "cannot keep the database as " + kept + ": " + std::generic_category().message(link_errno);
    }
    // A WAL that could not be folded in (a damaged database) goes with it; put back on any failure.
    auto undo = [&](const std::string& why) {
      std::error_code ignored;
      if (wal_left) fs::rename(kept + "-wal", wal, ignored);
      fs::remove(kept, ignored);
      drop_copy();
      return why + "; nothing was changed";
    };
    if (wal_left && !folded) {
      fs::rename(wal, kept + "-wal", ec);
      if (ec) return undo("cannot keep the database's WAL as " + kept + "-wal: " + ec.message());
    } else if (wal_left) {
      return undo("the database's WAL was not folded into it: another process may have it open");
    }
    fs::remove(wal, ec);
    sync_path(dir, true);
    fs::remove(db_path + "-shm", ec);
    fs::rename(copy, db_path, ec);
    if (ec) return undo("cannot put the copy in place of " + db_path + ": " + ec.message());
  } else {
    fs::remove(db_path + "-shm", ec);
    fs::rename(copy, db_path, ec);
    if (ec) {
      const auto why = ec.message();
      drop_copy();
      return "cannot put the copy in place of " + db_path + ": " + why;
    }
  }
  drop_copy();
  sync_path(dir, true);
  auto count = [](std::int64_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  said = "Restored " + from +
         (with_wal ? " (with the WAL beside it)" : "") + " as " + db_path + " (schema " + std::to_string(schema) + ", " +
         count(games, "game") + ", " + count(players, "player") + ").";
  if (!kept.empty()) said += "\nThe database it replaced is kept as " + kept + " (delete it when no longer needed).";
  said += "\nStart the server: its games resume as they were at the backup" +
          (schema < known ? ", once it has upgraded the database from schema " + std::to_string(schema) + " to " + std::to_string(known)
                          : std::string()) +
          ".";
  return "";
}

std::vector<std::string> backups_beyond(std::vector<std::string> names, int keep) {
  std::sort(names.begin(), names.end());
  const auto extra = names.size() > static_cast<std::size_t>(std::max(keep, 0)) ? names.size() - static_cast<std::size_t>(keep) : 0;
  return {names.begin(), names.begin() + static_cast<std::ptrdiff_t>(extra)};
}

NewestBackup newest_backup(const std::string& dir) {
  const auto names = backups_in(dir);
  if (names.empty()) return {};
  std::error_code ec;
  const auto written = fs::last_write_time(fs::path(dir) / names.back(), ec);
  if (ec) return {names.back(), 0};
  const auto age = std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - written).count();
  return {names.back(), unix_now() - age};
}

Backups::Backups(const Config& config, Storage& storage) : config_(config), storage_(storage) {}

Backups::~Backups() { stop(); }

void Backups::start() {
  if (config_.backup_every_seconds <= 0 || worker_.joinable()) return;
  worker_ = std::thread([this] {
    log::name_thread("ca-backup");
    run();
  });
}

void Backups::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (running_) running_->interrupt();  // a large copy would hold up the shutdown
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Backups::run() {
  using clock = std::chrono::system_clock;
  const auto every = std::chrono::seconds(config_.backup_every_seconds);
  auto due = clock::now() + std::min<clock::duration>(every, std::chrono::hours(1));
  const auto existing = backups_in(config_.backup_dir);
  if (!existing.empty()) {
    std::error_code age_ec;
    const auto written = fs::last_write_time(fs::path(config_.backup_dir) / existing.back(), age_ec);
    if (!age_ec) {
      // file_clock to system_clock by way of the time between now and then.
      const auto age = fs::file_time_type::clock::now() - written;
      due = clock::now() - std::chrono::duration_cast<clock::duration>(age) + every;
    }
  }
  // Copies a killed server left unfinished; a day old, so that none under way is taken.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(config_.backup_dir, ec)) {
    const auto name = entry.path().filename().string();
    std::error_code age_ec;
    const auto written = fs::last_write_time(entry.path(), age_ec);
    if (name.starts_with(kPrefix) && name.find(".partial-") != std::string::npos && !age_ec &&
        fs::file_time_type::clock::now() - written > std::chrono::hours(24)) {
      fs::remove(entry.path(), ec);
    }
  }
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (wake_.wait_until(lock, due, [this] { return stopping_; })) break;
    lock.unlock();
    const bool taken = take_one();
    lock.lock();
    // A failed one is tried again within the hour.
    due = clock::now() + (taken ? every : std::min<clock::duration>(every, std::chrono::hours(1)));
  }
}

bool Backups::take_one() {
  std::error_code ec;
  fs::create_directories(config_.backup_dir, ec);
  if (ec) {
    log::error("backup failed", {{"error", "cannot create " + config_.backup_dir + ": " + ec.message()}});
    return false;
  }
  const auto name = backup_name(std::time(nullptr));
  const auto path = (fs::path(config_.backup_dir) / name).string();
  const auto started = std::chrono::steady_clock::now();
  storage_.hold_wal_restarts(true);
  const auto why = backup_database(config_.database, path, [this](Db* db) {
    std::lock_guard lock(mu_);
    running_ = db;
    if (db && stopping_) db->interrupt();
  });
  storage_.hold_wal_restarts(false);
  if (!why.empty()) {
    log::error("backup failed", {{"error", why}});
    return false;
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  log::info("backup taken", {{"file", path},
                             {"bytes", fs::file_size(path, ec)},
                             {"ms", ms.count()}});
  for (const auto& old : backups_beyond(backups_in(config_.backup_dir), config_.backup_keep)) {
    fs::remove(fs::path(config_.backup_dir) / old, ec);
  }
  return true;
}

}  // namespace counterattack::server
