// The narrow interface between the server and a game's rules. Networking,
// storage, lobby and sessions talk only to this; a second wargame plugs in by
// implementing it, without touching anything else in server/.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "game.pb.h"
#include "scenario.pb.h"

namespace counterattack::server {

// A game's secret dice seed: the dice generator's whole initial state.
using Seed = std::array<std::uint8_t, 32>;

struct Applied {
  bool accepted = false;
  game::Rejection rejection;        // when not accepted
  std::vector<game::Event> events;  // when accepted: every audience, filter with events_for
};

// One viewer's view in the rules' own form, cheap to build and to compare. The
// server keeps the latest of each seat and asks the ruleset for the delta
// from it to the next.
class SeatView {
 public:
  virtual ~SeatView() = default;
  virtual game::View proto() const = 0;  // the whole view, as a snapshot carries it
};

// One game: its state and its dice. Not thread-safe: the owner serialises access.
class Match {
 public:
  virtual ~Match() = default;
  // Checks the order for `side` in full; a rejected order changes nothing.
  virtual Applied apply(game::Side side, const game::Order& order) = 0;
  // Who must decide now; SIDE_UNSPECIFIED once the game is over.
  virtual game::Side decider() const = 0;
  // What one viewer may see: the only way a game leaves the rules.
  virtual game::View view(game::ViewerKind viewer) const = 0;
  // The same view as a SeatView, for the delta stream.
  virtual std::unique_ptr<SeatView> seat_view(game::ViewerKind viewer) const = 0;
  virtual std::string encode_state() const = 0;
  virtual std::string encode_dice() const = 0;  // the dice generator's current state
  virtual std::uint64_t state_hash() const = 0;
  virtual bool over() const = 0;
  virtual std::string result() const = 0;  // "Soviet victory", "German victory", "Draw"; "" while playing
  virtual std::string result_reason() const = 0;
  virtual int turn() const = 0;
  // The order the decider's standing orders give for the decision now; nothing
  // when they do not cover it, and the decider is asked.
  virtual std::optional<game::Order> standing_answer(const game::StandingOrders& standing) const = 0;
};

class Ruleset {
 public:
  virtual ~Ruleset() = default;
  virtual std::string name() const = 0;
  // An error sentence for unknown or repeated option keys, "" when they are fine.
  virtual std::string check_options(const std::vector<std::string>& options) const = 0;
  // An error sentence for standing orders that `side` cannot give, "" when they are fine.
  virtual std::string check_standing_orders(game::Side side, const game::StandingOrders& standing) const = 0;
  // The revision of the rules new games begin with. A game keeps its own (its
  // dice generator among them), so that its stored log replays the same.
  virtual int latest_revision() const = 0;
  // A new game of a revision from 1 to latest_revision(); `events` receives what the set-up did.
  virtual std::unique_ptr<Match> create(const std::vector<std::string>& options, const Seed& seed, int revision,
                                        std::vector<game::Event>* events) const = 0;
  // A game from encode_state/encode_dice bytes (the state holds its revision);
  // nullptr when they do not fit.
  virtual std::unique_ptr<Match> restore(const std::string& state, const std::string& dice) const = 0;
  // The delta between two views of one viewer (never between states); both
  // come from seat_view of this ruleset's matches.
  virtual game::ViewDelta diff(const SeatView& before, const SeatView& after) const = 0;
  // The events of one order that a viewer may read.
  virtual std::vector<game::Event> events_for(const std::vector<game::Event>& events, game::ViewerKind viewer) const = 0;
  // The scenario's public data (map, counters, charts), for clients to draw and reckon with.
  virtual std::shared_ptr<const data::ScenarioData> scenario_data() const = 0;
};

// Rulesets by scenario name.
using Rulesets = std::map<std::string, std::shared_ptr<const Ruleset>>;

// Model's Counterattack on top of engine/ (counterattack_ruleset.cc).
std::shared_ptr<const Ruleset> make_counterattack_ruleset();

}  // namespace counterattack::server
