// The rules engine: pure functions of (scenario, state, order, dice).
// No I/O, no clock, no global state. Tests, the simulator, the server and bots
// all use it the same way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "game.pb.h"
#include "rng.h"
#include "scenario.h"
#include "state.h"
#include "view_model.h"

namespace counterattack {

// An order in engine terms: unit indices and locations instead of names.
struct Order {
  enum class Kind : std::uint8_t {
    ActivateCorps, Move, PreparedDefense, LiftPreparedDefense, PlaceReserve, RemoveReserve,
    BreakContact, PlayEvent, Recover, SuppressUprising, ChooseUnits, Done,
    Overrun, Barrage, Attack, DefensiveSupport, TakeLosses, Retreat, Advance, UseModel, Reroll,
    Undo,  // takes back the decider's last order (GameState::takeback)
  };
  Kind kind = Kind::Done;
  std::vector<std::int16_t> units;
  std::vector<Loc> path;   // Move: locations entered; BreakContact: destination per unit;
                           // Recover, PlayEvent: the placement location, if any
  std::int16_t corps = -1; // ActivateCorps, PlayEvent: formation index
  bool with_47th = false;
  std::int16_t chit = -1;  // PlayEvent: event index
  std::vector<std::int16_t> markers;  // ChooseUnits, Barrage, Attack, DefensiveSupport: artillery
                                      // markers, then Stukas
  std::vector<std::vector<Loc>> paths;  // Retreat: one path per unit
  std::int8_t elastic = 0, desperate = 0;  // TakeLosses
  std::int8_t effect = 0;  // UseModel: game::UseModel::Effect
  bool yes = false;        // Reroll

  static Order done() { return {}; }
  static Order of(Kind k, std::vector<std::int16_t> u = {}, std::vector<Loc> p = {}) {
    Order o;
    o.kind = k;
    o.units = std::move(u);
    o.path = std::move(p);
    return o;
  }
  friend bool operator==(const Order&, const Order&) = default;
};

struct Rejection {
  game::RejectCode code = game::REJECT_UNSPECIFIED;
  std::string reason;
};

struct Outcome {
  bool accepted = false;
  Rejection rejection;
  std::vector<game::Event> events;
};

// Who must decide what, now.
struct Decision {
  game::Decision::Kind kind = game::Decision::GAME_OVER;
  Side side = Side::Soviet;
  int count = 0;               // units a ChooseUnits must name
  std::vector<int> candidates; // units that may be named
  std::string prompt;
};

class Engine {
 public:
  explicit Engine(std::shared_ptr<const Scenario> scenario);

  const Scenario& scenario() const { return *sc_; }
  std::shared_ptr<const Scenario> scenario_ptr() const { return sc_; }

  // 4 Game preparation: set-up, initial event draws, first administrative phase.
  GameState new_game(std::uint32_t options, Prng& rng, std::vector<game::Event>* events = nullptr) const;

  Decision decision(const GameState& s) const;

  // Checks an order in full; nothing changes when it is rejected. An Undo
  // takes back the decider's last order while GameState::takeback holds it:
  // orders that move, prepare, place reserves or end a step are kept there
  // until one rolls a die, shows the decider an enemy stack, or passes the
  // decision to the other side.
  Outcome apply(GameState& s, Side who, const Order& order, Prng& rng) const;

  // Orders the decider may give now: every kind, with one representative path
  // per reachable destination for moves. Random players and tests draw from it.
  std::vector<Order> legal_orders(const GameState& s) const;
  // The overruns the decider may declare now (9): a cheap subset of legal_orders.
  std::vector<Order> legal_overruns(const GameState& s) const;
  // The order the decider's standing orders give for the decision now, when
  // they cover it and the rules accept it; otherwise the decider is asked.
  std::optional<Order> standing_answer(const GameState& s, const game::StandingOrders& standing) const;

  // 7: the only way a game leaves the engine. view() is to_proto(view_model()).
  ViewModel view_model(const GameState& s, Viewer viewer) const;
  game::View view(const GameState& s, Viewer viewer) const;
  game::View to_proto(const ViewModel& v) const;
  // The delta from one view of a viewer to the next; the same as
  // diff_views(to_proto(before), to_proto(after)), at a fraction of the cost.
  game::ViewDelta delta(const ViewModel& before, const ViewModel& after) const;

  // Conversion between wire orders and engine orders.
  bool from_proto(const game::Order& in, Order& out, Rejection& why) const;
  game::Order to_proto(const Order& in) const;

  // Helpers the rules, tests and tools share.
  int combat_value(const GameState& s, int unit) const;
  int movement_half(const GameState& s, int unit) const;  // allowance this activation
  bool in_supply(const GameState& s, int unit) const;      // traced now (15)
  std::vector<bool> units_in_supply(const GameState& s, Side side) const;  // per unit index
  std::vector<Loc> supplied_hexes(const GameState& s, Side side) const;
  bool exerts_zoc(const GameState& s, int unit) const;
  bool in_enemy_zoc(const GameState& s, Loc hex, Side side) const;
  int stack_height(const GameState& s, Loc l, Side side) const;
  std::vector<int> units_at(const GameState& s, Loc l) const;  // top first
  bool stacking_ok(const GameState& s, Loc l, Side side) const;
  int victory_points(const GameState& s, Side side) const;
  bool unit_active(const GameState& s, int unit) const;    // may be activated now (5)
  // Every location a unit or stack could reach now, with one cheapest path to each (6).
  std::vector<std::pair<Loc, std::vector<Loc>>> destinations(const GameState& s,
                                                             const std::vector<std::int16_t>& group) const;
  // "German 2", "Administrative": the phase as the log names it.
  std::string phase_name(const GameState& s) const;
  // The locations of enemy stacks the viewer may inspect now (7), ascending.
  std::vector<Loc> inspected_enemy_stacks(const GameState& s, Side viewer) const;

 private:
  game::StackView stack_proto(const ViewModel& v, const StackSight& st) const;
  Outcome take_back(GameState& s, Side who) const;

  std::shared_ptr<const Scenario> sc_;
  std::vector<int> location_rank_;  // the canonical order of stacks, by location
  friend class Rules;
};

}  // namespace counterattack
