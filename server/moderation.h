// Suspending accounts: the operator's commands, run as a second process beside
// the server (as a backup is), and the server's watch for suspensions, which
// signs a suspended player out and sets aside their games still waiting.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "storage.h"

namespace counterattack::server {

// The end of a suspension that lasts until the operator lifts it: 9999-12-31 23:59:59 UTC.
constexpr std::int64_t kSuspendedIndefinitely = 253402300799;

// What a suspended player is told, at login and as they are signed out.
std::string suspension_text(std::int64_t until_unix, const std::string& reason);

// The operator's commands on the database at `db_path`, whether the server runs or not.
// Each returns "" and says what it did in `said`; else it changes nothing and says why.
// `days` 0: until reinstated. Suspending ends the player's sessions and their entries
// in tournaments not yet started; the server, within seconds, signs them out and
// withdraws their games waiting for an opponent (and, suspended until reinstated,
// resigns their games in play).
std::string suspend_account(const std::string& db_path, const std::string& name, int days, const std::string& reason,
                            std::string& said);
std::string reinstate_account(const std::string& db_path, const std::string& name, std::string& said);
std::string list_suspended(const std::string& db_path, std::string& said);

// The server's side: the accounts suspended now, read again on each poll.
class SuspensionWatch {
 public:
  struct Suspended {
    std::int64_t user_id = 0;
    std::string name, text;
    bool for_good = false;  // until reinstated
  };
  // Those suspended since the last poll (at the first, all suspended now), and
  // those whose suspension was lengthened or given a new reason.
  std::vector<Suspended> poll(Storage& storage);

 private:
  std::map<std::int64_t, std::pair<std::int64_t, std::string>> known_;  // user id: until, reason
};

}  // namespace counterattack::server
