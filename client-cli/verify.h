// The audit of a finished game (`counterattack verify GAME`), as
// protocol/README.md describes it: the dice seed the server reveals at the end
// is the one it committed to at the start, and the rules here, given that seed,
// the game's options and revision and every logged order, roll every die and
// give every event and the final position as the server's log has them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scenario.h"
#include "wire.pb.h"

namespace counterattack {
struct GameState;
}

namespace counterattack::cli {

struct Audit {
  bool verified = false;
  bool seed_matches = false;  // SHA-256(seed) is the commitment
  int orders = 0;             // orders replayed (all of them, when verified)
  int dice = 0;               // dice rolled in them (events with a die)
  int revision = 0;           // the rules' revision the game began with
  std::string dice_kind;      // "ChaCha20" or "xoshiro256**"
  std::string state_hash;     // of the final position, replayed (16 hex digits)
  std::string mismatch;       // the first thing that differs, in a sentence (server text escaped)
};

// Replays a game's log (GetLog, as the server sent it) against the commitment
// its summary published at creation.
Audit audit_game(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, const std::string& commitment);

// Each version as a replay reaches it: the position after it (0: the setup) and its events.
using OnVersion = std::function<void(std::int64_t version, const GameState& state, const std::vector<game::Event>& events)>;
// The same replay without the commitment (a replay to step through, not an audit),
// telling `each` every version on the way; verified when the log replays to its end.
Audit replay_log(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, const OnVersion& each);

// "Verified: 412 orders, 57 dice, the seed matches ...; revision 2 (ChaCha20 dice)."
// or "Not verified: ..." with the first mismatch.
std::string describe_audit(const Audit& a);

// The lower-case hex SHA-256 of some bytes.
std::string sha256_hex(std::string_view bytes);

}  // namespace counterattack::cli
