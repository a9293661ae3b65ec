// What the player sees: fixed views drawn without colour and compared with the
// golden files in tests/client/golden/. After an intended change of the
// drawing, regenerate them with CA_UPDATE_GOLDENS=1 ./client_tests and review
// the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "render.h"

namespace counterattack::cli {
namespace {

const Scenario& sc() {
  return *default_scenario();
}

void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(CA_GOLDEN_DIR) + "/" + name + ".txt";
  const char* update = std::getenv("CA_UPDATE_GOLDENS");
  if (update && std::string(update) == "1") {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " is missing: run with CA_UPDATE_GOLDENS=1 to create it";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), actual) << "differs from " << path << " (CA_UPDATE_GOLDENS=1 regenerates it)";
}

game::UnitView* unit(game::StackView* st, const std::string& id, int combat, int movement,
                     int steps) {
  auto* u = st->add_units();
  u->set_id(id);
  u->set_combat(combat);
  u->set_movement(movement);
  u->set_steps(steps);
  return u;
}

game::StackView* stack(game::View& v, const std::string& loc, game::Side side, int height,
                       bool inspected) {
  auto* st = v.add_stacks();
  st->set_location(loc);
  st->set_side(side);
  st->set_height(height);
  st->set_inspected(inspected);
  return st;
}

// The German player's view in the middle of turn 4, around Radzymin and Wołomin.
game::View german_view() {
  game::View v;
  v.set_viewer(game::VIEWER_GERMAN);
  auto* h = v.mutable_header();
  h->set_turn(4);
  h->set_phase("German 2");
  h->set_step("Movement");
  h->add_activated_corps("3TC");
  h->add_activated_corps("8GTC");
  h->set_forty_seventh_activated(true);
  h->set_soviet_vp(6);
  h->set_german_vp(14);
  h->set_soviet_bonus_vp(1);
  h->set_uprising("Warsaw rises");
  h->set_jozefow_bridge_intact(true);
  h->set_soviet_cup(6);
  h->set_german_cup(5);
  v.add_victory_control("1816=GERMAN");
  v.add_victory_control("2021=SOVIET");
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::MOVEMENT);
  d->set_side(game::GERMAN);
  d->set_prompt(
      "Move units, build prepared defenses, place reserves, play an event, or end movement.");

  auto* s1 = stack(v, "1816", game::GERMAN, 2, true);
  auto* a = unit(s1, "19Pz/I-27", 7, 10, 2);
  a->set_moved(true);
  a->set_movement_left_half(7);
  auto* b = unit(s1, "19Pz/I-73", 3, 10, 1);
  b->set_disorganized(true);
  auto* s2 = stack(v, "1921", game::GERMAN, 1, true);
  unit(s2, "73ID/186", 3, 6, 2)->set_prepared_defense(true);
  auto* s3 = stack(v, "2021", game::SOVIET, 3, false);
  unit(s3, "3TC/50", 5, 12, 2);
  s3->add_units()->set_hidden(true);
  s3->add_units()->set_hidden(true);
  auto* s4 = stack(v, "2022", game::SOVIET, 1, true);
  unit(s4, "3TC/57", 4, 10, 2)->set_out_of_supply(true);
  auto* s5 = stack(v, "2325", game::SOVIET, 2, true);
  unit(s5, "8GTC/58G", 6, 12, 2)->set_reserve(true);
  unit(s5, "8GTC/59G", 6, 12, 2)->set_reserve(true);
  auto* s6 = stack(v, "WARSAW", game::GERMAN, 2, true);
  unit(s6, "HG/I-1", 4, 6, 2);
  unit(s6, "HG/II-1", 4, 6, 2);
  auto* s7 = stack(v, "E", game::SOVIET, 1, false);
  unit(s7, "47A/165", 5, 6, 2);

  auto* hs = v.add_hands();
  hs->set_side(game::SOVIET);
  hs->set_held(2);
  auto* hg = v.add_hands();
  hg->set_side(game::GERMAN);
  hg->set_held(2);
  hg->add_chits("GER-ACE");
  hg->add_chits("GER-KESSEL");
  auto* art = v.add_artillery();
  art->set_id("ART-HG");
  art->set_state("ready");
  auto* stuka = v.add_stukas();
  stuka->set_id("Stuka-1");
  stuka->set_state("used");
  v.add_eliminated("73ID/Pi");
  return v;
}

std::vector<game::Event> some_events() {
  std::vector<game::Event> ev;
  auto add = [&](game::Event::Kind k, const std::string& text, int die = 0) {
    game::Event e;
    e.set_kind(k);
    e.set_text(text);
    e.set_die(die);
    ev.push_back(e);
  };
  add(game::Event::PHASE, "German 2: movement.");
  add(game::Event::MOVED, "19Pz/I-27 moves 1715 1816.");
  add(game::Event::DIE_ROLLED, "Uprising roll", 5);
  return ev;
}

RenderOptions plain() {
  RenderOptions o;
  o.colour = false;
  return o;
}

TEST(Render, MapWindowAroundRadzymin) {
  RenderOptions o = plain();
  o.center_hex = 1816;
  check_golden("map_radzymin", render_map(sc(), german_view(), o));
}

TEST(Render, MapWindowStopsAtTheMapEdge) {
  RenderOptions o = plain();
  o.center_hex = 101;
  const Window w = map_window(sc(), german_view(), o);
  EXPECT_EQ(w.col0, 1);
  EXPECT_EQ(w.row0, 1);
  o.center_hex = 4753;
  const Window far = map_window(sc(), german_view(), o);
  EXPECT_EQ(far.col0 + far.cols - 1, sc().columns);
  EXPECT_EQ(far.row0 + far.rows - 1, sc().rows);
  check_golden("map_southeast_corner", render_map(sc(), german_view(), o));
}

TEST(Render, MapWindowCentresOnTheViewersUnitsByDefault) {
  const Window w = map_window(sc(), german_view(), plain());
  EXPECT_TRUE(w.contains(1816));
  EXPECT_TRUE(w.contains(1921));
}

TEST(Render, MapFitsIn120Columns) {
  RenderOptions o = plain();
  o.center_hex = 1816;
  for (const std::string& text :
       {render_map(sc(), german_view(), o), render_screen(sc(), german_view(), some_events(), o)}) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      // Place names are UTF-8: count code points, not bytes.
      size_t width = 0;
      for (unsigned char c : line) width += (c & 0xC0) != 0x80;
      EXPECT_LE(width, 120u) << line;
    }
  }
}

TEST(Render, WholeMap) {
  RenderOptions o = plain();
  o.full = true;
  check_golden("map_full", render_full_map(sc(), german_view(), o));
}

TEST(Render, Screen) {
  RenderOptions o = plain();
  o.center_hex = 1816;
  check_golden("screen_german", render_screen(sc(), german_view(), some_events(), o));
}

// Rule 19: the header counts what has gone to Magnuszew and names the next withdrawal the track asks
// for, this turn's until its administrative phase is over.
TEST(Render, Rule19_TheHeaderNamesTheNextMagnuszewWithdrawal) {
  game::View v = german_view();
  auto* h = v.mutable_header();
  h->set_turn(6);
  h->set_phase("Administrative");
  h->set_step("Magnuszew withdrawal");
  EXPECT_NE(render_tracks(sc(), v, plain()).find("Magnuszew: nothing sent; turn 6 asks: armored |"), std::string::npos)
      << render_tracks(sc(), v, plain());
  v.add_withdrawn("19Pz/I-27");
  h->set_phase("Soviet 1");
  h->set_step("Movement");
  EXPECT_NE(render_tracks(sc(), v, plain()).find("Magnuszew: 1 sent; turn 7 asks: infantry + artillery |"), std::string::npos)
      << render_tracks(sc(), v, plain());
  h->set_turn(10);  // the track's last withdrawal is behind
  for (auto& m : *v.mutable_stukas()) m.set_state("withdrawn");
  EXPECT_NE(render_tracks(sc(), v, plain()).find("Magnuszew: 2 sent |"), std::string::npos) << render_tracks(sc(), v, plain());
}

TEST(Render, EitherSideReadsItsOwnChitsFirst) {
  game::View german = german_view();
  const std::string g = render_hands(sc(), german, plain());
  ASSERT_NE(g.find("Your event chits"), std::string::npos) << g;
  EXPECT_LT(g.find("Your event chits"), g.find("Soviet player holds")) << g;
  game::View soviet = german_view();
  soviet.set_viewer(game::VIEWER_SOVIET);
  soviet.mutable_hands(1)->clear_chits();
  const std::string s = render_hands(sc(), soviet, plain());
  ASSERT_NE(s.find("Your event chits"), std::string::npos) << s;
  EXPECT_LT(s.find("Your event chits"), s.find("German player holds")) << s;
}

TEST(Render, TheOpponentSeesOnlyTheTopCounterAndTheHeight) {
  // The Soviet side of the same position: a German stack seen from afar.
  game::View v = german_view();
  v.set_viewer(game::VIEWER_SOVIET);
  auto* st = v.mutable_stacks(0);
  st->set_inspected(false);
  st->mutable_units(1)->Clear();
  st->mutable_units(1)->set_hidden(true);
  v.mutable_hands(1)->clear_chits();
  RenderOptions o = plain();
  o.center_hex = 1816;
  const std::string stacks = render_stacks(sc(), v, o);
  EXPECT_NE(stacks.find("1816 (Radzymin"), std::string::npos) << stacks;
  // The Moved marker says the unit was activated this turn (rule 5), not that it moved.
  const std::string one_line = std::regex_replace(stacks, std::regex("\n +"), " ");
  EXPECT_NE(
      one_line.find(
          "German, 2 units (only the top counter seen): 19Pz/I-27 7-10 [3.5 MP left, activated this turn];"),
      std::string::npos)
      << stacks;
  EXPECT_NE(stacks.find("? (hidden)"), std::string::npos) << stacks;
  EXPECT_EQ(stacks.find("19Pz/I-73"), std::string::npos) << stacks;
  const std::string hands = render_hands(sc(), v, o);
  EXPECT_NE(hands.find("German player holds 2 event chits."), std::string::npos) << hands;
  EXPECT_EQ(hands.find("GER-ACE"), std::string::npos) << hands;
  const std::string map = render_map(sc(), v, o);
  EXPECT_NE(map.find("G2?A "), std::string::npos) << map;
}

// 9: elastic defense is the German's; a Soviet defender is offered it only with the optional
// rule. 14: a reserve may overrun as it moves.
TEST(Render, Rule9_TheAnswerHintOffersOnlyWhatTheDeciderMayDo) {
  game::View v = german_view();
  v.set_viewer(game::VIEWER_SOVIET);
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::DEFENDER_LOSSES);
  d->set_side(game::SOVIET);
  d->set_prompt("The attack on 3036 costs 1 step and a retreat of 1 hex.");
  EXPECT_EQ(render_decision(v, plain()).find("losses elastic"), std::string::npos) << render_decision(v, plain());
  v.mutable_header()->add_options("red_army_elastic_defense");
  EXPECT_NE(render_decision(v, plain()).find("losses elastic N"), std::string::npos) << render_decision(v, plain());
  v.set_viewer(game::VIEWER_GERMAN);
  d->set_side(game::GERMAN);
  v.mutable_header()->clear_options();
  EXPECT_NE(render_decision(v, plain()).find("losses elastic N"), std::string::npos) << render_decision(v, plain());
  d->set_kind(game::Decision::RESERVES);
  EXPECT_NE(render_decision(v, plain()).find("Answer: move UNIT... HEX... | overrun UNIT... HEX | done"), std::string::npos)
      << render_decision(v, plain());
}

// 9: desperate defense turns retreat hexes into steps: a result with no retreat leaves nothing to
// turn, so it is not offered; with a retreat it is, whichever side defends.
TEST(Render, Rule9_DesperateDefenseIsOfferedOnlyWhenTheResultHasARetreat) {
  game::View v = german_view();
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::DEFENDER_LOSSES);
  d->set_side(game::GERMAN);
  d->set_count(1);
  d->set_prompt("At 3546: lose 1 step and retreat 0 hexes; elastic defense may turn steps into retreat.");
  std::string text = render_decision(v, plain());
  EXPECT_EQ(text.find("desperate"), std::string::npos) << text;
  EXPECT_NE(text.find("losses elastic N"), std::string::npos) << text;
  d->set_prompt("At 3546: lose 1 step and retreat 2 hexes; elastic defense may turn steps into retreat; desperate defense may "
                "turn retreat into steps.");
  text = render_decision(v, plain());
  EXPECT_NE(text.find("losses desperate N UNIT..."), std::string::npos) << text;
  v.set_viewer(game::VIEWER_SOVIET);
  d->set_side(game::SOVIET);
  d->set_prompt("At 3036: lose 2 steps and retreat 10 hexes.");
  text = render_decision(v, plain());
  EXPECT_NE(text.find("losses desperate N UNIT..."), std::string::npos) << text;
  d->set_prompt("At 3036: lose 2 steps and retreat 0 hexes.");
  text = render_decision(v, plain());
  EXPECT_EQ(text.find("desperate"), std::string::npos) << text;
}

TEST(Render, AHexWithNoStackSaysItHoldsNoUnits) {
  EXPECT_EQ(*render_stack_at(sc(), german_view(), "3645", plain()), "No units at 3645.\n");
}

TEST(Render, DecisionShowsCandidatesAndTheNotationToAnswer) {
  game::View v = german_view();
  v.set_viewer(game::VIEWER_SOVIET);
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::CHOOSE_CORPS);
  d->set_side(game::SOVIET);
  d->set_prompt(
      "Choose the corps to activate in this phase (and whether the 47th Army goes with it).");
  d->add_candidates("8GTC");
  d->add_candidates("16TC");
  const std::string text = render_decision(v, plain());
  EXPECT_NE(text.find("Your decision (Soviet): Choose the corps"), std::string::npos) << text;
  EXPECT_NE(text.find("Candidates: 8GTC, 16TC"), std::string::npos) << text;
  EXPECT_NE(text.find("Answer: corps CORPS [+47]"), std::string::npos) << text;
  EXPECT_EQ(text.find("undo"), std::string::npos) << text;
  v.set_viewer(game::VIEWER_GERMAN);
  EXPECT_NE(render_decision(v, plain()).find("Waiting for the Soviet player"), std::string::npos);
}

TEST(Render, ADefenseWithoutAMarkerIsAnsweredWithAChitOrNone) {
  game::View v = german_view();
  v.set_viewer(game::VIEWER_SOVIET);
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::DEFENSIVE_SUPPORT);
  d->set_side(game::SOVIET);
  d->set_prompt("3343 is attacked: commit tactical support (artillery, -1 to the die) or a chit, or none.");
  std::string text = render_decision(v, plain());
  EXPECT_NE(text.find("Answer: support chit CHIT | nosupport"), std::string::npos) << text;
  EXPECT_EQ(text.find("support MARKER"), std::string::npos) << text;
  d->add_candidates("3TC-ART");
  text = render_decision(v, plain());
  EXPECT_NE(text.find("Markers that may support: 3TC-ART"), std::string::npos) << text;
  EXPECT_NE(text.find("support MARKER [chit CHIT]"), std::string::npos) << text;
}

TEST(Render, TheBarrageStepListsTheMarkersThatMayFire) {
  game::View v = german_view();
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::BARRAGE);
  d->set_side(game::GERMAN);
  d->set_prompt("Barrage fire, or end the barrage step.");
  d->add_candidates("ART-73ID");
  d->add_candidates("Stuka-1");
  const std::string text = render_decision(v, plain());
  EXPECT_NE(text.find("Markers that may fire: ART-73ID, Stuka-1"), std::string::npos) << text;
  EXPECT_NE(text.find("Answer: barrage MARKER HEX"), std::string::npos) << text;
}

TEST(Render, DecisionSaysHowManyOrdersMayBeTakenBack) {
  game::View v = german_view();
  v.set_viewer(game::VIEWER_SOVIET);
  auto* d = v.mutable_decision();
  d->set_kind(game::Decision::MOVEMENT);
  d->set_side(game::SOVIET);
  d->set_prompt("Move units, build prepared defenses, place reserves, play an event, or end movement.");
  d->set_takebacks(2);
  const std::string text = render_decision(v, plain());
  EXPECT_NE(text.find("undo takes back your last order (2 orders may be taken back)."), std::string::npos) << text;
}

TEST(Render, ColourChangesOnlyTheColours) {
  RenderOptions o = plain();
  o.center_hex = 1816;
  RenderOptions c = o;
  c.colour = true;
  const std::string coloured = render_screen(sc(), german_view(), some_events(), c);
  EXPECT_NE(coloured.find("\033["), std::string::npos);
  const std::string stripped = std::regex_replace(coloured, std::regex("\033\\[[0-9;]*m"), "");
  // Coloured cells keep their trailing blanks; compare line by line without them.
  auto trim = [](const std::string& s) {
    std::istringstream in(s);
    std::string out;
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  };
  EXPECT_EQ(trim(stripped), trim(render_screen(sc(), german_view(), some_events(), o)));
}

// The log marks the first event the player had not been shown; when that is further
// back than the lines shown, the line about the earlier events says how many are new.
TEST(Render, TheLogMarksWhereThePlayerLastLooked) {
  std::vector<game::Event> events(6);
  for (int i = 0; i < 6; ++i) events[static_cast<std::size_t>(i)].set_text("event " + std::to_string(i) + ".");
  RenderOptions o;
  o.colour = false;
  o.log_lines = 0;
  o.new_from = 4;
  const std::string all = render_events(events, o);
  const auto mark = all.find("  -- since you last looked --\n");
  ASSERT_NE(mark, std::string::npos) << all;
  EXPECT_LT(all.find("event 3."), mark) << all;
  EXPECT_EQ(all.find("event 4."), mark + std::string("  -- since you last looked --\n  ").size()) << all;
  o.log_lines = 1;
  const std::string last = render_events(events, o);
  EXPECT_NE(last.find("(5 earlier events, the last 1 since you last looked: type log for all)"), std::string::npos) << last;
  EXPECT_EQ(last.find("-- since you last looked --"), std::string::npos) << last;
  o.new_from = -1;
  EXPECT_EQ(render_events(events, o).find("since you last looked"), std::string::npos) << "nothing new: no mark";
}


// Each order's time begins the line of its first event, in UTC; the date stands
// on a line of its own, at the first line shown and whenever it changes.
TEST(Render, TheLogGivesEachOrdersTimeAndTheDateWhenItChanges) {
  std::vector<game::Event> events(5);
  for (int i = 0; i < 5; ++i) events[static_cast<std::size_t>(i)].set_text("event " + std::to_string(i) + ".");
  RenderOptions o;
  o.colour = false;
  o.log_lines = 0;
  const std::int64_t day = 1795737600;  // 2026-11-27 00:00 UTC
  o.event_versions = {0, 0, 1, 2, 3};
  o.event_times = {day + 8 * 3600 + 14 * 60, day + 8 * 3600 + 14 * 60, day + 8 * 3600 + 20 * 60, day + 86400 + 9 * 3600 + 61,
                   day + 86400 + 9 * 3600 + 61};
  EXPECT_EQ(render_events(events, o),
            "  2026-11-27 (UTC)\n"
            "  08:14 event 0.\n"
            "        event 1.\n"
            "  08:20 event 2.\n"
            "  2026-11-28 (UTC)\n"
            "  09:01 event 3.\n"
            "  09:01 event 4.\n");
  o.log_lines = 2;
  EXPECT_EQ(render_events(events, o), "  (3 earlier events: type log for all)\n  2026-11-28 (UTC)\n  09:01 event 3.\n  09:01 event 4.\n");
  o.event_times.pop_back();  // not one for each event: none shown
  EXPECT_EQ(render_events(events, o), "  (3 earlier events: type log for all)\n  event 3.\n  event 4.\n");
  EXPECT_EQ(utc_minute(day + 8 * 3600 + 14 * 60 + 59), "2026-11-27 08:14");
}

// A line longer than the terminal is wide takes as many rows as it fills; colour codes take no
// column, a UTF-8 character one.
TEST(Render, TerminalRowsCountLongLinesAsTheTerminalWrapsThem) {
  EXPECT_EQ(terminal_rows("one\ntwo\n", 10), 2u);
  EXPECT_EQ(terminal_rows(std::string(10, 'x') + "\n", 10), 1u);
  EXPECT_EQ(terminal_rows(std::string(11, 'x') + "\n" + std::string(25, 'y') + "\n", 10), 5u);
  EXPECT_EQ(terminal_rows("\n\n", 10), 2u) << "an empty line takes a row";
  EXPECT_EQ(terminal_rows("\033[1;31m" + std::string(10, 'x') + "\033[0m\n", 10), 1u);
  std::string umlauts;
  for (int i = 0; i < 10; ++i) umlauts += "\xc3\xbc";
  EXPECT_EQ(terminal_rows(umlauts + "\n", 10), 1u);
  EXPECT_EQ(terminal_rows(std::string(25, 'y') + "\n", 0), 1u) << "width not known: a row a line";
  EXPECT_EQ(terminal_rows("", 10), 0u);
}

}  // namespace
}  // namespace counterattack::cli
