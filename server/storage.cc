#include "storage.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "gathering_vfs.h"
#include "log.h"

namespace counterattack::server {

// ---------------------------------------------------------------------------
// Statements and connections
// ---------------------------------------------------------------------------

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string utc_minute(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M UTC", &utc);
  return out;
}

Stmt::Stmt(sqlite3* db, const char* sql) : db_(db) {
  const int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr);
  if (rc != SQLITE_OK) throw DbError(rc, std::string("prepare: ") + sqlite3_errmsg(db) + " in: " + sql);
}

Stmt::~Stmt() { sqlite3_finalize(st_); }

void Stmt::check(int rc) const {
  if (rc != SQLITE_OK) throw DbError(rc, std::string("bind: ") + sqlite3_errmsg(db_));
}

void Stmt::bind(int i, std::int64_t v) { check(sqlite3_bind_int64(st_, i, v)); }
void Stmt::bind(int i, double v) { check(sqlite3_bind_double(st_, i, v)); }
void Stmt::bind(int i, std::string_view v) {
  check(sqlite3_bind_text64(st_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}
void Stmt::bind(int i, Blob v) {
  // A zero-length blob must still be a blob, not NULL.
  check(sqlite3_bind_blob64(st_, i, v.bytes.empty() ? "" : v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT));
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

bool Stmt::step() {
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  const int code = sqlite3_reset(st_);
  if (rc == SQLITE_DONE) return false;
  throw DbError(code ? code : rc, std::string("step: ") + sqlite3_errmsg(db_));
}

std::int64_t Stmt::integer(int col) const { return sqlite3_column_int64(st_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(st_, col); }
std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(st_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(st_, col))) : "";
}
std::string Stmt::blob(int col) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(st_, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, col))) : "";
}

Db::Db(const std::string& path, bool create, std::string& error, const char* vfs) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, vfs) != SQLITE_OK) {
    error = "cannot open database " + path + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
    sqlite3_close(db_);
    db_ = nullptr;
    return;
  }
  sqlite3_busy_handler(db_, &Db::wait_briefly, this);
  sqlite3_extended_result_codes(db_, 1);
}

// A lock is held for a short while (a commit, or the tail of a checkpoint):
// retry every 100 µs rather than SQLite's default millisecond back-off.
int Db::wait_briefly(void* self, int attempts) {
  if (attempts >= static_cast<Db*>(self)->busy_attempts_) return 0;
  std::this_thread::sleep_for(std::chrono::microseconds(100));
  return 1;
}

int Db::checkpoint(int mode) {
  int log = 0, done = 0;
  return sqlite3_wal_checkpoint_v2(db_, nullptr, mode, &log, &done) == SQLITE_OK ? log : -1;
}

void Db::on_commit(void (*f)(void*, int), void* arg) {
  on_commit_ = f;
  on_commit_arg_ = arg;
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3*, const char*, int frames) {
        auto* db = static_cast<Db*>(self);
        db->on_commit_(db->on_commit_arg_, frames);
        return SQLITE_OK;
      },
      this);
}

Db::~Db() {
  stmts_.clear();
  sqlite3_close(db_);
}

void Db::exec(const std::string& sql) {
  char* msg = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    std::string what = msg ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    throw DbError(rc, what);
  }
}

Stmt& Db::prepare(const char* sql) {
  auto it = stmts_.find(std::string_view(sql));
  if (it == stmts_.end()) it = stmts_.emplace(sql, std::make_unique<Stmt>(db_, sql)).first;
  return *it->second;
}

// ---------------------------------------------------------------------------
// Opening and migrations
// ---------------------------------------------------------------------------

int latest_schema() {
  int known = 0;
  for (const auto& m : embedded_migrations()) known = std::max(known, std::atoi(m.first.c_str()));
  return known;
}

std::string quick_check(Db& db) {
  auto& check = db.prepare("PRAGMA quick_check");
  check.bind_all();
  std::string verdict;
  while (check.step()) verdict += check.text(0);
  return verdict;
}

std::unique_ptr<Storage> Storage::open(const std::string& path, const std::string& synchronous, std::string& error) {
  std::error_code ec;
  const auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  std::unique_ptr<Storage> s(new Storage());
  s->writer_db_ = std::make_unique<Db>(path, true, error, gathering_vfs());
  if (!s->writer_db_->ok()) return nullptr;
  try {
    Db& db = *s->writer_db_;
    db.exec("PRAGMA journal_mode=WAL");
    // Commits never wait for the disk on the writer thread; with "full" the
    // syncer flushes the WAL before any write is reported done. These two
    // settings let the gathering VFS tell a commit's sync from the others.
    db.exec("PRAGMA synchronous=FULL");
    db.exec("PRAGMA checkpoint_fullfsync=ON");
    s->durable_ = synchronous != "normal";
    db.exec("PRAGMA wal_autocheckpoint=0");  // the checkpointer thread does it
    db.exec("PRAGMA foreign_keys=ON");
    auto& v = db.prepare("PRAGMA user_version");
    int version = 0;
    while (v.step()) version = static_cast<int>(v.integer(0));
    // A database a newer release has upgraded has tables and rows this one does not
    // know, and would damage: an operator going back restores the backup made before.
    const int known = latest_schema();
    if (version > known) {
      error = "database " + path + " has schema " + std::to_string(version) + ", made by a newer counterattackd (this one knows up to " +
              std::to_string(known) + "): run that release, or restore the backup taken before the upgrade";
      return nullptr;
    }
    for (const auto& [name, sql] : embedded_migrations()) {
      const int n = std::atoi(name.c_str());
      if (n <= 0) {
        error = "migration " + name + " does not start with its number";
        return nullptr;
      }
      if (n <= version) continue;
      db.exec("BEGIN IMMEDIATE");
      try {
        db.exec(sql);
        db.exec("PRAGMA user_version=" + std::to_string(n));
        db.exec("COMMIT");
      } catch (...) {
        db.exec("ROLLBACK");
        throw;
      }
      log::info("migration applied", {{"migration", name}});
      version = n;
    }
    s->schema_version_ = version;
  } catch (const DbError& e) {
    error = std::string("database ") + path + ": " + e.what();
    return nullptr;
  }
  s->reader_ = std::make_unique<Db>(path, false, error);
  if (!s->reader_->ok()) return nullptr;
  try {
    s->reader_->exec("PRAGMA foreign_keys=ON");
  } catch (const DbError& e) {
    error = e.what();
    return nullptr;
  }
  s->checkpoint_db_ = std::make_unique<Db>(path, true, error);
  if (!s->checkpoint_db_->ok()) return nullptr;
  // A restart holds the writer while it waits for readers: it gives up soon and tries again later.
  s->checkpoint_db_->wait_for_locks(std::chrono::milliseconds(50));
  try {
    // A connection checkpoints only once it has read the database and so opened its WAL.
    s->checkpoint_db_->exec("SELECT count(*) FROM sqlite_master");
  } catch (const DbError& e) {
    error = e.what();
    return nullptr;
  }
  if (s->durable_) {
    // The WAL exists once a connection has read the database. A file descriptor of
    // our own flushes it: fdatasync covers every write to the file, through any descriptor.
    const auto wal = path + "-wal";
    s->wal_fd_ = ::open(wal.c_str(), O_RDONLY | O_CLOEXEC);
    if (s->wal_fd_ < 0) {
      error = "cannot open the write-ahead log " + wal;
      return nullptr;
    }
    // The WAL may have just been created: make its directory entry durable too.
    const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) {
      ::fsync(dir_fd);
      ::close(dir_fd);
    }
  }
  s->writer_db_->on_commit(
      [](void* self, int frames) {
        auto* st = static_cast<Storage*>(self);
        st->wal_over_bound_ = frames > kWalBoundFrames;
        if (frames < kWalCheckpointFrames) return;
        std::lock_guard lock(st->checkpoint_mu_);
        st->checkpoint_wanted_ = true;
        st->checkpoint_cv_.notify_one();
      },
      s.get());
  s->writer_ = std::thread([p = s.get()] { p->writer_loop(); });
  s->syncer_ = std::thread([p = s.get()] { p->sync_loop(); });
  s->checkpointer_ = std::thread([p = s.get()] { p->checkpoint_loop(); });
  return s;
}

// A passive checkpoint never blocks the writer: it copies what it can of the
// WAL into the database. Under steady writes it never catches up, and SQLite
// reuses the WAL from its start only once everything is copied, so the WAL
// would grow without end. When it has grown past kWalCheckpointFrames the
// passive pass is followed at once by a restart, which holds the writer only
// while it copies the few frames written since.
void Storage::checkpoint_loop() {
  log::name_thread("ca-checkpoint");
  std::unique_lock lock(checkpoint_mu_);
  while (!checkpoint_stopping_) {
    checkpoint_cv_.wait_for(lock, std::chrono::milliseconds(250), [&] { return checkpoint_stopping_ || checkpoint_wanted_; });
    checkpoint_wanted_ = false;
    ++checkpoint_passes_started_;
    lock.unlock();
    bool restarted = true;
    if (checkpoint_db_->checkpoint(SQLITE_CHECKPOINT_PASSIVE) > kWalCheckpointFrames && !restarts_held_ &&
        checkpoint_db_->checkpoint(SQLITE_CHECKPOINT_RESTART) < 0) {
      restarted = false;
      log::debug("WAL restart deferred", {});
    }
    lock.lock();
    last_pass_restarted_ = restarted;
    ++checkpoint_passes_done_;
    checkpoint_done_cv_.notify_all();
  }
}

Storage::~Storage() { stop(); }

void Storage::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  {
    std::lock_guard lock(sync_mu_);
    sync_stopping_ = true;
  }
  sync_cv_.notify_all();
  if (syncer_.joinable()) syncer_.join();
  {
    std::lock_guard lock(checkpoint_mu_);
    checkpoint_stopping_ = true;
  }
  checkpoint_cv_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
  if (wal_fd_ >= 0) {
    ::close(wal_fd_);
    wal_fd_ = -1;
  }
}

// ---------------------------------------------------------------------------
// Group commit
// ---------------------------------------------------------------------------

namespace {

// Under load the next write or commit arrives within microseconds. Sleeping on
// a condition variable and being woken costs more than that, and a woken thread
// can wait behind others on a busy core while another core idles. So the writer
// and the syncer first give way to other threads for up to kIdleSpin, checking
// for work between turns, and only then sleep. A spin that finds nothing turns
// spinning off until a sleep ends within kIdleSpin again, so an idle or lightly
// used server does not spin.
constexpr auto kIdleSpin = std::chrono::microseconds(100);

template <typename Ready>
void wait_for_work(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, bool& spin, Ready ready) {
  if (ready()) return;
  const auto start = std::chrono::steady_clock::now();
  if (spin) {
    while (std::chrono::steady_clock::now() - start < kIdleSpin) {
      lock.unlock();
      sched_yield();
      lock.lock();
      if (ready()) return;
    }
  }
  cv.wait(lock, ready);
  spin = std::chrono::steady_clock::now() - start < kIdleSpin;
}

}  // namespace

void Storage::write(Op op, Done done) {
  {
    std::lock_guard lock(mu_);
    if (!stopped_) {
      queue_.push_back(Item{std::move(op), std::move(done)});
      cv_.notify_one();
      return;
    }
  }
  // The writer has ended (the process is exiting): nothing is committed any more, and
  // the callback is dropped rather than run here, where the caller may hold its locks.
}

void Storage::writer_loop() {
  log::name_thread("ca-writer");
  Db& db = *writer_db_;
  std::vector<Item> batch;
  std::vector<char> ok;
  bool spin = true;
  std::uint64_t seq = 0, failed = 0;  // this batch's number; the last one whose commit failed
  for (;;) {
    {
      std::unique_lock lock(mu_);
      wait_for_work(lock, cv_, spin, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {  // stopping, and everything is committed
        stopped_ = true;
        return;
      }
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
      queue_.clear();
    }
    ++seq;
    const bool held = reported_batch_.load(std::memory_order_acquire) < failed;
    ok.assign(batch.size(), held ? 0 : 1);
    if (held) log::warn("writes refused after a failed commit", {{"writes", batch.size()}});
    bool committed = false;
    if (!held) {
      try {
        db.prepare("BEGIN IMMEDIATE").run();
        for (size_t i = 0; i < batch.size(); ++i) {
          if (!batch[i].op) continue;
          db.prepare("SAVEPOINT w").run();
          try {
            batch[i].op(db);
            db.prepare("RELEASE w").run();
          } catch (const std::exception& e) {
            ok[i] = 0;
            db.prepare("ROLLBACK TO w").run();
            db.prepare("RELEASE w").run();
            log::debug("write refused", {{"error", e.what()}});
          }
        }
        db.prepare("COMMIT").run();
        committed = true;
      } catch (const std::exception& e) {
        log::error("commit failed", {{"error", e.what()}, {"writes", batch.size()}});
        try {
          db.exec("ROLLBACK");
        } catch (...) {
        }
        failed = seq;
      }
    }
    if (committed && wal_over_bound_ && !restarts_held_ && std::chrono::steady_clock::now() >= no_wal_wait_until_) {
      // Held back until a checkpoint pass that starts now has run (a second at most).
      std::unique_lock lock(checkpoint_mu_);
      const std::uint64_t pass = checkpoint_passes_started_ + 1;
      checkpoint_wanted_ = true;
      checkpoint_cv_.notify_one();
      const bool ran = checkpoint_done_cv_.wait_for(lock, std::chrono::seconds(1),
                                                    [&] { return checkpoint_passes_done_ >= pass || checkpoint_stopping_; });
      if (!ran || !last_pass_restarted_) no_wal_wait_until_ = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    }
    wal_over_bound_ = false;
    ++batches_;
    writes_ += batch.size();
    {
      std::lock_guard lock(sync_mu_);
      for (size_t i = 0; i < batch.size(); ++i) {
        if (batch[i].done) committed_.push_back(Committed{std::move(batch[i].done), committed && ok[i] != 0, seq});
      }
      if (failed == seq) committed_.push_back(Committed{{}, false, seq});  // so that the hold ends
    }
    sync_cv_.notify_one();
    batch.clear();
  }
}

void Storage::sync_loop() {
  log::name_thread("ca-sync");
  std::vector<Committed> ready;
  bool spin = true;
  for (;;) {
    {
      std::unique_lock lock(sync_mu_);
      wait_for_work(lock, sync_cv_, spin, [&] { return sync_stopping_ || !committed_.empty(); });
      if (committed_.empty()) return;  // stopping, and every callback has run
      ready.swap(committed_);
    }
    // A failed flush leaves it unknown what is on disk; nothing may be
    // acknowledged after it, and a restart recovers from the log.
    if (durable_) {
      if (::fdatasync(wal_fd_) != 0) {
        log::error("the write-ahead log cannot be flushed to disk; stopping", {{"errno", errno}});
        std::abort();
      }
      ++syncs_;
    }
    for (std::size_t i = 0; i < ready.size(); ++i) {
      const auto& c = ready[i];
      if (c.done) {
        try {
          c.done(c.ok);
        } catch (const std::exception& e) {
          log::error("write callback failed", {{"error", e.what()}});
        }
      }
      // Each batch counts as reported once its own callbacks have run, before the next
      // batch's: a write sent from a later callback is not held by an earlier failure.
      if (i + 1 == ready.size() || ready[i + 1].batch != c.batch) reported_batch_.store(c.batch, std::memory_order_release);
    }
    ready.clear();
  }
}

}  // namespace counterattack::server
