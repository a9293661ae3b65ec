// SQLite storage: WAL mode, numbered migrations, a reader connection, one
// writer thread that commits every queued write of every game in a single
// transaction (group commit), and a syncer thread that puts the WAL on disk
// before any of them is reported done.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace counterattack::server {

struct DbError : std::runtime_error {
  DbError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
  int code;
};

struct Blob {
  std::string_view bytes;
};

// A prepared statement. Arguments bind by position: integers, reals, text, Blob.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  template <typename... A>
  Stmt& bind_all(const A&... args) {
    reset();
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }
  // Runs a statement that returns no rows.
  template <typename... A>
  void run(const A&... args) {
    bind_all(args...);
    while (step()) {
    }
  }
  // True while there is a row; resets itself when done.
  bool step();
  void reset();

  std::int64_t integer(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::string blob(int col) const;

 private:
  void bind(int i, std::int64_t v);
  void bind(int i, int v) { bind(i, static_cast<std::int64_t>(v)); }
  void bind(int i, std::uint64_t v) { bind(i, static_cast<std::int64_t>(v)); }
  void bind(int i, double v);
  void bind(int i, std::string_view v);
  void bind(int i, const std::string& v) { bind(i, std::string_view(v)); }
  void bind(int i, const char* v) { bind(i, std::string_view(v)); }
  void bind(int i, Blob v);
  void check(int rc) const;

  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// One connection with its statements prepared once.
class Db {
 public:
  // `vfs` names a registered SQLite VFS; null is the default one.
  Db(const std::string& path, bool create, std::string& error, const char* vfs = nullptr);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  bool ok() const { return db_ != nullptr; }
  void exec(const std::string& sql);
  Stmt& prepare(const char* sql);
  std::int64_t changes() const { return sqlite3_changes64(db_); }
  // Makes the statement running now on this connection stop with an error; any thread.
  void interrupt() { sqlite3_interrupt(db_); }
  // Runs a WAL checkpoint (SQLITE_CHECKPOINT_PASSIVE or _RESTART); returns the
  // frames in the log, or -1 when it could not run now.
  int checkpoint(int mode);
  // How long a statement waits for a lock another connection holds (10 s unless set).
  void wait_for_locks(std::chrono::microseconds limit) { busy_attempts_ = static_cast<int>(limit.count() / 100); }
  // Calls f(arg, frames in the WAL) after each commit of this connection.
  void on_commit(void (*f)(void* arg, int wal_frames), void* arg);

 private:
  static int wait_briefly(void* self, int attempts);
  int busy_attempts_ = 100000;  // of 100 µs each
  void (*on_commit_)(void*, int) = nullptr;
  void* on_commit_arg_ = nullptr;

  sqlite3* db_ = nullptr;
  std::map<std::string, std::unique_ptr<Stmt>, std::less<>> stmts_;
};

// Seconds since the epoch, as the tables store times.
std::int64_t unix_now();
// Such a time as players read it: "2026-12-03 07:00 UTC".
std::string utc_minute(std::int64_t unix_seconds);

// The migrations compiled into the program, by file name ("001_initial.sql"), in order.
const std::vector<std::pair<std::string, std::string>>& embedded_migrations();
// The schema the newest of them makes: the highest a database this program may open has.
int latest_schema();
// A database's PRAGMA quick_check: "ok" when it reads back whole.
std::string quick_check(Db& db);

class Storage {
 public:
  // Opens (creating) the database, applies the migrations it lacks and starts the writer.
  static std::unique_ptr<Storage> open(const std::string& path, const std::string& synchronous, std::string& error);
  ~Storage();

  // Runs f(Db&) on the reader connection (one caller at a time).
  template <typename F>
  auto read(F&& f) {
    std::lock_guard lock(read_mu_);
    return f(*reader_);
  }

  // read() inside one read transaction: every table is seen at the same commit.
  template <typename F>
  auto read_together(F&& f) {
    return read([&](Db& db) {
      db.exec("BEGIN");
      struct End {
        Db& db;
        ~End() {
          try {
            db.exec("COMMIT");
          } catch (...) {
          }
        }
      } end{db};
      return f(db);
    });
  }

  // Queues a write. `op` runs on the writer thread inside the shared
  // transaction, in a savepoint of its own (if it throws, only its changes are
  // undone and done(false) follows). `done(ok)` runs on the syncer thread once
  // the commit is durable, in the order the writes were queued. An empty op is
  // a barrier: its done runs once everything queued before it is durable.
  // After stop() writes are ignored.
  using Op = std::function<void(Db&)>;
  using Done = std::function<void(bool ok)>;
  void write(Op op, Done done);

  // Commits what is queued, makes it durable, runs its callbacks and ends the writer and syncer.
  void stop();

  int schema_version() const { return schema_version_; }
  // While a long read (a backup) holds its snapshot, a WAL restart could not
  // finish and would only hold up the writer: the checkpointer skips them.
  void hold_wal_restarts(bool hold) { restarts_held_ = hold; }
  std::uint64_t batches() const { return batches_; }
  std::uint64_t writes() const { return writes_; }
  std::uint64_t syncs() const { return syncs_; }  // WAL flushes to disk

 private:
  Storage() = default;
  void writer_loop();
  void sync_loop();
  void checkpoint_loop();
  // The WAL size, in frames (pages), at which a commit wakes the checkpointer
  // and its passive pass is followed by a restart. Under play the same pages
  // (each game's last page of orders) are written again and again: a
  // checkpoint copies each once, so rarer checkpoints copy far fewer pages per
  // order. 8000 frames is about 33 MB of WAL.
  static constexpr int kWalCheckpointFrames = 8000;
  // The checkpointer's restart needs a moment without commits. A writer that
  // keeps the lock busy on a machine short of CPU can deny it that moment
  // again and again; past this size the writer gives it one, waiting for a
  // checkpoint pass, so that its own writes cannot grow the WAL without end.
  // (A reader in another process holding an old snapshot still can: when the
  // pass's restart fails even so, the writer does not wait again for a second.)
  static constexpr int kWalBoundFrames = 4 * kWalCheckpointFrames;

  std::unique_ptr<Db> writer_db_, reader_, checkpoint_db_;
  std::mutex read_mu_;

  struct Item {
    Op op;
    Done done;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stopping_ = false, stopped_ = false;
  std::thread writer_;
  // Group commit in two stages: the writer commits a batch without waiting for
  // the disk and hands its callbacks here; the syncer flushes the WAL once for
  // everything committed so far, then runs them. While one flush is under way
  // the writer commits the next batch.
  struct Committed {
    Done done;  // empty: only marks its batch as reported
    bool ok;
    std::uint64_t batch;
  };
  bool durable_ = true;  // synchronous = full: flush before any callback runs
  int wal_fd_ = -1;      // the WAL, for the syncer to flush; only when durable_
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  std::vector<Committed> committed_;
  // The last batch whose callbacks have all run. After a failed commit the
  // writer commits nothing more until that batch's callbacks have run: a write
  // queued meanwhile may rest on one that was lost (a game's next order after
  // the one that failed), and only those callbacks mark such games broken.
  std::atomic<std::uint64_t> reported_batch_ = 0;
  bool sync_stopping_ = false;
  std::thread syncer_;
  // WAL checkpoints run here, off the commit path, so that no commit waits for one.
  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_stopping_ = false, checkpoint_wanted_ = false;
  std::condition_variable checkpoint_done_cv_;
  std::uint64_t checkpoint_passes_started_ = 0, checkpoint_passes_done_ = 0;
  bool last_pass_restarted_ = true;  // or needed no restart
  bool wal_over_bound_ = false;  // set by the writer's last commit
  std::chrono::steady_clock::time_point no_wal_wait_until_{};  // the writer's own
  std::thread checkpointer_;
  int schema_version_ = 0;
  std::atomic<std::uint64_t> batches_ = 0, writes_ = 0, syncs_ = 0;
  std::atomic<bool> restarts_held_ = false;
};

}  // namespace counterattack::server
