// 15 Supply.
#include <algorithm>
#include <string>
#include <vector>

#include "fixture.h"

namespace counterattack::testing {
namespace {

// The test counters on a wider open map with one road, so that distances to
// the road can be counted along a row (hexes of one row in neighbouring
// columns are adjacent):
//   road 1601-1101 along row 1, from the German source A at 1601;
//   Praga bridge 0108 (Warsaw a German source); Soviet source S1 at 1608;
//   B at 1606 is no source.
std::shared_ptr<const Scenario> road_scenario() {
  static const auto sc = [] {
    auto files = test_scenario_files();
    std::string rows;
    for (int r = 0; r < 8; ++r) rows += "row: \"................\"\n";
    files["map"] = "columns: 16 rows: 8\n" + rows + R"(
place { hex: 108 name: "Praga" }
road { type: "road" name: "supply road" hexes: [1601, 1501, 1401, 1301, 1201, 1101] }
warsaw { name: "Warsaw" praga_bridge { name: "Bridge" hex: 108 cost_half: 6 } supply_source: true }
entry_point { id: "A" side: GERMAN name: "North-east" hexes: [1601] supply_source: true }
entry_point { id: "B" side: GERMAN name: "East" hexes: [1606] }
entry_point { id: "S1" side: SOVIET name: "South-east" hexes: [1608] supply_source: true }
off_map_route { from: "A" to: "B" cost_half: 10 }
victory { name: "Praga" hexes: [108] points_per_hex: 1 }
provenance { from_rulebook: "test" reconstructed: "test" why: "test" }
)";
    auto r = load_scenario(files);
    for (const auto& e : r.errors) ADD_FAILURE() << e.to_string();
    return r.scenario;
  }();
  return sc;
}

void end_phase(Table& t, Side side) {
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(side))) << "step " << i;
}

const game::UnitView* find_unit(const game::View& v, const std::string& id) {
  for (const auto& st : v.stacks()) {
    for (const auto& u : st.units()) {
      if (u.id() == id) return &u;
    }
  }
  return nullptr;
}

class Supply : public ::testing::Test {
 protected:
  Supply() : t(road_scenario()) {}
  bool supplied(const std::string& unit) const { return t.engine.in_supply(t.s, t.unit(unit)); }
  bool marked(const std::string& unit) const { return t.s.has(t.unit(unit), kOutOfSupply); }
  Table t;
};

TEST_F(Supply, Rule15_WithinFiveHexesOfAConnectedRoadIsSupplied) {
  t.put("ID/1", "0601");  // five hexes west of the road's end at 1101
  EXPECT_TRUE(supplied("ID/1"));
  t.put("ID/1", "1105");
  EXPECT_TRUE(supplied("ID/1"));
}

TEST_F(Supply, Rule15_SixHexesFromTheRoadIsOutOfSupply) {
  t.put("ID/1", "0501");
  EXPECT_FALSE(supplied("ID/1"));
  const auto hexes = t.engine.supplied_hexes(t.s, Side::German);
  EXPECT_NE(std::find(hexes.begin(), hexes.end(), t.loc("0601")), hexes.end());
  EXPECT_EQ(std::find(hexes.begin(), hexes.end(), t.loc("0501")), hexes.end());
}

TEST_F(Supply, Rule15_AnEnemyUnitOnTheRoadCutsTheLine) {
  t.put("ID/1", "0601");
  t.put("2TA/1", "1301");
  EXPECT_FALSE(supplied("ID/1"));
}

TEST_F(Supply, Rule15_EnemyZocCutsTheLineUnlessAFriendlyUnitHoldsTheHex) {
  t.put("ID/1", "0601");
  t.put("2TA/1", "1202");  // its ZOC covers 1201, one hex of the road
  EXPECT_FALSE(supplied("ID/1"));
  t.put("ID/2", "1201");
  EXPECT_TRUE(supplied("ID/1"));
}

TEST_F(Supply, Rule15_EnemyZocCutsTheLastHexesToo) {
  t.put("ID/1", "0601");
  t.put("2TA/1", "0802");  // ZOC on 0801, between the road and the unit
  EXPECT_FALSE(supplied("ID/1"));
}

TEST_F(Supply, Rule15_ASourceOccupiedByTheEnemyIsLostWhileHeld) {
  t.put("ID/1", "0601");
  t.put("2TA/1", "1601");
  EXPECT_FALSE(supplied("ID/1"));
  t.put("2TA/1", "1608");
  EXPECT_TRUE(supplied("ID/1"));
}

TEST_F(Supply, Rule15_SovietUnitsTraceToSovietEntryHexesOnly) {
  t.put("2TA/1", "1108");  // five hexes from S1 at 1608
  EXPECT_TRUE(supplied("2TA/1"));
  t.put("2TA/1", "1008");
  EXPECT_FALSE(supplied("2TA/1"));
  t.put("2TA/1", "1201");  // on the German road
  EXPECT_FALSE(supplied("2TA/1"));
}

TEST_F(Supply, Rule13_TheArmoredTrainIsAlwaysSupplied) {
  t.put("GER/Zug", "0301");
  t.put("2TA/1", "1601");
  EXPECT_TRUE(supplied("GER/Zug"));
  t.begin_phase(5);
  end_phase(t, Side::German);
  EXPECT_FALSE(marked("GER/Zug"));
}

TEST_F(Supply, Rule15_TheCheckAfterAPhaseMarksTheUnitsActivatedInIt) {
  t.put("ID/1", "0501");
  t.put("ID/2", "0401");
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"0502"})));
  end_phase(t, Side::German);
  EXPECT_TRUE(marked("ID/1"));
  EXPECT_FALSE(marked("ID/2"));  // out of supply too, but it did not act
  const auto v = t.engine.view(t.s, Viewer::Soviet);
  EXPECT_TRUE(find_unit(v, "ID/1")->out_of_supply());
  EXPECT_FALSE(find_unit(v, "ID/2")->out_of_supply());
}

TEST_F(Supply, Rule15_AfterTheThirdGermanPhaseEveryGermanUnitIsChecked) {
  t.put("ID/1", "0501");
  t.put("ID/2", "0401");
  t.put("PzA/1", "1101");
  t.s.set(t.unit("PzA/1"), kOutOfSupply);
  t.begin_phase(5);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"0502"})));
  end_phase(t, Side::German);
  EXPECT_EQ(t.s.turn, 2);
  EXPECT_TRUE(marked("ID/1"));
  EXPECT_TRUE(marked("ID/2"));
  EXPECT_FALSE(marked("PzA/1"));  // supplied again
}

TEST_F(Supply, Rule15_AfterTheThirdSovietPhaseEverySovietUnitIsChecked) {
  t.put("1TC/1", "0105");
  t.put("2TA/1", "0101");
  t.put("3TC/1", "1107");
  t.s.set(t.unit("3TC/1"), kOutOfSupply);
  t.begin_phase(4, "3TC");
  end_phase(t, Side::Soviet);
  EXPECT_TRUE(marked("1TC/1"));
  EXPECT_TRUE(marked("2TA/1"));
  EXPECT_FALSE(marked("3TC/1"));
}

TEST_F(Supply, Rule15_SovietUnitsNotActivatedAreNotCheckedInTheFirstPhases) {
  t.put("1TC/1", "0105");
  t.put("2TC/1", "0107");
  t.begin_phase(0, "1TC");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0205"})));
  end_phase(t, Side::Soviet);
  EXPECT_TRUE(marked("1TC/1"));
  EXPECT_FALSE(marked("2TC/1"));
}

// 5: "When all the units of that corps have moved and/or fought and their
// supply has been checked": the corps is activated whole (its units are all
// marked Moved), so from revision 3 the check covers those that stood still,
// and the 47th Army's units when it went with the corps.
TEST(SupplyRevision3, Rule5_TheWholeActivatedCorpsIsCheckedMovedOrNot) {
  Table t(road_scenario(), revision_bits(3));
  t.put("1TC/1", "0105");
  t.put("1TC/R", "0103");   // of the corps, out of supply, does not move
  t.put("47A/1", "0203");   // the 47th Army, with the corps, does not move
  t.put("2TC/1", "0107");   // another corps: not activated
  t.put("2TA/1", "0101");   // an independent that does not act
  t.begin_phase(0, "1TC");
  t.s.forty_seventh_phase = 0;
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0205"})));
  end_phase(t, Side::Soviet);
  auto marked = [&](const char* u) { return t.s.has(t.unit(u), kOutOfSupply); };
  EXPECT_TRUE(marked("1TC/1"));
  EXPECT_TRUE(marked("1TC/R"));
  EXPECT_TRUE(marked("47A/1"));
  EXPECT_FALSE(marked("2TC/1"));
  EXPECT_FALSE(marked("2TA/1"));
  // The German reads the marker on the unit that stood still too.
  const auto v = t.engine.view(t.s, Viewer::German);
  ASSERT_NE(find_unit(v, "1TC/R"), nullptr);
  EXPECT_TRUE(find_unit(v, "1TC/R")->out_of_supply());
}

TEST(SupplyRevision3, Rule5_AUnitOfTheCorpsBackInSupplyLosesItsMarkerWithoutMoving) {
  Table t(road_scenario(), revision_bits(3));
  t.put("1TC/R", "1507");  // two hexes from the Soviet source
  t.s.set(t.unit("1TC/R"), kOutOfSupply);
  t.begin_phase(0, "1TC");
  end_phase(t, Side::Soviet);
  EXPECT_FALSE(t.s.has(t.unit("1TC/R"), kOutOfSupply));
}

// Games begun before revision 3 go on checking only the units that acted.
TEST(SupplyRevision3, Rule5_InRevision2OnlyTheUnitsThatActedAreChecked) {
  Table t(road_scenario(), revision_bits(2));
  t.put("1TC/1", "0105");
  t.put("1TC/R", "0103");
  t.put("47A/1", "0203");
  t.begin_phase(0, "1TC");
  t.s.forty_seventh_phase = 0;
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0205"})));
  end_phase(t, Side::Soviet);
  EXPECT_TRUE(t.s.has(t.unit("1TC/1"), kOutOfSupply));
  EXPECT_FALSE(t.s.has(t.unit("1TC/R"), kOutOfSupply));
  EXPECT_FALSE(t.s.has(t.unit("47A/1"), kOutOfSupply));
}

TEST_F(Supply, Rule15_OutOfSupplyArmorMovesAndFightsAtHalfRoundedUp) {
  const int armor = t.unit("1TC/1"), mech = t.unit("PzA/2"), slow = t.unit("1TC/3");
  t.put("1TC/1", "0105");
  t.put("PzA/2", "0107");
  t.put("1TC/3", "0103");
  EXPECT_EQ(t.engine.movement_half(t.s, armor), 24);
  EXPECT_EQ(t.engine.combat_value(t.s, armor), 6);
  for (int u : {armor, mech, slow}) t.s.set(u, kOutOfSupply);
  EXPECT_EQ(t.engine.movement_half(t.s, armor), 12);  // 12 MP -> 6
  EXPECT_EQ(t.engine.combat_value(t.s, armor), 3);
  EXPECT_EQ(t.engine.movement_half(t.s, mech), 10);   // 10 MP -> 5
  EXPECT_EQ(t.engine.combat_value(t.s, mech), 2);
  EXPECT_EQ(t.engine.movement_half(t.s, slow), 4);    // 3 MP -> 2
  EXPECT_EQ(t.engine.combat_value(t.s, slow), 3);     // 5 -> 3
  // Across open ground, one MP a hex: seven hexes are too far, six are not.
  t.begin_phase(0, "1TC");
  const Outcome far = t.move(Side::Soviet, {"1TC/1"}, {"0205", "0305", "0405", "0505", "0605", "0705", "0805"});
  EXPECT_FALSE(far.accepted);
  EXPECT_EQ(far.rejection.code, game::NOT_ENOUGH_MOVEMENT);
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0205", "0305", "0405", "0505", "0605", "0705"})));
  EXPECT_EQ(find_unit(t.engine.view(t.s, Viewer::German), "1TC/1")->combat(), 3);
}

TEST_F(Supply, Rule15_OutOfSupplyFootInfantryMovesNormallyButFightsAtHalf) {
  const int inf = t.unit("1TC/2");
  t.put("1TC/2", "0105");
  t.s.set(inf, kOutOfSupply);
  EXPECT_EQ(t.engine.movement_half(t.s, inf), 10);
  EXPECT_EQ(t.engine.combat_value(t.s, inf), 2);
  t.begin_phase(0, "1TC");
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/2"}, {"0205", "0305", "0405", "0505", "0605"})));
}

TEST_F(Supply, Rule15_ReducedValuesAreHalvedToo) {
  const int u = t.unit("PzA/1");
  t.put("PzA/1", "0105");
  t.s.units[static_cast<size_t>(u)].hits = 1;  // 3 combat
  t.s.set(u, kOutOfSupply);
  EXPECT_EQ(t.engine.combat_value(t.s, u), 2);
}

// Warsaw, through the Praga bridges, on the test map.
TEST(SupplyWarsaw, Rule15_WarsawIsAGermanSourceUntilTheUprisingClosesIt) {
  Table t;
  t.put("ID/1", "WARSAW");
  t.put("ID/2", "0206");  // near the Praga bridge hex 0106, far from A and B
  EXPECT_TRUE(t.engine.in_supply(t.s, t.unit("ID/1")));
  EXPECT_TRUE(t.engine.in_supply(t.s, t.unit("ID/2")));
  t.put("1TC/1", "0706");  // six hexes from Praga at the end of the turn (18)
  t.begin_phase(5);
  end_phase(t, Side::German);
  ASSERT_EQ(t.s.turn, 2);
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_STEP_LOSS);
  EXPECT_FALSE(t.engine.in_supply(t.s, t.unit("ID/1")));
  EXPECT_FALSE(t.engine.in_supply(t.s, t.unit("ID/2")));
  // The other sources still work.
  t.put("ID/2", "0905");
  EXPECT_TRUE(t.engine.in_supply(t.s, t.unit("ID/2")));
}

TEST(SupplyWarsaw, Rule15_SovietUnitsNeverDrawOnWarsaw) {
  Table t;
  t.put("1TC/1", "0102");  // four hexes from Praga, eight from S1
  EXPECT_FALSE(t.engine.in_supply(t.s, t.unit("1TC/1")));
  t.put("1TC/1", "0507");
  EXPECT_TRUE(t.engine.in_supply(t.s, t.unit("1TC/1")));
}

}  // namespace
}  // namespace counterattack::testing
