#include "gathering_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <new>
#include <string>

namespace counterattack::server {

namespace {

constexpr const char* kName = "counterattack-gathering";
// The unix VFS cuts the length of one write to its low 17 bits, so a run must
// stay under 128 KiB; a single write longer than a run goes out as it comes.
constexpr size_t kMostGathered = 64 << 10;
static_assert(kMostGathered <= 0x1ffff);

std::atomic<std::uint64_t> g_writes_in{0}, g_writes_out{0};

sqlite3_vfs* g_base = nullptr;

// Our file object: the base VFS's file follows it in the same allocation.
struct File {
  sqlite3_file base;
  sqlite3_file* real;
  bool wal;
  std::string* gathered;    // the pending run of bytes (WAL files only)
  sqlite3_int64 run_start;  // the file offset of its first byte
};

File* self(sqlite3_file* f) { return reinterpret_cast<File*>(f); }
sqlite3_file* real(sqlite3_file* f) { return self(f)->real; }

// Writes the pending run. A failed write drops it all the same: SQLite then
// fails the statement or commit it belongs to, and never publishes it.
int release(File* f) {
  if (!f->gathered || f->gathered->empty()) return SQLITE_OK;
  g_writes_out.fetch_add(1, std::memory_order_relaxed);
  const int rc = f->real->pMethods->xWrite(f->real, f->gathered->data(), static_cast<int>(f->gathered->size()), f->run_start);
  f->gathered->clear();
  return rc;
}

int x_close(sqlite3_file* p) {
  File* f = self(p);
  int rc = release(f);
  delete f->gathered;
  f->gathered = nullptr;
  const int closed = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
  return rc != SQLITE_OK ? rc : closed;
}

int x_read(sqlite3_file* p, void* out, int n, sqlite3_int64 at) {
  if (const int rc = release(self(p)); rc != SQLITE_OK) return rc;
  return real(p)->pMethods->xRead(real(p), out, n, at);
}

int x_write(sqlite3_file* p, const void* in, int n, sqlite3_int64 at) {
  File* f = self(p);
  if (!f->wal) return f->real->pMethods->xWrite(f->real, in, n, at);
  g_writes_in.fetch_add(1, std::memory_order_relaxed);
  auto& run = *f->gathered;
  const size_t size = static_cast<size_t>(n);
  if (!run.empty() && (at != f->run_start + static_cast<sqlite3_int64>(run.size()) || run.size() + size > kMostGathered)) {
    if (const int rc = release(f); rc != SQLITE_OK) return rc;
  }
  if (size > kMostGathered) {
    g_writes_out.fetch_add(1, std::memory_order_relaxed);
    return f->real->pMethods->xWrite(f->real, in, n, at);
  }
  if (run.empty()) f->run_start = at;
  try {
    run.append(static_cast<const char*>(in), size);
  } catch (const std::bad_alloc&) {
    return SQLITE_IOERR_NOMEM;  // never an exception through SQLite's frames
  }
  return SQLITE_OK;
}

int x_truncate(sqlite3_file* p, sqlite3_int64 size) {
  if (const int rc = release(self(p)); rc != SQLITE_OK) return rc;
  return real(p)->pMethods->xTruncate(real(p), size);
}

int x_sync(sqlite3_file* p, int flags) {
  File* f = self(p);
  if (const int rc = release(f); rc != SQLITE_OK) return rc;
  // A commit's sync: its bytes are in the file; the syncer thread flushes them.
  if (f->wal && (flags & 0x0f) == SQLITE_SYNC_NORMAL) return SQLITE_OK;
  return f->real->pMethods->xSync(f->real, flags);
}

int x_file_size(sqlite3_file* p, sqlite3_int64* size) {
  if (const int rc = release(self(p)); rc != SQLITE_OK) return rc;
  return real(p)->pMethods->xFileSize(real(p), size);
}

int x_lock(sqlite3_file* p, int level) { return real(p)->pMethods->xLock(real(p), level); }
int x_unlock(sqlite3_file* p, int level) { return real(p)->pMethods->xUnlock(real(p), level); }
int x_check_reserved_lock(sqlite3_file* p, int* out) { return real(p)->pMethods->xCheckReservedLock(real(p), out); }
int x_file_control(sqlite3_file* p, int op, void* arg) {
  if (const int rc = release(self(p)); rc != SQLITE_OK) return rc;
  return real(p)->pMethods->xFileControl(real(p), op, arg);
}
int x_sector_size(sqlite3_file* p) { return real(p)->pMethods->xSectorSize(real(p)); }
// Always powersafe overwrite: otherwise SQLite pads a commit to a sector and
// syncs in the middle of its last frame, and the rest of that frame would stay
// gathered while the commit is published.
int x_device_characteristics(sqlite3_file* p) {
  return real(p)->pMethods->xDeviceCharacteristics(real(p)) | SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}
int x_shm_map(sqlite3_file* p, int page, int size, int extend, void volatile** out) {
  return real(p)->pMethods->xShmMap(real(p), page, size, extend, out);
}
int x_shm_lock(sqlite3_file* p, int offset, int n, int flags) { return real(p)->pMethods->xShmLock(real(p), offset, n, flags); }
void x_shm_barrier(sqlite3_file* p) { real(p)->pMethods->xShmBarrier(real(p)); }
int x_shm_unmap(sqlite3_file* p, int delete_flag) { return real(p)->pMethods->xShmUnmap(real(p), delete_flag); }
int x_fetch(sqlite3_file* p, sqlite3_int64 at, int n, void** out) {
  if (const int rc = release(self(p)); rc != SQLITE_OK) return rc;
  return real(p)->pMethods->xFetch(real(p), at, n, out);
}
int x_unfetch(sqlite3_file* p, sqlite3_int64 at, void* page) { return real(p)->pMethods->xUnfetch(real(p), at, page); }

// The version of the table follows the base file's, so that SQLite never
// calls a method the base file lacks.
constexpr sqlite3_io_methods methods_of_version(int version) {
  sqlite3_io_methods m{};
  m.iVersion = version;
  m.xClose = x_close;
  m.xRead = x_read;
  m.xWrite = x_write;
  m.xTruncate = x_truncate;
  m.xSync = x_sync;
  m.xFileSize = x_file_size;
  m.xLock = x_lock;
  m.xUnlock = x_unlock;
  m.xCheckReservedLock = x_check_reserved_lock;
  m.xFileControl = x_file_control;
  m.xSectorSize = x_sector_size;
  m.xDeviceCharacteristics = x_device_characteristics;
  if (version >= 2) {
    m.xShmMap = x_shm_map;
    m.xShmLock = x_shm_lock;
    m.xShmBarrier = x_shm_barrier;
    m.xShmUnmap = x_shm_unmap;
  }
  if (version >= 3) {
    m.xFetch = x_fetch;
    m.xUnfetch = x_unfetch;
  }
  return m;
}

constexpr sqlite3_io_methods kMethods[3] = {methods_of_version(1), methods_of_version(2), methods_of_version(3)};

int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* p, int flags, int* out_flags) {
  File* f = self(p);
  f->base.pMethods = nullptr;  // until the base file is open: SQLite then does not close it
  f->real = reinterpret_cast<sqlite3_file*>(f + 1);
  f->wal = (flags & SQLITE_OPEN_WAL) != 0;
  f->gathered = nullptr;
  f->run_start = 0;
  const int rc = g_base->xOpen(g_base, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK || !f->real->pMethods) return rc;
  const int version = f->real->pMethods->iVersion < 1 ? 1 : (f->real->pMethods->iVersion > 3 ? 3 : f->real->pMethods->iVersion);
  if (f->wal) {
    f->gathered = new (std::nothrow) std::string();
    if (!f->gathered) {
      f->real->pMethods->xClose(f->real);
      return SQLITE_NOMEM;
    }
  }
  f->base.pMethods = &kMethods[version - 1];
  return SQLITE_OK;
}

// The rest of the VFS is the base VFS's.
int x_delete(sqlite3_vfs*, const char* name, int sync_dir) { return g_base->xDelete(g_base, name, sync_dir); }
int x_access(sqlite3_vfs*, const char* name, int flags, int* out) { return g_base->xAccess(g_base, name, flags, out); }
int x_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) { return g_base->xFullPathname(g_base, name, n, out); }
void* x_dl_open(sqlite3_vfs*, const char* name) { return g_base->xDlOpen(g_base, name); }
void x_dl_error(sqlite3_vfs*, int n, char* out) { g_base->xDlError(g_base, n, out); }
void (*x_dl_sym(sqlite3_vfs*, void* h, const char* sym))(void) { return g_base->xDlSym(g_base, h, sym); }
void x_dl_close(sqlite3_vfs*, void* h) { g_base->xDlClose(g_base, h); }
int x_randomness(sqlite3_vfs*, int n, char* out) { return g_base->xRandomness(g_base, n, out); }
int x_sleep(sqlite3_vfs*, int us) { return g_base->xSleep(g_base, us); }
int x_current_time(sqlite3_vfs*, double* out) { return g_base->xCurrentTime(g_base, out); }
int x_get_last_error(sqlite3_vfs*, int n, char* out) { return g_base->xGetLastError(g_base, n, out); }
int x_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) { return g_base->xCurrentTimeInt64(g_base, out); }

sqlite3_vfs g_vfs{};

}  // namespace

GatheringStats gathering_vfs_stats() {
  return {g_writes_in.load(std::memory_order_relaxed), g_writes_out.load(std::memory_order_relaxed)};
}

const char* gathering_vfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_base = sqlite3_vfs_find(nullptr);
    g_vfs.iVersion = 2;
    g_vfs.szOsFile = static_cast<int>(sizeof(File)) + g_base->szOsFile;
    g_vfs.mxPathname = g_base->mxPathname;
    g_vfs.zName = kName;
    g_vfs.xOpen = x_open;
    g_vfs.xDelete = x_delete;
    g_vfs.xAccess = x_access;
    g_vfs.xFullPathname = x_full_pathname;
    g_vfs.xDlOpen = x_dl_open;
    g_vfs.xDlError = x_dl_error;
    g_vfs.xDlSym = x_dl_sym;
    g_vfs.xDlClose = x_dl_close;
    g_vfs.xRandomness = x_randomness;
    g_vfs.xSleep = x_sleep;
    g_vfs.xCurrentTime = x_current_time;
    g_vfs.xGetLastError = x_get_last_error;
    g_vfs.xCurrentTimeInt64 = x_current_time_int64;
    sqlite3_vfs_register(&g_vfs, 0);
  });
  return kName;
}

}  // namespace counterattack::server
