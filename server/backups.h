// Backups of the database, taken while the server runs: SQLite's VACUUM INTO
// on a connection of its own reads one consistent snapshot while play goes on
// (the WAL is not reset meanwhile, and grows), the copy is checked, and only
// then given its name, which it never takes from another file. Scheduled ones go into Config::backup_dir, the newest
// Config::backup_keep kept; `counterattackd --backup FILE` takes one at once.
#pragma once

#include <condition_variable>
#include <functional>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "storage.h"

namespace counterattack::server {

// Copies the database at `db_path` to `to`, which must not exist yet: "" when
// done, else why not (nothing is left at `to` then). `running` is told the
// connection that reads the database while it copies, then null.
std::string backup_database(const std::string& db_path, const std::string& to,
                            const std::function<void(Db*)>& running = nullptr);

// Puts a copy of the backup `from` in place of the database at `db_path`, which
// no server may be serving meanwhile (the caller holds its lock). The copy is
// checked first; the database it replaces, with its WAL, is kept beside it
// under a name of its own, and no WAL of that one is left to be read with the
// copy. "" when done, with what was done in `said`; else why not, nothing changed.
std::string restore_database(const std::string& db_path, const std::string& from, std::string& said);
// Before the migrations of a newer release change the database at `db_path`
// (one at an older schema than this release's), a backup of it as it was, in
// `backup_dir`, named for its schema, and never deleted by the schedule: "" when
// taken or not needed (`taken` names it, or is empty), else why it could not be.
std::string backup_before_upgrade(const std::string& db_path, const std::string& backup_dir, std::string& taken);

// Removes the copies a restore killed midway left beside the database; only
// while holding its lock, when no restore runs.
void remove_unfinished_restores(const std::string& db_path);

// Of the scheduled backups' file names (which sort by the time they were
// taken), those to delete so that the newest `keep` are left.
std::vector<std::string> backups_beyond(std::vector<std::string> names, int keep);

// The newest scheduled backup in `dir`, by which the schedule counts: its file
// name (empty when there is none) and when it was written, in Unix seconds.
struct NewestBackup {
  std::string name;
  std::int64_t written_unix = 0;
};
NewestBackup newest_backup(const std::string& dir);

// Scheduled backups on a thread of their own.
class Backups {
 public:
  Backups(const Config& config, Storage& storage);
  ~Backups();
  // Starts the schedule: the next backup is due an interval after the newest
  // one in backup_dir; with none there, an interval (at most an hour) from now.
  void start();
  // Stops a backup under way (its copy is dropped) and the schedule.
  void stop();

 private:
  void run();
  // True when a backup was taken.
  bool take_one();

  const Config& config_;
  Storage& storage_;
  std::mutex mu_;
  Db* running_ = nullptr;  // the connection copying now, under mu_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace counterattack::server
