// A SQLite VFS over the default one that gathers a transaction's writes to the
// write-ahead log and hands them to the kernel in one call when the commit
// asks for its sync.
//
// SQLite writes each WAL frame as two calls (its 24-byte header, then the
// page), so a commit of n pages costs 2n system calls, and on a virtual
// machine each call is dear. Gathered, a commit costs one. What reaches the
// file is the same bytes at the same offsets, and all of it is in the file
// before SQLite publishes the commit to other connections (it does that after
// the sync), so readers and crash recovery see exactly what they would have.
//
// The commit's own sync stops there: it does not wait for the disk, because
// Storage's syncer thread flushes the WAL before any write is acknowledged.
// Every other sync (the WAL header when the log restarts, a checkpoint's) is
// passed on and really waits. To tell them apart the connection runs with
// `synchronous=FULL` and `checkpoint_fullfsync=ON`: SQLite then asks a commit
// for SQLITE_SYNC_NORMAL and every other WAL sync for SQLITE_SYNC_FULL. The
// VFS reports powersafe overwrite, so that SQLite never pads a commit with a
// sync in the middle of its last frame.
#pragma once

#include <cstdint>

namespace counterattack::server {

// The VFS's name for sqlite3_open_v2, registered (not as the default) on first use.
const char* gathering_vfs();

// Since the start: the WAL writes SQLite asked for, and the writes made for them.
struct GatheringStats {
  std::uint64_t asked = 0, made = 0;
};
GatheringStats gathering_vfs_stats();

}  // namespace counterattack::server
