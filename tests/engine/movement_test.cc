// 6 Movement, 7 Stacking, 8 Prepared defense, 13 Armored train, 14 Reserves (movement),
// 17 Reinforcements. Expected sets and costs are worked out by hand from the test map
// (fixture.cc); costs are in half MP.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fixture.h"
#include "view_delta.h"

namespace counterattack::testing {
namespace {

using Moves = std::vector<std::pair<std::string, std::string>>;

game::Order break_order(const Moves& moves) {
  game::Order o;
  auto* bc = o.mutable_break_contact();
  for (const auto& [unit, to] : moves) {
    auto* m = bc->add_moves();
    m->set_unit(unit);
    m->set_to(to);
  }
  return o;
}

game::Order prepared_order(const std::vector<std::string>& units) {
  game::Order o;
  for (const auto& u : units) o.mutable_prepared_defense()->add_units(u);
  return o;
}

game::Order lift_order(const std::vector<std::string>& units) {
  game::Order o;
  for (const auto& u : units) o.mutable_lift_prepared_defense()->add_units(u);
  return o;
}

game::Order reserve_order(const std::vector<std::string>& units) {
  game::Order o;
  for (const auto& u : units) o.mutable_place_reserve()->add_units(u);
  return o;
}

game::Order corps_order(const std::string& corps) {
  game::Order o;
  o.mutable_activate_corps()->set_corps(corps);
  return o;
}

class Movement : public ::testing::Test {
 protected:
  void SetUp() override {
    t.clear_board();
    t.begin_phase(0, "1TC");
  }

  std::string at(const std::string& unit) const {
    return t.name(t.s.units[static_cast<size_t>(t.unit(unit))].loc);
  }
  int used(const std::string& unit) const {
    return t.s.units[static_cast<size_t>(t.unit(unit))].mp_used;
  }
  int left(const std::string& unit) const {
    return t.engine.movement_half(t.s, t.unit(unit)) - used(unit);
  }
  bool has(const std::string& unit, UnitFlag f) const { return t.s.has(t.unit(unit), f); }
  std::vector<int> ids(const std::vector<std::string>& units) const {
    std::vector<int> out;
    for (const auto& u : units) out.push_back(t.unit(u));
    return out;
  }
  ::testing::AssertionResult Rejected(Side who, const game::Order& o, game::RejectCode code) {
    return counterattack::testing::Rejected(t, who, o, code);
  }
  void done(Side side, int steps) {
    for (int i = 0; i < steps; ++i) ASSERT_TRUE(Accepted(t.done(side))) << "done " << i;
  }
  // German reinforcements waiting at entry point A, put in reserve in the first German phase,
  // which goes on to its reserves step.
  void german_reserves_at_a(const std::vector<std::string>& units) {
    t.begin_phase(1);
    for (const auto& u : units) t.put(u, "A");
    ASSERT_TRUE(Accepted(t.order(Side::German, reserve_order(units))));
    done(Side::German, 3);
    ASSERT_EQ(t.decision().kind, game::Decision::RESERVES);
  }

  Table t;
};

// The same set-up, named after the rule section a test covers.
class Stacking : public Movement {};
class PreparedDefense : public Movement {};
class ArmoredTrain : public Movement {};
class Reserves : public Movement {};
class Reinforcements : public Movement {};
// The rules of games begun since revision 5.
class Revision5 : public Movement {
 protected:
  void SetUp() override {
    Movement::SetUp();
    t.s.options |= revision_bits(5);
  }
};

// The rules of games begun since revision 6.
class Revision6 : public Movement {
 protected:
  void SetUp() override {
    Movement::SetUp();
    t.s.options |= revision_bits(6);
  }
};

// The log of an outcome as `v` reads it, one event a line.
std::string reads(const Outcome& out, Viewer v) {
  std::string text;
  for (const auto& e : events_for(out.events, v)) text += e.text() + "\n";
  return text;
}

// ---------------------------------------------------------------------------
// 6 Movement: terrain, roads, streams
// ---------------------------------------------------------------------------

TEST_F(Movement, Rule6_AUnitMayAlwaysMoveOneHex) {
  t.put("1TC/3", "0404");  // movement 3, disorganized: 2 MP
  t.s.set(t.unit("1TC/3"), kDisorganized);
  t.put("1TC/2", "0502");
  // Woods cost 2 MP each: woods, woods, clear, clear (6 MP) is too much for 1TC/2 (5 MP)...
  EXPECT_FALSE(t.move(Side::Soviet, {"1TC/2"}, {"0602", "0603", "0703", "0803"}).accepted);
  // ...and the marsh (3 MP) is more than 1TC/3 has, but one hex is always possible.
  EXPECT_TRUE(t.move(Side::Soviet, {"1TC/3"}, {"0405"}).accepted);
  EXPECT_FALSE(t.move(Side::Soviet, {"1TC/3"}, {"0406"}).accepted);
}

TEST_F(Movement, Rule6_OneHexAllowanceDoesNotStretchToTwoHexes) {
  t.put("1TC/3", "0304");  // 2 MP when disorganized
  t.s.set(t.unit("1TC/3"), kDisorganized);
  // Road (half a point) then marsh (3 MP): more than 2 MP, and two hexes.
  EXPECT_TRUE(
      Rejected(Side::Soviet, move_order({"1TC/3"}, {"0404", "0405"}), game::NOT_ENOUGH_MOVEMENT));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/3"}, {"0404"})));
  EXPECT_EQ(used("1TC/3"), 1);
  // Going on is no longer a first hex.
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/3"}, {"0405"}), game::NOT_ENOUGH_MOVEMENT));
}

// A path that costs too much says what each of its hexes costs, so that the player sees where the points go.
TEST_F(Movement, Rule6_APathThatCostsTooMuchNamesTheCostOfEachHex) {
  t.put("1TC/3", "0304");  // 2 MP when disorganized
  t.s.set(t.unit("1TC/3"), kDisorganized);
  const Outcome out = t.move(Side::Soviet, {"1TC/3"}, {"0404", "0405"});
  ASSERT_FALSE(out.accepted);
  EXPECT_EQ(out.rejection.reason, "1TC/3 has 2 MP left; the path costs 3.5 (0404 0.5, 0405 3).");
}

TEST_F(Movement, Rule6_TerrainCostsFromTheTec) {
  t.put("1TC/1", "0101");
  t.put("1TC/R", "0601");
  t.put("2TA/1", "0404");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));  // clear: 1 MP
  EXPECT_EQ(used("1TC/1"), 2);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0602"})));  // woods: 2 MP
  EXPECT_EQ(used("1TC/R"), 4);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0405"})));  // marsh: 3 MP, off the road
  EXPECT_EQ(used("2TA/1"), 6);
  EXPECT_EQ(at("2TA/1"), "0405");
}

TEST_F(Movement, Rule6_RoadNegatesTerrainOnlyFromAHexOnTheSameRoad) {
  t.put("1TC/1", "0504");  // forest road junction
  t.put("1TC/R", "0403");  // clear, no road
  t.put("2TA/1", "0305");  // railway, next to the east road at 0404
  // woods along the road
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0503", "0502", "0501"})));
  EXPECT_EQ(used("1TC/1"), 3);
  // same woods, not from the road
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0503"})));
  EXPECT_EQ(used("1TC/R"), 4);
  // railway to road: clear; then road
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0404", "0504"})));
  EXPECT_EQ(used("2TA/1"), 2 + 1);
}

TEST_F(Movement, Rule6_StreamCostsOneMoreUnlessTheRoadCrossesIt) {
  t.put("1TC/1", "0704");
  t.put("1TC/R", "0705");
  t.put("2TA/1", "0706");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0804"})));  // the road bridges the stream
  EXPECT_EQ(used("1TC/1"), 1);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0805"})));  // across the stream: 1 + 1 MP
  EXPECT_EQ(used("1TC/R"), 4);
  // 0706-0805 is not a stream hexside (the brook runs 0706-0806): clear only.
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0805"})));
  EXPECT_EQ(used("2TA/1"), 2);
}

// A hexside type that no road bridges (the TEC's negated_by_road false): a road
// running up to it stops there, and crossing costs the terrain and the hexside.
TEST_F(Movement, Rule6_ARoadDoesNotCrossAHexsideItCannotBridge) {
  auto files = test_scenario_files();
  const std::string bridged = "negated_by_road: true", unbridged = "negated_by_road: false";
  const auto at = files["tec"].find(bridged);
  ASSERT_NE(at, std::string::npos);
  files["tec"].replace(at, bridged.size(), unbridged);
  const auto loaded = load_scenario(files);
  ASSERT_TRUE(loaded.ok());
  Table u(loaded.scenario);
  u.clear_board();
  u.begin_phase(0, "1TC");
  u.put("1TC/1", "0704");
  ASSERT_TRUE(Accepted(u.move(Side::Soviet, {"1TC/1"}, {"0804"})));
  EXPECT_EQ(u.s.units[static_cast<size_t>(u.unit("1TC/1"))].mp_used, 4) << "clear 1 MP and the stream 1 MP, not the road's half";
}

// Perft: 1TC/3 (3 MP) on the east road at the stream bridge, nobody else on the map.
TEST_F(Movement, Rule6_ReachableFromTheRoadAtTheStreamBridge) {
  t.put("1TC/3", "0704");
  // clang-format off
  const std::set<std::string> expected = {
      // along the road, half a point a hex, both ways and up the forest road
      "0604:1", "0504:2", "0404:3", "0304:4", "0204:5", "0104:6", "0804:1", "0904:2", "1004:3",
      "0503:3", "0502:4", "0501:5",
      // clear hexes next to the road
      "0703:2", "0705:2", "0803:2", "0605:3", "0505:3", "0805:3", "0905:3", "0403:4", "0702:4",
      "0802:4", "0903:4", "1003:4", "0706:4", "0305:5", "0402:5", "0506:5", "0606:5", "0806:5",
      "0906:5", "1005:5", "0203:6", "0303:6", "0401:6", "0601:6", "0701:6", "0707:6", "0801:6",
      "0902:6", "1002:6",
      // woods: 0603 straight from the start, 0602 over 0703
      "0603:4", "0602:6",
  };
  // clang-format on
  EXPECT_EQ(t.reachable({"1TC/3"}), expected);
}

// Perft: 1TC/3 in the woods on the forest road, in the ZOC of ID/2 at 0602.
TEST_F(Movement, Rule6_ReachableFromTheWoodsNextToAnEnemy) {
  t.put("1TC/3", "0503");
  t.put("ID/2", "0602");  // ZOC 0601 0603 0702 0703 0502 0503
  // clang-format off
  const std::set<std::string> expected = {
      // ZOC to ZOC: road + 1, woods + 1, and stop
      "0502:3", "0603:6",
      // leaving the ZOC costs nothing extra
      "0504:1", "0402:2", "0403:2", "0604:2", "0404:2", "0505:3", "0704:3", "0304:3",
      "0401:4", "0302:4", "0303:4", "0605:4", "0705:4", "0305:4", "0804:4", "0204:4",
      "0506:5", "0803:5", "0203:5", "0904:5", "0104:5",
      "0501:6", "0301:6", "0201:6", "0202:6", "0606:6", "0706:6", "0306:6", "0205:6",
      "0805:6", "0905:6", "0105:6", "1004:6",
  };
  // clang-format on
  EXPECT_EQ(t.reachable({"1TC/3"}), expected);
}

// Perft: German ID/1 (5 MP) in Warsaw: over the Praga bridge, or off the map to A.
TEST_F(Movement, Rule6_ReachableFromWarsaw) {
  t.begin_phase(1);
  t.put("ID/1", "WARSAW");
  // clang-format off
  const std::set<std::string> expected = {
      "0106:6", "0105:8", "0107:8", "0205:8", "0206:8", "0104:10", "0108:10", "0204:10",
      "0207:10", "0305:10", "0306:10", "0307:10",
      "A:8", "1001:10", "1002:10", "0901:10", "0902:10",
  };
  // clang-format on
  EXPECT_EQ(t.reachable({"ID/1"}), expected);
  // Disorganized (3 MP): only the bridge; the off-map move needs 4 MP.
  t.s.set(t.unit("ID/1"), kDisorganized);
  EXPECT_EQ(t.reachable({"ID/1"}), (std::set<std::string>{"0106:6"}));
}

TEST_F(Movement, Rule6_NoEnteringEnemyOccupiedHexes) {
  t.put("1TC/1", "0201");
  t.put("ID/1", "0301");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0301"}), game::ENEMY_OCCUPIED));
  EXPECT_TRUE(
      Rejected(Side::Soviet, move_order({"1TC/1"}, {"0301", "0401"}), game::ENEMY_OCCUPIED));
  EXPECT_EQ(t.reachable_hexes({"1TC/1"}).count("0301"), 0u);
}

// ---------------------------------------------------------------------------
// 6 Zones of control
// ---------------------------------------------------------------------------

TEST_F(Movement, Rule6_ZocCostsOneMoreAndStops) {
  t.put("1TC/1", "0105");
  t.put("ID/1", "0202");  // ZOC 0201 0203 0302 0303 0102 0103
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0104", "0103", "0102"}),
                       game::MUST_STOP_IN_ZOC));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0104", "0103"})));
  EXPECT_EQ(used("1TC/1"), 2 + 2 + 2);                     // clear, clear + ZOC
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);  // infantry cannot break contact
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0104"}), game::MUST_STOP_IN_ZOC));
  EXPECT_EQ(at("1TC/1"), "0103");
}

TEST_F(Movement, Rule6_LeavingAZocCostsNothingExtra) {
  t.put("1TC/1", "0103");
  t.put("ID/1", "0202");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0104", "0105"})));
  EXPECT_EQ(used("1TC/1"), 4);
}

TEST_F(Movement, Rule6_ZocToZocIsAllowed) {
  t.put("1TC/1", "0103");
  t.put("ID/1", "0202");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0102"})));
  EXPECT_EQ(used("1TC/1"), 4);
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0101"}), game::MUST_STOP_IN_ZOC));
}

// ---------------------------------------------------------------------------
// 6 Who moves
// ---------------------------------------------------------------------------

TEST_F(Movement, Rule6_UnitsMoveOneAtATime) {
  t.put("1TC/1", "0101");
  t.put("1TC/R", "0108");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0301"})));  // still the same move
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0208"})));  // another unit starts
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0401"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(has("1TC/1", kMoved));
  EXPECT_EQ(at("1TC/1"), "0301");
  EXPECT_EQ(used("1TC/1"), 4);
}

// A path given again, or from where the units were, is told where the units
// are: "not adjacent" alone reads as a fault of the map.
TEST_F(Movement, Rule6_APathNotStartingNextToTheUnitsSaysWhereTheyAre) {
  t.put("1TC/1", "0101");
  t.put("1TC/R", "0108");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201", "0301", "0401"})));
  const Outcome again = t.move(Side::Soviet, {"1TC/1"}, {"0201", "0301", "0401"});
  ASSERT_FALSE(again.accepted);
  EXPECT_EQ(again.rejection.code, game::ILLEGAL_PATH);
  EXPECT_EQ(again.rejection.reason,
            "1TC/1 is at 0401, where it has already moved this phase: the path goes on from there, and 0201 is not adjacent "
            "to 0401 (rule 6).");
  EXPECT_EQ(at("1TC/1"), "0401");
  EXPECT_EQ(used("1TC/1"), 6);

  const Outcome elsewhere = t.move(Side::Soviet, {"1TC/R"}, {"0308"});
  ASSERT_FALSE(elsewhere.accepted);
  EXPECT_EQ(elsewhere.rejection.code, game::ILLEGAL_PATH);
  EXPECT_EQ(elsewhere.rejection.reason,
            "1TC/R is at 0108: a path starts from where the units are, and 0308 is not adjacent to 0108 (rule 6).");

  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0208"})));
  const Outcome done_moving = t.move(Side::Soviet, {"1TC/1"}, {"0501"});
  ASSERT_FALSE(done_moving.accepted);
  EXPECT_EQ(done_moving.rejection.code, game::UNIT_NOT_ACTIVE);
  EXPECT_EQ(done_moving.rejection.reason,
            "1TC/1 has already moved in this phase (rule 6: a unit's move is over once another begins).");
}

TEST_F(Movement, Rule6_AMovedUnitCannotMoveAgainThisTurn) {
  t.put("2TA/1", "0101");  // independent: moves with any corps
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0201"})));
  done(Side::Soviet, 4);  // Soviet 1 ends
  done(Side::German, 4);  // German 1 ends
  ASSERT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(has("2TA/1", kMoved));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"2TA/1"}, {"0301"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(Movement, Rule6_UnitsOfACorpsNotActiveCannotMove) {
  t.put("2TC/1", "0101");
  t.put("2TA/1", "0103");
  t.put("47A/1", "0105");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"2TC/1"}, {"0201"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"47A/1"}, {"0205"}), game::UNIT_NOT_ACTIVE));
  // independents go with any corps
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0203"})));
}

TEST_F(Movement, Rule6_OrderFromTheSideNotToDecideChangesNothing) {
  t.put("1TC/1", "0101");
  t.put("PzA/1", "0808");
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/1"}, {"0807"}), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(Side::German, done_order(), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(Side::German, move_order({"1TC/1"}, {"0201"}), game::NOT_YOUR_DECISION));
}

// ---------------------------------------------------------------------------
// 6 Breaking contact
// ---------------------------------------------------------------------------

TEST_F(Movement, Rule6_EnteringTheZocOfAFastGermanAsksHimToBreakContact) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  const Decision d = t.decision();
  EXPECT_EQ(d.kind, game::Decision::BREAK_CONTACT);
  EXPECT_EQ(d.side, Side::German);
  EXPECT_EQ(d.candidates, ids({"PzA/1"}));
  // The Soviet waits for the answer.
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"0802"}), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/1"}, {"0904"}), game::WRONG_ORDER_KIND));
}

// The rule's example: the recon pursues, the panzer breaks contact twice, then stands fast.
TEST_F(Movement, Rule6_BreakContactWorkedExample) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));  // 1 MP + 1 for the ZOC
  EXPECT_EQ(used("1TC/R"), 4);
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "0904"}}))));  // hex A
  EXPECT_EQ(at("PzA/1"), "0904");
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0903"})));  // the pursuit goes on: 2 MP
  EXPECT_EQ(used("1TC/R"), 8);
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "0905"}}))));  // hex B
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0904"})));                // 2 MP more
  EXPECT_EQ(used("1TC/R"), 12);
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({}))));  // stands fast
  EXPECT_EQ(at("PzA/1"), "0905");
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"0804"}), game::MUST_STOP_IN_ZOC));
  EXPECT_EQ(at("1TC/R"), "0904");
  EXPECT_EQ(left("1TC/R"), 12);  // 6 MP left, but the recon stops
}

// 6 (revision 6): the side that stands fast reads it of its own units, counted; the
// other player and the spectators read which side stood, and no count, as a stack
// shows them its top unit alone.
TEST_F(Revision6, Rule6_EachReaderIsToldWhoStandsFast) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  const Outcome out = t.order(Side::German, break_order({}));
  ASSERT_TRUE(Accepted(out));
  EXPECT_EQ(reads(out, Viewer::German), "Your unit stands fast at 0902.\n");
  EXPECT_EQ(reads(out, Viewer::Soviet), "The Germans stand fast at 0902.\n");
  EXPECT_EQ(reads(out, Viewer::Spectator), "The Germans stand fast at 0902.\n");
}

TEST_F(Revision6, Rule6_TwoUnitsStandFastInNumberToTheirOwnerOnly) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.put("PzA/2", "0903");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  ASSERT_EQ(t.decision().candidates, ids({"PzA/1", "PzA/2"}));
  const Outcome out = t.order(Side::German, break_order({}));
  ASSERT_TRUE(Accepted(out));
  EXPECT_EQ(reads(out, Viewer::German), "Your units stand fast at 0902.\n");
  EXPECT_EQ(reads(out, Viewer::Soviet), "The Germans stand fast at 0902.\n");
  EXPECT_EQ(reads(out, Viewer::Spectator), "The Germans stand fast at 0902.\n");
}

// Games begun before revision 6 keep the one line they were played with.
TEST_F(Revision5, Rule6_EveryoneReadsTheEnemyStandsFast) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  const Outcome out = t.order(Side::German, break_order({}));
  ASSERT_TRUE(Accepted(out));
  for (Viewer v : {Viewer::German, Viewer::Soviet, Viewer::Spectator}) {
    EXPECT_EQ(reads(out, v), "The enemy stands fast at 0902.\n");
  }
}

TEST_F(Movement, Rule6_MoverStopsIfAnotherEnemyZocRemains) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.put("ID/1", "0802");  // also next to 0902; cannot break contact
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  EXPECT_EQ(t.decision().candidates, ids({"PzA/1"}));
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "0904"}}))));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"1002"}), game::MUST_STOP_IN_ZOC));
}

TEST_F(Movement, Rule6_MovedGermanUnitsStillBreakContact) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.s.set(t.unit("PzA/1"), kMoved);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  EXPECT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
}

TEST_F(Movement, Rule6_GermanInfantryCannotBreakContact) {
  t.put("1TC/R", "0901");
  t.put("ID/1", "0903");  // movement 5
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"0802"}), game::MUST_STOP_IN_ZOC));
  EXPECT_TRUE(Rejected(Side::German, break_order({{"ID/1", "0904"}}), game::NOT_YOUR_DECISION));
}

TEST_F(Movement, Rule6_BreakContactIsOneHexNotNextToOtherEnemies) {
  // 0903 touches 0902 0904 1002 1003 0802 0803.
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.put("1TC/2", "1004");  // next to 1003 and 0904
  t.put("PzA/2", "0906");  // fast, but not next to 0902
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/1", "1003"}}),
                       game::ILLEGAL_PATH));  // next to 1TC/2
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/1", "0904"}}),
                       game::ILLEGAL_PATH));  // next to 1TC/2
  // Still next to the recon would be no break at all (the example's recon must pursue).
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/1", "0802"}}), game::ILLEGAL_PATH));
  // two hexes
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/1", "0905"}}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/2", "0907"}}),
                       game::NOT_ALLOWED));  // not in contact
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "0803"}}))));
  EXPECT_EQ(at("PzA/1"), "0803");
}

TEST_F(Movement, Rule6_BreakContactNextToEnemiesWhereFriendsHoldTheHex) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.put("1TC/2", "1004");  // next to 0904 and 1003
  t.put("ID/1", "1003");   // a friend holds 1003
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/1", "0904"}}), game::ILLEGAL_PATH));
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "1003"}}))));
  EXPECT_EQ(at("PzA/1"), "1003");
}

TEST_F(Movement, Rule6_OnlyTheFastUnitsOfAStackBreakContact) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.put("ID/1", "0903");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  EXPECT_EQ(t.decision().candidates, ids({"PzA/1"}));
  EXPECT_TRUE(Rejected(Side::German, break_order({{"PzA/1", "0904"}, {"ID/1", "0904"}}),
                       game::NOT_ALLOWED));
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "0904"}}))));
  EXPECT_EQ(at("ID/1"), "0903");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"0802"}), game::MUST_STOP_IN_ZOC));
}

TEST_F(Movement, Rule6_SovietReconBreaksContact) {
  t.put("1TC/R", "0903");
  t.put("PzB/1", "0901");
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"0902"})));
  const Decision d = t.decision();
  EXPECT_EQ(d.kind, game::Decision::BREAK_CONTACT);
  EXPECT_EQ(d.side, Side::Soviet);
  EXPECT_EQ(d.candidates, ids({"1TC/R"}));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, break_order({{"1TC/R", "0904"}}))));
  // No ZOC left at 0902: the panzer goes on.
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"0802"})));
  EXPECT_EQ(used("PzB/1"), 2 + 2 + 2);
}

TEST_F(Movement, Rule6_OtherSovietUnitsBreakContactOnlyWithRedArmyFlexibility) {
  for (const bool flexible : {false, true}) {
    SCOPED_TRACE(flexible ? "Red Army Flexibility" : "standard rules");
    Table u(test_scenario(), flexible ? kRedArmyFlexibility : 0u);
    u.clear_board();
    u.begin_phase(1);
    u.put("1TC/1", "0903");  // armor, movement 12
    u.put("1TC/2", "0802");  // infantry, movement 5
    u.put("PzB/1", "0901");
    ASSERT_TRUE(Accepted(u.move(Side::German, {"PzB/1"}, {"0902"})));
    const Decision d = u.decision();
    if (flexible) {
      EXPECT_EQ(d.kind, game::Decision::BREAK_CONTACT);
      EXPECT_EQ(d.side, Side::Soviet);
      EXPECT_EQ(d.candidates, std::vector<int>{u.unit("1TC/1")});
      ASSERT_TRUE(Accepted(u.order(Side::Soviet, break_order({{"1TC/1", "0904"}}))));
      // 1TC/2 stays: PzB/1 is still in a ZOC.
      EXPECT_TRUE(counterattack::testing::Rejected(u, Side::German, move_order({"PzB/1"}, {"1002"}),
                                                   game::MUST_STOP_IN_ZOC));
    } else {
      EXPECT_EQ(d.kind, game::Decision::MOVEMENT);
      EXPECT_EQ(d.side, Side::German);
    }
  }
}

// ---------------------------------------------------------------------------
// 6 Warsaw
// ---------------------------------------------------------------------------

TEST_F(Movement, Rule6_PragaBridgeCostsThreeMpBothWays) {
  t.begin_phase(1);
  t.put("PzA/1", "0106");
  t.put("PzA/2", "WARSAW");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"WARSAW"})));
  EXPECT_EQ(used("PzA/1"), 6);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/2"}, {"0106", "0206"})));
  EXPECT_EQ(used("PzA/2"), 6 + 2);
}

TEST_F(Movement, Rule6_SovietUnitsNeverEnterWarsaw) {
  t.put("1TC/1", "0106");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"WARSAW"}), game::WARSAW_RESTRICTED));
  t.put("1TC/1", "0108");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"WARSAW"}), game::WARSAW_RESTRICTED));
  EXPECT_EQ(t.reachable_hexes({"1TC/1"}).count("WARSAW"), 0u);
}

TEST_F(Movement, Rule6_NoStackingLimitInWarsaw) {
  t.begin_phase(1);
  t.put("ID/1", "WARSAW");
  t.put("ID/2", "WARSAW");
  t.put("PzB/1", "WARSAW");
  t.put("PzA/1", "0106");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"WARSAW"})));
  EXPECT_EQ(t.engine.stack_height(t.s, t.loc("WARSAW"), Side::German), 4);
}

TEST_F(Movement, Rule6_JozefowBridgeIsOneWayAndCostsFourMp) {
  t.begin_phase(1);
  t.put("ID/1", "0108");
  t.put("ID/2", "WARSAW");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"WARSAW"})));
  EXPECT_EQ(used("ID/1"), 8);
  EXPECT_EQ(t.s.jozefow, 1);
  // From Warsaw only the Praga bridges lead back: 0108 is 3 + 1 + 1 MP away.
  EXPECT_TRUE(Rejected(Side::German, move_order({"ID/2"}, {"0108"}), game::ILLEGAL_PATH));
  EXPECT_EQ(t.reachable({"ID/2"}).count("0108:10"), 1u);
}

TEST_F(Movement, Rule6_JozefowBridgeNeedsEnoughMovement) {
  t.begin_phase(1);
  t.put("ID/1", "0108");
  t.s.set(t.unit("ID/1"), kDisorganized);  // 3 MP: no "always one hex" over this bridge
  EXPECT_TRUE(Rejected(Side::German, move_order({"ID/1"}, {"WARSAW"}), game::NOT_ENOUGH_MOVEMENT));
  EXPECT_EQ(t.reachable_hexes({"ID/1"}).count("WARSAW"), 0u);
  t.put("ID/2", "0107");  // 5 MP: one hex (1 MP) leaves 4 MP, just enough
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/2"}, {"0108", "WARSAW"})));
  EXPECT_EQ(used("ID/2"), 10);
}

TEST_F(Movement, Rule6_JozefowBridgeIsDestroyedAtTheEndOfTheTurnOfFirstUse) {
  t.begin_phase(5);  // German 3: the last phase of the turn
  t.put("ID/1", "0108");
  t.put("ID/2", "0108");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"WARSAW"})));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/2"}, {"WARSAW"})));  // still there this turn
  EXPECT_EQ(t.s.jozefow, 1);
  done(Side::German, 4);
  EXPECT_EQ(t.s.turn, 2);
  EXPECT_EQ(t.s.jozefow, 2);
  t.begin_phase(1);
  t.put("PzA/1", "0108");
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/1"}, {"WARSAW"}), game::WARSAW_RESTRICTED));
  EXPECT_EQ(t.reachable({"PzA/1"}).count("WARSAW:10"), 1u);  // only round by Praga
}

TEST_F(Movement, Rule18_UprisingClosesThePragaBridgesOnly) {
  t.begin_phase(1);
  t.s.bridges_closed = true;
  t.put("PzA/1", "0106");
  t.put("PzA/2", "WARSAW");
  t.put("PzA/3", "0108");
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/1"}, {"WARSAW"}), game::WARSAW_RESTRICTED));
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/2"}, {"0106"}), game::WARSAW_RESTRICTED));
  EXPECT_TRUE(Accepted(t.move(Side::German, {"PzA/2"}, {"A"})));  // off-map movement is allowed
  EXPECT_TRUE(Accepted(t.move(Side::German, {"PzA/3"}, {"WARSAW"})));  // Józefów is no Praga bridge
}

TEST_F(Movement, Rule18_UprisingRaisesThePragaBridgeCost) {
  t.begin_phase(1);
  t.s.bridge_extra_half = 4;  // "+2 MP"
  t.put("PzA/1", "0106");
  t.put("ID/1", "WARSAW");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"WARSAW"})));
  EXPECT_EQ(used("PzA/1"), 10);
  // ID/1 has 5 MP: the bridge now costs all of them.
  EXPECT_EQ(t.reachable({"ID/1"}),
            (std::set<std::string>{"0106:10", "A:8", "1001:10", "1002:10", "0901:10", "0902:10"}));
}

// ---------------------------------------------------------------------------
// 6 Off-map movement
// ---------------------------------------------------------------------------

TEST_F(Movement, Rule6_OffMapChartCosts) {
  const Scenario& sc = t.sc();
  const auto node = [&](const std::string& l) {
    return static_cast<size_t>(sc.off_map_node(t.loc(l)));
  };
  EXPECT_EQ(sc.off_map_cost[node("A")][node("B")], 10);
  EXPECT_EQ(sc.off_map_cost[node("B")][node("A")], 12);
  EXPECT_EQ(sc.off_map_cost[node("WARSAW")][node("A")], 8);
  EXPECT_EQ(sc.off_map_cost[node("A")][node("WARSAW")], -1);
  t.begin_phase(1);
  t.put("PzA/1", "A");
  t.put("PzA/2", "B");
  t.put("PzA/3", "WARSAW");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"B", "1008"})));  // 5 MP, then clear
  EXPECT_EQ(used("PzA/1"), 12);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/2"}, {"A"})));
  EXPECT_EQ(used("PzA/2"), 12);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/3"}, {"A", "1002"})));
  EXPECT_EQ(used("PzA/3"), 8 + 2);
}

TEST_F(Movement, Rule6_OffMapMovementNeedsEnoughMovement) {
  t.begin_phase(1);
  t.put("ID/1", "B");  // 5 MP: B -> A costs 6
  t.put("ID/2", "A");  // 5 MP: A -> B costs exactly 5
  EXPECT_TRUE(Rejected(Side::German, move_order({"ID/1"}, {"A"}), game::NOT_ENOUGH_MOVEMENT));
  EXPECT_EQ(t.reachable_hexes({"ID/1"}).count("A"), 0u);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/2"}, {"B"})));
  EXPECT_EQ(left("ID/2"), 0);
  // No "one hex" allowance left after moving: it waits at B.
  EXPECT_TRUE(Rejected(Side::German, move_order({"ID/2"}, {"1008"}), game::NOT_ENOUGH_MOVEMENT));
  EXPECT_EQ(at("ID/2"), "B");
}

TEST_F(Movement, Rule6_OffMapOnlyAlongTheChart) {
  t.begin_phase(1);
  t.put("PzA/1", "A");
  t.put("PzA/2", "0901");
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/1"}, {"WARSAW"}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/2"}, {"A"}),
                       game::ILLEGAL_PATH));  // on the map: stays
}

TEST_F(Movement, Rule6_SovietUnitsCannotMoveOffMap) {
  t.put("1TC/1", "S1");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"A"}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"B"}), game::ILLEGAL_PATH));
  const auto r = t.reachable_hexes({"1TC/1"});
  EXPECT_EQ(r.count("A") + r.count("B") + r.count("WARSAW"), 0u);
}

// The rule's example on the real map: turn 4, first German phase, the 5SS at F.
TEST(MovementCounterattack, Rule6_OffMapWorkedExample) {
  Table t(default_scenario());
  const Scenario& sc = t.sc();
  const auto node = [&](const std::string& l) {
    return static_cast<size_t>(sc.off_map_node(t.loc(l)));
  };
  EXPECT_EQ(sc.off_map_cost[node("F")][node("E")], 10);  // 5 MP
  EXPECT_EQ(sc.off_map_cost[node("E")][node("D")], 12);  // 6 MP
  t.clear_board();
  t.s.turn = 4;
  for (const char* u : {"5SS/Germania-I", "5SS/Westland-I", "5SS/II-5", "5SS/Germania-III"})
    t.put(u, "F");
  t.begin_phase(1);
  const auto used = [&](const char* u) {
    return t.s.units[static_cast<size_t>(t.unit(u))].mp_used;
  };
  const auto left = [&](const char* u) { return t.engine.movement_half(t.s, t.unit(u)) - used(u); };
  EXPECT_EQ(left("5SS/Germania-I"), 20);
  EXPECT_EQ(left("5SS/II-5"), 24);
  // The infantry: F -> E for 5 MP, then onto the northern road at E for half a point.
  for (const char* u : {"5SS/Germania-I", "5SS/Westland-I"}) {
    ASSERT_TRUE(Accepted(t.move(Side::German, {u}, {"E", "4715"}))) << u;
    EXPECT_EQ(used(u), 11) << u;
    EXPECT_EQ(left(u), 9) << u;  // 4.5 MP
  }
  // The armor and the mechanized infantry: on to D for 6 MP more, then enter.
  ASSERT_TRUE(Accepted(t.move(Side::German, {"5SS/II-5", "5SS/Germania-III"}, {"E", "D"})));
  EXPECT_EQ(used("5SS/II-5"), 22);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"5SS/II-5", "5SS/Germania-III"}, {"4401"})));
  EXPECT_EQ(t.name(t.s.units[static_cast<size_t>(t.unit("5SS/Germania-III"))].loc), "4401");
  EXPECT_EQ(used("5SS/Germania-III"), 23);
  // The infantry could not have gone on to D: 5 + 6 MP is more than 10.
  Table u(default_scenario());
  u.clear_board();
  u.s.turn = 4;
  u.put("5SS/Westland-I", "F");
  u.begin_phase(1);
  EXPECT_TRUE(Rejected(u, Side::German, move_order({"5SS/Westland-I"}, {"E", "D"}),
                       game::NOT_ENOUGH_MOVEMENT));
}

// ---------------------------------------------------------------------------
// 7 Stacking
// ---------------------------------------------------------------------------

TEST_F(Stacking, Rule7_LimitCheckedAtTheEndOfMovement) {
  t.put("1TC/2", "0203");
  t.put("1TC/3", "0203");
  t.put("1TC/1", "0103");
  t.put("1TC/R", "0102");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0203"}), game::STACKING_LIMIT));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0203", "0303"})));  // passing through
  EXPECT_EQ(at("1TC/1"), "0303");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0103"})));
  EXPECT_EQ(t.reachable_hexes({"1TC/R"}).count("0203"), 0u);
}

TEST_F(Stacking, Rule7_KampfgruppeOfThreeFromOneArmoredDivision) {
  t.begin_phase(1);
  t.put("PzA/1", "0808");
  t.put("PzA/2", "0808");
  t.put("PzA/3", "0908");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/3"}, {"0808"})));
  EXPECT_EQ(t.engine.stack_height(t.s, t.loc("0808"), Side::German), 3);
  EXPECT_TRUE(t.engine.stacking_ok(t.s, t.loc("0808"), Side::German));
}

TEST_F(Stacking, Rule7_KampfgruppeMovesAsOne) {
  t.begin_phase(1);
  for (const char* u : {"PzA/1", "PzA/2", "PzA/3"}) t.put(u, "0808");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1", "PzA/2", "PzA/3"}, {"0807", "0806"})));
  EXPECT_EQ(t.engine.stack_height(t.s, t.loc("0806"), Side::German), 3);
  EXPECT_EQ(used("PzA/3"), 4);
}

TEST_F(Stacking, Rule7_ThreeFromMixedFormationsRejected) {
  t.begin_phase(1);
  t.put("PzA/1", "0808");
  t.put("PzA/2", "0808");
  t.put("PzB/1", "0908");  // another armored division
  t.put("ID/1", "0907");
  t.put("ID/2", "0907");
  t.put("PzA/3", "0906");
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzB/1"}, {"0808"}), game::STACKING_LIMIT));
  // Not an armored division: two is the limit.
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/3"}, {"0907"}), game::STACKING_LIMIT));
}

TEST_F(Stacking, Rule7_SovietStacksHoldTwo) {
  t.put("1TC/1", "0101");
  t.put("1TC/2", "0101");
  t.put("1TC/R", "0201");
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"0101"}), game::STACKING_LIMIT));
}

// ---------------------------------------------------------------------------
// 8 Prepared defense
// ---------------------------------------------------------------------------

TEST_F(PreparedDefense, Rule8_CostsTheWholeActivation) {
  t.put("1TC/1", "0404");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, prepared_order({"1TC/1"}))));
  EXPECT_TRUE(has("1TC/1", kPreparedDefense));
  EXPECT_TRUE(has("1TC/1", kMoved));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0504"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(PreparedDefense, Rule8_OnlyActiveUnmovedUnits) {
  t.put("2TC/1", "0404");
  t.put("1TC/1", "0101");
  EXPECT_TRUE(Rejected(Side::Soviet, prepared_order({"2TC/1"}), game::UNIT_NOT_ACTIVE));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  EXPECT_TRUE(Rejected(Side::Soviet, prepared_order({"1TC/1"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(PreparedDefense, Rule8_RemovedWhenTheUnitMovesAway) {
  t.put("1TC/1", "0404");
  t.s.set(t.unit("1TC/1"), kPreparedDefense);  // built on an earlier turn
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0504"})));
  EXPECT_FALSE(has("1TC/1", kPreparedDefense));
}

TEST_F(PreparedDefense, Rule8_RemovedWhenBreakingContact) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.s.set(t.unit("PzA/1"), kPreparedDefense);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"PzA/1", "0904"}}))));
  EXPECT_FALSE(has("PzA/1", kPreparedDefense));
}

TEST_F(PreparedDefense, Rule8_StandingFastKeepsIt) {
  t.put("1TC/R", "0901");
  t.put("PzA/1", "0903");
  t.s.set(t.unit("PzA/1"), kPreparedDefense);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0902"})));
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({}))));
  EXPECT_TRUE(has("PzA/1", kPreparedDefense));
}

TEST_F(PreparedDefense, Rule8_LiftedByChoice) {
  t.put("1TC/1", "0404");
  t.s.set(t.unit("1TC/1"), kPreparedDefense);
  t.put("1TC/2", "0101");
  EXPECT_TRUE(Rejected(Side::Soviet, lift_order({"1TC/2"}), game::NOT_ALLOWED));  // has none
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, lift_order({"1TC/1"}))));
  EXPECT_FALSE(has("1TC/1", kPreparedDefense));
  EXPECT_EQ(at("1TC/1"), "0404");
  EXPECT_FALSE(has("1TC/1", kMoved));
}

// ---------------------------------------------------------------------------
// 13 Armored train
// ---------------------------------------------------------------------------

TEST_F(ArmoredTrain, Rule13_MovesOnlyAlongConnectedRailway) {
  t.begin_phase(1);
  t.put("GER/Zug", "0301");
  EXPECT_EQ(t.reachable({"GER/Zug"}), (std::set<std::string>{"0302:2", "0303:4", "0304:6", "0305:8",
                                                             "0306:10", "0307:12", "0308:14"}));
  EXPECT_TRUE(Rejected(Side::German, move_order({"GER/Zug"}, {"0401"}), game::ILLEGAL_PATH));
  // Not even along the road that crosses the railway at 0304.
  EXPECT_TRUE(Rejected(Side::German, move_order({"GER/Zug"}, {"0302", "0303", "0304", "0404"}),
                       game::ILLEGAL_PATH));
}

TEST_F(ArmoredTrain, Rule13_UnlimitedMovement) {
  t.begin_phase(1);
  t.put("GER/Zug", "0301");
  ASSERT_TRUE(Accepted(
      t.move(Side::German, {"GER/Zug"}, {"0302", "0303", "0304", "0305", "0306", "0307", "0308"})));
  EXPECT_EQ(at("GER/Zug"), "0308");
  EXPECT_GE(left("GER/Zug"), 2 * 7);
}

TEST_F(ArmoredTrain, Rule13_ExertsNoZoc) {
  t.put("GER/Zug", "0303");
  t.put("1TC/1", "0201");
  EXPECT_FALSE(t.engine.exerts_zoc(t.s, t.unit("GER/Zug")));
  // 0202 and 0203 touch the train: no extra cost, no stop.
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0202", "0203", "0204"})));
  EXPECT_EQ(used("1TC/1"), 6);
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
}

TEST_F(ArmoredTrain, Rule13_MovesInEveryGermanPhase) {
  t.put("GER/Zug", "0301");
  t.put("ID/1", "0808");
  done(Side::Soviet, 4);  // on to German 1
  ASSERT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  ASSERT_EQ(t.decision().side, Side::German);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"GER/Zug"}, {"0302"})));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"0807"})));
  // Once a phase: its move ended when ID/1 started.
  EXPECT_TRUE(Rejected(Side::German, move_order({"GER/Zug"}, {"0303"}), game::UNIT_NOT_ACTIVE));
  done(Side::German, 4);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  done(Side::Soviet, 4);  // on to German 2
  EXPECT_FALSE(has("GER/Zug", kMoved));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"GER/Zug"}, {"0303"})));
  EXPECT_TRUE(Rejected(Side::German, move_order({"ID/1"}, {"0806"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(ArmoredTrain, Rule13_BreaksContactOnlyAlongTheRailway) {
  t.put("GER/Zug", "0304");
  t.put("1TC/1", "0104");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0204"})));  // next to the train
  EXPECT_EQ(used("1TC/1"), 1);                                       // road, no ZOC to pay for
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::BREAK_CONTACT);
  EXPECT_EQ(d.side, Side::German);
  EXPECT_EQ(d.candidates, ids({"GER/Zug"}));
  EXPECT_TRUE(Rejected(Side::German, break_order({{"GER/Zug", "0403"}}),
                       game::ILLEGAL_PATH));  // off the railway
  // the road
  EXPECT_TRUE(Rejected(Side::German, break_order({{"GER/Zug", "0404"}}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Rejected(Side::German, break_order({{"GER/Zug", "0305"}}),
                       game::ILLEGAL_PATH));  // next to 1TC/1
  ASSERT_TRUE(Accepted(t.order(Side::German, break_order({{"GER/Zug", "0303"}}))));
  EXPECT_EQ(at("GER/Zug"), "0303");
  // No ZOC: the Soviet goes on.
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0205"})));
}

// ---------------------------------------------------------------------------
// 14 Reserves (movement)
// ---------------------------------------------------------------------------

TEST_F(Reserves, Rule14_ReservesMoveOnlyAfterCombat) {
  t.put("1TC/1", "0101");
  t.put("1TC/R", "0108");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, reserve_order({"1TC/1"}))));
  EXPECT_NE(t.s.units[static_cast<size_t>(t.unit("1TC/1"))].reserve, 0);
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0201"}), game::UNIT_NOT_ACTIVE));
  done(Side::Soviet, 3);  // movement, barrage, combat
  ASSERT_EQ(t.decision().kind, game::Decision::RESERVES);
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/R"}, {"0208"}), game::UNIT_NOT_ACTIVE));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201", "0301"})));
  EXPECT_EQ(at("1TC/1"), "0301");
  EXPECT_EQ(used("1TC/1"), 4);
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/1"))].reserve, 0);
}

TEST_F(Reserves, Rule14_ThreeMarkersASide) {
  t.put("1TC/1", "0101");
  t.put("1TC/2", "0103");
  t.put("1TC/R", "0105");
  t.put("1TC/3", "0107");
  t.put("2TA/1", "0107");
  for (const char* u : {"1TC/1", "1TC/2", "1TC/R"})
    ASSERT_TRUE(Accepted(t.order(Side::Soviet, reserve_order({u})))) << u;
  EXPECT_TRUE(Rejected(Side::Soviet, reserve_order({"1TC/3", "2TA/1"}), game::LIMIT_REACHED));
}

TEST_F(Reserves, Rule14_OnlyActiveUnitsThatHaveNotMoved) {
  t.put("1TC/1", "0101");
  t.put("2TC/1", "0103");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  EXPECT_TRUE(Rejected(Side::Soviet, reserve_order({"1TC/1"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Rejected(Side::Soviet, reserve_order({"2TC/1"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(Reserves, Rule14_TwoUnitsAMarkerOffMapAndInWarsaw) {
  t.begin_phase(1);
  for (const char* u : {"PzA/1", "PzA/2", "PzA/3"}) t.put(u, "A");
  for (const char* u : {"ID/1", "ID/2", "PzB/1"}) t.put(u, "WARSAW");
  EXPECT_TRUE(
      Rejected(Side::German, reserve_order({"PzA/1", "PzA/2", "PzA/3"}), game::LIMIT_REACHED));
  EXPECT_TRUE(
      Rejected(Side::German, reserve_order({"ID/1", "ID/2", "PzB/1"}), game::LIMIT_REACHED));
  ASSERT_TRUE(Accepted(t.order(Side::German, reserve_order({"PzA/1", "PzA/2"}))));
  ASSERT_TRUE(Accepted(t.order(Side::German, reserve_order({"ID/1", "ID/2"}))));
  EXPECT_NE(t.s.units[static_cast<size_t>(t.unit("PzA/1"))].reserve,
            t.s.units[static_cast<size_t>(t.unit("ID/1"))].reserve);
}

TEST_F(Reserves, Rule14_OneMarkerCoversAStackOnTheMap) {
  t.begin_phase(1);
  for (const char* u : {"PzA/1", "PzA/2", "PzA/3"}) t.put(u, "0808");
  ASSERT_TRUE(Accepted(t.order(Side::German, reserve_order({"PzA/1", "PzA/2", "PzA/3"}))));
  EXPECT_NE(t.s.units[static_cast<size_t>(t.unit("PzA/3"))].reserve, 0);
}

TEST_F(Reserves, Rule14_OffMapReservesEnterAfterCombat) {
  ASSERT_NO_FATAL_FAILURE(german_reserves_at_a({"PzA/1", "PzA/2"}));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1", "PzA/2"}, {"1001"})));
  EXPECT_EQ(at("PzA/2"), "1001");
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("PzA/2"))].reserve, 0);
}

TEST_F(Reserves, Rule14_SovietReservesMayMoveInALaterPhase) {
  // Rule 5 note: on turn 1 the third Soviet phase may be used to move reserves.
  t.put("1TC/1", "0101");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, reserve_order({"1TC/1"}))));
  done(Side::Soviet, 4);  // Soviet 1 ends without using the reserve
  done(Side::German, 4);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0201"}), game::UNIT_NOT_ACTIVE));
  done(Side::Soviet, 3);
  ASSERT_EQ(t.decision().kind, game::Decision::RESERVES);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/1"))].reserve, 0);
}

// ---------------------------------------------------------------------------
// 17 Reinforcements
// ---------------------------------------------------------------------------

TEST_F(Reinforcements, Rule17_EnterAtTheEntryHexOrNextToIt) {
  t.begin_phase(1);
  for (const char* u : {"PzA/1", "PzA/2", "PzA/3", "PzB/1"}) t.put(u, "A");
  // 1001 and its neighbours 1002, 0901, 0902, all clear: 1 MP.
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"1001"})));
  EXPECT_EQ(used("PzA/1"), 2);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/2"}, {"0902"})));
  EXPECT_EQ(used("PzA/2"), 2);
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/3"}, {"0903"}), game::ILLEGAL_PATH));
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzA/3"}, {"1008"}), game::ILLEGAL_PATH));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/3"}, {"1002", "1003"})));
  EXPECT_EQ(used("PzA/3"), 4);
}

TEST_F(Reinforcements, Rule17_SovietReinforcementsEnterAtTheirEntryPoint) {
  t.put("1TC/1", "S1");
  t.put("1TC/2", "S1");
  t.put("1TC/3", "S1");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0508"})));  // town: 1 MP
  EXPECT_EQ(used("1TC/1"), 2);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/2"}, {"0407", "0307"})));
  EXPECT_EQ(used("1TC/2"), 4);
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/3"}, {"0506"}), game::ILLEGAL_PATH));
  // A refusal names the hexes to enter at; and the entry point itself is not part of the path.
  const auto far = t.move(Side::Soviet, {"1TC/3"}, {"0506"});
  EXPECT_NE(far.rejection.reason.find("Units enter from S1 at "), std::string::npos) << far.rejection.reason;
  EXPECT_NE(far.rejection.reason.find("or a hex next to one (rule 17)."), std::string::npos) << far.rejection.reason;
  EXPECT_EQ(t.move(Side::Soviet, {"1TC/3"}, {"S1", "0508"}).rejection.reason,
            "S1 is named where the units already are: a path lists only the locations entered.");
}

// ---------------------------------------------------------------------------
// Revision 5: 7 stacks split in motion, 17 reserves enter where they wait
// ---------------------------------------------------------------------------

// 7: "Stacks can be formed or disbanded at any time during movement": one unit of a stack in
// motion goes on, the other's move ends where they parted.
TEST_F(Revision5, Rule7_SomeUnitsOfAStackInMotionGoOnWithoutTheOthers) {
  t.put("1TC/1", "0101");
  t.put("1TC/2", "0101");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1", "1TC/2"}, {"0201"})));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0301"})));
  EXPECT_EQ(at("1TC/1"), "0301");
  EXPECT_EQ(used("1TC/1"), 4);  // both hexes, paid once each
  EXPECT_EQ(at("1TC/2"), "0201");
  EXPECT_EQ(used("1TC/2"), 2);
  const Outcome again = t.move(Side::Soviet, {"1TC/2"}, {"0202"});
  ASSERT_FALSE(again.accepted);
  EXPECT_EQ(again.rejection.code, game::UNIT_NOT_ACTIVE);
  EXPECT_EQ(again.rejection.reason,
            "1TC/2 has already moved in this phase (rule 6: a unit's move is over once another begins; units in motion "
            "may go on together, or some without the others).");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0401"})));  // the one in motion goes on
  EXPECT_EQ(at("1TC/1"), "0401");
}

// Games begun before revision 5 keep the rule they were played with: the stack goes on whole or not at all.
TEST_F(Movement, Rule7_BeforeRevision5AStackInMotionGoesOnWhole) {
  t.put("1TC/1", "0101");
  t.put("1TC/2", "0101");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1", "1TC/2"}, {"0201"})));
  EXPECT_TRUE(Rejected(Side::Soviet, move_order({"1TC/1"}, {"0301"}), game::UNIT_NOT_ACTIVE));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1", "1TC/2"}, {"0301"})));
}

// 17: "Reinforcements can be placed in reserve off-map ... In this case, they must also enter from
// the hex specified on the Reinforcements Calendar": no move to another entry point first.
TEST_F(Revision5, Rule17_ReinforcementsInReserveOffTheMapEnterWhereTheyWait) {
  ASSERT_NO_FATAL_FAILURE(german_reserves_at_a({"PzA/1", "PzA/2"}));
  const Outcome elsewhere = t.move(Side::German, {"PzA/1", "PzA/2"}, {"B", "1008"});
  ASSERT_FALSE(elsewhere.accepted);
  EXPECT_EQ(elsewhere.rejection.code, game::ILLEGAL_PATH);
  EXPECT_EQ(elsewhere.rejection.reason,
            "Reinforcements in reserve off the map enter the map from A, where they wait, without moving to another entry "
            "first (rule 17).");
  EXPECT_EQ(at("PzA/1"), "A");
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1", "PzA/2"}, {"1001"})));
  EXPECT_EQ(at("PzA/2"), "1001");
}

TEST_F(Reserves, Rule17_BeforeRevision5ReservesOffTheMapMayMoveToAnotherEntryFirst) {
  ASSERT_NO_FATAL_FAILURE(german_reserves_at_a({"PzA/1"}));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"B", "1008"})));
  EXPECT_EQ(at("PzA/1"), "1008");
}

// 5: a unit of a corps activated in an earlier phase is told so, not that it moved.
TEST_F(Movement, Rule5_AUnitActivatedInAnEarlierPhaseIsToldItCarriesAMovedMarker) {
  t.put("1TC/1", "0105");  // of 1TC, activated in the first phase, though it did not move
  done(Side::Soviet, 4);
  done(Side::German, 4);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  const Outcome out = t.move(Side::Soviet, {"1TC/1"}, {"0205"});
  ASSERT_FALSE(out.accepted);
  EXPECT_EQ(out.rejection.reason, "1TC/1 was activated in an earlier phase this turn: it carries a Moved marker (rule 5).");
}

// A path naming the hex its units stand in is told so, not that a hex is not next to itself.
TEST_F(Movement, Rule6_APathStartsWithTheFirstHexEntered) {
  t.put("1TC/2", "0502");
  const auto out = t.move(Side::Soviet, {"1TC/2"}, {"0502", "0602"});
  ASSERT_FALSE(out.accepted);
  EXPECT_EQ(out.rejection.reason, "0502 is named where the units already are: a path lists only the locations entered.");
}

TEST_F(Reinforcements, Rule17_BlockedEntryHexesEnterAtTheNearestFreeHex) {
  t.begin_phase(1);
  t.put("1TC/1", "1001");
  t.put("2TC/1", "1002");
  t.put("3TC/1", "0901");
  t.put("2TA/1", "0902");
  t.put("PzB/1", "A");
  t.put("PzA/1", "A");
  // 0801, 0802, 0903 and 1003 lie two hexes from 1001; 0701 three.
  EXPECT_FALSE(t.move(Side::German, {"PzB/1"}, {"1002"}).accepted);
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzB/1"}, {"0701"}), game::ILLEGAL_PATH));
  EXPECT_NE(t.move(Side::German, {"PzB/1"}, {"0701"}).rejection.reason.find("The enemy holds every hex where units enter from A: "
                                                                           "they enter at the nearest free hex, "),
            std::string::npos);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"0903"})));
  EXPECT_EQ(used("PzB/1"), 2 + 2);  // clear, and the Soviet ZOC (reinforcements may enter it)
  EXPECT_TRUE(Rejected(Side::German, move_order({"PzB/1"}, {"0904"}), game::MUST_STOP_IN_ZOC));
  // Everything PzA/1 reaches straight from A (the rest goes round by B for 5 MP first).
  std::set<std::string> first;
  for (const auto& r : t.reachable({"PzA/1"})) {
    if (std::stoi(r.substr(r.find(':') + 1)) <= 4) first.insert(r);
  }
  EXPECT_EQ(first, (std::set<std::string>{"0801:4", "0802:4", "0903:4", "1003:4"}));
}

TEST_F(Reinforcements, Rule17_ReinforcementsMayWaitOffMap) {
  t.begin_phase(1);
  t.put("PzA/1", "A");
  done(Side::German, 4);  // German 1 ends; the unit stays off the map
  EXPECT_EQ(at("PzA/1"), "A");
  EXPECT_FALSE(has("PzA/1", kMoved));
  t.begin_phase(3);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"1001"})));
}

}  // namespace
}  // namespace counterattack::testing
