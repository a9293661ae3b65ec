// Stepping through a finished game (`counterattack replay GAME`, the shell's
// `replay GAME`): its whole log, open once the game is over, replayed with the
// rules here as `verify` replays it, and the full view of the position after
// any version with the events of the order that made it and its time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "engine.h"
#include "render.h"
#include "scenario.h"
#include "state.h"
#include "wire.pb.h"

namespace counterattack::cli {

class Replay {
 public:
  // Asks the server for the game's log and replays it. Nothing, with a sentence in
  // *why, for an unknown game, one not over (its log is not open yet), or a log
  // the rules here do not replay; `in_shell`: the sentence names the shell's commands.
  static std::optional<Replay> fetch(Session& s, const std::shared_ptr<const Scenario>& sc, const std::string& game_id,
                                     std::string* why, bool in_shell = false);
  // A log as the server sent it (GetLog, after the end), replayed.
  static std::optional<Replay> of(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, std::string* why);

  const std::string& game_id() const { return log_.game_id(); }
  // The last version: the position the game ended in.
  std::int64_t last() const { return static_cast<std::int64_t>(states_.size()) - 1; }
  // Whether the game has `version`; when not, a sentence saying which it has.
  bool has(std::int64_t version, std::string* why) const;
  // The full view of the position after `version` (0: the setup).
  game::View view(std::int64_t version) const;
  // The events of the order that made `version` (0: the setup's), each once, in
  // the full wording (the log also holds each side's and the spectators' forms).
  const std::vector<game::Event>& events(std::int64_t version) const { return events_[static_cast<std::size_t>(version)]; }
  // The version whose undo took back the order that made `version`; 0 when none did.
  std::int64_t taken_back_by(std::int64_t version) const { return taken_back_by_[static_cast<std::size_t>(version)]; }
  // For an undo, the version whose order it took back; 0 otherwise.
  std::int64_t takes_back(std::int64_t version) const { return takes_back_[static_cast<std::size_t>(version)]; }
  // How the game ended, as the server's log says ("" from a server that does not say).
  const std::string& result() const { return log_.result(); }
  const std::string& result_reason() const { return log_.result_reason(); }
  // When that order was played (0: the game was made); 0 when the server did not say.
  std::int64_t time(std::int64_t version) const;
  // The order that made `version`: nothing for the setup.
  const wire::LoggedOrder* order(std::int64_t version) const;
  // A version for scripts: its time, order, events and full view, whether it was
  // taken back or takes one back, and at the last version the result, as JSON.
  std::string json(std::int64_t version) const;

 private:
  std::shared_ptr<const Engine> engine_;
  wire::GameLog log_;
  std::vector<GameState> states_;
  std::vector<std::vector<game::Event>> events_;
  std::vector<std::int64_t> taken_back_by_, takes_back_;
};

// The screen of a version: which it is and by whose order, when, the tracks, the
// map and its stacks, both hands, that order's events and who decides next.
// `hint`: a line under the heading (the stepping commands), or empty.
std::string render_replay(const Scenario& sc, const Replay& r, std::int64_t version, const RenderOptions& ro,
                          const std::string& hint = "");

// Stepping through a replay, in the shell and in `counterattack replay GAME`.
struct ReplayCursor {
  std::int64_t at = 0;
  int center_hex = 0;  // the map window's centre (at HEX); 0: the middle
  bool done = false;   // quit typed: the replay is left
  bool drew = false;   // the last step gave a version's screen, not a sentence
};
// One line typed while stepping (words empty: ENTER, the next version): next|n,
// prev|p, goto N, first, last, show|map|at [HEX], help, quit. Moves the cursor and
// gives what to print: the screen of the version reached, or a sentence.
std::string replay_step(const Scenario& sc, const Replay& r, ReplayCursor& c, const std::vector<std::string>& words,
                        const RenderOptions& ro);
// The stepping commands, as help and completion give them.
const std::vector<std::string>& replay_words();
// The line under a replay's heading that says how to step.
std::string replay_hint();
// The prompt while stepping: "replay GAME 12/340> ".
std::string replay_prompt(const Replay& r, const ReplayCursor& c);

// `counterattack replay GAME`: from the setup, a step for each line of standard
// input, until quit or its end.
int run_replay(const Scenario& sc, const Replay& r, const RenderOptions& ro);

}  // namespace counterattack::cli
