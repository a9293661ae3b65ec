// The charts and counters a player reads beside the map (`chart`, `unit`), from the scenario's data.
#include <gtest/gtest.h>

#include "charts.h"

namespace counterattack::cli {
namespace {

const Scenario& sc() { return *default_scenario(); }

// The line of a chart that starts with `head`.
std::string line_of(const std::string& text, const std::string& head) {
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (text.compare(at, head.size(), head) == 0) return text.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

// Rule 9's worked example: at 2:1 a modified roll of 6 gives A1D1r1.
TEST(Charts, Rule9_TheCombatResultsTableReadsTheRulebooksExample) {
  const auto crt = render_chart(sc(), "CRT");
  ASSERT_TRUE(crt);
  const std::string header = line_of(*crt, "roll");
  const std::string six = line_of(*crt, "6 ");
  ASSERT_FALSE(header.empty()) << *crt;
  ASSERT_FALSE(six.empty()) << *crt;
  const size_t column = header.find("2:1");
  ASSERT_NE(column, std::string::npos) << header;
  EXPECT_EQ(six.substr(column, 6), "A1D1r1") << *crt;
  EXPECT_NE(crt->find("*: no elastic defense"), std::string::npos) << *crt;
  EXPECT_NE(crt->find("Reconstructed"), std::string::npos) << "its provenance said: " << *crt;
}

// Rule 10's table and the TEC's modifiers against it: woods take 2 off a barrage roll.
TEST(Charts, Rule10_TheBarrageTableAndTheTerrainThatProtectsAgainstIt) {
  const auto barrage = render_chart(sc(), "barrage");
  ASSERT_TRUE(barrage);
  EXPECT_NE(barrage->find("6+  L"), std::string::npos) << *barrage;
  const auto terrain = render_chart(sc(), "terrain");
  ASSERT_TRUE(terrain);
  const std::string woods = line_of(*terrain, "f Woods");
  EXPECT_NE(woods.find("1 left"), std::string::npos) << woods;
  EXPECT_NE(woods.find("-2"), std::string::npos) << woods;
}

TEST(Charts, EveryChartListedIsShownAndAnUnknownNameIsNone) {
  for (const auto& [name, what] : chart_names()) {
    const auto chart = render_chart(sc(), name);
    ASSERT_TRUE(chart) << name;
    EXPECT_GT(chart->size(), 100u) << name;
    EXPECT_NE(chart_list().find(name), std::string::npos) << name;
  }
  EXPECT_FALSE(render_chart(sc(), "nope"));
  // 19: the track the header's "turn 6 asks" comes from.
  EXPECT_NE(render_chart(sc(), "magnuszew")->find("Turn 6 (1 August 1944): an armored unit"), std::string::npos);
}

// A counter's card: what the map's "2-12" leaves out (its class, bonuses, arrival, what its
// movement allows), whatever the case its id is typed in.
TEST(Charts, AUnitsCardGivesItsClassBonusesArrivalAndWhatItsMovementAllows) {
  const auto sp = render_unit_card(sc(), "3tc/1818");
  ASSERT_TRUE(sp);
  EXPECT_NE(sp->find("3TC/1818 - 1818th Self-Propelled Artillery Regiment"), std::string::npos) << *sp;
  EXPECT_NE(sp->find("Class: armor"), std::string::npos) << *sp;
  EXPECT_NE(sp->find("Arrives on turn 1 (27 July 1944) at S3"), std::string::npos) << *sp;
  const auto panther = render_unit_card(sc(), "19Pz/I-27");
  ASSERT_TRUE(panther);
  EXPECT_NE(panther->find("Full: 6-12 (combat 6, movement 12), attack bonus +2"), std::string::npos) << *panther;
  EXPECT_NE(panther->find("Reduced: 3-12"), std::string::npos) << *panther;
  EXPECT_NE(panther->find("may overrun (rule 9) and break contact (rule 6)"), std::string::npos) << *panther;
  EXPECT_FALSE(render_unit_card(sc(), "9TC/1"));
}

}  // namespace
}  // namespace counterattack::cli
