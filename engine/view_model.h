// A viewer's view (7) as plain values. The engine builds this first; the wire's
// game::View and the deltas between two views are derived from it. Plain
// values compare with a defaulted ==, so the server finds what changed
// between two views without serializing either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "game.pb.h"
#include "state.h"

namespace counterattack {

enum class Viewer : std::uint8_t { Soviet, German, Spectator, Omniscient };
constexpr Viewer viewer_of(Side s) { return s == Side::Soviet ? Viewer::Soviet : Viewer::German; }

struct UnitSight {
  int unit = -1;  // -1: hidden (a unit under the top of an enemy stack not inspected)
  int steps = 0, combat = 0, movement = 0;
  bool moved = false, disorganized = false, out_of_supply = false, prepared_defense = false, reserve = false;
  int movement_left_half = 0;  // own units in motion only
  int chit_bonus = 0;          // 20: the attack bonus of chits placed on it, a marker on the counter
  bool operator==(const UnitSight&) const = default;
};

struct StackSight {
  Loc loc = 0;
  Side side = Side::Soviet;
  bool inspected = false;
  std::uint16_t first = 0, height = 0;  // its units: ViewModel::units[first, first + height), top first
};

struct HeaderSight {
  int turn = 0;
  std::string phase;
  Step step = Step::GameOver;
  int active_corps = -1;
  std::uint32_t corps_done = 0;
  bool forty_seventh_activated = false;
  int soviet_vp = 0, german_vp = 0, soviet_bonus_vp = 0;
  Uprising uprising = Uprising::None;
  int uprising_box = -1;
  bool jozefow_bridge_intact = true;
  int model_turn = 0;
  std::uint32_t options = 0;
  Result result = Result::Ongoing;
  std::string result_reason;
  int soviet_cup = 0, german_cup = 0;
  bool operator==(const HeaderSight&) const = default;
};

struct DecisionSight {
  game::Decision::Kind kind = game::Decision::GAME_OVER;
  bool has_side = false;
  Side side = Side::Soviet;
  std::string prompt;
  int count = 0;
  std::vector<int> candidates;  // engine numbering; only for the decider's own view
  int takebacks = 0;            // orders the decider may take back; only in their own view
  bool operator==(const DecisionSight&) const = default;
};

struct HandSight {
  int held = 0;
  std::vector<int> chits;  // only for the owner
  bool operator==(const HandSight&) const = default;
};

struct ViewModel {
  Viewer viewer = Viewer::Spectator;
  HeaderSight header;
  DecisionSight decision;
  std::vector<StackSight> stacks;  // canonical order: hexes by number, then other locations by name
  std::vector<UnitSight> units;    // every stack's units, stack after stack
  HandSight hands[2];              // Soviet, German
  std::vector<MarkerState> artillery, stukas;
  std::vector<int> eliminated, withdrawn;
  std::vector<bool> victory_soviet;  // per victory hex, in scenario order
};

}  // namespace counterattack
