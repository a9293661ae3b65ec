// 16 Recovery, 18 Warsaw Uprising, 19 Magnuszew bridgehead: the administrative phase.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "fixture.h"

namespace counterattack::testing {
namespace {

game::Order recover_order(const std::string& unit, const std::string& where = "") {
  game::Order o;
  o.mutable_recover()->set_unit(unit);
  if (!where.empty()) o.mutable_recover()->set_location(where);
  return o;
}

game::Order choose_order(const std::vector<std::string>& units) {
  game::Order o;
  auto* c = o.mutable_choose_units();
  for (const auto& u : units) c->add_units(u);
  return o;
}

game::Order suppress_order(const std::vector<std::string>& units) {
  game::Order o;
  auto* c = o.mutable_suppress_uprising();
  for (const auto& u : units) c->add_units(u);
  return o;
}

// Plays out the third German phase of turn `turn - 1`: the outcome of the
// last order carries the administrative phase of `turn`.
Outcome to_turn(Table& t, int turn) {
  t.s.turn = static_cast<std::uint8_t>(turn - 1);
  t.begin_phase(5);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Accepted(t.done(Side::German)));
  Outcome last = t.done(Side::German);
  EXPECT_TRUE(Accepted(last));
  EXPECT_EQ(t.s.turn, turn);
  return last;
}

std::vector<std::string> candidates(const Table& t) {
  std::vector<std::string> out;
  const auto v = t.engine.view(t.s, Viewer::German);
  for (const auto& c : v.decision().candidates()) out.push_back(c);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

bool has_event(const Outcome& out, game::Event::Kind kind) {
  return std::any_of(out.events.begin(), out.events.end(), [&](const game::Event& e) { return e.kind() == kind; });
}

// The die of the uprising roll this order made, or 0.
int uprising_die(const Outcome& out) {
  for (const auto& e : out.events) {
    if (e.kind() == game::Event::DIE_ROLLED && e.text().find("Uprising") != std::string::npos) return e.die();
  }
  return 0;
}

int hits(const Table& t, const std::string& unit) { return t.s.units[static_cast<size_t>(t.unit(unit))].hits; }
Loc where(const Table& t, const std::string& unit) { return t.s.units[static_cast<size_t>(t.unit(unit))].loc; }

// ---------------------------------------------------------------------------
// 16 Recovery
// ---------------------------------------------------------------------------

class Recovery : public ::testing::Test {
 protected:
  void SetUp() override {
    t.put("ID/1", "0905");  // supplied from A and B
    t.put("PzA/1", "0907");
  }
  Table t;
};

TEST_F(Recovery, Rule16_NoRecoveryDecisionWithoutAReducedOrEliminatedUnit) {
  to_turn(t, 2);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Recovery, Rule16_FromTheSecondTurnTheGermanFlipsAReducedSuppliedUnit) {
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  to_turn(t, 2);
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::RECOVERY);
  EXPECT_EQ(d.side, Side::German);
  EXPECT_TRUE(has(candidates(t), "ID/1"));
  const Outcome out = t.order(Side::German, recover_order("ID/1"));
  ASSERT_TRUE(Accepted(out));
  EXPECT_TRUE(has_event(out, game::Event::STEP_RECOVERED));
  EXPECT_EQ(hits(t, "ID/1"), 0);
  EXPECT_EQ(where(t, "ID/1"), t.loc("0905"));
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Recovery, Rule16_EvenAUnitAdjacentToTheEnemyRecovers) {
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  t.put("1TC/1", "0904");
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_TRUE(Accepted(t.order(Side::German, recover_order("ID/1"))));
  EXPECT_EQ(hits(t, "ID/1"), 0);
}

TEST_F(Recovery, Rule16_OneStepPerTurn) {
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  t.s.units[static_cast<size_t>(t.unit("PzA/1"))].hits = 1;
  to_turn(t, 2);
  ASSERT_TRUE(Accepted(t.order(Side::German, recover_order("PzA/1"))));
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(hits(t, "ID/1"), 1);
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/1"), game::NOT_YOUR_DECISION));
}

TEST_F(Recovery, Rule16_AReducedUnitOutOfSupplyCannotRecover) {
  t.put("ID/2", "0301");  // six hexes from every German source
  t.s.units[static_cast<size_t>(t.unit("ID/2"))].hits = 1;
  t.s.units[static_cast<size_t>(t.unit("PzA/1"))].hits = 1;
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_FALSE(has(candidates(t), "ID/2"));
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/2"), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/1"), game::NOT_ALLOWED));  // at full strength
}

TEST_F(Recovery, Rule16_AnEliminatedUnitReturnsReducedInWarsaw) {
  t.put("ID/2", "eliminated");
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_TRUE(has(candidates(t), "ID/2"));
  {
    const auto v = t.engine.view(t.s, Viewer::Soviet);
    EXPECT_TRUE(has(std::vector<std::string>(v.eliminated().begin(), v.eliminated().end()), "ID/2"));
  }
  ASSERT_TRUE(Accepted(t.order(Side::German, recover_order("ID/2", "WARSAW"))));
  EXPECT_EQ(where(t, "ID/2"), t.sc().warsaw());
  EXPECT_EQ(hits(t, "ID/2"), 1);
  EXPECT_EQ(t.engine.view(t.s, Viewer::Soviet).eliminated_size(), 0);
}

TEST_F(Recovery, Rule16_AnEliminatedUnitReturnsOnAPragaHex) {
  t.put("PzB/1", "eliminated");
  to_turn(t, 2);
  ASSERT_TRUE(Accepted(t.order(Side::German, recover_order("PzB/1", "0106"))));
  EXPECT_EQ(where(t, "PzB/1"), t.loc("0106"));
  EXPECT_EQ(hits(t, "PzB/1"), 1);
}

TEST_F(Recovery, Rule16_AnEliminatedUnitReturnsNextToASuppliedUnitOfItsFormation) {
  t.put("ID/2", "eliminated");
  to_turn(t, 2);
  ASSERT_TRUE(Accepted(t.order(Side::German, recover_order("ID/2", "0904"))));
  EXPECT_EQ(where(t, "ID/2"), t.loc("0904"));
  EXPECT_EQ(hits(t, "ID/2"), 1);
}

TEST_F(Recovery, Rule16_AnEliminatedUnitCannotReturnElsewhere) {
  t.put("ID/2", "eliminated");
  t.put("1TC/1", "0807");
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/2", "0703"), game::NOT_ALLOWED));  // next to nobody
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/2", "0908"), game::NOT_ALLOWED));  // only PzA/1 near
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/2", "0807"), game::NOT_ALLOWED));  // the enemy's hex
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/2"), game::MALFORMED));
  // Asked where, the refusal lists the places it may come back at.
  const auto where_to = t.order(Side::German, recover_order("ID/2")).rejection.reason;
  EXPECT_EQ(where_to.rfind("Say where ID/2 comes back: WARSAW, ", 0), 0u) << where_to;
  EXPECT_NE(where_to.find("0904"), std::string::npos) << where_to;
  EXPECT_EQ(where_to.find("0703"), std::string::npos) << where_to;
}

TEST_F(Recovery, Rule16_NotNextToAFormationUnitOutOfSupply) {
  t.put("ID/1", "0301");  // out of supply
  t.put("ID/2", "eliminated");
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("ID/2", "0401"), game::NOT_ALLOWED));
}

TEST_F(Recovery, Rule16_TheGermanMayPass) {
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_TRUE(Rejected(t, Side::Soviet, done_order(), game::NOT_YOUR_DECISION));
  ASSERT_TRUE(Accepted(t.done(Side::German)));
  EXPECT_EQ(hits(t, "ID/1"), 1);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Recovery, Rule16_TheSovietCannotUseTheGermanRecovery) {
  t.put("1TC/1", "1004");
  t.s.units[static_cast<size_t>(t.unit("1TC/1"))].hits = 1;
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_FALSE(has(candidates(t), "1TC/1"));
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("1TC/1"), game::NOT_ALLOWED));
}

TEST_F(Recovery, Rule13_TheArmoredTrainNeverComesBack) {
  t.put("GER/Zug", "eliminated");
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  to_turn(t, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_FALSE(has(candidates(t), "GER/Zug"));
  EXPECT_TRUE(Rejected(t, Side::German, recover_order("GER/Zug", "WARSAW"), game::NOT_ALLOWED));
}

// ---------------------------------------------------------------------------
// 18 Warsaw Uprising
// ---------------------------------------------------------------------------

class Uprising : public ::testing::Test {
 protected:
  // Turn 2 of a game in which a Soviet unit ended turn 1 six hexes from Praga.
  Outcome rise() {
    t.put("1TC/1", "0706");
    return to_turn(t, 2);
  }
  // Warsaw rose on turn 2 and took a step from `victim`; turn 3 begins.
  Outcome rise_then_next_turn(const std::string& victim) {
    rise();
    EXPECT_EQ(t.decision().kind, game::Decision::UPRISING_STEP_LOSS);
    EXPECT_TRUE(Accepted(t.order(Side::German, choose_order({victim}))));
    Outcome out = to_turn(t, 3);
    if (t.decision().kind == game::Decision::RECOVERY) {
      EXPECT_TRUE(Accepted(t.done(Side::German)));
    }
    return out;
  }
  std::string header_uprising() const { return t.engine.view(t.s, Viewer::Spectator).header().uprising(); }
  int soviet_vp() const { return t.engine.victory_points(t.s, Side::Soviet); }
  Table t;
};

TEST_F(Uprising, Rule18_ASovietUnitSixHexesFromPragaAtTheEndOfATurnRaisesWarsaw) {
  t.put("ID/1", "WARSAW");
  EXPECT_EQ(header_uprising(), "not started");
  const Outcome out = rise();
  EXPECT_TRUE(has_event(out, game::Event::UPRISING));
  EXPECT_EQ(header_uprising(), "Warsaw rises");
  const Decision d = t.decision();
  EXPECT_EQ(d.kind, game::Decision::UPRISING_STEP_LOSS);
  EXPECT_EQ(d.side, Side::German);
  EXPECT_EQ(d.count, 1);
  EXPECT_EQ(candidates(t), std::vector<std::string>{"ID/1"});
}

TEST_F(Uprising, Rule18_SevenHexesAwayWarsawStaysQuiet) {
  t.put("ID/1", "WARSAW");
  t.put("1TC/1", "0806");
  const Outcome out = to_turn(t, 2);
  EXPECT_FALSE(has_event(out, game::Event::UPRISING));
  EXPECT_EQ(header_uprising(), "not started");
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Uprising, Rule18_OnlyTheEndOfATurnCounts) {
  t.put("1TC/1", "0806");
  t.begin_phase(0, "1TC");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0706"})));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0806"})));
  EXPECT_EQ(header_uprising(), "not started");
  to_turn(t, 2);
  EXPECT_EQ(header_uprising(), "not started");
}

TEST_F(Uprising, Rule18_TheRisingTakesAStepFromAUnitInWarsaw) {
  t.put("ID/1", "WARSAW");
  t.put("PzA/1", "WARSAW");
  rise();
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_STEP_LOSS);
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/1", "PzA/1"}), game::MALFORMED));
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/2"}), game::NOT_ALLOWED));  // not in Warsaw
  EXPECT_TRUE(Rejected(t, Side::German, done_order(), game::WRONG_ORDER_KIND));
  const Outcome out = t.order(Side::German, choose_order({"PzA/1"}));
  ASSERT_TRUE(Accepted(out));
  EXPECT_TRUE(has_event(out, game::Event::STEP_LOST));
  EXPECT_EQ(hits(t, "PzA/1"), 1);
  EXPECT_EQ(hits(t, "ID/1"), 0);
  EXPECT_EQ(soviet_vp(), 0);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Uprising, Rule18_WithNoUnitInWarsawTheSovietGainsAPoint) {
  const Outcome out = rise();
  EXPECT_TRUE(has_event(out, game::Event::VICTORY_POINTS));
  EXPECT_EQ(t.s.soviet_bonus_vp, 1);
  EXPECT_EQ(soviet_vp(), 1);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Uprising, Rule18_TheBridgesAreClosedOnTheFirstTurnOfTheRising) {
  t.put("ID/1", "WARSAW");
  t.put("PzB/1", "WARSAW");
  t.put("PzA/1", "0106");
  rise();
  ASSERT_TRUE(Accepted(t.order(Side::German, choose_order({"ID/1"}))));
  t.begin_phase(1);
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzA/1"}, {"WARSAW"}), game::WARSAW_RESTRICTED));
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzB/1"}, {"0106"}), game::WARSAW_RESTRICTED));
  // Off-map movement is allowed.
  EXPECT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"A"})));
}

TEST_F(Uprising, Rule18_SuppressionMarksDeployedUnitsMovedAndAddsOnePerTwoUnits) {
  for (const auto& u : {"ID/1", "ID/2", "PzA/1"}) t.put(u, "WARSAW");
  rise_then_next_turn("ID/1");
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::UPRISING_SUPPRESSION);
  EXPECT_EQ(d.side, Side::German);
  EXPECT_EQ(candidates(t).size(), 3u);
  t.rng = Prng::from_seed(7);
  const Outcome out = t.order(Side::German, suppress_order({"ID/1", "ID/2"}));
  ASSERT_TRUE(Accepted(out));
  const int die = uprising_die(out);
  ASSERT_GE(die, 1);
  ASSERT_LE(die, 6);
  const size_t box = static_cast<size_t>(std::min(die + 1, 6) - 1);  // boxes for rolls 1..6
  EXPECT_EQ(t.s.uprising_box, static_cast<int>(box));
  EXPECT_EQ(header_uprising(), t.sc().uprising_boxes[box].label);
  EXPECT_TRUE(t.s.has(t.unit("ID/1"), kMoved));
  EXPECT_TRUE(t.s.has(t.unit("ID/2"), kMoved));
  // Deployed units have been activated for this turn.
  t.begin_phase(1);
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"ID/2"}, {"A"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(Uprising, Rule18_OneDeployedUnitAddsNothing) {
  for (const auto& u : {"ID/1", "ID/2", "PzA/1"}) t.put(u, "WARSAW");
  rise_then_next_turn("ID/1");
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_SUPPRESSION);
  const Outcome out = t.order(Side::German, suppress_order({"ID/1"}));
  ASSERT_TRUE(Accepted(out));
  const int die = uprising_die(out);
  EXPECT_EQ(t.s.uprising_box, die - 1);
  EXPECT_TRUE(t.s.has(t.unit("ID/1"), kMoved));
}

TEST_F(Uprising, Rule14_ReservesInWarsawCannotSuppress) {
  for (const auto& u : {"ID/1", "ID/2"}) t.put(u, "WARSAW");
  t.s.units[static_cast<size_t>(t.unit("ID/2"))].reserve = 1;
  t.s.uprising = counterattack::Uprising::Rising;  // Warsaw rose last turn
  to_turn(t, 3);
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_SUPPRESSION);
  EXPECT_EQ(candidates(t), std::vector<std::string>{"ID/1"});
  EXPECT_TRUE(Rejected(t, Side::German, suppress_order({"ID/1", "ID/2"}), game::NOT_ALLOWED));
}

// Turn 3 of a rising, three unmoved German units in Warsaw and one on the
// Praga bridge hex, the die rolled with no units deployed.
TEST_F(Uprising, Rule18_TheTrackBoxFollowsTheDie) {
  for (const auto& u : {"ID/1", "ID/2", "PzA/1"}) t.put(u, "WARSAW");
  t.put("PzB/1", "0106");
  rise_then_next_turn("ID/1");
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_SUPPRESSION);
  const GameState before = t.s;
  std::set<int> seen;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    t.s = before;
    t.rng = Prng::from_seed(seed);
    const Outcome out = t.done(Side::German);
    ASSERT_TRUE(Accepted(out));
    const int die = uprising_die(out);
    ASSERT_GE(die, 1);
    ASSERT_LE(die, 6);
    seen.insert(die);
    const auto& box = t.sc().uprising_boxes[static_cast<size_t>(die - 1)];
    EXPECT_EQ(t.s.uprising_box, die - 1);
    EXPECT_EQ(header_uprising(), box.label);
    const Decision d = t.decision();
    switch (box.effect) {
      case data::NO_MOVE:
        EXPECT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
        EXPECT_FALSE(t.engine.in_supply(t.s, t.unit("ID/2")));  // Warsaw is no source
        t.begin_phase(1);
        EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzA/1"}, {"0106"}), game::WARSAW_RESTRICTED));
        EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzB/1"}, {"WARSAW"}), game::WARSAW_RESTRICTED));
        EXPECT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"A"})));
        break;
      case data::STEP_LOSS:
        EXPECT_EQ(d.kind, game::Decision::UPRISING_STEP_LOSS);
        EXPECT_EQ(d.count, 1);
        break;
      case data::BRIDGE_COST:
        EXPECT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
        EXPECT_TRUE(t.engine.in_supply(t.s, t.unit("ID/2")));
        t.begin_phase(1);
        // 3 MP for the bridge, +2.
        EXPECT_TRUE(t.reachable({"ID/2"}).count("0106:10")) << ::testing::PrintToString(t.reachable({"ID/2"}));
        break;
      case data::UNITS_MOVED:
        EXPECT_EQ(d.kind, game::Decision::UPRISING_UNITS_MOVED);
        EXPECT_EQ(d.count, box.amount);
        break;
      default:
        EXPECT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
        t.begin_phase(1);
        EXPECT_TRUE(t.reachable({"ID/2"}).count("0106:6"));
        break;
    }
  }
  EXPECT_EQ(seen.size(), 6u);
}

TEST_F(Uprising, Rule18_UnitsMovedBoxPinsTheChosenUnits) {
  for (const auto& u : {"ID/1", "ID/2", "PzA/1"}) t.put(u, "WARSAW");
  rise_then_next_turn("ID/1");
  const GameState before = t.s;
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 100 && !found; ++seed) {
    t.s = before;
    t.rng = Prng::from_seed(seed);
    found = uprising_die(t.done(Side::German)) == 4;
  }
  ASSERT_TRUE(found);
  EXPECT_EQ(t.engine.view(t.s, Viewer::Soviet).header().uprising(), "2 UNITS MOVED");
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_UNITS_MOVED);
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/1"}), game::MALFORMED));
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/1", "PzB/1"}), game::NOT_ALLOWED));
  ASSERT_TRUE(Accepted(t.order(Side::German, choose_order({"ID/1", "PzA/1"}))));
  EXPECT_TRUE(t.s.has(t.unit("ID/1"), kMoved));
  EXPECT_TRUE(t.s.has(t.unit("PzA/1"), kMoved));
  EXPECT_FALSE(t.s.has(t.unit("ID/2"), kMoved));
  EXPECT_EQ(t.s.soviet_bonus_vp, 0);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Uprising, Rule18_UnitsMovedBoxWithTooFewUnitsGivesTheSovietAPoint) {
  t.put("PzA/1", "WARSAW");
  rise_then_next_turn("PzA/1");
  const GameState before = t.s;
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 100 && !found; ++seed) {
    t.s = before;
    t.rng = Prng::from_seed(seed);
    ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_SUPPRESSION);
    const Outcome out = t.done(Side::German);
    found = uprising_die(out) == 4;  // "2 UNITS MOVED"
  }
  ASSERT_TRUE(found);
  EXPECT_TRUE(t.s.has(t.unit("PzA/1"), kMoved));
  EXPECT_EQ(t.s.soviet_bonus_vp, 1);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Uprising, Rule18_StepLossBoxWithNobodyInWarsawGivesTheSovietAPoint) {
  rise();  // nobody in Warsaw: +1 already
  ASSERT_EQ(t.s.soviet_bonus_vp, 1);
  t.s.turn = 2;
  const GameState before = t.s;
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 100 && !found; ++seed) {
    t.s = before;
    t.rng = Prng::from_seed(seed);
    t.begin_phase(5);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
    const Outcome out = t.done(Side::German);
    found = uprising_die(out) == 2;  // "Step loss"
  }
  ASSERT_TRUE(found);
  EXPECT_EQ(t.s.turn, 3);
  EXPECT_EQ(t.s.soviet_bonus_vp, 2);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

// ---------------------------------------------------------------------------
// 19 Magnuszew bridgehead
// ---------------------------------------------------------------------------

class Magnuszew : public ::testing::Test {
 protected:
  std::string artillery_state(const std::string& id) const {
    const auto v = t.engine.view(t.s, Viewer::Spectator);
    for (const auto& m : v.artillery()) {
      if (m.id() == id) return m.state();
    }
    return "";
  }
  Table t;
};

TEST_F(Magnuszew, Rule19_NothingIsSentBeforeTheSixthTurn) {
  t.put("PzA/1", "WARSAW");
  to_turn(t, 5);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(t.s.soviet_bonus_vp, 0);
}

TEST_F(Magnuszew, Rule19_OnTurnSixAnArmoredUnitGoesFromWarsaw) {
  t.put("PzA/1", "WARSAW");
  t.put("ID/1", "WARSAW");
  to_turn(t, 6);
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::MAGNUSZEW);
  EXPECT_EQ(d.side, Side::German);
  const auto c = candidates(t);
  EXPECT_TRUE(has(c, "PzA/1"));
  EXPECT_TRUE(has(c, "ID/1"));
  EXPECT_TRUE(has(c, "PzA-art"));
  EXPECT_TRUE(t.engine.view(t.s, Viewer::Soviet).decision().candidates().empty());
  const Outcome out = t.order(Side::German, choose_order({"PzA/1"}));
  ASSERT_TRUE(Accepted(out));
  EXPECT_TRUE(has_event(out, game::Event::WITHDRAWN));
  EXPECT_EQ(where(t, "PzA/1"), kWithdrawn);
  const auto v = t.engine.view(t.s, Viewer::Soviet);
  EXPECT_EQ(std::vector<std::string>(v.withdrawn().begin(), v.withdrawn().end()), std::vector<std::string>{"PzA/1"});
  EXPECT_EQ(t.s.soviet_bonus_vp, 0);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
}

TEST_F(Magnuszew, Rule19_AReducedUnitWillDo) {
  t.put("PzA/2", "WARSAW");  // mechanized counts as armored
  t.s.units[static_cast<size_t>(t.unit("PzA/2"))].hits = 1;
  to_turn(t, 6);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);  // 16 comes first
  ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  EXPECT_TRUE(Accepted(t.order(Side::German, choose_order({"PzA/2"}))));
  EXPECT_EQ(t.s.soviet_bonus_vp, 0);
}

TEST_F(Magnuszew, Rule19_TheUnitTypeMustMatch) {
  t.put("PzA/1", "WARSAW");
  t.put("ID/1", "WARSAW");
  to_turn(t, 6);
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/1"}), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"Stuka-1"}), game::NOT_ALLOWED));
}

TEST_F(Magnuszew, Rule19_SendingLessThanPossibleIsRejected) {
  t.put("PzA/1", "WARSAW");
  to_turn(t, 6);
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({}), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::German, done_order(), game::WRONG_ORDER_KIND));
}

TEST_F(Magnuszew, Rule19_SendingMoreThanAskedIsRejected) {
  t.put("PzA/1", "WARSAW");
  t.put("PzA/3", "WARSAW");
  to_turn(t, 6);
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"PzA/1", "PzA/3"}), game::NOT_ALLOWED));
}

TEST_F(Magnuszew, Rule19_OnlyUnitsInsideWarsawCanBeSent) {
  t.put("PzA/1", "WARSAW");
  t.put("PzB/1", "0106");  // on the Praga bank
  to_turn(t, 6);
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  EXPECT_FALSE(has(candidates(t), "PzB/1"));
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"PzB/1"}), game::NOT_ALLOWED));
}

TEST_F(Magnuszew, Rule19_OnTurnSevenInfantryAndAnArtilleryMarker) {
  t.put("ID/1", "WARSAW");
  t.put("PzA/1", "WARSAW");
  to_turn(t, 7);
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/1"}), game::NOT_ALLOWED));  // the marker is missing
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"PzA/1", "PzA-art"}), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::German, choose_order({"ID/1", "1TC-art"}), game::NOT_ALLOWED));  // Soviet
  ASSERT_TRUE(Accepted(t.order(Side::German, choose_order({"ID/1", "PzA-art"}))));
  EXPECT_EQ(where(t, "ID/1"), kWithdrawn);
  EXPECT_EQ(where(t, "PzA/1"), t.sc().warsaw());
  EXPECT_EQ(artillery_state("PzA-art"), "removed");
  EXPECT_EQ(t.s.soviet_bonus_vp, 0);
}

// Consigli di gioco: the unit recovered each turn can meet a one-unit withdrawal.
TEST_F(Magnuszew, Rule19_AUnitRecoveredIntoWarsawCanGoTheSameTurn) {
  t.put("PzB/1", "eliminated");
  to_turn(t, 6);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  ASSERT_TRUE(Accepted(t.order(Side::German, recover_order("PzB/1", "WARSAW"))));
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  ASSERT_TRUE(Accepted(t.order(Side::German, choose_order({"PzB/1"}))));
  EXPECT_EQ(where(t, "PzB/1"), kWithdrawn);
  EXPECT_EQ(t.s.soviet_bonus_vp, 0);
}

TEST_F(Magnuszew, Rule19_WhenNothingCanBeSentTheSovietGainsAPoint) {
  t.put("ID/1", "WARSAW");  // infantry only, the track asks for armor
  t.put("PzA/1", "0106");
  const Outcome out = to_turn(t, 6);
  EXPECT_TRUE(has_event(out, game::Event::VICTORY_POINTS));
  EXPECT_EQ(t.s.soviet_bonus_vp, 1);
  EXPECT_EQ(t.engine.victory_points(t.s, Side::Soviet), 1);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(where(t, "ID/1"), t.sc().warsaw());
}

TEST_F(Magnuszew, Rule19_AShortfallGivesTheSovietAPoint) {
  t.put("ID/1", "WARSAW");
  t.s.artillery[0] = MarkerState::Removed;  // 1TC-art
  t.s.artillery[1] = MarkerState::Removed;  // PzA-art: gone from play
  to_turn(t, 7);
  ASSERT_EQ(t.decision().kind, game::Decision::MAGNUSZEW);
  ASSERT_TRUE(Accepted(t.order(Side::German, choose_order({"ID/1"}))));
  EXPECT_EQ(t.s.soviet_bonus_vp, 1);
}

// ---------------------------------------------------------------------------
// 5 Sequence of play: each turn's administrative phase is dated on the Game Turn Track
// ---------------------------------------------------------------------------

std::string phase_line(const Outcome& out) {
  for (const auto& e : out.events)
    if (e.kind() == game::Event::PHASE && e.text().find("administrative phase") != std::string::npos) return e.text();
  return std::string();
}

TEST(TurnTrack, Rule5_ATurnAfterTheThirtyFirstOfJulyIsDatedInAugust) {
  Table t(test_scenario(), revision_bits(5));
  EXPECT_EQ(phase_line(to_turn(t, 5)), "Turn 5 (31 July 1944): administrative phase.");
  EXPECT_EQ(phase_line(to_turn(t, 6)), "Turn 6 (1 August 1944): administrative phase.");
  EXPECT_EQ(phase_line(to_turn(t, 10)), "Turn 10 (5 August 1944): administrative phase.");
}

// Games begun before revision 5 keep the line they were played with.
TEST(TurnTrack, Rule5_BeforeRevision5TheDayCountsOnPastJuly) {
  Table t(test_scenario(), revision_bits(4));
  EXPECT_EQ(phase_line(to_turn(t, 5)), "Turn 5 (31 July): administrative phase.");
  EXPECT_EQ(phase_line(to_turn(t, 6)), "Turn 6 (32): administrative phase.");
}

// 5 (revision 6): the line that opens the turn's first activation phase names it; it
// read "Administrative" before, the phase whose line comes just before it.
TEST(TurnTrack, Rule5_TheFirstActivationPhaseOfATurnIsNamed) {
  for (const int revision : {5, 6}) {
    Table t(test_scenario(), revision_bits(revision));
    std::string phases;
    for (const auto& e : to_turn(t, 2).events) {
      if (e.kind() == game::Event::PHASE) phases += e.text() + "\n";
    }
    const std::string first = revision == 6 ? "Soviet 1" : "Administrative";
    EXPECT_EQ(phases, "Turn 2 (28 July 1944): administrative phase.\n" + first + " activation phase.\n")
        << "revision " << revision;
  }
}

}  // namespace
}  // namespace counterattack::testing

