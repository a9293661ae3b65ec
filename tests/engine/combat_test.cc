// 9 Overrun attacks, 10 Artillery, 11 Coordinated combat, 12 FM Model, 14 Reserves
// (overruns after combat), 20 combat events.
//
// Most tests run on the test map (fixture.cc) with a Combat Results Table of a single
// row, so that the column alone decides the result whatever the die: a test states the
// result it needs for the column it reaches. Modifiers are read from the log line a
// player sees ("Result at 0606 (2:1, 7): D1r1."). The rulebook's worked examples run on
// the shipped scenario with the die forced.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fixture.h"
#include "playout.h"
#include "view_delta.h"

namespace counterattack::testing {
namespace {

// ---------------------------------------------------------------------------
// The combat test scenario: the test scenario with a CRT whose columns read one
// result each, a few more counters and chits, and a cliff (prohibited) between
// 0202 and 0203.
// ---------------------------------------------------------------------------

const std::vector<std::string> kColumns = {"1:3", "1:2", "1:1", "2:1", "3:1", "4:1", "5:1"};

using Results = std::map<std::string, std::string>;  // CRT column -> result

const Results kDefaultResults = {{"1:3", "A2"},   {"1:2", "A1"},    {"1:1", "A1D1r1"}, {"2:1", "D1r1"},
                                 {"3:1", "D2r2"}, {"4:1", "D2r2*"}, {"5:1", "D3r3*"}};

// Every column D1: a lone defender loses a step and nothing is asked.
const Results kAllD1 = {{"1:3", "D1"}, {"1:2", "D1"}, {"1:1", "D1"}, {"2:1", "D1"},
                        {"3:1", "D1"}, {"4:1", "D1"}, {"5:1", "D1"}};

const char* kMoreCounters = R"(
unit { id: "1TC/4" side: SOVIET formation: "1TC" unit_class: INFANTRY step { combat: 2 movement: 5 defense_bonus: 1 } step { combat: 1 movement: 5 defense_bonus: 1 } }
unit { id: "1TC/5" side: SOVIET formation: "1TC" unit_class: ARMOR step { combat: 3 movement: 12 attack_bonus: 1 } step { combat: 1 movement: 12 } }
unit { id: "2TA/G" side: SOVIET formation: "2TA" unit_class: INFANTRY step { combat: 4 movement: 5 defense_bonus: 4 } }
unit { id: "PzB/2" side: GERMAN formation: "PzB" unit_class: ARMOR step { combat: 4 movement: 12 attack_bonus: 1 } step { combat: 2 movement: 12 } }
unit { id: "PzB/3" side: GERMAN formation: "PzB" unit_class: MECHANIZED step { combat: 3 movement: 12 attack_bonus: 1 defense_bonus: 1 } step { combat: 1 movement: 12 } }
unit { id: "GER/Tiger" side: GERMAN formation: "GER" unit_class: ARMOR step { combat: 6 movement: 10 attack_bonus: 4 } step { combat: 3 movement: 10 attack_bonus: 2 } }
unit { id: "ID/3" side: GERMAN formation: "ID" unit_class: INFANTRY step { combat: 3 movement: 5 } step { combat: 1 movement: 5 } }
artillery { id: "PzB-art" formation: "PzB" range: 3 arrival_turn: 1 }
stuka { id: "Stuka-2" arrival_turn: 1 }
)";

const char* kMoreCalendar = R"(
reinforcement { turn: 10 entry_point: "S1" unit: ["1TC/4", "1TC/5", "2TA/G"] }
reinforcement { turn: 10 entry_point: "A" unit: ["PzB/2", "PzB/3", "GER/Tiger", "ID/3"] }
)";

const char* kMoreChits = R"(
chit { id: "GER-WERFER" name: "Nebelwerfer" side: GERMAN effect: COMBAT_DRM amount: 2 }
chit { id: "SOV-KATYUSHA" name: "Katyusha" side: SOVIET effect: COMBAT_DRM amount: 2 }
chit { id: "GER-KESSEL" name: "Kessel" side: GERMAN effect: NO_ELASTIC_DEFENSE }
)";

const char* kProvenance = R"(provenance { from_rulebook: "test" reconstructed: "test" why: "test" })";

std::shared_ptr<const Scenario> combat_scenario(const Results& changes) {
  static std::map<std::string, std::shared_ptr<const Scenario>> cache;
  Results results = kDefaultResults;
  for (const auto& [column, result] : changes) results[column] = result;
  std::string row;
  for (const auto& c : kColumns) row += std::string(row.empty() ? "" : ", ") + "\"" + results.at(c) + "\"";
  if (auto it = cache.find(row); it != cache.end()) return it->second;
  auto files = test_scenario_files();
  files["counters"] += kMoreCounters;
  files["calendar"] += kMoreCalendar;
  files["events"] += kMoreChits;
  files["tec"] += R"(hexside { key: "cliff" name: "Cliff" prohibited: true })";
  files["map"] += R"(hexside { type: "cliff" name: "Cliff" sides: ["0202-0203"] })";
  std::string columns;
  for (const auto& c : kColumns) columns += std::string(columns.empty() ? "" : ", ") + "\"" + c + "\"";
  files["charts"] = "crt { column: [" + columns + "] row { roll: 0 result: [" + row + "] } " + kProvenance +
                    " }\nbarrage { row { roll: 1 result: \"-\" } row { roll: 2 result: \"DIS\" } row { roll: 3 result: \"L\" } " +
                    kProvenance + " }\n";
  auto loaded = load_scenario(files);
  for (const auto& e : loaded.errors) ADD_FAILURE() << e.to_string();
  cache[row] = loaded.scenario;
  return loaded.scenario;
}

// A generator whose next d6 rolls are `faces`.
Prng dice(const std::vector<int>& faces) {
  for (std::uint64_t seed = 1;; ++seed) {
    Prng p = Prng::from_seed(seed);
    Prng probe = p;
    bool match = true;
    for (int f : faces) match = match && probe.d6() == f;
    if (match) return p;
  }
}

// ---------------------------------------------------------------------------
// Orders in players' terms
// ---------------------------------------------------------------------------

using Names = std::vector<std::string>;

game::Order overrun_order(const Names& units, const std::string& target) {
  game::Order o;
  for (const auto& u : units) o.mutable_overrun()->add_units(u);
  o.mutable_overrun()->set_target(target);
  return o;
}

game::Order attack_order(const Names& units, const std::string& target, const std::string& support = "",
                         const std::string& chit = "") {
  game::Order o;
  auto* a = o.mutable_attack();
  for (const auto& u : units) a->add_units(u);
  a->set_target(target);
  a->set_support(support);
  a->set_chit(chit);
  return o;
}

game::Order support_order(const std::string& marker = "", const std::string& chit = "") {
  game::Order o;
  o.mutable_defensive_support()->set_marker(marker);
  o.mutable_defensive_support()->set_chit(chit);
  return o;
}

game::Order losses_order(const Names& steps, int elastic = 0, int desperate = 0) {
  game::Order o;
  auto* l = o.mutable_take_losses();
  for (const auto& u : steps) l->add_steps(u);
  l->set_elastic(elastic);
  l->set_desperate(desperate);
  return o;
}

game::Order retreat_order(const std::vector<std::pair<std::string, Names>>& paths) {
  game::Order o;
  for (const auto& [unit, path] : paths) {
    auto* p = o.mutable_retreat()->add_paths();
    p->set_unit(unit);
    for (const auto& l : path) p->add_path(l);
  }
  return o;
}

game::Order advance_order(const Names& units, const Names& path) {
  game::Order o;
  auto* a = o.mutable_advance();
  for (const auto& u : units) a->add_units(u);
  for (const auto& l : path) a->add_path(l);
  return o;
}

game::Order barrage_order(const std::string& marker, const std::string& target) {
  game::Order o;
  o.mutable_barrage()->set_marker(marker);
  o.mutable_barrage()->set_target(target);
  return o;
}

game::Order choose_order(const Names& units) {
  game::Order o;
  for (const auto& u : units) o.mutable_choose_units()->add_units(u);
  return o;
}

game::Order model_order(game::UseModel::Effect effect, const Names& units = {}) {
  game::Order o;
  o.mutable_use_model()->set_effect(effect);
  for (const auto& u : units) o.mutable_use_model()->add_units(u);
  return o;
}

game::Order reroll_order(bool yes) {
  game::Order o;
  o.mutable_reroll()->set_reroll(yes);
  return o;
}

game::Order reserve_order(const Names& units) {
  game::Order o;
  for (const auto& u : units) o.mutable_place_reserve()->add_units(u);
  return o;
}

game::Order prepared_order(const Names& units) {
  game::Order o;
  for (const auto& u : units) o.mutable_prepared_defense()->add_units(u);
  return o;
}

game::Order event_order(const std::string& chit, const std::string& location) {
  game::Order o;
  o.mutable_play_event()->set_chit(chit);
  o.mutable_play_event()->set_location(location);
  return o;
}

// ---------------------------------------------------------------------------
// The table and what a player reads from it
// ---------------------------------------------------------------------------

class CombatTable : public ::testing::Test {
 protected:
  void SetUp() override { reset(); }

  void reset(const Results& changes = {}, std::uint32_t options = 0) {
    use(Table(combat_scenario(changes), options));
  }
  void use(Table table) {
    t = std::move(table);
    t.clear_board();
    t.s.model_turn = 99;  // FM Model stays in his box unless a test calls him
    give_chits(t, Side::Soviet, {});
    give_chits(t, Side::German, {});
    log.clear();
  }

  void german_phase() { t.begin_phase(1); }
  void soviet_phase(const std::string& corps = "1TC") { t.begin_phase(0, corps); }

  Outcome act(Side who, const game::Order& o) {
    Outcome out = t.order(who, o);
    log.insert(log.end(), out.events.begin(), out.events.end());
    return out;
  }
  ::testing::AssertionResult Ok(Side who, const game::Order& o) { return Accepted(act(who, o)); }
  // Refused, and nothing in the game changed; `reason`, when given, gets what the player is told.
  ::testing::AssertionResult Refused(Side who, const game::Order& o,
                                     game::RejectCode code = game::REJECT_UNSPECIFIED, std::string* reason = nullptr) {
    const GameState before = t.s;
    const Outcome out = t.order(who, o);
    if (reason) *reason = out.rejection.reason;
    if (out.accepted) return ::testing::AssertionFailure() << "accepted: " << o.ShortDebugString();
    if (code != game::REJECT_UNSPECIFIED && out.rejection.code != code) {
      return ::testing::AssertionFailure() << "rejected with " << game::RejectCode_Name(out.rejection.code) << " ("
                                           << out.rejection.reason << "), expected " << game::RejectCode_Name(code);
    }
    if (!(t.s == before)) return ::testing::AssertionFailure() << "the refused order changed the game";
    return ::testing::AssertionSuccess();
  }
  // Ends steps until the decision is `kind`.
  void to(Side side, game::Decision::Kind kind) {
    for (int i = 0; i < 4 && t.decision().kind != kind; ++i) ASSERT_TRUE(Ok(side, done_order()));
    ASSERT_EQ(t.decision().kind, kind);
  }
  // An attack; the defender declines tactical support when asked.
  ::testing::AssertionResult Fight(Side who, const game::Order& o) {
    auto r = Ok(who, o);
    if (!r || t.decision().kind != game::Decision::DEFENSIVE_SUPPORT) return r;
    return Ok(enemy_of(who), support_order());
  }

  // Some order answers the decision, and every order the rules list for it is accepted.
  ::testing::AssertionResult Answerable() const {
    const auto legal = t.engine.legal_orders(t.s);
    if (legal.empty()) return ::testing::AssertionFailure() << "no legal order for " << t.decision().prompt;
    for (const auto& o : legal) {
      GameState trial = t.s;
      Prng dice = t.rng;
      const Outcome out = t.engine.apply(trial, t.decision().side, o, dice);
      if (!out.accepted) {
        return ::testing::AssertionFailure() << "listed but refused: " << t.engine.to_proto(o).ShortDebugString() << ": "
                                             << out.rejection.reason;
      }
    }
    return ::testing::AssertionSuccess();
  }

  // --- What the log says about the last combat ---
  const game::Event* last_result() const {
    for (auto it = log.rbegin(); it != log.rend(); ++it) {
      if (it->kind() == game::Event::COMBAT && !it->column().empty()) return &*it;
    }
    return nullptr;
  }
  std::string column() const { return last_result() ? last_result()->column() : "none"; }
  std::string result() const { return last_result() ? last_result()->result() : "none"; }
  // The modified roll read on the table: "Result at 0606 (2:1, 7): D1r1."
  int total() const {
    const auto* e = last_result();
    if (!e) return -99;
    const std::string& text = e->text();
    const auto at = text.find("(" + e->column() + ", ");
    return at == std::string::npos ? -99 : std::stoi(text.substr(at + e->column().size() + 3));
  }
  int die() const {
    for (auto it = log.rbegin(); it != log.rend(); ++it) {
      if (it->kind() == game::Event::DIE_ROLLED) return it->die();
    }
    return 0;
  }
  int modifier() const { return total() - die(); }
  // "11 against 4 (2:1), 1 column to the defender: die 3 +2."
  std::string odds_line() const {
    for (auto it = log.rbegin(); it != log.rend(); ++it) {
      if (it->kind() == game::Event::DIE_ROLLED && it->text().find(" against ") != std::string::npos) return it->text();
    }
    return "none";
  }
  // The log as `v` reads it, one event a line.
  std::string reads(Viewer v) const {
    std::string out;
    for (const auto& e : events_for(log, v)) out += e.text() + "\n";
    return out;
  }
  bool logged(game::Event::Kind kind, const std::string& text = "") const {
    return std::any_of(log.begin(), log.end(), [&](const game::Event& e) {
      return e.kind() == kind && e.text().find(text) != std::string::npos;
    });
  }

  // --- What the board says ---
  const UnitState& us(const std::string& u) const { return t.s.units[static_cast<size_t>(t.unit(u))]; }
  std::string at(const std::string& u) const { return t.name(us(u).loc); }
  int steps(const std::string& u) const {
    if (!t.sc().on_board(us(u).loc)) return 0;
    return static_cast<int>(t.sc().units[static_cast<size_t>(t.unit(u))].steps.size()) - us(u).hits;
  }
  int strength(const std::string& u) const { return t.engine.combat_value(t.s, t.unit(u)); }
  std::string marker(const std::string& id) const {
    const auto v = t.engine.view(t.s, Viewer::Omniscient);
    for (const auto& m : v.artillery()) {
      if (m.id() == id) return m.state();
    }
    for (const auto& m : v.stukas()) {
      if (m.id() == id) return m.state();
    }
    return "no such marker";
  }
  game::UnitView seen(const std::string& u) const {
    const auto v = t.engine.view(t.s, Viewer::Omniscient);
    for (const auto& st : v.stacks()) {
      for (const auto& uv : st.units()) {
        if (uv.id() == u) return uv;
      }
    }
    return {};
  }
  void reduce(const std::string& u) { t.s.units[static_cast<size_t>(t.unit(u))].hits = 1; }
  void flag(const std::string& u, UnitFlag f) { t.s.set(t.unit(u), f); }
  bool adjacent(const std::string& a, const std::string& b) const {
    const auto& nb = t.sc().hexes[static_cast<size_t>(t.loc(a))].nb;
    return std::find(nb.begin(), nb.end(), t.loc(b)) != nb.end();
  }

  // Plays on to the next turn's first activation phase, each side passing.
  void next_turn() {
    const int turn = t.s.turn;
    for (int guard = 0; guard < 100 && (t.s.turn == turn || !t.s.in_activation()); ++guard) {
      const Decision d = t.decision();
      game::Order o = done_order();
      if (d.kind == game::Decision::CHOOSE_CORPS) {
        o.mutable_activate_corps()->set_corps(t.sc().formations[static_cast<size_t>(d.candidates.at(0))].id);
      } else if (d.kind == game::Decision::BREAK_CONTACT) {
        o.mutable_break_contact();
      }
      ASSERT_TRUE(Ok(d.side, o)) << game::Decision::Kind_Name(d.kind);
    }
    ASSERT_EQ(t.s.turn, turn + 1);
  }

  Table t;
  std::vector<game::Event> log;
};

// The suites, named after the rule sections they cover.
class Overrun : public CombatTable {};
class OverrunFromReserve : public CombatTable {};
class Combat : public CombatTable {};
class CombatChits : public CombatTable {
 protected:
  // A German attack on a lone Soviet unit with no artillery, in a game of these
  // option bits, the defender holding `chits`: only a chit could bring the support question.
  void attack_a_defender_holding(std::uint32_t options, const std::vector<std::string>& chits) {
    reset(kAllD1, options);
    german_phase();
    give_chits(t, Side::Soviet, chits);
    t.put("PzA/2", "0605");
    t.put("2TC/1", "0606");
    to(Side::German, game::Decision::COMBAT);
    ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  }
};
class Losses : public CombatTable {};
class Retreat : public CombatTable {};
class Advance : public CombatTable {};
class Barrage : public CombatTable {};
class Model : public CombatTable {
 protected:
  void SetUp() override {
    reset(kAllD1);
    t.s.model_turn = 1;  // Model is on the turn track from turn 1 in the test scenario
  }
};

// The shipped scenario, for the rulebook's worked examples.
class CombatWorkedExample : public CombatTable {
 protected:
  void SetUp() override { use(Table(default_scenario())); }
  std::string terrain(const std::string& hex) const {
    return t.sc().terrain[t.sc().hexes[static_cast<size_t>(t.loc(hex))].terrain].key;
  }
  bool hexside_between(const std::string& a, const std::string& b) const {
    const auto& h = t.sc().hexes[static_cast<size_t>(t.loc(a))];
    for (int k = 0; k < kDirs; ++k) {
      if (h.nb[static_cast<size_t>(k)] == t.loc(b)) return h.side[static_cast<size_t>(k)] != kNone;
    }
    return false;
  }
  const CombatResult& crt(int roll, const std::string& column) const {
    const auto& cols = t.sc().crt_columns;
    const auto c = static_cast<size_t>(std::find(cols.begin(), cols.end(), column) - cols.begin());
    return t.sc().crt.at(static_cast<size_t>(roll - t.sc().crt_min_roll)).at(c);
  }
};

// ===========================================================================
// The rulebook's worked examples, on the shipped scenario
// ===========================================================================

TEST_F(CombatWorkedExample, Rule9_WorkedExample_TheTableReadsA1D1r1OnSixInTheTwoToOneColumn) {
  EXPECT_EQ(crt(6, "2:1").text, "A1D1r1");
  EXPECT_FALSE(crt(6, "2:1").yellow);
  EXPECT_EQ(crt(6, "3:1").text, "D1r1");  // what 12 against 4 would read without a shift
}

// Two Panther battalions (6+6, bonuses 2+2) attack two reduced motor rifle brigades
// (2+2, defensive bonuses 1+1) in the woods: 12:4 is 3:1, the woods shift it to 2:1,
// and a die of 4 +4 -2 = 6 reads A1D1r1.
TEST_F(CombatWorkedExample, Rule9_WorkedExample_TwelveAgainstFourInTheWoodsOnTheTwoToOneColumn) {
  german_phase();
  t.put("19Pz/I-27", "3817");
  t.put("5SS/I-5", "3918");
  t.put("3TC/57", "3818");
  t.put("8GTC/28G", "3818");
  reduce("3TC/57");
  reduce("8GTC/28G");
  ASSERT_EQ(terrain("3818"), "woods");
  ASSERT_TRUE(adjacent("3817", "3818") && adjacent("3918", "3818") && adjacent("3817", "3918"));
  ASSERT_FALSE(hexside_between("3817", "3818") || hexside_between("3918", "3818"));
  ASSERT_EQ(strength("3TC/57") + strength("8GTC/28G"), 4);
  to(Side::German, game::Decision::COMBAT);

  t.rng = dice({4});
  ASSERT_TRUE(Ok(Side::German, attack_order({"19Pz/I-27", "5SS/I-5"}, "3818")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);  // the corps' artillery may help
  ASSERT_TRUE(Ok(Side::Soviet, support_order()));
  EXPECT_NE(odds_line().find("12 against 4 (3:1), 1 column to the defender: die 4 +2"), std::string::npos) << odds_line();
  EXPECT_EQ(column(), "2:1");
  EXPECT_EQ(total(), 6);
  EXPECT_EQ(result(), "A1D1r1");

  // One step for the attacker, one for the defender, a retreat of one hex.
  ASSERT_EQ(t.decision().kind, game::Decision::ATTACKER_LOSSES);
  ASSERT_TRUE(Ok(Side::German, losses_order({"5SS/I-5"})));
  EXPECT_EQ(steps("5SS/I-5"), 1);
  EXPECT_EQ(steps("19Pz/I-27"), 2);
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"8GTC/28G"})));
  EXPECT_EQ(at("8GTC/28G"), "eliminated");
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  EXPECT_EQ(t.decision().count, 1);
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"3TC/57", {"3719"}}})));
  EXPECT_EQ(at("3TC/57"), "3719");
  EXPECT_EQ(steps("3TC/57"), 1);
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  ASSERT_TRUE(Ok(Side::German, advance_order({"19Pz/I-27"}, {"3818"})));
  EXPECT_EQ(at("19Pz/I-27"), "3818");
  EXPECT_EQ(t.decision().kind, game::Decision::COMBAT);
}

// Desperate defense: with A1D1r1 the defender loses two steps instead of retreating.
TEST_F(CombatWorkedExample, Rule9_DesperateDefenseExample_A1D1r1BecomesTwoStepsAndNoRetreat) {
  german_phase();
  t.put("19Pz/I-27", "3817");
  t.put("5SS/I-5", "3918");
  t.put("3TC/57", "3818");
  t.put("8GTC/28G", "3818");
  reduce("3TC/57");
  reduce("8GTC/28G");
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({4});
  ASSERT_TRUE(Ok(Side::German, attack_order({"19Pz/I-27", "5SS/I-5"}, "3818")));
  ASSERT_TRUE(Ok(Side::Soviet, support_order()));
  ASSERT_EQ(result(), "A1D1r1");
  ASSERT_TRUE(Ok(Side::German, losses_order({"19Pz/I-27"})));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_TRUE(Refused(Side::Soviet, losses_order({"3TC/57"}, 0, 1)));  // desperate: two steps, not one
  EXPECT_TRUE(Refused(Side::Soviet, losses_order({"3TC/57", "8GTC/28G", "3TC/57"}, 0, 2)));  // only one hex to trade
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"3TC/57", "8GTC/28G"}, 0, 1)));
  EXPECT_EQ(at("3TC/57"), "eliminated");
  EXPECT_EQ(at("8GTC/28G"), "eliminated");
  EXPECT_FALSE(logged(game::Event::RETREATED));
  EXPECT_EQ(t.decision().kind, game::Decision::ADVANCE);  // no retreat asked: the hex is empty
}

// The question names only the support the defender's side has: Stukas are German (10).
TEST_F(CombatWorkedExample, Rule10_TheDefenderIsAskedForTheSupportTheirSideHas) {
  soviet_phase("3TC");
  t.put("3TC/50", "3623");
  t.put("3TC/51", "3724");
  t.put("HG/II-1", "3624");
  to(Side::Soviet, game::Decision::COMBAT);
  t.rng = dice({6});
  ASSERT_TRUE(Ok(Side::Soviet, attack_order({"3TC/50", "3TC/51"}, "3624")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  EXPECT_NE(t.decision().prompt.find("(artillery or Stuka, -1 to the die)"), std::string::npos) << t.decision().prompt;
  EXPECT_FALSE(t.decision().candidates.empty());

  use(Table(default_scenario()));
  german_phase();
  t.put("19Pz/I-27", "3817");
  t.put("5SS/I-5", "3918");
  t.put("3TC/57", "3818");
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({4});
  ASSERT_TRUE(Ok(Side::German, attack_order({"19Pz/I-27", "5SS/I-5"}, "3818")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  EXPECT_NE(t.decision().prompt.find("(artillery, -1 to the die)"), std::string::npos) << t.decision().prompt;
  EXPECT_EQ(t.decision().prompt.find("Stuka"), std::string::npos) << t.decision().prompt;
}

// Elastic defense: the German defender turns D2r2 into D1r3.
TEST_F(CombatWorkedExample, Rule9_ElasticDefenseExample_D2r2BecomesD1r3) {
  soviet_phase("3TC");
  t.put("3TC/50", "3623");
  t.put("3TC/51", "3724");
  t.put("HG/II-1", "3624");
  ASSERT_EQ(terrain("3624"), "clear");
  ASSERT_TRUE(adjacent("3623", "3724"));
  to(Side::Soviet, game::Decision::COMBAT);
  t.rng = dice({6});
  ASSERT_TRUE(Ok(Side::Soviet, attack_order({"3TC/50", "3TC/51"}, "3624")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);  // a Stuka could help
  ASSERT_TRUE(Ok(Side::German, support_order()));
  EXPECT_NE(odds_line().find("10 against 3 (3:1)"), std::string::npos) << odds_line();
  ASSERT_EQ(result(), "D2r2");
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  ASSERT_TRUE(Ok(Side::German, losses_order({"HG/II-1"}, 1)));
  EXPECT_EQ(steps("HG/II-1"), 1);  // one step lost, not two
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  EXPECT_EQ(t.decision().count, 3);  // and three hexes of retreat
  EXPECT_TRUE(Refused(Side::German, retreat_order({{"HG/II-1", {"3525", "3526"}}})));
  ASSERT_TRUE(Ok(Side::German, retreat_order({{"HG/II-1", {"3525", "3526", "3527"}}})));
  EXPECT_EQ(at("HG/II-1"), "3527");
  EXPECT_EQ(steps("HG/II-1"), 1);
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  EXPECT_EQ(t.decision().count, 3);  // D2 on the table and three hexes of retreat
}

// The HG unit converts its loss into a retreat of one hex; A, B and C are full, so it
// goes on one more hex and stops in D.
TEST_F(CombatWorkedExample, Rule9_RetreatExample_HGGoesPastTheFullHexesAndStopsInD) {
  soviet_phase("3TC");
  t.put("3TC/50", "3623");   // the attacker
  t.put("3TC/51", "3524");   // Soviet units hold the other ways out
  t.put("3TC/103", "3525");
  t.put("HG/II-Pz", "3624");
  t.put("73ID/I-170", "3724");  // A
  t.put("73ID/II-170", "3724");
  t.put("73ID/186", "3725");    // B
  t.put("73ID/213", "3725");
  t.put("73ID/Fus", "3625");    // C
  t.put("73ID/Pi", "3625");
  to(Side::Soviet, game::Decision::COMBAT);
  t.rng = dice({6});
  ASSERT_TRUE(Ok(Side::Soviet, attack_order({"3TC/50"}, "3624")));
  if (t.decision().kind == game::Decision::DEFENSIVE_SUPPORT) {
    ASSERT_TRUE(Ok(Side::German, support_order()));
  }
  EXPECT_NE(odds_line().find("5 against 5 (1:1)"), std::string::npos) << odds_line();
  ASSERT_EQ(result(), "A1D1");
  EXPECT_EQ(steps("3TC/50"), 1);  // the lone attacker takes its step at once
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  ASSERT_TRUE(Ok(Side::German, losses_order({}, 1)));  // the step becomes a hex of retreat
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  for (const std::string full : {"3724", "3725", "3625"}) {
    EXPECT_TRUE(Refused(Side::German, retreat_order({{"HG/II-Pz", {full}}}), game::STACKING_LIMIT)) << full;
  }
  ASSERT_TRUE(Ok(Side::German, retreat_order({{"HG/II-Pz", {"3724", "3824"}}})));
  EXPECT_EQ(at("HG/II-Pz"), "3824");
  EXPECT_EQ(steps("HG/II-Pz"), 2);  // A is in Soviet ZOC but held by friends: no loss
  EXPECT_EQ(at("73ID/I-170"), "3724");
}

// 10: "A unit from the HG Division moves and stops 4 hexes away from a Soviet unit;
// it can perform barrage fire against that unit because the HG Division's artillery
// counter has a range of 4."
TEST_F(CombatWorkedExample, Rule10_ArtilleryExample_AnHGUnitThatStopsFourHexesAwayLetsTheHGArtilleryFire) {
  t.s.turn = 2;  // the HG artillery is on the map from the second turn
  const auto& art = t.sc().artillery;
  const auto hg = static_cast<size_t>(std::find_if(art.begin(), art.end(), [](const auto& a) { return a.id == "ART-HG"; }) - art.begin());
  ASSERT_LT(hg, art.size());
  ASSERT_EQ(art[hg].range, 4);
  t.s.artillery[hg] = MarkerState::Ready;
  german_phase();
  t.put("HG/II-Pz", "4216");
  t.put("3TC/50", "4221");
  ASSERT_TRUE(Ok(Side::German, move_order({"HG/II-Pz"}, {"4217"})));
  ASSERT_EQ(t.sc().distance(t.loc("4217"), t.loc("4221")), 4);
  to(Side::German, game::Decision::BARRAGE);
  ASSERT_TRUE(Ok(Side::German, barrage_order("ART-HG", "4221")));
  EXPECT_EQ(marker("ART-HG"), "used");
}

TEST_F(CombatWorkedExample, Rule10_ArtilleryExample_FiveHexesAwayIsOutOfRange) {
  t.s.turn = 2;
  const auto& art = t.sc().artillery;
  const auto hg = static_cast<size_t>(std::find_if(art.begin(), art.end(), [](const auto& a) { return a.id == "ART-HG"; }) - art.begin());
  ASSERT_LT(hg, art.size());
  t.s.artillery[hg] = MarkerState::Ready;
  german_phase();
  t.put("HG/II-Pz", "4216");
  t.put("3TC/50", "4222");
  ASSERT_TRUE(Ok(Side::German, move_order({"HG/II-Pz"}, {"4217"})));
  ASSERT_EQ(t.sc().distance(t.loc("4217"), t.loc("4222")), 5);
  to(Side::German, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::German, barrage_order("ART-HG", "4222"), game::NOT_ALLOWED));
  EXPECT_EQ(marker("ART-HG"), "ready");
}

// ===========================================================================
// 9 Overrun attacks
// ===========================================================================

TEST_F(Overrun, Rule9_AUnitMovesAdjacentAndDeclaresTheOverrun) {
  reset({{"1:1", "D2"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");  // movement 3: cannot break contact
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  const auto* r = last_result();
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->overrun());
  EXPECT_NE(odds_line().find("6 against 5 (1:1)"), std::string::npos) << odds_line();
  EXPECT_EQ(at("1TC/3"), "eliminated");
  EXPECT_EQ(t.decision().kind, game::Decision::ADVANCE);
}

TEST_F(Overrun, Rule9_TheTargetMustBeNextToTheOverrunningUnit) {
  german_phase();
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzB/1"}, "0606"), game::NOT_ALLOWED));
}

TEST_F(Overrun, Rule9_MovementGoesOnAfterAnOverrunThatClearsTheHex) {
  reset({{"1:1", "D2"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");
  t.put("2TA/1", "0608");
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  ASSERT_TRUE(Ok(Side::German, advance_order({"PzB/1"}, {"0606"})));
  EXPECT_EQ(at("PzB/1"), "0606");
  // MP remain: it moves on, next to another Soviet unit, and overruns again.
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0607"})));
  EXPECT_EQ(at("PzB/1"), "0607");
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0608")));
  EXPECT_EQ(at("2TA/1"), "eliminated");
}

TEST_F(Overrun, Rule9_AnAdvanceIntoAnotherEnemyZocStopsTheMoveButNotTheOverruns) {
  reset({{"1:1", "D2"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");
  t.put("1TC/1", "0707");  // next to 0606
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  ASSERT_TRUE(Ok(Side::German, advance_order({"PzB/1"}, {"0606"})));
  EXPECT_TRUE(Refused(Side::German, move_order({"PzB/1"}, {"0607"}), game::MUST_STOP_IN_ZOC));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0707")));
  EXPECT_EQ(at("1TC/1"), "eliminated");
}

TEST_F(Overrun, Rule9_WithoutAdvancingTheUnitMayStillMoveOn) {
  reset({{"1:1", "D2"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  ASSERT_TRUE(Ok(Side::German, advance_order({}, {})));
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0705"})));
  EXPECT_EQ(at("PzB/1"), "0705");
}

TEST_F(Overrun, Rule9_AnOverrunThatFailsToClearTheHexEndsTheMovement) {
  reset({{"1:1", "A1"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  EXPECT_EQ(steps("PzB/1"), 1);
  EXPECT_EQ(at("1TC/3"), "0606");
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_TRUE(Refused(Side::German, move_order({"PzB/1"}, {"0604"})));
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzB/1"}, "0606")));  // no second try
}

TEST_F(Overrun, Rule9_AHexMayBeOverrunSeveralTimesInAPhaseAndStillBeAttacked) {
  reset({{"1:1", "A1"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("PzA/1", "0706");
  t.put("ID/1", "0707");
  t.put("1TC/3", "0606");
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  ASSERT_EQ(at("1TC/3"), "0606");
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzA/1"}, "0606")));  // the same hex again
  EXPECT_EQ(steps("PzA/1"), 1);
  // 9, 11: an overrun is not the hex's coordinated combat, and the overrunning unit may attack again.
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Fight(Side::German, attack_order({"PzA/1", "ID/1"}, "0606")));
  EXPECT_NE(odds_line().find("7 against 5"), std::string::npos) << odds_line();
}

TEST_F(Overrun, Rule9_SuddenAttackByAnAdjacentUnitThatHasNotMoved) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzB/1", "0805");
  t.put("1TC/R", "0606");  // recon: breaks contact when an enemy moves next to it
  {
    Table moving = t;
    ASSERT_TRUE(Accepted(moving.move(Side::German, {"PzB/1"}, {"0706"})));
    EXPECT_EQ(moving.decision().kind, game::Decision::BREAK_CONTACT);
  }
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzA/1"}, "0606")));
  EXPECT_NE(t.decision().kind, game::Decision::BREAK_CONTACT);
  EXPECT_NE(last_result(), nullptr);  // resolved at once: no chance to break contact
  EXPECT_EQ(at("1TC/R"), "eliminated");
}

TEST_F(Overrun, Rule9_OnlyArmoredMechanizedAndMotorizedUnitsOverrun) {
  german_phase();
  t.put("ID/1", "0605");  // movement 5
  t.put("1TC/3", "0606");
  EXPECT_TRUE(Refused(Side::German, overrun_order({"ID/1"}, "0606"), game::NOT_ALLOWED));
}

TEST_F(Overrun, Rule9_StacksOfDifferentFormationsDoNotOverrun) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzB/1", "0605");
  t.put("1TC/3", "0606");
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzA/1", "PzB/1"}, "0606"), game::NOT_ALLOWED));
  EXPECT_TRUE(Ok(Side::German, overrun_order({"PzA/1"}, "0606")));
}

TEST_F(Overrun, Rule9_ASovietStackDoesNotOverrun) {
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("1TC/R", "0605");
  t.put("ID/1", "0606");
  EXPECT_TRUE(Refused(Side::Soviet, overrun_order({"1TC/1", "1TC/R"}, "0606"), game::NOT_ALLOWED));
  EXPECT_TRUE(Ok(Side::Soviet, overrun_order({"1TC/1"}, "0606")));
}

// 7: three units of one armored division overrun as a single unit, with one attack bonus.
TEST_F(Overrun, Rule7_AKampfgruppeOfOneArmoredDivisionOverrunsAsOneUnit) {
  reset(kAllD1);
  german_phase();
  t.put("PzB/1", "0605");
  t.put("PzB/2", "0605");  // bonus 1
  t.put("PzB/3", "0605");  // bonus 1
  t.put("1TC/3", "0606");
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1", "PzB/2", "PzB/3"}, "0606")));
  EXPECT_NE(odds_line().find("13 against 5 (2:1)"), std::string::npos) << odds_line();
  EXPECT_EQ(modifier(), 1);  // the bonus of one unit only
}

TEST_F(Overrun, Rule9_NoTacticalSupportInAnOverrun) {
  reset(kAllD1);
  german_phase();
  give_chits(t, Side::Soviet, {"SOV-KATYUSHA"});
  t.put("PzA/1", "0605");
  t.put("1TC/1", "0606");  // 1TC's artillery is ready
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzA/1"}, "0606")));
  EXPECT_NE(last_result(), nullptr);  // no DEFENSIVE_SUPPORT question came first
  EXPECT_EQ(modifier(), 2);
  EXPECT_EQ(marker("1TC-art"), "ready");
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
}

// 9: individual units overrun (7: or a Kampfgruppe); one of a group that moved together is told why not.
TEST_F(Overrun, Rule9_AUnitMovingWithOthersIsToldThatAnOverrunIsMadeAlone) {
  german_phase();
  t.put("PzA/1", "0604");
  t.put("PzB/1", "0604");
  t.put("1TC/3", "0606");
  ASSERT_TRUE(Ok(Side::German, move_order({"PzA/1", "PzB/1"}, {"0605"})));
  std::string why;
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzA/1"}, "0606"), game::NOT_ALLOWED, &why));
  EXPECT_NE(why.find("moving together with other units"), std::string::npos) << why;
}

TEST_F(Overrun, Rule9_OverrunsAreMadeWhileMoving) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzA/1"}, "0606"), game::WRONG_ORDER_KIND));
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzA/1"}, "0606"), game::WRONG_ORDER_KIND));
}

// ===========================================================================
// 14 Reserves: after combat, reserves move and overrun
// ===========================================================================

TEST_F(OverrunFromReserve, Rule14_AfterCombatTheReservesMoveAndOverrun) {
  reset({{"1:1", "D2"}});
  german_phase();
  t.put("PzB/1", "0604");
  t.put("PzA/1", "0706");
  t.put("1TC/3", "0606");
  ASSERT_TRUE(Ok(Side::German, reserve_order({"PzB/1"})));
  EXPECT_TRUE(Refused(Side::German, move_order({"PzB/1"}, {"0605"}), game::UNIT_NOT_ACTIVE));
  to(Side::German, game::Decision::RESERVES);
  EXPECT_TRUE(Refused(Side::German, overrun_order({"PzA/1"}, "0606")));  // not in reserve
  ASSERT_TRUE(Ok(Side::German, move_order({"PzB/1"}, {"0605"})));
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));
  EXPECT_EQ(at("1TC/3"), "eliminated");
}

TEST_F(OverrunFromReserve, Rule14_TheReserveMarkerComesOffOnceTheReserveActs) {
  reset(kAllD1);
  german_phase();
  t.put("PzB/1", "0605");
  t.put("1TC/1", "0606");
  ASSERT_TRUE(Ok(Side::German, reserve_order({"PzB/1"})));
  EXPECT_TRUE(seen("PzB/1").reserve());
  to(Side::German, game::Decision::RESERVES);
  ASSERT_TRUE(Ok(Side::German, overrun_order({"PzB/1"}, "0606")));  // a sudden attack, without moving
  EXPECT_FALSE(seen("PzB/1").reserve());
}

// ===========================================================================
// 11 Coordinated combat
// ===========================================================================

TEST_F(Combat, Rule11_AttacksComeAfterMovementAndBarrage) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("1TC/1", "0606");
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1"}, "0606"), game::WRONG_ORDER_KIND));
  to(Side::German, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1"}, "0606"), game::WRONG_ORDER_KIND));
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Fight(Side::German, attack_order({"PzA/1"}, "0606")));
}

// After the combat step, an attack is told that the step is over, not that it comes later.
TEST_F(Combat, Rule11_AnAttackInTheReservesStepIsToldTheCombatStepIsOver) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::RESERVES);
  std::string why;
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1"}, "0606"), game::WRONG_ORDER_KIND, &why));
  EXPECT_NE(why.find("The combat step of this phase is over"), std::string::npos) << why;
}

TEST_F(Combat, Rule11_AttackersMustBeNextToTheTarget) {
  german_phase();
  t.put("PzA/1", "0604");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1"}, "0606"), game::NOT_ALLOWED));
}

TEST_F(Combat, Rule11_AttackingHexesMustBeNextToEachOther) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0707");
  t.put("PzB/1", "0706");
  t.put("1TC/2", "0606");
  ASSERT_FALSE(adjacent("0605", "0707"));
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606"), game::NOT_ALLOWED));
  // A third hex touching both makes the line continuous.
  EXPECT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3", "PzB/1"}, "0606")));
}

TEST_F(Combat, Rule11_AHexIsAttackedOncePerPhase) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzB/1", "0706");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzB/1"}, "0606"), game::LIMIT_REACHED));
}

TEST_F(Combat, Rule11_AUnitAttacksOncePerPhase) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0706");
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0805");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1"}, "0606")));
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1"}, "0805"), game::LIMIT_REACHED));
}

TEST_F(Combat, Rule11_AStackMaySplitItsAttacksAndEachUnitUsesItsBonus) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0706");  // bonus 2
  t.put("PzB/2", "0706");  // bonus 1
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0805");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1"}, "0606")));
  EXPECT_EQ(modifier(), 2);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzB/2"}, "0805")));
  EXPECT_EQ(modifier(), 1);
}

TEST_F(Combat, Rule9_OddsAreRoundedDownAndKeptWithinOneToThreeAndFiveToOne) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  EXPECT_NE(odds_line().find("11 against 4 (2:1)"), std::string::npos) << odds_line();
  EXPECT_EQ(column(), "2:1");

  reset();
  german_phase();
  t.put("PzA/2", "0605");
  reduce("PzA/2");
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  EXPECT_NE(odds_line().find("2 against 12 (1:3)"), std::string::npos) << odds_line();
  EXPECT_EQ(column(), "1:3");

  reset();
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/2", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/R", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/2", "PzA/3"}, "0606")));
  EXPECT_NE(odds_line().find("15 against 2 (5:1)"), std::string::npos) << odds_line();
  EXPECT_EQ(column(), "5:1");
}

TEST_F(Combat, Rule9_TheDefendersTerrainShiftsTheColumn) {
  german_phase();
  t.put("PzA/1", "0604");
  t.put("PzA/3", "0604");
  t.put("1TC/2", "0603");  // woods
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0603")));
  EXPECT_NE(odds_line().find("11 against 4 (2:1), 1 column to the defender"), std::string::npos) << odds_line();
  EXPECT_EQ(column(), "1:1");
}

TEST_F(Combat, Rule9_AHexsideShiftsOnlyWhenEveryAttackerCrossesIt) {
  german_phase();
  t.put("PzA/1", "0706");  // across the stream from 0806
  t.put("PzA/3", "0706");
  t.put("1TC/2", "0806");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0806")));
  EXPECT_EQ(column(), "1:1");

  reset();
  german_phase();
  t.put("PzA/1", "0706");
  t.put("PzA/3", "0707");  // 0707-0806 is no stream
  t.put("1TC/2", "0806");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0806")));
  EXPECT_EQ(column(), "2:1");
}

TEST_F(Combat, Rule8_PreparedDefenseShiftsOneColumnAndAddsOneToDefense) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/2", "0606");
  flag("1TC/2", kPreparedDefense);
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  EXPECT_EQ(column(), "1:1");
  EXPECT_EQ(modifier(), 2 - 1);
}

TEST_F(Combat, Rule8_AUnitThatBuildsAPreparedDefenseDoesNotAttackInThatPhase) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("1TC/1", "0606");
  ASSERT_TRUE(Ok(Side::German, prepared_order({"PzA/1"})));
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1"}, "0606")));
}

TEST_F(Combat, Rule9_OneAttackBonusPerAttackingHex) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0605");  // bonus 2
  t.put("PzB/2", "0605");  // bonus 1
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzB/2"}, "0606")));
  EXPECT_EQ(modifier(), 2);

  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzB/2", "0706");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzB/2"}, "0606")));
  EXPECT_EQ(modifier(), 3);
}

TEST_F(Combat, Rule9_DefensiveBonusesAddUp) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/4", "0606");  // defensive bonus 1
  t.put("1TC/5", "0606");  // attack bonus 1, which counts in defense too
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  EXPECT_EQ(modifier(), -2);
}

TEST_F(Combat, Rule9_TheTotalModifierIsCappedAtSix) {
  reset(kAllD1);
  german_phase();
  t.put("GER/Tiger", "0605");  // +4
  t.put("PzA/1", "0706");      // +2
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Tiger", "PzA/1"}, "0606", "PzA-art")));  // +1
  EXPECT_EQ(modifier(), 6);

  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TA/G", "0606");  // -4
  t.put("1TC/4", "0606");  // -1
  flag("2TA/G", kPreparedDefense);  // -1
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, support_order("1TC-art")));  // -1
  EXPECT_EQ(modifier(), -6);
}

TEST_F(Combat, Rule7_AKampfgruppeDefendsWithTheBonusesOfAllItsUnits) {
  reset(kAllD1);
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("PzB/1", "0606");
  t.put("PzB/2", "0606");  // 1
  t.put("PzB/3", "0606");  // 1 + 1
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0606")));
  EXPECT_NE(odds_line().find("6 against 13 (1:3)"), std::string::npos) << odds_line();
  EXPECT_EQ(modifier(), -3);
}

// ---------------------------------------------------------------------------
// 10 Tactical support
// ---------------------------------------------------------------------------

TEST_F(Combat, Rule10_TacticalSupportAddsOneForTheAttackerAndTakesOneForTheDefender) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606", "PzA-art")));
  EXPECT_EQ(marker("PzA-art"), "used");
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  ASSERT_TRUE(Ok(Side::Soviet, support_order()));
  EXPECT_EQ(modifier(), 1);

  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, support_order("1TC-art")));
  EXPECT_EQ(modifier(), -1);
  EXPECT_EQ(marker("1TC-art"), "used");
}

TEST_F(Combat, Rule10_AtMostOneArtilleryOrStukaSupportsACombatPerSide) {
  reset(kAllD1);
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::Soviet, attack_order({"1TC/1"}, "0606", "1TC-art")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  // The German has two Stukas ready; he may commit one.
  Order two;
  Rejection why;
  ASSERT_TRUE(t.engine.from_proto(support_order("Stuka-1"), two, why));
  Order second;
  ASSERT_TRUE(t.engine.from_proto(support_order("Stuka-2"), second, why));
  two.markers.push_back(second.markers.at(0));
  const GameState before = t.s;
  EXPECT_FALSE(t.engine.apply(t.s, Side::German, two, t.rng).accepted);
  EXPECT_TRUE(t.s == before);
  ASSERT_TRUE(Ok(Side::German, support_order("Stuka-1")));
  EXPECT_EQ(modifier(), 0);
  EXPECT_EQ(marker("Stuka-2"), "ready");

  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  Order attack;
  ASSERT_TRUE(t.engine.from_proto(attack_order({"PzA/2"}, "0606", "PzA-art"), attack, why));
  attack.markers.push_back(second.markers.at(0));
  const GameState before_attack = t.s;
  EXPECT_FALSE(t.engine.apply(t.s, Side::German, attack, t.rng).accepted);
  EXPECT_TRUE(t.s == before_attack);
}

TEST_F(Combat, Rule10_ArtillerySupportsItsOwnFormationAndIndependents) {
  reset(kAllD1);
  german_phase();
  t.put("PzB/1", "0605");
  t.put("GER/Tiger", "0805");
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0806");
  to(Side::German, game::Decision::COMBAT);
  std::string why;
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzB/1"}, "0606", "PzA-art"), game::NOT_ALLOWED, &why));
  EXPECT_EQ(why, "PzA-art supports only an attack with a unit of PzA in supply, or an independent unit (rule 10).");
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzB/1"}, "0606", "1TC-art"), game::NOT_ALLOWED, &why));
  EXPECT_EQ(why, "1TC-art is not yours.");
  EXPECT_TRUE(Fight(Side::German, attack_order({"PzB/1"}, "0606", "Stuka-1")));  // Stukas support anyone
  EXPECT_TRUE(Fight(Side::German, attack_order({"GER/Tiger"}, "0806", "PzA-art")));  // an independent
  EXPECT_EQ(marker("PzA-art"), "used");
}

TEST_F(Combat, Rule10_AMarkerThatFiredABarrageDoesNotSupport) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0804");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({1});
  ASSERT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0804")));
  to(Side::German, game::Decision::COMBAT);
  std::string why;
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/2"}, "0606", "PzA-art"), game::NOT_ALLOWED, &why));
  EXPECT_EQ(why, "PzA-art has been used already (rule 10).");
}

// ---------------------------------------------------------------------------
// 15, 10: halved units
// ---------------------------------------------------------------------------

TEST_F(Combat, Rule15_OutOfSupplyUnitsFightAtHalfAndCannotCallArtillery) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/3", "0605");  // 5
  flag("PzA/3", kOutOfSupply);
  t.put("1TC/2", "0606");
  EXPECT_EQ(strength("PzA/3"), 3);  // rounded up
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/3"}, "0606", "PzA-art"), game::NOT_ALLOWED));
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/3"}, "0606")));
  EXPECT_NE(odds_line().find("3 against 4 (1:2)"), std::string::npos) << odds_line();
}

TEST_F(Combat, Rule10_DisorganizedUnitsFightAtHalf) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("1TC/3", "0606");  // 5
  flag("1TC/3", kDisorganized);
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1"}, "0606")));
  EXPECT_NE(odds_line().find("6 against 3 (2:1)"), std::string::npos) << odds_line();
}

TEST_F(Combat, Rule9_LimitedBonusOptionUsesOneBonusPerSide) {
  reset(kAllD1);
  german_phase();
  t.put("GER/Tiger", "0605");  // +4
  t.put("PzA/1", "0706");      // +2
  t.put("1TC/4", "0606");      // -1
  t.put("1TC/5", "0606");      // -1
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Tiger", "PzA/1"}, "0606")));
  EXPECT_EQ(modifier(), 6 - 2);

  reset(kAllD1, kLimitedBonus);
  german_phase();
  t.put("GER/Tiger", "0605");
  t.put("PzA/1", "0706");
  t.put("1TC/4", "0606");
  t.put("1TC/5", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Tiger", "PzA/1"}, "0606")));
  EXPECT_EQ(modifier(), 4 - 1);
}

// ===========================================================================
// Combat results: losses
// ===========================================================================

TEST_F(Losses, Rule9_TheAttackerChoosesWhichUnitsLoseSteps) {
  reset({{"1:1", "A2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::ATTACKER_LOSSES);
  EXPECT_EQ(t.decision().side, Side::German);
  EXPECT_EQ(t.decision().count, 2);
  EXPECT_TRUE(Refused(Side::German, losses_order({"PzA/3"}), game::MALFORMED));  // two steps
  EXPECT_TRUE(Refused(Side::German, losses_order({"PzA/3", "1TC/1"})));
  EXPECT_TRUE(Refused(Side::German, losses_order({"PzA/3"}, 1)));  // attackers have no elastic defense
  ASSERT_TRUE(Ok(Side::German, losses_order({"PzA/3", "PzA/3"})));
  EXPECT_EQ(at("PzA/3"), "eliminated");
  EXPECT_EQ(steps("PzA/1"), 2);
}

TEST_F(Losses, Rule9_TheDefenderChoosesWhichUnitsLoseSteps) {
  reset({{"1:1", "D1"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  EXPECT_TRUE(Refused(Side::German, losses_order({"1TC/2"}), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Refused(Side::Soviet, losses_order({"1TC/2"}, 0, 1)));  // no retreat to trade
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/2"})));
  EXPECT_EQ(steps("1TC/2"), 1);
  EXPECT_EQ(steps("1TC/1"), 2);
  EXPECT_EQ(t.decision().kind, game::Decision::COMBAT);
}

TEST_F(Losses, Rule9_ALoneUnitTakesItsLossWithoutBeingAsked) {
  reset(kAllD1);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  EXPECT_EQ(steps("1TC/1"), 1);
  EXPECT_EQ(t.decision().kind, game::Decision::COMBAT);
}

TEST_F(Losses, Rule9_ElasticDefenseTradesOneStepForOneMoreHexOfRetreat) {
  reset({{"2:1", "D2r2"}});
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("1TC/3", "0706");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1", "1TC/3"}, "0606")));
  ASSERT_EQ(result(), "D2r2");
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_TRUE(Refused(Side::German, losses_order({}, 2)));  // one step, one hex
  ASSERT_TRUE(Ok(Side::German, losses_order({"ID/2"}, 1)));
  EXPECT_EQ(steps("ID/2"), 1);
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  EXPECT_EQ(t.decision().count, 3);
  ASSERT_TRUE(Ok(Side::German, retreat_order({{"ID/2", {"0607", "0608", "0708"}}})));
  EXPECT_EQ(at("ID/2"), "0708");
}

TEST_F(Losses, Rule9_NoElasticDefenseOnAYellowResult) {
  reset({{"2:1", "D2r2*"}});
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("1TC/3", "0706");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1", "1TC/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_TRUE(Refused(Side::German, losses_order({"ID/2"}, 1), game::NOT_ALLOWED));
  ASSERT_TRUE(Ok(Side::German, losses_order({"ID/2", "ID/2"})));
  EXPECT_EQ(at("ID/2"), "eliminated");
}

TEST_F(Losses, Rule9_TheSovietHasNoElasticDefenseUnlessTheOptionalRule) {
  reset({{"1:1", "D2r2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_TRUE(Refused(Side::Soviet, losses_order({"1TC/1"}, 1), game::NOT_ALLOWED));

  reset({{"1:1", "D2r2"}}, kRedArmyElasticDefense);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1"}, 1)));
  EXPECT_EQ(steps("1TC/1"), 1);
  EXPECT_EQ(t.decision().count, 3);
}

TEST_F(Losses, Rule9_DesperateDefenseKeepsTheHexAtOneStepPerHexNotRetreated) {
  reset({{"1:1", "D1r1"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_TRUE(Refused(Side::Soviet, losses_order({"1TC/1", "1TC/2", "1TC/1"}, 0, 2)));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1", "1TC/2"}, 0, 1)));
  EXPECT_EQ(steps("1TC/1"), 1);
  EXPECT_EQ(steps("1TC/2"), 1);
  EXPECT_EQ(at("1TC/1"), "0606");
  EXPECT_EQ(at("1TC/2"), "0606");
  EXPECT_EQ(t.decision().kind, game::Decision::COMBAT);  // nothing to retreat, nowhere to advance
}

// ===========================================================================
// Retreat
// ===========================================================================

TEST_F(Retreat, Rule9_EachEnemyZocHexEnteredCostsAStep) {
  reset({{"1:2", "r2"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("PzB/1", "0608");  // its ZOC covers 0607
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0507"}}})));
  EXPECT_EQ(at("1TC/1"), "0507");
  EXPECT_EQ(steps("1TC/1"), 1);
}

// 7: units below the top of a stack are hidden from the spectator: only their
// owner reads which attack and which retreat; the others read where.
TEST_F(Retreat, Rule7_OnlyTheOwnerReadsWhichUnitsAttackAndRetreat) {
  Results r2;
  for (const auto& c : kColumns) r2[c] = "r2";
  reset(r2);
  german_phase();
  t.put("PzA/2", "0605");
  t.put("PzA/1", "0605");  // on top
  t.put("1TC/2", "0606");
  t.put("1TC/1", "0606");  // on top
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0507"}}, {"1TC/2", {"0607", "0507"}}})));
  ASSERT_EQ(at("1TC/2"), "0507");
  const std::string german = reads(Viewer::German), soviet = reads(Viewer::Soviet), spectator = reads(Viewer::Spectator);
  EXPECT_NE(german.find("PzA/1, PzA/2 attack 0606."), std::string::npos) << german;
  EXPECT_NE(soviet.find("1TC/1 retreats 2 hexes: 0606 → 0607 → 0507."), std::string::npos) << soviet;
  EXPECT_NE(soviet.find("1TC/2 retreats 2 hexes: 0606 → 0607 → 0507."), std::string::npos) << soviet;
  for (const auto& others : {soviet, spectator}) EXPECT_NE(others.find("German units at 0605 attack 0606."), std::string::npos) << others;
  for (const auto& others : {german, spectator}) {
    EXPECT_NE(others.find("A Soviet unit retreats 2 hexes: 0606 → 0607 → 0507.\nA Soviet unit retreats 2 hexes"), std::string::npos) << others;
  }
  EXPECT_EQ(soviet.find("PzA/"), std::string::npos) << soviet;
  EXPECT_EQ(german.find("1TC/"), std::string::npos) << german;
  EXPECT_EQ(spectator.find("PzA/"), std::string::npos) << spectator;
  EXPECT_EQ(spectator.find("1TC/"), std::string::npos) << spectator;
}

TEST_F(Retreat, Rule9_AnEnemyZocHexHeldByFriendsCostsNothing) {
  reset({{"1:2", "r2"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("PzB/1", "0608");
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0607");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0507"}}})));
  EXPECT_EQ(at("1TC/1"), "0507");
  EXPECT_EQ(steps("1TC/1"), 2);
}

TEST_F(Retreat, Rule9_NoRetreatThroughEnemyUnitsNorShortOfTheResult) {
  reset({{"1:2", "r2"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("PzB/1", "0608");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0608"}}}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0605", "0604"}}}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0507"}}}), game::ILLEGAL_PATH));  // two hexes
}

// A retreat goes hex by hex: a path that skips one says so, not that the hex is barred.
TEST_F(Retreat, Rule9_ARetreatPathThatSkipsAHexIsToldItsHexesAreNotAdjacent) {
  reset({{"1:2", "r2"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  std::string why;
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0608", "0507"}}}), game::ILLEGAL_PATH, &why));
  EXPECT_NE(why.find("0606 and 0608 are not adjacent"), std::string::npos) << why;
}

TEST_F(Retreat, Rule9_NoRetreatAcrossProhibitedTerrain) {
  reset({{"1:2", "r1"}});
  german_phase();
  t.put("PzA/2", "0201");
  t.put("1TC/1", "0202");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0202")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0203"}}}), game::ILLEGAL_PATH));  // the cliff
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0303"}}})));
  EXPECT_EQ(at("1TC/1"), "0303");
}

TEST_F(Retreat, Rule9_AUnitThatCannotRetreatLosesStepsInstead) {
  reset({{"1:2", "D1r1"}});
  german_phase();
  t.put("PzA/2", "0102");
  t.put("PzB/1", "0201");
  t.put("1TC/1", "0101");  // the corner: both ways out are German
  {
    std::vector<std::string> around;
    for (Loc nb : t.sc().hexes[static_cast<size_t>(t.loc("0101"))].nb) {
      if (nb >= 0) around.push_back(t.name(nb));
    }
    std::sort(around.begin(), around.end());
    ASSERT_EQ(around, (Names{"0102", "0201"}));
  }
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0101")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1"})));
  EXPECT_EQ(at("1TC/1"), "eliminated");  // the second step pays for the retreat
  EXPECT_TRUE(logged(game::Event::STEP_LOST, "no retreat path"));
  EXPECT_EQ(t.decision().kind, game::Decision::ADVANCE);
}

TEST_F(Retreat, Rule9_ARetreatGoesOnOnlyPastHexesAlreadyFull) {
  reset({{"1:2", "r1"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  t.put("2TC/1", "0507");  // full
  t.put("3TC/1", "0507");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0507"}}}), game::STACKING_LIMIT));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0608"}}})));  // 0607 had room
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0507", "0407"}}})));
  EXPECT_EQ(at("1TC/1"), "0407");
  EXPECT_EQ(steps("1TC/1"), 2);
}

TEST_F(Retreat, Rule9_ARetreatStopsWhereAKampfgruppeHasRoom) {
  reset({{"1:1", "r1"}});
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("PzA/3", "0606");
  t.put("PzA/1", "0507");  // two of PzA/3's division: room for a third (7)
  t.put("PzA/2", "0507");
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0606")));
  ASSERT_TRUE(Ok(Side::German, losses_order({})));
  EXPECT_TRUE(Refused(Side::German, retreat_order({{"PzA/3", {"0507", "0407"}}})));
  ASSERT_TRUE(Ok(Side::German, retreat_order({{"PzA/3", {"0507"}}})));
  EXPECT_EQ(at("PzA/3"), "0507");
}

TEST_F(Retreat, Rule9_AUnitWhoseOnlyRetreatEndsInAFullHexLosesStepsInstead) {
  reset({{"2:1", "r1"}});
  german_phase();
  t.put("PzA/2", "0201");
  t.put("PzA/3", "0103");
  t.put("PzB/1", "0202");
  t.put("1TC/R", "0101");  // the corner: its only way out is 0102
  t.put("2TC/1", "0102");  // full, and hemmed in by the Germans
  t.put("3TC/1", "0102");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0101")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/R", {"0102"}}}), game::STACKING_LIMIT));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/R", {}}})));
  EXPECT_EQ(at("1TC/R"), "eliminated");  // one step, all it has
  EXPECT_TRUE(logged(game::Event::STEP_LOST, "no retreat path"));
  EXPECT_EQ(steps("2TC/1"), 2);
}

// 9: units retreating together share the room around them. Here two leave the
// corner 0101 by 0102, which has room for one: one takes it, and the other,
// with nowhere else to go, stays and loses steps instead.
TEST_F(Retreat, Rule9_TwoUnitsWithRoomForOneRetreatOneAndTheOtherLosesSteps) {
  Results r1;
  for (const auto& c : kColumns) r1[c] = "r1";
  reset(r1);
  german_phase();
  t.put("PzA/2", "0201");
  t.put("PzA/3", "0103");
  t.put("PzB/1", "0202");
  t.put("1TC/1", "0101");  // the corner: its only way out is 0102
  t.put("1TC/2", "0101");
  t.put("2TC/1", "0102");  // room for one more, and hemmed in by the Germans
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0101")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  ASSERT_TRUE(Answerable());
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0102"}}, {"1TC/2", {"0102"}}}), game::STACKING_LIMIT));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {}}, {"1TC/2", {}}}), game::ILLEGAL_PATH));  // one can go
  {
    GameState either = t.s;  // the player chooses which one stays
    Order o;
    Rejection why;
    ASSERT_TRUE(t.engine.from_proto(retreat_order({{"1TC/1", {}}, {"1TC/2", {"0102"}}}), o, why));
    Prng dice = t.rng;
    EXPECT_TRUE(Accepted(t.engine.apply(either, Side::Soviet, o, dice)));
  }
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0102"}}, {"1TC/2", {}}})));
  EXPECT_EQ(at("1TC/1"), "0102");
  EXPECT_EQ(steps("1TC/1"), 2);  // German ZOC, but held by friends
  EXPECT_EQ(at("1TC/2"), "0101");
  EXPECT_EQ(steps("1TC/2"), 1);  // a step for the hex it could not retreat
  EXPECT_TRUE(logged(game::Event::STEP_LOST, "no retreat path"));
  EXPECT_EQ(t.decision().kind, game::Decision::COMBAT);
}

// 9: "If the retreating unit ends up in a hex already at the stacking limit, it
// must continue retreating": also when a unit of the same retreat filled it.
TEST_F(Retreat, Rule9_OfTwoUnitsRetreatingTogetherOneGoesOnPastTheHexTheOtherFilled) {
  Results r1;
  for (const auto& c : kColumns) r1[c] = "r1";
  reset(r1);
  german_phase();
  t.put("PzA/2", "0201");
  t.put("PzA/3", "0103");
  t.put("1TC/1", "0101");
  t.put("1TC/2", "0101");
  t.put("2TC/1", "0102");  // room for one more; 0202 beyond it is free
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0101")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  ASSERT_TRUE(Answerable());
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0102"}}, {"1TC/2", {}}}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0102", "0202"}}, {"1TC/2", {"0102", "0202"}}}),
                      game::ILLEGAL_PATH));  // 0102 had room for the first
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0102"}}, {"1TC/2", {"0102", "0202"}}})));
  EXPECT_EQ(at("1TC/1"), "0102");
  EXPECT_EQ(at("1TC/2"), "0202");
  EXPECT_EQ(steps("1TC/1"), 2);
  EXPECT_EQ(steps("1TC/2"), 1);  // 0202 is in German ZOC, and no friends hold it
}

// 9: whatever crowds a stack that must retreat (enemy units and their ZOC,
// friends at the stacking limit, the map's edge), the rules offer an answer
// they accept: the game never waits for an order that cannot be given.
TEST_F(Retreat, Rule9_EveryRetreatFromACrowdedPositionHasALegalAnswer) {
  const Names soviets = {"1TC/R", "1TC/3", "2TC/1", "3TC/1", "2TA/1", "47A/1", "1TC/4", "1TC/5", "2TA/G"};
  const Names germans = {"PzA/1", "PzA/3", "ID/1", "ID/2", "GER/Tiger", "ID/3", "PzB/1"};
  Prng pick = Prng::from_seed(9);
  int retreats = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Results r;
    const std::string result = "r" + std::to_string(1 + pick.below(3));
    for (const auto& c : kColumns) r[c] = result;
    reset(r);
    const bool soviet_defends = pick.below(2) == 0;
    if (soviet_defends) {
      german_phase();
    } else {
      soviet_phase();
    }
    const Loc target = static_cast<Loc>(pick.below(static_cast<std::uint32_t>(t.sc().hex_count())));
    auto around = [&](Loc l) {
      std::vector<Loc> out;
      for (Loc nb : t.sc().hexes[static_cast<size_t>(l)].nb) {
        if (nb >= 0) out.push_back(nb);
      }
      return out;
    };
    const auto next = around(target);
    const Loc from = next[pick.below(static_cast<std::uint32_t>(next.size()))];
    const std::string attacker = soviet_defends ? "PzA/2" : "1TC/1";
    const Names defenders = soviet_defends ? Names{"1TC/1", "1TC/2"} : Names{"PzB/1", "PzB/2", "PzB/3"};
    t.put(attacker, t.name(from));
    const size_t n = soviet_defends ? 2 : 2 + pick.below(2);  // 7: a Kampfgruppe of three
    for (size_t i = 0; i < n; ++i) t.put(defenders[i], t.name(target));
    std::map<Loc, std::pair<Side, int>> held{{target, {soviet_defends ? Side::Soviet : Side::German, 2}},
                                             {from, {soviet_defends ? Side::German : Side::Soviet, 1}}};
    for (const auto& [side, names] : {std::pair{Side::Soviet, soviets}, std::pair{Side::German, germans}}) {
      for (const auto& u : names) {
        if (std::find(defenders.begin(), defenders.end(), u) != defenders.end() || u == attacker) continue;
        if (pick.below(3) == 0) continue;
        const auto near = around(next[pick.below(static_cast<std::uint32_t>(next.size()))]);
        const Loc l = near[pick.below(static_cast<std::uint32_t>(near.size()))];
        auto& [who, count] = held.try_emplace(l, side, 0).first->second;
        if (who != side || count >= 2) continue;
        ++count;
        t.put(u, t.name(l));
      }
    }
    const Side defender = soviet_defends ? Side::Soviet : Side::German;
    to(enemy_of(defender), game::Decision::COMBAT);
    if (!act(enemy_of(defender), attack_order({attacker}, t.name(target))).accepted) continue;
    if (t.decision().kind == game::Decision::DEFENSIVE_SUPPORT) {
      ASSERT_TRUE(Ok(defender, support_order()));
    }
    if (t.decision().kind == game::Decision::DEFENDER_LOSSES) {
      ASSERT_TRUE(Ok(defender, losses_order({})));
    }
    if (t.decision().kind != game::Decision::RETREAT) continue;
    ++retreats;
    ASSERT_TRUE(Answerable()) << "trial " << trial;
  }
  EXPECT_GT(retreats, 300);
}

TEST_F(Retreat, Rule9_ARetreatIsAtMostFourHexes) {
  reset({{"1:2", "r4"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"0507", "0407", "0307", "0207", "0107"}}})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0507", "0407", "0307", "0207"}}})));
  EXPECT_EQ(at("1TC/1"), "0207");
}

TEST_F(Retreat, Rule9_UnitsThatRetreatedIntoAHexAttackedLaterAddNothingButShareItsFate) {
  reset({{"1:1", "r1"}});
  german_phase();
  t.put("PzA/2", "0605");
  t.put("PzB/1", "0406");
  t.put("1TC/2", "0606");  // 4
  t.put("1TC/1", "0507");  // 6
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/2", {"0507"}}})));
  EXPECT_EQ(steps("1TC/2"), 2);  // 0507 is in German ZOC, but held by friends
  ASSERT_TRUE(Ok(Side::German, advance_order({}, {})));
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzB/1"}, "0507")));
  EXPECT_NE(odds_line().find("6 against 6 (1:1)"), std::string::npos) << odds_line();
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::RETREAT);
  std::vector<int> retreating = d.candidates;
  std::sort(retreating.begin(), retreating.end());
  std::vector<int> both{t.unit("1TC/1"), t.unit("1TC/2")};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(retreating, both);
}

// 9 (revision 6): the strength line says why the units that retreated into the hex add
// nothing, for every reader; revision 5's gave the numbers alone.
TEST_F(Retreat, Rule9_TheStrengthLineSaysRetreatedUnitsAddNothing) {
  for (const int revision : {5, 6}) {
    reset({{"1:1", "r1"}}, revision_bits(revision));
    german_phase();
    t.put("PzA/2", "0605");
    t.put("PzB/1", "0406");
    t.put("1TC/2", "0606");
    t.put("1TC/1", "0507");
    to(Side::German, game::Decision::COMBAT);
    ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
    EXPECT_EQ(odds_line().find("retreated"), std::string::npos) << odds_line();
    ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
    ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/2", {"0507"}}})));
    ASSERT_TRUE(Ok(Side::German, advance_order({}, {})));
    ASSERT_TRUE(Fight(Side::German, attack_order({"PzB/1"}, "0507")));
    const std::string line = revision == 6 ? "6 against 6 (retreated units do not add their strength, rule 9) (1:1)"
                                           : "6 against 6 (1:1)";
    for (Viewer v : {Viewer::Soviet, Viewer::German, Viewer::Spectator}) {
      EXPECT_NE(reads(v).find(line), std::string::npos) << "revision " << revision << ":\n" << reads(v);
    }
  }
}

TEST_F(Retreat, Rule6_GermanUnitsRetreatAcrossThePragaBridgesIntoWarsaw) {
  reset({{"1:2", "D1r1"}});
  soviet_phase();
  t.put("1TC/1", "0206");
  t.put("ID/2", "0106");  // the Praga bridge hex
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0106")));
  ASSERT_EQ(column(), "1:2");  // 6:4 in a town
  ASSERT_TRUE(Ok(Side::German, losses_order({"ID/2"})));
  ASSERT_TRUE(Ok(Side::German, retreat_order({{"ID/2", {"WARSAW"}}})));
  EXPECT_EQ(at("ID/2"), "WARSAW");
  EXPECT_EQ(steps("ID/2"), 1);
}

TEST_F(Retreat, Rule6_NoRetreatAcrossTheJozefowBridge) {
  reset({{"1:2", "D1r1"}});
  soviet_phase();
  t.put("1TC/1", "0208");
  t.put("ID/2", "0108");  // the Józefów bridge hex
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0108")));
  ASSERT_TRUE(Ok(Side::German, losses_order({"ID/2"})));
  EXPECT_TRUE(Refused(Side::German, retreat_order({{"ID/2", {"WARSAW"}}}), game::ILLEGAL_PATH));
  ASSERT_TRUE(Ok(Side::German, retreat_order({{"ID/2", {"0107"}}})));
  EXPECT_EQ(at("ID/2"), "0107");
}

TEST_F(Retreat, Rule6_SovietUnitsNeverRetreatIntoWarsaw) {
  reset({{"1:3", "r1"}});  // 4:6 in a town
  german_phase();
  t.put("PzA/2", "0206");
  t.put("1TC/1", "0106");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0106")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({})));
  EXPECT_TRUE(Refused(Side::Soviet, retreat_order({{"1TC/1", {"WARSAW"}}}), game::ILLEGAL_PATH));
}

// ===========================================================================
// Advance after combat
// ===========================================================================

TEST_F(Advance, Rule11_TheAdvanceEntersTheVacatedHexWithUnitsThatAttacked) {
  german_phase();  // 11:5 is 2:1, D1r1
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("PzB/1", "0705");
  t.put("1TC/3", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/3"})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/3", {"0607"}}})));
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  EXPECT_EQ(t.decision().count, 1);
  EXPECT_TRUE(Refused(Side::German, advance_order({"PzA/1"}, {"0706"}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Refused(Side::German, advance_order({"PzB/1"}, {"0606"}), game::NOT_ALLOWED));
  EXPECT_TRUE(Refused(Side::German, advance_order({"PzA/1"}, {"0606", "0706"}), game::ILLEGAL_PATH));
  ASSERT_TRUE(Ok(Side::German, advance_order({"PzA/1"}, {"0606"})));
  EXPECT_EQ(at("PzA/1"), "0606");
  EXPECT_EQ(at("PzA/3"), "0605");
}

TEST_F(Advance, Rule11_AfterD2AndALongRetreatTheAttackerAdvancesAsFar) {
  reset({{"1:1", "D2r2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1", "1TC/2"})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0608"}}, {"1TC/2", {"0507", "0407"}}})));
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  EXPECT_EQ(t.decision().count, 2);
  EXPECT_TRUE(Refused(Side::German, advance_order({"PzA/1", "PzA/3"}, {"0606", "0706", "0707"}), game::ILLEGAL_PATH));
  ASSERT_TRUE(Ok(Side::German, advance_order({"PzA/1", "PzA/3"}, {"0606", "0706"})));
  EXPECT_EQ(at("PzA/1"), "0706");
  EXPECT_EQ(at("PzA/3"), "0706");
}

TEST_F(Advance, Rule11_AnEliminatedDefenderAfterD2LetsTheAttackerAdvanceTheRetreatLength) {
  reset({{"2:1", "D2r2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/3", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/3", "1TC/3"})));
  EXPECT_EQ(at("1TC/3"), "eliminated");
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  EXPECT_EQ(t.decision().count, 2);
  ASSERT_TRUE(Ok(Side::German, advance_order({"PzA/1"}, {"0606", "0607"})));
  EXPECT_EQ(at("PzA/1"), "0607");
}

TEST_F(Advance, Rule11_AfterASmallerResultTheAdvanceIsOneHex) {
  german_phase();  // 4:2 is 2:1, D1r1
  t.put("PzA/2", "0605");
  t.put("1TC/R", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/R"})));
  EXPECT_EQ(at("1TC/R"), "eliminated");
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  EXPECT_TRUE(Refused(Side::German, advance_order({"PzA/2"}, {"0606", "0607"}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Ok(Side::German, advance_order({"PzA/2"}, {"0606"})));
}

TEST_F(Advance, Rule11_TheAdvanceStopsInEnemyZoc) {
  reset({{"1:1", "D2r2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  t.put("2TC/1", "0707");  // next to the hex the defenders leave
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1", "1TC/2"})));
  ASSERT_TRUE(Ok(Side::Soviet, retreat_order({{"1TC/1", {"0607", "0608"}}, {"1TC/2", {"0507", "0407"}}})));
  ASSERT_EQ(t.decision().count, 2);
  EXPECT_TRUE(Refused(Side::German, advance_order({"PzA/1"}, {"0606", "0706"}), game::MUST_STOP_IN_ZOC));
  ASSERT_TRUE(Ok(Side::German, advance_order({"PzA/1"}, {"0606"})));
  EXPECT_EQ(at("PzA/1"), "0606");
}

TEST_F(Advance, Rule13_TheArmoredTrainAdvancesOnlyAlongTheRailway) {
  reset({{"1:1", "D1"}});
  german_phase();
  t.put("GER/Zug", "0303");
  t.put("1TC/R", "0403");  // off the railway
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Zug"}, "0403")));
  EXPECT_EQ(at("1TC/R"), "eliminated");
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  EXPECT_TRUE(Refused(Side::German, advance_order({"GER/Zug"}, {"0403"}), game::ILLEGAL_PATH));
  ASSERT_TRUE(Ok(Side::German, advance_order({}, {})));
  EXPECT_EQ(at("GER/Zug"), "0303");
}

TEST_F(Advance, Rule13_TheArmoredTrainAdvancesAlongTheRailway) {
  reset({{"1:1", "D1"}});
  german_phase();
  t.put("GER/Zug", "0303");
  t.put("1TC/R", "0304");  // on the railway
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Zug"}, "0304")));
  ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
  ASSERT_TRUE(Ok(Side::German, advance_order({"GER/Zug"}, {"0304"})));
  EXPECT_EQ(at("GER/Zug"), "0304");
}

// ===========================================================================
// 10 Barrage fire
// ===========================================================================

TEST_F(Barrage, Rule10_BarrageFireComesAfterMovementAndBeforeCombat) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("1TC/1", "0606");
  EXPECT_TRUE(Refused(Side::German, barrage_order("PzA-art", "0606"), game::WRONG_ORDER_KIND));
  to(Side::German, game::Decision::BARRAGE);
  {
    Table later = t;
    ASSERT_TRUE(Accepted(later.done(Side::German)));
    EXPECT_FALSE(later.order(Side::German, barrage_order("PzA-art", "0606")).accepted);
  }
  EXPECT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0606")));
}

TEST_F(Barrage, Rule10_ArtilleryNeedsAUnitOfItsFormationWithinRange) {
  german_phase();
  t.put("1TC/1", "0606");
  t.put("PzA/2", "0106");
  t.put("PzB/1", "0206");
  ASSERT_EQ(t.sc().distance(t.loc("0106"), t.loc("0606")), 5);
  ASSERT_EQ(t.sc().distance(t.loc("0206"), t.loc("0606")), 4);
  to(Side::German, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::German, barrage_order("PzA-art", "0606"), game::NOT_ALLOWED));  // range 4
  t.put("PzA/2", "0206");
  t.put("PzB/1", "0106");
  EXPECT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0606")));
  EXPECT_EQ(marker("PzA-art"), "used");
}

// The other side's marker is refused as theirs, whatever state it is in.
TEST_F(Barrage, Rule10_OnlyYourOwnMarkersFire) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::BARRAGE);
  const auto out = t.order(Side::German, barrage_order("1TC-art", "0606"));
  ASSERT_FALSE(out.accepted);
  EXPECT_EQ(out.rejection.reason, "1TC-art is not yours.");
}

TEST_F(Barrage, Rule10_StukasStrikeAnywhere) {
  german_phase();
  t.put("1TC/1", "0908");
  t.put("PzA/2", "0101");
  to(Side::German, game::Decision::BARRAGE);
  EXPECT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0908")));
  EXPECT_EQ(marker("Stuka-1"), "used");
}

TEST_F(Barrage, Rule10_OneArtilleryBarrageAndOneStukaPerHexPerPhase) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("PzB/1", "0705");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0806");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({1, 1, 1, 1});  // no effect: the hexes stay occupied
  ASSERT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0606")));
  EXPECT_TRUE(Refused(Side::German, barrage_order("PzB-art", "0606"), game::LIMIT_REACHED));
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0606")));
  EXPECT_TRUE(Refused(Side::German, barrage_order("Stuka-2", "0606"), game::LIMIT_REACHED));
  EXPECT_TRUE(Ok(Side::German, barrage_order("PzB-art", "0806")));
  EXPECT_TRUE(Ok(Side::German, barrage_order("Stuka-2", "0806")));
  EXPECT_TRUE(Refused(Side::German, barrage_order("Stuka-1", "0806"), game::NOT_ALLOWED));  // used
}

TEST_F(Barrage, Rule10_UsedMarkersComeBackNextTurn) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({1, 1});
  ASSERT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0606")));
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0606")));
  EXPECT_EQ(marker("PzA-art"), "used");
  EXPECT_EQ(marker("Stuka-1"), "used");
  next_turn();
  EXPECT_EQ(marker("PzA-art"), "ready");
  EXPECT_EQ(marker("Stuka-1"), "ready");
}

TEST_F(Barrage, Rule10_TheSovietNeverBarragesWarsaw) {
  soviet_phase();
  t.put("1TC/1", "0206");
  t.put("ID/2", "WARSAW");
  t.put("ID/1", "0106");
  to(Side::Soviet, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::Soviet, barrage_order("1TC-art", "WARSAW")));
  EXPECT_TRUE(Ok(Side::Soviet, barrage_order("1TC-art", "0106")));
}

TEST_F(Barrage, Rule10_SovietArtilleryFiresForTheActiveCorpsAndItsIndependents) {
  soviet_phase("2TC");
  t.put("1TC/1", "0605");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::Soviet, barrage_order("1TC-art", "0606"), game::NOT_ALLOWED));

  reset();
  soviet_phase("1TC");
  t.put("2TA/1", "0605");  // an independent activated by 1TC
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::BARRAGE);
  EXPECT_TRUE(Ok(Side::Soviet, barrage_order("1TC-art", "0606")));
}

TEST_F(Barrage, Rule15_OutOfSupplyUnitsCannotCallArtillery) {
  german_phase();
  t.put("PzA/2", "0604");
  flag("PzA/2", kOutOfSupply);
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::BARRAGE);
  EXPECT_TRUE(Refused(Side::German, barrage_order("PzA-art", "0606"), game::NOT_ALLOWED));
}

// The barrage step's decision lists the markers that may fire, as the other
// choosing decisions list what they may name; only for the side that decides.
TEST_F(Barrage, Rule10_TheBarrageStepListsTheMarkersThatMayFire) {
  german_phase();
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0608");
  t.put("PzA/2", "0106");  // 5 hexes from 0606: beyond PzA-art's range of 4
  to(Side::German, game::Decision::BARRAGE);
  auto listed = [&](Viewer who) {
    const auto v = t.engine.view(t.s, who);
    return std::vector<std::string>(v.decision().candidates().begin(), v.decision().candidates().end());
  };
  EXPECT_EQ(listed(Viewer::German), (Names{"Stuka-1", "Stuka-2"}));  // a Stuka strikes anywhere
  EXPECT_TRUE(listed(Viewer::Soviet).empty());
  EXPECT_TRUE(listed(Viewer::Spectator).empty());

  t.put("PzA/2", "0206");
  EXPECT_EQ(listed(Viewer::German), (Names{"PzA-art", "Stuka-1", "Stuka-2"}));
  for (const auto& m : listed(Viewer::German)) {
    Table fires = t;
    fires.rng = dice({6});
    EXPECT_TRUE(fires.order(Side::German, barrage_order(m, "0606")).accepted) << m;
  }
  t.rng = dice({3});  // L: the lone unit loses a step at once
  ASSERT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE);
  EXPECT_EQ(listed(Viewer::German), (Names{"Stuka-1", "Stuka-2"}));  // PzA-art used
  t.rng = dice({6});
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0608")));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE);
  EXPECT_EQ(listed(Viewer::German), (Names{"Stuka-2"}));  // one Stuka a hex: 0606 is still open to it
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-2", "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE);
  EXPECT_TRUE(listed(Viewer::German).empty());
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).decision().prompt(), "Barrage fire, or end the barrage step.");
}

TEST_F(Barrage, Rule10_TheOwnerChoosesTheUnitThatTakesTheResult) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({3});  // L
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE_LOSS);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  EXPECT_TRUE(Refused(Side::German, choose_order({"1TC/1"}), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Refused(Side::Soviet, choose_order({"1TC/1", "1TC/2"})));  // one unit only
  ASSERT_TRUE(Ok(Side::Soviet, choose_order({"1TC/2"})));
  EXPECT_EQ(steps("1TC/2"), 1);
  EXPECT_EQ(steps("1TC/1"), 2);
  EXPECT_EQ(t.decision().kind, game::Decision::BARRAGE);

  t.rng = dice({2});  // DIS
  ASSERT_TRUE(Ok(Side::German, barrage_order("PzA-art", "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE_LOSS);
  ASSERT_TRUE(Ok(Side::Soviet, choose_order({"1TC/1"})));
  EXPECT_TRUE(seen("1TC/1").disorganized());
  EXPECT_FALSE(seen("1TC/2").disorganized());
}

TEST_F(Barrage, Rule10_ALoneUnitTakesTheResultAtOnce) {
  german_phase();
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({3});
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0606")));
  EXPECT_EQ(steps("1TC/1"), 1);
  EXPECT_EQ(t.decision().kind, game::Decision::BARRAGE);
}

TEST_F(Barrage, Rule10_TerrainProtectsAgainstBarrageFire) {
  german_phase();
  t.put("1TC/1", "0603");  // woods: -2
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({4, 4});
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0603")));
  EXPECT_EQ(steps("1TC/1"), 2);
  EXPECT_TRUE(seen("1TC/1").disorganized());
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-2", "0606")));
  EXPECT_EQ(steps("1TC/2"), 1);
}

// 10 (revision 6): the barrage line says its modifier is the target's terrain's, for
// every reader; revision 5's line gave the number alone.
TEST_F(Barrage, Rule10_TheBarrageLineNamesTheTerrainOfItsModifier) {
  for (const int revision : {5, 6}) {
    reset({}, revision_bits(revision));
    german_phase();
    t.put("1TC/1", "0603");  // woods: -2
    to(Side::German, game::Decision::BARRAGE);
    t.rng = dice({4});
    ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0603")));
    const std::string line = revision == 6 ? "Stuka-1 fires at 0603: die 4 -2 (woods -2): DIS.\n"
                                           : "Stuka-1 fires at 0603: die 4 -2: DIS.\n";
    for (Viewer v : {Viewer::Soviet, Viewer::German, Viewer::Spectator}) {
      EXPECT_NE(reads(v).find(line), std::string::npos) << "revision " << revision << ":\n" << reads(v);
    }
  }
}

TEST_F(Barrage, Rule10_DisorganizedUnitsMoveAndFightAtHalfUntilTheNextTurn) {
  german_phase();
  t.put("1TC/3", "0606");  // combat 5, movement 3
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({2});
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0606")));
  EXPECT_TRUE(seen("1TC/3").disorganized());
  EXPECT_EQ(seen("1TC/3").combat(), 3);    // rounded up
  EXPECT_EQ(seen("1TC/3").movement(), 2);
  next_turn();
  EXPECT_FALSE(seen("1TC/3").disorganized());
}

TEST_F(Barrage, Rule10_ArtilleryOfAFormationGoneFromPlayIsRemoved) {
  for (const std::string u : {"1TC/1", "1TC/2", "1TC/R", "1TC/3", "1TC/4", "1TC/5"}) t.put(u, "eliminated");
  german_phase();
  next_turn();
  EXPECT_EQ(marker("1TC-art"), "removed");
  EXPECT_EQ(marker("PzA-art"), "ready");
}

// ===========================================================================
// 12 FM Model
// ===========================================================================

TEST_F(Model, Rule12_TheGermanMayRerollTheDieOfACombat) {
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");  // no artillery to ask about
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({2, 5});
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::MODEL_REROLL);
  EXPECT_EQ(t.decision().side, Side::German);
  EXPECT_NE(t.decision().prompt.find("die 2"), std::string::npos) << t.decision().prompt;
  // The question names the result the roll gives, the one a re-roll would replace.
  EXPECT_NE(t.decision().prompt.find(" gives "), std::string::npos) << t.decision().prompt;
  EXPECT_NE(t.decision().prompt.find(". Use FM Model to re-roll?"), std::string::npos) << t.decision().prompt;
  EXPECT_EQ(last_result(), nullptr);  // nothing applied yet
  ASSERT_TRUE(Ok(Side::German, reroll_order(true)));
  EXPECT_EQ(die(), 5);
  EXPECT_EQ(total(), 5);
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).header().model_turn(), 2);  // on to the next box
}

TEST_F(Model, Rule12_TheGermanMayKeepTheDieAndModelStays) {
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({2});
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::German, reroll_order(false)));
  EXPECT_EQ(total(), 2);
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).header().model_turn(), 1);
}

TEST_F(Model, Rule12_TheRerollIsOfferedWhenTheGermanDefends) {
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0606")));
  EXPECT_EQ(t.decision().kind, game::Decision::MODEL_REROLL);
  EXPECT_EQ(t.decision().side, Side::German);
}

TEST_F(Model, Rule12_OneEffectPerTurnThenModelGoesToTheNextTurnBox) {
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, model_order(game::UseModel::NON_ADJACENT_ATTACK)));
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).header().model_turn(), 2);
  EXPECT_TRUE(Refused(Side::German, model_order(game::UseModel::NON_ADJACENT_ATTACK), game::LIMIT_REACHED));
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  EXPECT_NE(last_result(), nullptr);  // no re-roll offered
  EXPECT_EQ(t.decision().kind, game::Decision::COMBAT);
  next_turn();
  german_phase();
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Ok(Side::German, model_order(game::UseModel::NON_ADJACENT_ATTACK)));
}

TEST_F(Model, Rule12_AnEffectThatIsNoneOfModelsIsRefusedNotTakenForOne) {
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  const int box = t.engine.view(t.s, Viewer::German).header().model_turn();
  // 257 is NON_ADJACENT_ATTACK plus 256: a byte would hold it as that effect.
  EXPECT_TRUE(Refused(Side::German, model_order(static_cast<game::UseModel::Effect>(257)), game::MALFORMED));
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).header().model_turn(), box);
  EXPECT_TRUE(Ok(Side::German, model_order(game::UseModel::NON_ADJACENT_ATTACK)));
}

TEST_F(Model, Rule12_ModelLetsTheGermanAttackFromHexesNotNextToEachOther) {
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0707");
  t.put("PzB/1", "0805");
  t.put("ID/1", "0907");
  t.put("1TC/2", "0606");
  t.put("2TC/1", "0806");
  to(Side::German, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606"), game::NOT_ALLOWED));
  ASSERT_TRUE(Ok(Side::German, model_order(game::UseModel::NON_ADJACENT_ATTACK)));
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  EXPECT_NE(odds_line().find("11 against 4"), std::string::npos) << odds_line();
  // For that attack only.
  ASSERT_FALSE(adjacent("0805", "0907"));
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzB/1", "ID/1"}, "0806"), game::NOT_ALLOWED));
}

TEST_F(Model, Rule12_ModelCommandsTheGermanOnly) {
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::COMBAT);
  EXPECT_TRUE(Refused(Side::Soviet, model_order(game::UseModel::NON_ADJACENT_ATTACK), game::NOT_ALLOWED));
}

TEST_F(Model, Rule12_ModelReactivatesAStackActivatedInAnEarlierPhase) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("PzA/3", "0604");
  ASSERT_TRUE(Ok(Side::German, move_order({"PzA/2", "PzA/3"}, {"0605"})));
  to(Side::German, game::Decision::BARRAGE);
  t.begin_phase(3);  // German 2
  EXPECT_TRUE(Refused(Side::German, move_order({"PzA/2", "PzA/3"}, {"0606"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Refused(Side::German, model_order(game::UseModel::REACTIVATE, {"PzA/1"}), game::NOT_ALLOWED));  // not on the map
  ASSERT_TRUE(Ok(Side::German, model_order(game::UseModel::REACTIVATE, {"PzA/2", "PzA/3"})));
  ASSERT_TRUE(Ok(Side::German, move_order({"PzA/2", "PzA/3"}, {"0606"})));
  EXPECT_EQ(at("PzA/2"), "0606");
}

// ===========================================================================
// 20 Events in combat
// ===========================================================================

TEST_F(CombatChits, Rule20_ACombatChitOnAnAttackAddsToTheDie) {
  reset(kAllD1);
  german_phase();
  give_chits(t, Side::German, {"GER-WERFER"});
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606", "", "GER-WERFER")));
  EXPECT_EQ(modifier(), 2);
  EXPECT_TRUE(t.s.sides[static_cast<int>(Side::German)].hand.empty());
}

TEST_F(CombatChits, Rule20_ACombatChitInDefenseTakesFromTheDie) {
  reset(kAllD1);
  german_phase();
  give_chits(t, Side::Soviet, {"SOV-KATYUSHA"});
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");  // no artillery: the chit alone brings the question
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  // Asked for a chit alone: no marker is offered, and the question, which the attacker
  // reads too, is worded as when one is.
  EXPECT_NE(t.decision().prompt.find("(artillery, -1 to the die) or a chit, or none."), std::string::npos) << t.decision().prompt;
  EXPECT_TRUE(t.decision().candidates.empty());
  ASSERT_TRUE(Ok(Side::Soviet, support_order("", "SOV-KATYUSHA")));
  EXPECT_EQ(modifier(), -2);
}

// Revision 2 (every game begun since): a defender holding any chit is asked, so
// that the question tells the attacker nothing of which chits they hold (7).
TEST_F(CombatChits, Rule20_InRevision2ADefenderHoldingAnyChitIsAskedSoTheQuestionTellsNothing) {
  std::string seen[2];
  const char* held[2] = {"SOV-KATYUSHA", "SOV-GHOST"};
  for (int i = 0; i < 2; ++i) {
    ASSERT_NO_FATAL_FAILURE(attack_a_defender_holding(revision_bits(2), {held[i]}));
    EXPECT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT) << held[i];
    seen[i] = t.engine.view(t.s, Viewer::German).SerializeAsString();
  }
  EXPECT_EQ(seen[0], seen[1]) << "the attacker's view after the attack owes nothing to which chit the defender holds";
  // A chit that is no combat modifier is no support: declining is the answer.
  EXPECT_FALSE(Ok(Side::Soviet, support_order("", "SOV-GHOST")));
  ASSERT_TRUE(Ok(Side::Soviet, support_order()));
}

TEST_F(CombatChits, Rule20_InRevision2ADefenderWithNoChitIsNotAsked) {
  ASSERT_NO_FATAL_FAILURE(attack_a_defender_holding(revision_bits(2), {}));
  EXPECT_NE(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
}

// Revision 1 (games begun before it): asked only for a chit that changes the die,
// as those games' logs were played.
TEST_F(CombatChits, Rule20_InRevision1OnlyACombatChitBringsTheQuestion) {
  ASSERT_NO_FATAL_FAILURE(attack_a_defender_holding(0, {"SOV-GHOST"}));
  EXPECT_NE(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
}

TEST_F(CombatChits, Rule20_OneEventPerPhaseAlsoInCombat) {
  reset(kAllD1);
  german_phase();
  give_chits(t, Side::German, {"GER-WERFER", "GER-KESSEL"});
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");
  t.put("PzB/1", "0805");
  t.put("2TA/1", "0806");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606", "", "GER-WERFER")));
  EXPECT_TRUE(Refused(Side::German, attack_order({"PzB/1"}, "0806", "", "GER-KESSEL"), game::LIMIT_REACHED));
}

TEST_F(CombatChits, Rule20_KesselForbidsElasticDefense) {
  reset({{"1:1", "D2r2"}}, kRedArmyElasticDefense);
  german_phase();
  give_chits(t, Side::German, {"GER-KESSEL"});
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606", "", "GER-KESSEL")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_TRUE(Refused(Side::Soviet, losses_order({"1TC/1"}, 1), game::NOT_ALLOWED));
  EXPECT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1", "1TC/1"})));
}

// 20 (revision 6): Kessel forbids only the Soviet elastic defense of the optional rule:
// a game without it refuses the chit, saying why, and the legal orders leave it out.
// Games of revision 5 still take it; with the optional rule it is played as before.
TEST_F(CombatChits, Rule20_KesselIsRefusedWithoutRedArmyElasticDefense) {
  for (const std::uint32_t options : {revision_bits(6), revision_bits(5), revision_bits(6) | kRedArmyElasticDefense}) {
    reset({{"1:1", "D2r2"}}, options);
    german_phase();
    give_chits(t, Side::German, {"GER-KESSEL"});
    t.put("PzA/1", "0605");
    t.put("PzA/3", "0605");
    t.put("1TC/1", "0606");
    to(Side::German, game::Decision::COMBAT);
    const int kessel = *t.sc().event_index("GER-KESSEL");
    const auto legal = t.engine.legal_orders(t.s);
    const bool offered = std::any_of(legal.begin(), legal.end(), [&](const Order& o) { return o.chit == kessel; });
    const auto order = attack_order({"PzA/1", "PzA/3"}, "0606", "", "GER-KESSEL");
    if (options == revision_bits(6)) {
      std::string why;
      EXPECT_TRUE(Refused(Side::German, order, game::NOT_ALLOWED, &why));
      EXPECT_EQ(why, "Kessel only forbids the elastic defense of the optional rule Red Army Elastic Defense, "
                     "which this game does not play (rule 20).");
      EXPECT_FALSE(offered);
    } else {
      EXPECT_TRUE(offered) << options;
      EXPECT_TRUE(Fight(Side::German, order)) << options;
    }
  }
}

TEST_F(CombatChits, Rule20_AnAirStrikeBarragesAnyHexInTheBarrageStep) {
  soviet_phase();
  give_chits(t, Side::Soviet, {"SOV-AIR"});
  t.put("1TC/1", "0101");
  t.put("ID/2", "0908");
  EXPECT_TRUE(Refused(Side::Soviet, event_order("SOV-AIR", "0908")));
  to(Side::Soviet, game::Decision::BARRAGE);
  t.rng = dice({3});
  ASSERT_TRUE(Ok(Side::Soviet, event_order("SOV-AIR", "0908")));
  EXPECT_TRUE(logged(game::Event::BARRAGE, "Air strike"));
  EXPECT_EQ(steps("ID/2"), 1);
  EXPECT_EQ(marker("1TC-art"), "ready");
}

// ===========================================================================
// Standing orders: answers given in advance to the decisions the other side's
// play asks (6, 9, 10, 12); the server gives them for the absent player
// ===========================================================================

class StandingOrders : public CombatTable {
 protected:
  // The answer standing orders `so` give now, in wire form; nullopt: the player is asked.
  std::optional<game::Order> answer(const game::StandingOrders& so) const {
    const auto o = t.engine.standing_answer(t.s, so);
    if (!o) return std::nullopt;
    return t.engine.to_proto(*o);
  }
  static game::StandingOrders all() { return every_standing_order(); }
  static game::StandingOrders only(void (game::StandingOrders::*set)(bool)) {
    game::StandingOrders so;
    (so.*set)(true);
    return so;
  }
};

TEST_F(StandingOrders, Rule6_StandFastAnswersBreakContactWithoutMoving) {
  soviet_phase();
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  ASSERT_TRUE(Ok(Side::Soviet, move_order({"1TC/R"}, {"0902"})));
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  EXPECT_FALSE(answer({}));  // none set: the German is asked
  EXPECT_FALSE(answer(only(&game::StandingOrders::set_no_support)));
  const auto a = answer(only(&game::StandingOrders::set_stand_fast));
  ASSERT_TRUE(a);
  ASSERT_TRUE(Ok(Side::German, *a));
  EXPECT_EQ(at("PzA/1"), "0903");
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_EQ(t.decision().side, Side::Soviet);
}

TEST_F(StandingOrders, Rule10_NoSupportCommitsNoArtilleryAndPlaysNoChit) {
  reset(kAllD1);
  german_phase();
  give_chits(t, Side::Soviet, {"SOV-KATYUSHA"});
  t.put("PzA/2", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  EXPECT_FALSE(answer(only(&game::StandingOrders::set_stand_fast)));
  const auto a = answer(only(&game::StandingOrders::set_no_support));
  ASSERT_TRUE(a);
  ASSERT_TRUE(Ok(Side::Soviet, *a));
  EXPECT_EQ(modifier(), 0);
  EXPECT_EQ(marker("1TC-art"), "ready");
  EXPECT_EQ(t.s.sides[static_cast<int>(Side::Soviet)].hand.size(), 1U);  // the chit stays in hand
}

TEST_F(StandingOrders, Rule9_TakeLossesLosesTheNamedStepsOneAUnitWithoutElasticOrDesperateDefense) {
  reset({{"1:1", "D2r1"}}, kRedArmyElasticDefense);
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENDER_LOSSES);
  EXPECT_FALSE(answer(only(&game::StandingOrders::set_retreat)));
  const auto a = answer(only(&game::StandingOrders::set_take_losses));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->take_losses().elastic(), 0);
  EXPECT_EQ(a->take_losses().desperate(), 0);
  ASSERT_TRUE(Ok(Side::Soviet, *a));
  EXPECT_EQ(steps("1TC/1"), 1);
  EXPECT_EQ(steps("1TC/2"), 1);
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  EXPECT_EQ(t.decision().count, 1);
}

TEST_F(StandingOrders, Rule9_TheAttackersOwnLossesAreNeverAnsweredInAdvance) {
  reset({{"1:1", "A2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::ATTACKER_LOSSES);
  EXPECT_FALSE(answer(all()));
}

TEST_F(StandingOrders, Rule9_RetreatTakesEachUnitAwayByAPathThatLeavesRoom) {
  reset({{"1:1", "D1r2"}});
  german_phase();
  t.put("PzA/1", "0605");
  t.put("PzA/3", "0605");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1", "PzA/3"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/2"})));
  ASSERT_EQ(t.decision().kind, game::Decision::RETREAT);
  EXPECT_FALSE(answer(only(&game::StandingOrders::set_take_losses)));
  const auto a = answer(only(&game::StandingOrders::set_retreat));
  ASSERT_TRUE(a);
  ASSERT_TRUE(Ok(Side::Soviet, *a));
  EXPECT_NE(at("1TC/1"), "0606");
  EXPECT_NE(at("1TC/2"), "0606");
  EXPECT_TRUE(logged(game::Event::RETREATED));
  EXPECT_EQ(t.decision().side, Side::German);
}

TEST_F(StandingOrders, Rule10_TakeLossesPutsABarragesHitOnTheFirstUnit) {
  german_phase();
  t.put("PzA/2", "0604");
  t.put("1TC/1", "0606");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::BARRAGE);
  t.rng = dice({3});  // L
  ASSERT_TRUE(Ok(Side::German, barrage_order("Stuka-1", "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE_LOSS);
  const std::string first = t.sc().units[static_cast<size_t>(t.decision().candidates.at(0))].id;
  const auto a = answer(only(&game::StandingOrders::set_take_losses));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->choose_units().units_size(), 1);
  const std::string hit = a->choose_units().units(0);
  EXPECT_EQ(hit, first);
  ASSERT_TRUE(Ok(Side::Soviet, *a));
  EXPECT_EQ(steps(hit), 1);
  EXPECT_EQ(steps("1TC/1") + steps("1TC/2"), 3);
  EXPECT_EQ(t.decision().kind, game::Decision::BARRAGE);
}

TEST_F(StandingOrders, Rule12_KeepDieNeverCallsFMModelToReroll) {
  reset(kAllD1);
  t.s.model_turn = 1;
  soviet_phase();
  t.put("1TC/1", "0605");
  t.put("ID/2", "0606");
  to(Side::Soviet, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::MODEL_REROLL);
  EXPECT_FALSE(answer(only(&game::StandingOrders::set_no_support)));
  const auto a = answer(only(&game::StandingOrders::set_keep_die));
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->reroll().reroll());
  ASSERT_TRUE(Ok(Side::German, *a));
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).header().model_turn(), 1);  // Model still waits
}

TEST_F(StandingOrders, Rule12_TheGermansOwnAttacksAreNeverAnsweredInAdvance) {
  reset(kAllD1);
  t.s.model_turn = 1;
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");  // no artillery to ask about
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({2, 5});
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_EQ(t.decision().kind, game::Decision::MODEL_REROLL);
  EXPECT_FALSE(answer(all())) << "the German sees his own die";
}


// ===========================================================================
// Rules revision 4: the die line names each modifier with its source (9), and
// texts built from counts agree in number; older games keep their texts
// ===========================================================================

class Revision4 : public CombatTable {
 protected:
  void SetUp() override { reset(kAllD1, revision_bits(4)); }
  // The die line's words after the die: "+6 (unit bonuses +6 or more; ...)." of "...: die 4 +6 (...).".
  std::string after_die() const {
    const std::string line = odds_line();
    const auto at = line.find(": die ");
    return at == std::string::npos ? line : line.substr(line.find(' ', at + 6) + 1);
  }
};

// On the shipped map: two Panther battalions attack two reduced brigades in a
// village, under prepared defense; each side's artillery supports, and the
// defender plays Katyusha Salvo. Every source is named, the net after them, and
// no unit: the line is the same for both players and the spectators. The units'
// bonuses are one sum, attackers' less defenders', which the net told before: a
// spectator, who sees only the top unit of a stack, learns no more of them.
TEST_F(Revision4, Rule9_TheDieLineNamesEachModifierWithItsSource) {
  use(Table(default_scenario(), revision_bits(4)));
  const Scenario& sc = t.sc();
  // A village with two clear neighbours, next to each other, and no hexside between them and it.
  std::string village, west, east;
  for (const auto& h : sc.hexes) {
    if (sc.terrain[h.terrain].key != "village" || !village.empty()) continue;
    for (size_t k = 0; k < kDirs && village.empty(); ++k) {
      const size_t next = (k + 1) % kDirs;
      const Loc a = h.nb[k], b = h.nb[next];
      if (a < 0 || b < 0 || h.side[k] != kNone || h.side[next] != kNone) continue;
      if (sc.terrain[sc.hexes[static_cast<size_t>(a)].terrain].key != "clear" ||
          sc.terrain[sc.hexes[static_cast<size_t>(b)].terrain].key != "clear") {
        continue;
      }
      village = format_hex(h.id), west = t.name(a), east = t.name(b);
    }
  }
  ASSERT_FALSE(village.empty());
  ASSERT_TRUE(adjacent(west, east));
  german_phase();
  t.put("19Pz/I-27", west);  // attack bonus 2
  t.put("5SS/I-5", east);    // attack bonus 2
  t.put("3TC/57", village);  // defensive bonus 1, reduced
  t.put("8GTC/28G", village);
  reduce("3TC/57");
  reduce("8GTC/28G");
  flag("3TC/57", kPreparedDefense);
  for (size_t m = 0; m < sc.artillery.size(); ++m) {
    if (sc.artillery[m].id == "ART-19Pz" || sc.artillery[m].id == "ART-3TC") t.s.artillery[m] = MarkerState::Ready;
  }
  give_chits(t, Side::Soviet, {"SOV-KATYUSHA"});
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({4});
  ASSERT_TRUE(Ok(Side::German, attack_order({"19Pz/I-27", "5SS/I-5"}, village, "ART-19Pz")));
  ASSERT_EQ(t.decision().kind, game::Decision::DEFENSIVE_SUPPORT);
  ASSERT_TRUE(Ok(Side::Soviet, support_order("ART-3TC", "SOV-KATYUSHA")));
  EXPECT_EQ(odds_line(), "12 against 4 (3:1), 1 column to the defender: die 4 -2 (unit bonuses +2, village -1, "
                         "prepared defense -1, German artillery +1, Soviet artillery -1, Katyusha Salvo -2).");
  EXPECT_EQ(total(), 2);
  for (Viewer v : {Viewer::German, Viewer::Soviet, Viewer::Spectator}) {
    EXPECT_NE(reads(v).find(odds_line()), std::string::npos) << reads(v);
  }
  for (const char* unit : {"19Pz/", "5SS/", "3TC/", "8GTC/"}) EXPECT_EQ(odds_line().find(unit), std::string::npos) << odds_line();
}

// The limit applies, either way, and the line says so; FM Model's question gives the
// same net as the line.
TEST_F(Revision4, Rule9_TheDieLineSaysWhenTheLimitOfSixApplied) {
  t.s.model_turn = 1;
  german_phase();
  t.put("GER/Tiger", "0605");  // +4
  t.put("PzA/1", "0706");      // +2
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  t.rng = dice({3});
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Tiger", "PzA/1"}, "0606", "PzA-art")));  // +1
  EXPECT_EQ(after_die(), "+6 (unit bonuses +5 or more, German artillery +1; limited to +6).");
  ASSERT_EQ(t.decision().kind, game::Decision::MODEL_REROLL);
  EXPECT_NE(t.decision().prompt.find("die 3 +6 on "), std::string::npos) << t.decision().prompt;

  reset(kAllD1, revision_bits(4));
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TA/G", "0606");  // -4
  t.put("1TC/4", "0606");  // -1
  flag("2TA/G", kPreparedDefense);
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Ok(Side::German, attack_order({"PzA/2"}, "0606")));
  ASSERT_TRUE(Ok(Side::Soviet, support_order("1TC-art")));
  EXPECT_EQ(after_die(), "-6 (unit bonuses -4 or less, prepared defense -1, Soviet artillery -1; limited to -6).");
  EXPECT_EQ(modifier(), -6);
}

// At the limit the net tells the units' bonuses only as a bound, and so does the
// line: +6 of bonuses against none, and +6 against 1, read alike, so that what
// the line says of the units depends on nothing a spectator cannot see.
TEST_F(Revision4, Rule9_AtTheLimitTheDieLineTellsTheUnitBonusesAsABound) {
  std::vector<std::string> lines;
  for (const bool defense_bonus : {false, true}) {
    reset(kAllD1, revision_bits(4));
    german_phase();
    t.put("GER/Tiger", "0605");  // +4
    t.put("PzA/1", "0706");      // +2
    if (defense_bonus) {
      t.put("1TC/4", "0606");  // 2, defensive bonus 1
      t.put("1TC/R", "0606");  // 2
    } else {
      t.put("1TC/2", "0606");  // 4
    }
    to(Side::German, game::Decision::COMBAT);
    ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Tiger", "PzA/1"}, "0606", "PzA-art")));  // +1
    EXPECT_EQ(modifier(), 6);
    EXPECT_EQ(odds_line().substr(0, odds_line().find(':')), "12 against 4 (3");
    lines.push_back(after_die());
  }
  EXPECT_EQ(lines[0], "+6 (unit bonuses +5 or more, German artillery +1; limited to +6).");
  EXPECT_EQ(lines[1], lines[0]);
}

// A chit played with the attack is named beside the other sources, and a die with no
// modifier reads as before.
TEST_F(Revision4, Rule20_TheDieLineNamesTheAttackersChit) {
  give_chits(t, Side::German, {"GER-WERFER"});
  german_phase();
  t.put("PzA/1", "0605");  // +2
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/1"}, "0606", "", "GER-WERFER")));
  EXPECT_EQ(after_die(), "+4 (unit bonuses +2, Nebelwerfer +2).");

  reset(kAllD1, revision_bits(4));
  german_phase();
  t.put("PzA/2", "0605");
  t.put("2TC/1", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"PzA/2"}, "0606")));
  EXPECT_EQ(after_die(), "+0.");
}

// Games begun before revision 4 keep the line they were played with: the net alone.
TEST_F(Revision4, Rule9_AGameOfRevision3KeepsTheDieLineWithTheNetAlone) {
  reset(kAllD1, revision_bits(3));
  german_phase();
  t.put("GER/Tiger", "0605");
  t.put("PzA/1", "0706");
  t.put("1TC/2", "0606");
  to(Side::German, game::Decision::COMBAT);
  ASSERT_TRUE(Fight(Side::German, attack_order({"GER/Tiger", "PzA/1"}, "0606", "PzA-art")));
  EXPECT_EQ(after_die(), "+6.");
}

// One unit moves, attacks and advances, and the defender's elastic defense trades one
// step for one hex: in the singular from revision 4, where games of revision 3 keep
// the plural they were played with.
TEST_F(Revision4, Rule9_TextsOfOneUnitOrOneStepAreInTheSingular) {
  for (const int revision : {3, 4}) {
    SCOPED_TRACE("revision " + std::to_string(revision));
    const bool now = revision == 4;
    reset({{"1:1", "D2r2"}}, revision_bits(revision));
    soviet_phase();
    t.put("1TC/1", "0604");
    t.put("ID/2", "0606");
    ASSERT_TRUE(Ok(Side::Soviet, move_order({"1TC/1"}, {"0605"})));
    to(Side::Soviet, game::Decision::COMBAT);
    ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1"}, "0606")));  // 6 against 4
    ASSERT_EQ(result(), "D2r2");
    ASSERT_TRUE(Ok(Side::German, losses_order({"ID/2"}, 1)));
    ASSERT_TRUE(Ok(Side::German, retreat_order({{"ID/2", {"0607", "0608", "0708"}}})));
    ASSERT_EQ(t.decision().kind, game::Decision::ADVANCE);
    ASSERT_TRUE(Ok(Side::Soviet, advance_order({"1TC/1"}, {"0606"})));
    const std::string soviet = reads(Viewer::Soviet), german = reads(Viewer::German), spectator = reads(Viewer::Spectator);
    EXPECT_NE(soviet.find(now ? "1TC/1 moves 0604 → 0605" : "1TC/1 move 0604 → 0605"), std::string::npos) << soviet;
    EXPECT_NE(soviet.find(now ? "1TC/1 attacks 0606." : "1TC/1 attack 0606."), std::string::npos) << soviet;
    EXPECT_NE(soviet.find("1TC/1 advances: 0606."), std::string::npos) << soviet;
    for (const auto& all : {soviet, german, spectator}) {
      EXPECT_NE(all.find(now ? "Elastic defense: 1 step fewer, 1 hex more retreat." : "Elastic defense: 1 step(s) fewer, 1 hex(es) more retreat."),
                std::string::npos) << all;
    }
    for (const auto& others : {german, spectator}) {
      EXPECT_NE(others.find("A Soviet unit at 0605 attacks 0606."), std::string::npos) << others;
      EXPECT_NE(others.find(now ? "A Soviet unit advances: 0606." : "Soviet units advance: 0606."), std::string::npos) << others;
    }
  }
}

// The questions of a combat that cost one step or one hex ask in the singular from
// revision 4; games of revision 3 keep the plural they were played with.
TEST_F(Revision4, Rule9_DecisionPromptsOfOneStepOrOneHexAreInTheSingular) {
  for (const int revision : {3, 4}) {
    SCOPED_TRACE("revision " + std::to_string(revision));
    const bool now = revision == 4;
    reset({{"1:1", "A1D1r1"}, {"2:1", "A1D1r1"}, {"3:1", "A1D1r1"}}, revision_bits(revision));
    soviet_phase();
    t.put("1TC/1", "0605");
    t.put("1TC/2", "0706");  // two attackers: the one step lost is the attacker's choice
    t.put("ID/2", "0606");
    to(Side::Soviet, game::Decision::COMBAT);
    ASSERT_TRUE(Fight(Side::Soviet, attack_order({"1TC/1", "1TC/2"}, "0606")));
    ASSERT_EQ(result(), "A1D1r1");
    // Each question as it comes, answered with the one step or hex it asks for.
    std::map<game::Decision::Kind, std::string> asked;
    for (int i = 0; i < 6 && !asked.count(game::Decision::ADVANCE); ++i) {
      const auto d = t.decision();
      asked[d.kind] = d.prompt;
      if (d.kind == game::Decision::ATTACKER_LOSSES) {
        ASSERT_TRUE(Ok(Side::Soviet, losses_order({"1TC/1"})));
      } else if (d.kind == game::Decision::DEFENDER_LOSSES) {
        ASSERT_TRUE(Ok(Side::German, losses_order({"ID/2"})));
      } else if (d.kind == game::Decision::RETREAT) {
        ASSERT_TRUE(Ok(Side::German, retreat_order({{"ID/2", {"0607"}}})));
      } else {
        ASSERT_EQ(d.kind, game::Decision::ADVANCE) << d.prompt;
      }
    }
    EXPECT_EQ(asked[game::Decision::ATTACKER_LOSSES], now ? "The attack on 0606 costs 1 step: choose the unit that loses it."
                                                          : "The attack on 0606 costs 1 step(s): choose the units that lose them.");
    const auto& defender = asked[game::Decision::DEFENDER_LOSSES];
    EXPECT_EQ(defender.substr(0, defender.find(';')),
              now ? "At 0606: lose 1 step and retreat 1 hex" : "At 0606: lose 1 step(s) and retreat 1 hex(es)");
    EXPECT_EQ(asked[game::Decision::RETREAT], now ? "Retreat the units at 0606 1 hex (rule 9)." : "Retreat the units at 0606 1 hex(es) (rule 9).");
    EXPECT_EQ(asked[game::Decision::ADVANCE], now ? "0606 is clear: advance into it (up to 1 hex) or stay."
                                                  : "0606 is clear: advance into it (up to 1 hex(es)) or stay.");
  }
}

}  // namespace
}  // namespace counterattack::testing
