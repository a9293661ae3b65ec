#include "fixture.h"

#include <algorithm>

namespace counterattack::testing {

namespace {

const char* kRules = R"(
rules {
  turns: 10 stacking_limit: 2 kampfgruppe_limit: 3 zoc_cost_half: 2
  break_contact_min_movement: 9 overrun_min_movement: 9 supply_range: 5 max_retreat: 4
  max_modifier: 6 reserve_markers: 3 reserve_offmap_units_per_marker: 2 initial_event_draw: 3
  events_per_phase: 1 uprising_distance: 6 limited_activation_from_turn: 6
  limited_activation_divisions: 2 magnuszew_from_turn: 6 supply_unaffected_min_movement: 7
  provenance { from_rulebook: "test" reconstructed: "test" why: "test" }
}
)";

const char* kProv = R"( provenance { from_rulebook: "test" reconstructed: "test" why: "test" } )";

}  // namespace

// The test map, 10 columns by 8 rows (C = column, row numbers down the side):
//          1234567890
//   row 1  ..........   railway down column 3 (0301-0308)
//   row 2  ....FF....   road down column 5 through the woods (0501-0504)
//   row 3  ....FF....
//   row 4  ..........   road along row 4 (0104-1004), bridging the stream at 0704-0804
//   row 5  ...M......   stream between columns 7 and 8 (rows 4-8)
//   row 6  T.........   0106 is the Praga bridge hex (3 MP to Warsaw), "Praga" 1 VP
//   row 7  ..........
//   row 8  T...T.....   0108 Józefów bridge (4 MP, one way); 0508 Soviet entry S1
// German entry points: A at 1001, B at 1008; off-map A->B 5 MP, B->A 6, WARSAW->A 4.
std::map<std::string, std::string> test_scenario_files() {
  std::map<std::string, std::string> f;
  f["scenario"] = std::string(R"(id: "test" name: "Test" first_turn_day: 27)") + kRules;
  f["tec"] = std::string(R"(
terrain { key: "clear" symbol: "." name: "Clear" move_cost_half: 2 }
terrain { key: "woods" symbol: "F" name: "Woods" move_cost_half: 4 combat_shift: 1 barrage_drm: 2 }
terrain { key: "marsh" symbol: "M" name: "Marsh" move_cost_half: 6 combat_shift: 1 }
terrain { key: "town" symbol: "T" name: "Town" move_cost_half: 2 combat_shift: 1 }
hexside { key: "stream" name: "Stream" move_cost_half: 2 combat_shift: 1 negated_by_road: true }
road { key: "road" name: "Road" move_cost_half: 1 }
road { key: "railway" name: "Railway" move_cost_half: 2 railway: true }
)") + kProv;
  f["map"] = std::string(R"(
columns: 10 rows: 8
row: ".........."
row: "....FF...."
row: "....FF...."
row: ".........."
row: "...M......"
row: "T........."
row: ".........."
row: "T...T....."
place { hex: 106 name: "Praga" }
place { hex: 904 name: "Town" }
road { type: "road" name: "east road" hexes: [104, 204, 304, 404, 504, 604, 704, 804, 904, 1004] }
road { type: "road" name: "forest road" hexes: [501, 502, 503, 504] }
road { type: "railway" name: "railway" hexes: [301, 302, 303, 304, 305, 306, 307, 308] }
hexside { type: "stream" name: "Brook" sides: ["0704-0804", "0705-0805", "0706-0806", "0707-0807", "0708-0808"] }
warsaw { name: "Warsaw" praga_bridge { name: "Bridge" hex: 106 cost_half: 6 } jozefow_bridge { name: "Jozefow" hex: 108 cost_half: 8 } supply_source: true }
entry_point { id: "A" side: GERMAN name: "North-east" hexes: [1001] supply_source: true }
entry_point { id: "B" side: GERMAN name: "South-east" hexes: [1008] supply_source: true }
entry_point { id: "S1" side: SOVIET name: "South" hexes: [508] supply_source: true }
off_map_route { from: "A" to: "B" cost_half: 10 }
off_map_route { from: "B" to: "A" cost_half: 12 }
off_map_route { from: "WARSAW" to: "A" cost_half: 8 }
victory { name: "Praga" hexes: [106] points_per_hex: 1 }
victory { name: "Town" hexes: [904] points_per_hex: 2 }
)") + kProv;
  f["counters"] = std::string(R"(
formation { id: "1TC" side: SOVIET kind: CORPS }
formation { id: "2TC" side: SOVIET kind: CORPS }
formation { id: "3TC" side: SOVIET kind: CORPS }
formation { id: "2TA" side: SOVIET kind: INDEPENDENT }
formation { id: "47A" side: SOVIET kind: ARMY }
formation { id: "PzA" side: GERMAN kind: DIVISION armored_division: true }
formation { id: "PzB" side: GERMAN kind: DIVISION armored_division: true }
formation { id: "ID" side: GERMAN kind: DIVISION }
formation { id: "GER" side: GERMAN kind: INDEPENDENT }
unit { id: "1TC/1" side: SOVIET formation: "1TC" unit_class: ARMOR step { combat: 6 movement: 12 } step { combat: 3 movement: 12 } }
unit { id: "1TC/2" side: SOVIET formation: "1TC" unit_class: INFANTRY step { combat: 4 movement: 5 } step { combat: 2 movement: 5 } }
unit { id: "1TC/R" side: SOVIET formation: "1TC" unit_class: RECON step { combat: 2 movement: 12 } }
unit { id: "1TC/3" side: SOVIET formation: "1TC" unit_class: ARMOR step { combat: 5 movement: 3 } step { combat: 2 movement: 3 } }
unit { id: "2TC/1" side: SOVIET formation: "2TC" unit_class: ARMOR step { combat: 6 movement: 12 } step { combat: 3 movement: 12 } }
unit { id: "3TC/1" side: SOVIET formation: "3TC" unit_class: ARMOR step { combat: 6 movement: 12 } step { combat: 3 movement: 12 } }
unit { id: "2TA/1" side: SOVIET formation: "2TA" unit_class: ARMOR step { combat: 5 movement: 12 } step { combat: 2 movement: 12 } }
unit { id: "47A/1" side: SOVIET formation: "47A" unit_class: INFANTRY step { combat: 5 movement: 5 } step { combat: 3 movement: 5 } }
unit { id: "PzA/1" side: GERMAN formation: "PzA" unit_class: ARMOR step { combat: 6 movement: 10 attack_bonus: 2 } step { combat: 3 movement: 10 } }
unit { id: "PzA/2" side: GERMAN formation: "PzA" unit_class: MECHANIZED step { combat: 4 movement: 10 } step { combat: 2 movement: 10 } }
unit { id: "PzA/3" side: GERMAN formation: "PzA" unit_class: ARMOR step { combat: 5 movement: 10 } step { combat: 2 movement: 10 } }
unit { id: "PzB/1" side: GERMAN formation: "PzB" unit_class: ARMOR step { combat: 6 movement: 12 } step { combat: 3 movement: 12 } }
unit { id: "ID/1" side: GERMAN formation: "ID" unit_class: INFANTRY step { combat: 4 movement: 5 defense_bonus: 1 } step { combat: 2 movement: 5 } }
unit { id: "ID/2" side: GERMAN formation: "ID" unit_class: INFANTRY step { combat: 4 movement: 5 } step { combat: 2 movement: 5 } }
unit { id: "GER/Zug" side: GERMAN formation: "GER" unit_class: ARMORED_TRAIN step { combat: 2 movement: 99 } }
artillery { id: "1TC-art" formation: "1TC" range: 3 arrival_turn: 1 }
artillery { id: "PzA-art" formation: "PzA" range: 4 arrival_turn: 1 }
stuka { id: "Stuka-1" arrival_turn: 1 }
)") + kProv;
  f["calendar"] = std::string(R"(
reinforcement { turn: 10 entry_point: "S1" unit: ["1TC/1", "1TC/2", "1TC/R", "1TC/3", "2TC/1", "3TC/1", "2TA/1", "47A/1"] }
reinforcement { turn: 10 entry_point: "A" unit: ["PzA/1", "PzA/2", "PzA/3", "PzB/1", "ID/1", "ID/2", "GER/Zug"] }
model_arrival_turn: 1
)") + kProv;
  f["tracks"] = R"(
uprising {
  units_per_drm: 2
  box { roll: 1 effect: NO_MOVE label: "NO MOVE" }
  box { roll: 2 effect: STEP_LOSS label: "Step loss" }
  box { roll: 3 effect: BRIDGE_COST amount: 2 label: "+2 MP" }
  box { roll: 4 effect: UNITS_MOVED amount: 2 label: "2 UNITS MOVED" }
  box { roll: 5 effect: UNITS_MOVED amount: 1 label: "1 UNIT MOVED" }
  box { roll: 6 effect: NO_EFFECT label: "No effect" }
  provenance { from_rulebook: "test" reconstructed: "test" why: "test" }
}
magnuszew {
  turn { turn: 6 withdraw: [WITHDRAW_ARMORED] }
  turn { turn: 7 withdraw: [WITHDRAW_INFANTRY, WITHDRAW_ARTILLERY] }
  provenance { from_rulebook: "test" reconstructed: "test" why: "test" }
}
)";
  f["events"] = std::string(R"(
chit { id: "SOV-NEVER" name: "Red Army Never Sleeps" side: SOVIET effect: EXTRA_CORPS_ACTIVATION }
chit { id: "SOV-GHOST" name: "Ghost Unit" side: SOVIET effect: IGNORE_ZOC }
chit { id: "SOV-SURPRISE" name: "Surprise Attack" side: SOVIET effect: NO_BREAK_CONTACT }
chit { id: "SOV-REPAIR" name: "Field Repairs" side: SOVIET effect: RECOVER_STEP }
chit { id: "SOV-AIR" name: "Air Strike" side: SOVIET effect: AIR_STRIKE }
chit { id: "GER-AGAIN" name: "Counterstroke" side: GERMAN effect: REACTIVATE_STACK }
chit { id: "GER-SUPPLY" name: "Air Supply" side: GERMAN effect: SUPPLY_DROP }
chit { id: "GER-BRIDGE" name: "Pioneers" side: GERMAN effect: BRIDGE_REPAIR }
chit { id: "GER-STUKA" name: "Stuka Wing" side: GERMAN effect: EXTRA_STUKA }
)") + kProv;
  f["charts"] = R"(
crt {
  column: ["1:1", "2:1"]
  row { roll: 1 result: ["A1", "A1D1"] }
  row { roll: 2 result: ["D1r1", "D2r2*"] }
  provenance { from_rulebook: "test" reconstructed: "test" why: "test" }
}
barrage {
  row { roll: 1 result: "-" }
  row { roll: 2 result: "DIS" }
  row { roll: 3 result: "L" }
  provenance { from_rulebook: "test" reconstructed: "test" why: "test" }
}
)";
  return f;
}

std::shared_ptr<const Scenario> test_scenario() {
  static const auto sc = [] {
    auto r = load_scenario(test_scenario_files());
    for (const auto& e : r.errors) ADD_FAILURE() << e.to_string();
    return r.scenario;
  }();
  return sc;
}

Table::Table(std::shared_ptr<const Scenario> sc, std::uint32_t options)
    : sc_(std::move(sc)), engine(sc_), rng(Prng::from_seed(42)) {
  s = engine.new_game(options, rng);
}

int Table::unit(const std::string& id) const {
  auto u = sc_->unit_index(id);
  EXPECT_TRUE(u.has_value()) << "no unit " << id;
  return u.value_or(0);
}

Loc Table::loc(const std::string& name) const {
  if (name == "eliminated") return kEliminated;
  auto l = sc_->parse_location(name);
  EXPECT_TRUE(l.has_value()) << "no location " << name;
  return l.value_or(0);
}

void Table::put(const std::string& id, const std::string& where) {
  auto& u = s.units[static_cast<size_t>(unit(id))];
  u.loc = loc(where);
  u.stack_seq = s.next_seq++;
}

void Table::clear_board() {
  for (auto& u : s.units) u = UnitState{};
}

void Table::begin_phase(int activation, const std::string& corps) {
  s.activation = static_cast<std::uint8_t>(activation);
  s.step = Step::Movement;
  s.active_corps = -1;
  s.extra_corps = -1;
  s.mover.clear();
  s.mover_stopped = false;
  s.pending_break = {};
  s.no_break_contact = false;
  s.divisions_this_phase = 0;
  s.extra_division_unit = -1;
  for (auto& side : s.sides) side.events_this_phase = 0;
  for (auto& u : s.units) {
    u.flags = static_cast<std::uint16_t>(u.flags & (kOutOfSupply | kPreparedDefense | kDisorganized | kMoved));
    u.mp_used = 0;
  }
  if (!corps.empty()) {
    const int f = *sc_->formation_index(corps);
    s.active_corps = static_cast<std::int8_t>(f);
    s.corps_done |= 1u << f;
  }
}

Outcome Table::order(Side who, const game::Order& o) {
  Order eo;
  Rejection why;
  if (!engine.from_proto(o, eo, why)) {
    Outcome out;
    out.rejection = why;
    return out;
  }
  return engine.apply(s, who, eo, rng);
}

void give_chits(Table& t, Side side, const std::vector<std::string>& chits) {
  auto& ss = t.s.sides[static_cast<int>(side)];
  std::vector<std::uint8_t> pool = ss.hand;
  pool.insert(pool.end(), ss.cup.begin(), ss.cup.end());
  ss.hand.clear();
  for (const auto& id : chits) {
    const auto c = static_cast<std::uint8_t>(*t.sc().event_index(id));
    ss.hand.push_back(c);
    pool.erase(std::find(pool.begin(), pool.end(), c));
  }
  std::sort(ss.hand.begin(), ss.hand.end());
  std::sort(pool.begin(), pool.end());
  ss.cup = pool;
}

::testing::AssertionResult Accepted(const Outcome& out) {
  if (out.accepted) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "rejected (" << game::RejectCode_Name(out.rejection.code)
                                       << "): " << out.rejection.reason;
}

::testing::AssertionResult Rejected(Table& t, Side who, const game::Order& o, game::RejectCode code) {
  const GameState before = t.s;
  const Outcome out = t.order(who, o);
  if (out.accepted) return ::testing::AssertionFailure() << "accepted: " << o.ShortDebugString();
  if (out.rejection.code != code) {
    return ::testing::AssertionFailure() << "rejected with " << game::RejectCode_Name(out.rejection.code) << " ("
                                         << out.rejection.reason << "), expected " << game::RejectCode_Name(code);
  }
  if (!(t.s == before)) return ::testing::AssertionFailure() << "the rejected order changed the state";
  return ::testing::AssertionSuccess();
}

game::Order move_order(const std::vector<std::string>& units, const std::vector<std::string>& path) {
  game::Order o;
  for (const auto& u : units) o.mutable_move()->add_units(u);
  for (const auto& p : path) o.mutable_move()->add_path(p);
  return o;
}

game::Order done_order() {
  game::Order o;
  o.mutable_done();
  return o;
}

Outcome Table::move(Side who, const std::vector<std::string>& units, const std::vector<std::string>& path) {
  return order(who, move_order(units, path));
}

Outcome Table::done(Side who) { return order(who, done_order()); }

std::set<std::string> Table::reachable(const std::vector<std::string>& units) const {
  std::vector<std::int16_t> group;
  for (const auto& u : units) group.push_back(static_cast<std::int16_t>(unit(u)));
  std::set<std::string> out;
  for (const auto& [to, path] : engine.destinations(s, group)) {
    // Cost of the path, as the engine charges it.
    GameState trial = s;
    Prng dice = Prng::from_seed(1);
    Order o = Order::of(Order::Kind::Move, group, path);
    const auto side = sc_->units[static_cast<size_t>(group[0])].side;
    auto res = engine.apply(trial, side, o, dice);
    EXPECT_TRUE(res.accepted) << "reachable " << name(to) << " but rejected: " << res.rejection.reason;
    out.insert(name(to) + ":" + std::to_string(trial.units[static_cast<size_t>(group[0])].mp_used - s.units[static_cast<size_t>(group[0])].mp_used));
  }
  return out;
}

std::set<std::string> Table::reachable_hexes(const std::vector<std::string>& units) const {
  std::set<std::string> out;
  for (const auto& r : reachable(units)) out.insert(r.substr(0, r.find(':')));
  return out;
}

}  // namespace counterattack::testing
