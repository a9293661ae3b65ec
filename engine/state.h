// The game state: a plain value. Copyable, comparable, hashable, serialisable.
// Same scenario + options + seed + orders => same state and same hash.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scenario.h"

namespace counterattack {

// 5: a turn is the administrative phase and six activation phases.
enum class Step : std::uint8_t {
  // A - Administrative phase: the German player's choices
  Recovery,             // 16
  UprisingSuppression,  // 18: units deployed before the die roll
  UprisingStepLoss,     // 18
  UprisingUnitsMoved,   // 18
  Magnuszew,            // 19
  // B - Activation phases
  ChooseCorps,          // 5: a Soviet phase starts by naming the corps
  Movement,             // 1 - movement, reserves, overruns
  Barrage,              // 2 - barrage fire
  Combat,               // 3 - coordinated combat
  Reserves,             // 4 - activation of reserves
  GameOver,
};
const char* step_name(Step s);

enum UnitFlag : std::uint16_t {
  kMoved = 1 << 0,            // 5: activated this turn
  kDisorganized = 1 << 1,     // 10
  kOutOfSupply = 1 << 2,      // 15
  kPreparedDefense = 1 << 3,  // 8
  kMoving = 1 << 4,           // 6: the unit in motion, or that has moved this activation
  kIgnoreZoc = 1 << 5,        // 20: an event lets it ignore enemy ZOC this phase
  kSupplyDrop = 1 << 6,       // 20: counts as supplied until the next turn
  kActedThisPhase = 1 << 7,   // activated in the current phase (5: supply check)
  kReactivated = 1 << 8,      // 20: activated again this phase by an event
  kAttacked = 1 << 9,         // 11: has attacked in coordinated combat this phase
  kRetreated = 1 << 10,       // 9: retreated this phase (adds nothing to a later defense)
};

struct UnitState {
  Loc loc = kNotArrived;
  std::uint8_t hits = 0;       // steps lost
  std::uint16_t flags = 0;
  std::uint8_t reserve = 0;    // 14: reserve marker number (1..), 0 = none
  std::int16_t mp_used = 0;    // half points spent in the current activation
  std::uint32_t stack_seq = 0; // stacking order: higher sits on top
  std::int8_t bonus = 0;       // 20: attack bonus from chits that stay on the unit
  friend bool operator==(const UnitState&, const UnitState&) = default;
};

// 9-11: a combat (or barrage result) waiting for a player's choice.
enum class CombatStage : std::uint8_t {
  None, DefensiveSupport, ModelReroll, AttackerLosses, DefenderLosses, Retreat, Advance, BarrageLoss,
};

struct CombatState {
  CombatStage stage = CombatStage::None;
  bool overrun = false;
  std::vector<std::int16_t> attackers, defenders;
  Loc target = -1;
  std::int8_t attacker_support = -1;   // marker: artillery index, then Stukas
  std::int8_t defender_support = -1;
  std::int8_t chit_drm = 0;            // 20: + for the attacker, - for the defender
  bool no_elastic = false;             // 20: the attacker's chit forbids elastic defense
  // 20: the chits that change its die, each side's, for the die line to name (revision 4 only).
  std::int16_t attacker_chit = -1, defender_chit = -1;
  std::int8_t column = 0;              // CRT column after shifts
  std::int8_t die = 0;
  std::int8_t modifier = 0;            // total die modifier, capped
  std::uint8_t attacker_steps = 0, defender_steps = 0, retreat = 0;
  bool yellow = false;
  std::uint8_t retreated = 0;          // hexes the defender actually retreated
  bool defender_gone = false;          // eliminated or retreated: the hex is vacated
  std::uint8_t barrage_result = 0;     // 1 DIS, 2 L
  friend bool operator==(const CombatState&, const CombatState&) = default;
};

enum class MarkerState : std::uint8_t { NotArrived, Ready, Used, Removed };

enum class Result : std::uint8_t { Ongoing, SovietWin, GermanWin, Draw };

enum class Uprising : std::uint8_t {
  None,       // Warsaw is quiet
  Triggered,  // a Soviet unit came within range at the end of a turn
  Rising,     // the first turn: initial box, bridges closed
  Ongoing,    // later turns: the track is rolled each administrative phase
};

struct SideState {
  std::vector<std::uint8_t> cup;   // 20: event chits still in the container
  std::vector<std::uint8_t> hand;  // 20: drawn and secret
  std::uint8_t events_this_phase = 0;
  friend bool operator==(const SideState&, const SideState&) = default;
};

// 6: an enemy entered a ZOC; the owner of these units may break contact.
struct PendingBreak {
  Loc entered = -1;
  std::vector<std::int16_t> eligible;
  friend bool operator==(const PendingBreak&, const PendingBreak&) = default;
};

struct GameState;

// The orders the decider may still take back: the state before each, the
// latest last. Shared and immutable, so that copying a state stays cheap.
struct Takeback {
  std::vector<std::shared_ptr<const GameState>> before;
  bool empty() const { return before.empty(); }
  friend bool operator==(const Takeback& a, const Takeback& b);  // by the states, not the pointers
};
constexpr size_t kMaxTakebacks = 64;  // the oldest beyond this can no longer be taken back

struct GameState {
  std::uint32_t options = 0;
  std::uint8_t turn = 1;
  Step step = Step::ChooseCorps;
  std::uint8_t activation = 0;       // 0..5: Soviet 1, German 1, Soviet 2 ...
  std::int8_t active_corps = -1;     // formation index of the Soviet corps this phase
  std::int8_t extra_corps = -1;      // 20: a second corps by event
  std::uint32_t corps_done = 0;      // bit per formation: corps activated this turn
  std::int8_t forty_seventh_phase = -1;  // 17: the phase the 47th Army activates with
  std::uint32_t divisions_this_phase = 0;  // 5 optional: activation groups used
  std::int16_t extra_division_unit = -1;   // 5 optional: the one unit of another division
  bool no_break_contact = false;     // 20: the active side's enemy may not break contact

  std::vector<UnitState> units;
  std::vector<std::int16_t> mover;   // 6: the unit or stack in motion
  bool mover_stopped = false;        // 6: stopped in an enemy ZOC
  PendingBreak pending_break;
  CombatState combat;
  std::vector<Loc> attacked_hexes;   // 11: a hex is attacked once per phase
  std::vector<Loc> barraged_hexes;   // 10: one artillery barrage per hex per phase
  std::vector<Loc> stuka_hexes;      // 10: one Stuka (or air strike) per hex per phase
  bool model_noncontiguous = false;  // 12: the next German attack needs no contiguity
  bool model_extra_division = false; // 12: one more division this phase

  std::vector<MarkerState> artillery;
  std::vector<MarkerState> stukas;
  SideState sides[2];

  Uprising uprising = Uprising::None;
  std::int8_t uprising_box = -1;         // index into the track's boxes
  std::int8_t bridge_extra_half = 0;     // 18: +n MP on the Praga bridges this turn
  bool bridges_closed = false;           // 18: NO MOVE, or the first turn of the rising
  std::uint8_t uprising_pending = 0;     // 18: units to name for a step loss / Moved
  std::uint8_t jozefow = 0;              // 6: 0 intact, 1 used this turn, 2 destroyed
  std::uint8_t soviet_bonus_vp = 0;      // 18, 19
  std::int8_t model_turn = 0;            // 12: FM Model's box on the turn track
  bool model_used = false;

  std::uint32_t next_seq = 1;
  Result result = Result::Ongoing;
  std::string result_reason;

  // Not part of the position: state_hash leaves it out, encode_state keeps it.
  Takeback takeback;

  friend bool operator==(const GameState&, const GameState&) = default;

  // --- Convenience ---
  bool has(int unit, UnitFlag f) const { return (units[static_cast<size_t>(unit)].flags & f) != 0; }
  void set(int unit, UnitFlag f, bool on = true) {
    auto& fl = units[static_cast<size_t>(unit)].flags;
    fl = static_cast<std::uint16_t>(on ? (fl | f) : (fl & ~f));
  }
  Side phase_side() const { return activation % 2 == 0 ? Side::Soviet : Side::German; }
  bool in_activation() const { return step >= Step::ChooseCorps && step <= Step::Reserves; }
};

// Canonical byte encoding: the same state always encodes to the same bytes.
// The takeback states follow the position, only when there are any, so a
// state without them encodes as it did before takebacks existed. A combat's
// chits are written for games of revision 4 only, so that older games' states
// (and their hashes) stay as they were.
std::string encode_state(const GameState& s);
// Decodes bytes made by encode_state; false if they are not a state of this scenario.
bool decode_state(const Scenario& sc, const std::string& bytes, GameState& out);
// 64-bit hash of the canonical encoding of the position (without takebacks).
std::uint64_t state_hash(const GameState& s);

}  // namespace counterattack
