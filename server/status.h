// The operator's --status: whether the server runs and how it fares, read from
// beside it (its lock file and, read-only, its database), for a person or a
// monitoring script; and what the running server records for it.
#pragma once

#include <cstdint>
#include <string>

#include "config.h"
#include "storage.h"

namespace counterattack::server {

// The exit statuses of --status, for monitoring scripts.
constexpr int kStatusAllWell = 0;
constexpr int kStatusNotRunning = 1;
constexpr int kStatusWarning = 2;  // running, but something needs the operator: see the warnings
constexpr int kStatusUnreadable = 3;  // no database there, or one of another release's schema

// The first schema whose server records what --status reads of it.
constexpr int kSchemaWithStatus = 37;

// What the server records at its start, before it serves anyone; returns once it is stored.
struct ServerStart {
  std::string version, listen, backup_dir;
  bool mail = false;
  std::int64_t backup_every_seconds = 0;
};
void record_start(Storage& storage, const ServerStart& start);

// The status of the server whose database is `cfg.database`, as lines of text or
// one JSON object (`json`), in `said`; returns the exit status. With
// kStatusUnreadable, `said` is why. The settings it judges by (mail, backups)
// are those the server recorded at its last start, or `cfg`'s before any has.
int server_status(const Config& cfg, bool json, std::string& said);

}  // namespace counterattack::server
