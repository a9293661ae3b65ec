// Chat moderation: the players each player has muted and the operator's chat
// bans, held in memory for each chat message sent and delivered. The players'
// requests (mute, unmute, reports) are GameService's, in chat_moderation.cc.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage.h"

namespace counterattack::server {

// The end of a chat ban that lasts until the operator lifts it: 9999-12-31 23:59:59 UTC.
constexpr std::int64_t kChatBannedUntilLifted = 253402300799;

// What a player banned from chat is told when they write.
std::string chat_ban_text(std::int64_t until_unix, const std::string& reason);

class ChatModeration {
 public:
  static constexpr std::size_t kMostMuted = 200;

  // Every player's mutes and the bans in force, read at the start.
  void load(Storage& storage);

  // Whether `reader` has muted `writer`.
  bool muted(std::int64_t reader, std::int64_t writer) const;
  // Mutes in memory, before the write: false, and nothing changed, when
  // `reader` has muted kMostMuted players already.
  bool add_mute(std::int64_t reader, std::int64_t writer);
  void remove_mute(std::int64_t reader, std::int64_t writer);

  struct Ban {
    std::int64_t until = 0;
    std::string reason;
  };
  // The player's chat ban in force now, if any.
  std::optional<Ban> ban_of(std::int64_t user) const;
  // The bans read again: the operator's command sets them from another process.
  // Those this server has not seen before (new, or changed), for its log.
  struct Seen {
    std::string name, until, reason;
  };
  std::vector<Seen> poll_bans(Storage& storage);

 private:
  mutable std::mutex mu_;  // taken after a game's mu, never before
  std::map<std::int64_t, std::set<std::int64_t>> mutes_;  // by reader
  std::map<std::int64_t, Ban> bans_;                      // by user
};

}  // namespace counterattack::server
