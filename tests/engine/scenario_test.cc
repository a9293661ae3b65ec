// 2 Components: the printed charts, map and counters, reconstructed as data.
#include <gtest/gtest.h>

#include <set>

#include "fixture.h"

namespace counterattack::testing {
namespace {

const Scenario& real() { return *default_scenario(); }

TEST(Scenario, Rule2_TheMapCoversTheAreaEastOfWarsaw) {
  EXPECT_GT(real().hex_count(), 1000);
  std::set<std::string> towns;
  for (const auto& h : real().hexes) {
    if (!h.name.empty()) towns.insert(h.name);
  }
  for (const char* town : {"Praga", "Marki", "Zielonka", "Kobyłka", "Wołomin", "Radzymin", "Okuniew", "Stanisławów",
                           "Mińsk Mazowiecki", "Otwock", "Józefów", "Kołbiel", "Garwolin", "Tłuszcz", "Jadów"}) {
    const bool found = std::any_of(towns.begin(), towns.end(), [&](const std::string& n) { return n.rfind(town, 0) == 0; });
    EXPECT_TRUE(found) << town << " is not on the map";
  }
}

TEST(Scenario, Rule2_TownsStandWhereTheyAreOnTheGround) {
  auto where = [&](const std::string& name) {
    for (const auto& h : real().hexes) {
      if (h.name.rfind(name, 0) == 0) return coord_of(h.id);
    }
    ADD_FAILURE() << name << " is not on the map";
    return HexCoord{};
  };
  const auto praga = where("Praga"), radzymin = where("Radzymin"), minsk = where("Mińsk Mazowiecki");
  const auto garwolin = where("Garwolin"), otwock = where("Otwock");
  EXPECT_GT(radzymin.col, praga.col);     // Radzymin is north-east of Praga
  EXPECT_LT(radzymin.row, praga.row);
  EXPECT_GT(minsk.col, praga.col + 10);   // Mińsk is some 35 km east
  EXPECT_GT(garwolin.row, otwock.row);    // Garwolin is south of Otwock
  EXPECT_GT(otwock.row, praga.row);
  // About 2 km a hex: Praga to Mińsk Mazowiecki is about 38 km.
  const int d = hex_distance(praga, minsk);
  EXPECT_GE(d, 15);
  EXPECT_LE(d, 23);
}

TEST(Scenario, Rule3_VictoryHexesAndTheirValues) {
  std::map<std::string, int> points;
  for (const auto& v : real().victory) points[v.name] += v.points_per_hex * static_cast<int>(v.hexes.size());
  int praga = 0, bug = 0;
  for (const auto& [name, p] : points) {
    if (name.find("Praga") != std::string::npos) praga += p;
    if (name.find("Bug") != std::string::npos) bug += p;
  }
  EXPECT_EQ(praga, 3);
  EXPECT_EQ(bug, 2);
  EXPECT_EQ(points["Radzymin"], 1);
  int minsk = 0;
  for (const auto& [name, p] : points) {
    if (name.find("Mi") == 0 && name.find("Mazowiecki") != std::string::npos) minsk += p;
  }
  EXPECT_EQ(minsk, 2);
}

TEST(Scenario, Rule6_WarsawHasThreePragaBridgesAndTheJozefowBridge) {
  ASSERT_EQ(real().praga_bridges.size(), 3u);
  for (const auto& b : real().praga_bridges) EXPECT_EQ(b.cost_half, 6);  // 3 MP
  EXPECT_GE(real().jozefow.hex, 0);
  EXPECT_EQ(real().jozefow.cost_half, 8);  // 4 MP
}

TEST(Scenario, Rule6_OffMapExample_FtoEcostsFiveAndEtoDcostsSix) {
  const auto& sc = real();
  auto node = [&](const std::string& id) { return sc.off_map_node(*sc.parse_location(id)); };
  EXPECT_EQ(sc.off_map_cost[static_cast<size_t>(node("F"))][static_cast<size_t>(node("E"))], 10);
  EXPECT_EQ(sc.off_map_cost[static_cast<size_t>(node("E"))][static_cast<size_t>(node("D"))], 12);
  // "Most entry points allow movement in only one direction; B is the only exception."
  int hubs = 0;
  for (size_t a = 0; a + 1 < sc.off_map_cost.size(); ++a) {
    int out = 0;
    for (int c : sc.off_map_cost[a]) out += c >= 0;
    if (out > 1) {
      ++hubs;
      EXPECT_EQ(sc.entry_points[a].id, "B");
    }
  }
  EXPECT_EQ(hubs, 1);
  // "one of the two entry points E"
  EXPECT_EQ(sc.entry_points[static_cast<size_t>(sc.entry_index(*sc.parse_location("E")))].hexes.size(), 2u);
}

TEST(Scenario, Rule2_TheOrderOfBattleIsComplete) {
  for (const char* f : {"3TC", "8GTC", "16TC", "2TA", "47A", "73ID", "HG", "19Pz", "4Pz", "3SS", "5SS", "GER"}) {
    EXPECT_TRUE(real().formation_index(f).has_value()) << f;
  }
  int trains = 0, soviet = 0, german = 0;
  for (const auto& u : real().units) {
    trains += u.unit_class == UnitClass::ArmoredTrain;
    (u.side == Side::Soviet ? soviet : german)++;
  }
  EXPECT_EQ(trains, 1);
  EXPECT_GE(soviet, 25);
  EXPECT_GE(german, 30);
  EXPECT_EQ(real().stukas.size(), 3u);
  // Rule 10 example: the HG Division's artillery has a range of 4.
  bool hg = false;
  for (const auto& a : real().artillery) {
    if (real().formations[static_cast<size_t>(a.formation)].id == "HG") {
      hg = true;
      EXPECT_EQ(a.range, 4);
    }
  }
  EXPECT_TRUE(hg);
}

TEST(Scenario, Rule20_TheNamedEventChitsExist) {
  std::set<std::string> names;
  int soviet_recovery = 0;
  for (const auto& e : real().events) {
    names.insert(e.name);
    soviet_recovery += e.side == Side::Soviet && e.effect == data::RECOVER_STEP;
  }
  EXPECT_TRUE(names.count("Ghost Unit"));
  EXPECT_TRUE(names.count("Surprise Attack"));
  EXPECT_TRUE(names.count("Red Army Never Sleeps"));
  EXPECT_GE(soviet_recovery, 1);  // 16: the Soviet recovers steps only by events
}

TEST(Scenario, Rule9_TheCombatResultsTableReproducesTheWorkedExample) {
  const auto& sc = real();
  const auto col = std::find(sc.crt_columns.begin(), sc.crt_columns.end(), "2:1") - sc.crt_columns.begin();
  ASSERT_LT(static_cast<size_t>(col), sc.crt_columns.size());
  const auto& r = sc.crt[static_cast<size_t>(6 - sc.crt_min_roll)][static_cast<size_t>(col)];
  EXPECT_EQ(r.attacker_steps, 1);
  EXPECT_EQ(r.defender_steps, 1);
  EXPECT_EQ(r.retreat, 1);
  EXPECT_FALSE(r.yellow);
  EXPECT_EQ(sc.crt_columns.front(), "1:3");
  EXPECT_EQ(sc.crt_columns.back(), "5:1");
}

TEST(Scenario, EveryTableHasProvenance) {
  for (const char* table : {"rules", "terrain effects", "map", "counters", "calendar", "uprising track", "magnuszew track",
                            "events", "combat results table", "barrage fire table"}) {
    auto it = real().provenance.find(table);
    ASSERT_NE(it, real().provenance.end()) << table;
    EXPECT_FALSE(it->second.from_rulebook().empty()) << table;
    EXPECT_FALSE(it->second.reconstructed().empty()) << table;
    EXPECT_FALSE(it->second.why().empty()) << table;
  }
}

TEST(Scenario, ALoadErrorNamesTheFileAndLine) {
  auto files = test_scenario_files();
  files["counters"] += "\nunit { id: \"X/1\" side: SOVIET formation: \"NOPE\" unit_class: ARMOR step { combat: 1 movement: 1 } }\n";
  auto r = load_scenario(files);
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].file, "counters.textproto");
  EXPECT_GT(r.errors[0].line, 10);
  EXPECT_NE(r.errors[0].message.find("NOPE"), std::string::npos);
}

TEST(Scenario, ASyntaxErrorNamesTheFileAndLine) {
  auto files = test_scenario_files();
  files["map"] += "\nrow: \"unterminated\n";
  auto r = load_scenario(files);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0].file, "map.textproto");
  EXPECT_GT(r.errors[0].line, 1);
}

TEST(Scenario, RoadsMustJoinAdjacentHexes) {
  auto files = test_scenario_files();
  files["map"] += "\nroad { type: \"road\" name: \"broken\" hexes: [101, 105] }\n";
  auto r = load_scenario(files);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("not adjacent"), std::string::npos);
}

TEST(Scenario, EveryUnitIsSetUpOrArrives) {
  auto files = test_scenario_files();
  const auto pos = files["calendar"].find(", \"47A/1\"");
  ASSERT_NE(pos, std::string::npos);
  files["calendar"].erase(pos, 9);
  auto r = load_scenario(files);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("47A/1"), std::string::npos);
}

TEST(Scenario, AChitNamingAnUnspecifiedUnitClassIsRejected) {
  auto files = test_scenario_files();
  files["events"] += "\nchit { id: \"X-ACE\" name: \"Ace\" side: GERMAN effect: UNIT_BONUS unit_class: UNIT_CLASS_UNSPECIFIED }\n";
  auto r = load_scenario(files);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0].file, "events.textproto");
  EXPECT_NE(r.errors[0].message.find("X-ACE"), std::string::npos);
}

TEST(Scenario, TablesMissingProvenanceAreRejected) {
  auto files = test_scenario_files();
  const auto pos = files["tec"].find("provenance");
  files["tec"] = files["tec"].substr(0, pos);
  auto r = load_scenario(files);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("provenance"), std::string::npos);
}

}  // namespace
}  // namespace counterattack::testing
