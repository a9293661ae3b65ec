// A scenario: the printed charts, map and counters, loaded from data and
// compiled into flat tables the rules read. Immutable once loaded.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hexgrid.h"
#include "rng.h"
#include "scenario.pb.h"

namespace counterattack {

enum class Side : std::uint8_t { Soviet = 0, German = 1 };
constexpr Side enemy_of(Side s) { return s == Side::Soviet ? Side::German : Side::Soviet; }
const char* side_name(Side s);

// A location: a map hex (0..hex_count-1), the Warsaw zone, or an off-map entry
// point; negative values are the boxes off the board.
using Loc = std::int16_t;
constexpr Loc kNotArrived = -1;  // still on the Reinforcement Calendar
constexpr Loc kEliminated = -2;  // on the loss track
constexpr Loc kWithdrawn = -3;   // sent to Magnuszew

enum class UnitClass : std::uint8_t {
  Armor, Mechanized, Motorized, Infantry, Cavalry, Recon, AntiTank, Engineer, ArmoredTrain
};

struct TerrainType {
  std::string key, name;
  char symbol = '.';
  int move_cost_half = 2;
  bool prohibited = false;
  int combat_shift = 0, defense_drm = 0, barrage_drm = 0;
};

struct HexsideType {
  std::string key, name;
  int move_cost_half = 0;
  bool prohibited = false;
  int combat_shift = 0;
  bool negated_by_road = true;
};

struct RoadType {
  std::string key, name;
  int move_cost_half = 1;
  bool railway = false;
};

constexpr std::int8_t kNone = -1;

struct Hex {
  int id = 0;                              // CCRR
  std::uint8_t terrain = 0;                // index into Scenario::terrain
  std::array<Loc, kDirs> nb{};             // neighbour hex index or -1
  std::array<std::uint8_t, kDirs> roads{}; // bit per road type linking to that neighbour
  std::array<std::int8_t, kDirs> side{};   // hexside type index or kNone
  std::string name;                        // a town, if any
  std::int8_t victory = kNone;             // index into Scenario::victory
  std::int8_t praga_bridge = kNone;        // index into Scenario::praga_bridges
  bool jozefow_bridge = false;
  bool on_road = false;                    // some road passes through
  bool on_railway = false;
};

struct EntryPoint {
  std::string id, name;
  Side side = Side::German;
  std::vector<Loc> hexes;
  bool supply_source = false;
};

struct Bridge {
  std::string name;
  Loc hex = -1;
  int cost_half = 0;
};

struct VictoryLocation {
  std::string name;
  std::vector<Loc> hexes;
  int points_per_hex = 0;
};

struct Formation {
  std::string id, name;
  Side side = Side::Soviet;
  data::FormationKind kind = data::INDEPENDENT;
  bool armored_division = false;
  int activation_group = 0;  // formations sharing an activation share this index
};

struct UnitStep {
  int combat = 0, movement = 0, attack_bonus = 0, defense_bonus = 0;
};

struct UnitDef {
  std::string id, name, size;
  Side side = Side::Soviet;
  int formation = 0;
  UnitClass unit_class = UnitClass::Infantry;
  std::vector<UnitStep> steps;
};

struct ArtilleryDef {
  std::string id;
  int formation = 0;
  int range = 0;
  int arrival_turn = 1;
};

struct StukaDef {
  std::string id;
  int arrival_turn = 1;
};

struct Reinforcement {
  int turn = 0;
  Loc entry = -1;  // an entry point location or the Warsaw zone
  std::vector<int> units;
};

struct UprisingBox {
  int roll = 0;
  data::UprisingEffect effect = data::NO_EFFECT;
  int amount = 0;
  std::string label;
};

struct EventChit {
  std::string id, name, text;
  Side side = Side::Soviet;
  data::EventEffect effect = data::EVENT_EFFECT_UNSPECIFIED;
  int amount = 0;
  bool stays_in_play = false;
  std::vector<UnitClass> classes;  // the units it is played on; empty: any
};

struct CombatResult {
  int attacker_steps = 0, defender_steps = 0, retreat = 0;
  bool yellow = false;
  std::string text;
};

struct OptionalRuleDef {
  std::string key, name, section, text;
};

// Optional rules, as bits of GameState::options.
enum Option : std::uint32_t {
  kLimitedGermanActivation = 1u << 0,  // 5
  kRedArmyFlexibility = 1u << 1,       // 6
  kLimitedBonus = 1u << 2,             // 9
  kRedArmyElasticDefense = 1u << 3,    // 9
};
// The bit of an optional rule key of the scenario data; 0 for a key the engine does not know.
std::uint32_t option_bit(const std::string& key);

// Revisions of the engine, as bits of GameState::options beside the optional rules.
// A game keeps the revision it began with, so that its stored log replays the same.
enum Revision2 : std::uint32_t {
  kChaChaDice = 1u << 16,               // the dice are ChaCha20's (see Prng)
  kSupportAskedWhenChitsHeld = 1u << 17,  // 20: the defender is asked about support whenever they
                                          // hold a chit, so that the question tells nothing of which
};
enum Revision3 : std::uint32_t {
  kWholeCorpsSupplyCheck = 1u << 18,  // 5: a Soviet phase checks the supply of every unit of the corps
                                      // it activated (and of the 47th Army with it), moved or not
  kChitUnitClasses = 1u << 19,        // 16, 20: a chit played on a unit takes only the classes it names
  kSurpriseAtPhaseStart = 1u << 20,   // 20: Surprise Attack is played before any unit of the phase acts
};
enum Revision4 : std::uint32_t {
  kClearerTexts = 1u << 21,  // 9: the die line names each modifier; texts built from counts agree in number
};
enum Revision5 : std::uint32_t {
  kTurnDates = 1u << 22,           // 5: the administrative phase's line dates its turn in July or August
  kStacksSplitInMotion = 1u << 23,  // 7: some units of a stack in motion go on, the others end their move
  kReservesEnterAtTheirEntry = 1u << 24,  // 17: reinforcements in reserve off the map enter from where they wait
};
enum Revision6 : std::uint32_t {
  kReaderTexts = 1u << 25,  // 6, 9, 10: who stands fast reads it of their own units, the turn's first
                            // activation phase is named, barrage and strength lines give their reasons
  kKesselNeedsElasticDefense = 1u << 26,  // 20: Kessel is refused without Red Army elastic defense
};
constexpr int kLatestRevision = 6;
// The option bits of an engine revision (1 to kLatestRevision); 0 for revision 1.
std::uint32_t revision_bits(int revision);
// The generator a game of these option bits rolls its dice with.
Prng::Kind dice_kind(std::uint32_t options);

// The forms in which the Magnuszew track's withdrawal types are named (19).
enum class WithdrawalWords {
  Short,  // "armored + artillery": the status header
  Long,   // "an armored unit (armor, mechanized or antitank) and an artillery marker": prompts, reasons
  Chart,  // "an armored unit (armor, mechanized, antitank), an artillery marker": the track's chart
};
// One withdrawal type in a form's words ("armored", "an armored unit (...)").
std::string withdrawal_words(data::WithdrawalType type, WithdrawalWords form);

struct Scenario {
  std::string id, name, description;
  int first_turn_day = 1;
  data::RuleConstants rules;
  std::vector<OptionalRuleDef> optional_rules;

  // Terrain Effects Chart
  std::vector<TerrainType> terrain;
  std::vector<HexsideType> hexside_types;
  std::vector<RoadType> road_types;

  // Map
  int columns = 0, rows = 0;
  std::vector<Hex> hexes;
  std::vector<Loc> cell;  // (col-1)*rows + (row-1) -> hex index or -1
  std::vector<Bridge> praga_bridges;
  Bridge jozefow;
  bool warsaw_supply_source = false;
  std::vector<EntryPoint> entry_points;
  // off_map_cost[from][to] in half points, nodes = entry points then Warsaw; -1 = no route
  std::vector<std::vector<int>> off_map_cost;
  std::vector<VictoryLocation> victory;

  // Counters
  std::vector<Formation> formations;
  std::vector<UnitDef> units;
  std::vector<ArtilleryDef> artillery;
  std::vector<StukaDef> stukas;

  // Calendar
  std::vector<std::pair<int, Loc>> setup;  // unit, location
  std::vector<Reinforcement> reinforcements;
  int model_arrival_turn = 1;

  // Tracks
  int uprising_units_per_drm = 2;
  std::vector<UprisingBox> uprising_boxes;
  std::map<int, std::vector<data::WithdrawalType>> magnuszew;

  std::vector<EventChit> events;

  // Charts
  std::vector<std::string> crt_columns;
  int crt_min_roll = 0;
  std::vector<std::vector<CombatResult>> crt;  // [roll - crt_min_roll][column]
  int barrage_min_roll = 0;
  std::vector<std::string> barrage;            // [roll - barrage_min_roll]

  std::map<std::string, data::Provenance> provenance;  // table name -> note

  // --- Lookups ---
  int hex_count() const { return static_cast<int>(hexes.size()); }
  Loc warsaw() const { return static_cast<Loc>(hexes.size()); }
  Loc entry_loc(int i) const { return static_cast<Loc>(hexes.size() + 1 + i); }
  int location_count() const { return hex_count() + 1 + static_cast<int>(entry_points.size()); }
  bool is_hex(Loc l) const { return l >= 0 && l < hex_count(); }
  bool is_entry(Loc l) const { return l > warsaw() && l < location_count(); }
  bool on_board(Loc l) const { return l >= 0 && l < location_count(); }
  int entry_index(Loc l) const { return l - warsaw() - 1; }
  // The index of an off-map node (entry points, then Warsaw) for a location.
  int off_map_node(Loc l) const;

  Loc hex_at(HexCoord c) const;
  Loc hex_by_id(int hex) const { return hex_at(coord_of(hex)); }
  int distance(Loc a, Loc b) const;

  std::string location_name(Loc l) const;  // "1708", "WARSAW", "F"
  std::optional<Loc> parse_location(const std::string& text) const;

  std::optional<int> unit_index(const std::string& key) const;
  // The calendar date of a game turn ("1 August 1944"); empty for a turn before the first.
  std::string turn_date(int turn) const;
  // What the Magnuszew track asks for on a turn (19), in the words of a form; "nothing" on a turn
  // that asks for nothing.
  std::string magnuszew_words(int turn, WithdrawalWords form) const;
  std::optional<int> formation_index(const std::string& key) const;
  std::optional<int> event_index(const std::string& key) const;

  std::map<std::string, int> unit_by_id, formation_by_id, event_by_id;

  // The files as read, one message each: what clients are sent to draw and reckon with.
  std::shared_ptr<const data::ScenarioData> data;
};

struct LoadError {
  std::string file;
  int line = 0;  // 1-based, 0 when the error concerns the whole file
  std::string message;
  std::string to_string() const;
};

struct LoadResult {
  std::shared_ptr<const Scenario> scenario;
  std::vector<LoadError> errors;
  bool ok() const { return scenario != nullptr; }
};

// Loads a scenario from files named scenario, tec, map, counters, calendar,
// tracks, events and charts (".textproto") given as name -> text.
LoadResult load_scenario(const std::map<std::string, std::string>& files);
// Loads from a directory of those files.
LoadResult load_scenario_dir(const std::string& dir);
// The scenarios compiled into the program.
std::vector<std::string> builtin_scenarios();
LoadResult load_builtin_scenario(const std::string& name);
// The default scenario, loaded once (aborts if the shipped data is invalid).
std::shared_ptr<const Scenario> default_scenario();

}  // namespace counterattack
