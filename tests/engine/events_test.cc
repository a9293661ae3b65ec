// 20 Events.
#include <algorithm>
#include <string>
#include <vector>

#include "fixture.h"

namespace counterattack::testing {
namespace {

game::Order event_order(const std::string& chit, const std::vector<std::string>& units = {},
                        const std::string& corps = "", const std::string& location = "") {
  game::Order o;
  auto* p = o.mutable_play_event();
  p->set_chit(chit);
  for (const auto& u : units) p->add_units(u);
  p->set_corps(corps);
  p->set_location(location);
  return o;
}

game::Order corps_order(const std::string& corps) {
  game::Order o;
  o.mutable_activate_corps()->set_corps(corps);
  return o;
}

void end_phase(Table& t, Side side) {
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(side))) << "step " << i;
}

bool holds(const Table& t, Side side, const std::string& id) {
  const auto& hand = t.s.sides[static_cast<int>(side)].hand;
  return std::find(hand.begin(), hand.end(), static_cast<std::uint8_t>(*t.sc().event_index(id))) != hand.end();
}

class Events : public ::testing::Test {
 protected:
  void SetUp() override {
    give_chits(t, Side::Soviet, {"SOV-NEVER", "SOV-GHOST", "SOV-SURPRISE", "SOV-REPAIR", "SOV-AIR"});
    give_chits(t, Side::German, {"GER-AGAIN", "GER-SUPPLY", "GER-BRIDGE", "GER-STUKA"});
  }
  Table t;
};

// ---------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------

TEST(EventsDraw, Rule20_ThreeChitsAtTheStartThenOneEachTurnFromTheSecond) {
  Table t;
  EXPECT_EQ(t.s.sides[0].hand.size(), 3u);
  EXPECT_EQ(t.s.sides[1].hand.size(), 3u);
  t.begin_phase(5);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
  const Outcome out = t.done(Side::German);
  ASSERT_TRUE(Accepted(out));
  ASSERT_EQ(t.s.turn, 2);
  EXPECT_EQ(t.s.sides[0].hand.size(), 4u);
  EXPECT_EQ(t.s.sides[1].hand.size(), 4u);
  const auto header = t.engine.view(t.s, Viewer::Spectator).header();
  EXPECT_EQ(header.soviet_cup(), 1);
  EXPECT_EQ(header.german_cup(), 0);
  // The owner reads the chit's name; the others only that a chit was drawn.
  int soviet_only = 0, others = 0;
  for (const auto& e : out.events) {
    if (e.kind() != game::Event::EVENT_DRAWN) continue;
    if (e.audience() == game::AUDIENCE_SOVIET) ++soviet_only;
    if (e.audience() == game::AUDIENCE_ALL_BUT_SOVIET) {
      ++others;
      for (const auto& chit : t.sc().events) EXPECT_EQ(e.text().find(chit.name), std::string::npos) << e.text();
    }
    EXPECT_NE(e.audience(), game::AUDIENCE_ALL);
  }
  EXPECT_EQ(soviet_only, 1);
  EXPECT_EQ(others, 1);
}

TEST(EventsDraw, Rule20_AnEmptyCupDrawsNothing) {
  Table t;
  for (std::uint8_t turn = 1; turn <= 3; ++turn) {
    t.s.turn = turn;
    t.begin_phase(5);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
  }
  ASSERT_EQ(t.s.turn, 4);
  EXPECT_EQ(t.s.sides[0].hand.size(), 5u);  // every Soviet chit
  EXPECT_EQ(t.s.sides[1].hand.size(), 4u);  // every German chit
  EXPECT_TRUE(t.s.sides[0].cup.empty());
  EXPECT_TRUE(t.s.sides[1].cup.empty());
}

// ---------------------------------------------------------------------------
// Playing
// ---------------------------------------------------------------------------

TEST_F(Events, Rule20_OneEventPerPhasePerPlayer) {
  t.put("1TC/1", "0404");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  const Outcome out = t.order(Side::Soviet, event_order("SOV-SURPRISE"));
  ASSERT_TRUE(Accepted(out));
  EXPECT_TRUE(std::any_of(out.events.begin(), out.events.end(),
                          [](const game::Event& e) { return e.kind() == game::Event::EVENT_PLAYED; }));
  EXPECT_FALSE(holds(t, Side::Soviet, "SOV-SURPRISE"));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-GHOST", {"1TC/1"}), game::LIMIT_REACHED));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  // A new phase: the Soviet may play again.
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  t.put("2TC/1", "0406");
  EXPECT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-GHOST", {"2TC/1"}))));
}

TEST_F(Events, Rule20_OneEventPerPhaseForTheGermanToo) {
  t.put("PzA/1", "0907");
  t.s.jozefow = 2;  // destroyed: the Pioneers may rebuild it
  t.begin_phase(1);
  EXPECT_TRUE(Accepted(t.order(Side::German, event_order("GER-BRIDGE"))));
  EXPECT_TRUE(Rejected(t, Side::German, event_order("GER-SUPPLY", {"PzA/1"}), game::LIMIT_REACHED));
}

TEST_F(Events, Rule20_AChitNotInHandIsRejected) {
  give_chits(t, Side::Soviet, {"SOV-GHOST"});
  t.put("2TC/1", "0507");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-NEVER", {}, "2TC"), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("GER-AGAIN"), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("NO-SUCH-CHIT"), game::NOT_ALLOWED));
}

TEST_F(Events, Rule20_AChitIsPlayedOnlyOnce) {
  t.put("1TC/1", "0404");
  t.put("2TC/1", "0406");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-SURPRISE"))));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-SURPRISE"), game::NOT_ALLOWED));
}

TEST_F(Events, Rule20_EventsArePlayedInTheOwnersPhase) {
  t.put("PzA/1", "0907");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::German, event_order("GER-SUPPLY", {"PzA/1"}), game::NOT_YOUR_DECISION));
}

TEST_F(Events, Rule20_CombatChitsAreRejectedInTheMovementStep) {
  t.put("1TC/1", "0404");
  t.put("ID/1", "0604");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  const GameState before = t.s;
  const Outcome out = t.order(Side::Soviet, event_order("SOV-AIR", {}, "", "0604"));  // a target in reach
  EXPECT_FALSE(out.accepted);
  EXPECT_TRUE(out.rejection.code == game::NOT_ALLOWED || out.rejection.code == game::WRONG_ORDER_KIND)
      << game::RejectCode_Name(out.rejection.code) << ": " << out.rejection.reason;
  EXPECT_TRUE(t.s == before);
  EXPECT_TRUE(holds(t, Side::Soviet, "SOV-AIR"));
}

TEST_F(Events, Rule20_RedArmyNeverSleepsActivatesASecondCorpsThisPhase) {
  t.put("1TC/1", "0507");
  t.put("2TC/1", "0607");
  t.put("3TC/1", "0707");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"2TC/1"}, {"0606"}), game::UNIT_NOT_ACTIVE));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-NEVER", {}, "2TC"))));
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"2TC/1"}, {"0606"})));
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0506"})));
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"3TC/1"}, {"0706"}), game::UNIT_NOT_ACTIVE));
  const auto header = t.engine.view(t.s, Viewer::German).header();
  EXPECT_EQ(header.activated_corps_size(), 2);
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  // The second corps has had its activation for the turn.
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(d.candidates, std::vector<int>{*t.sc().formation_index("3TC")});
  EXPECT_TRUE(Rejected(t, Side::Soviet, corps_order("2TC"), game::NOT_ALLOWED));
}

TEST_F(Events, Rule20_RedArmyNeverSleepsNeedsAnotherCorpsNotYetActivated) {
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-NEVER", {}, "2TC"), game::NOT_ALLOWED));  // active
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-NEVER", {}, "1TC"), game::NOT_ALLOWED));  // done
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-NEVER", {}, "2TA"), game::NOT_ALLOWED));  // no corps
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-NEVER"), game::NOT_ALLOWED));
  EXPECT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-NEVER", {}, "3TC"))));
}

// 5: independents activate together with a corps. After Red Army Never Sleeps
// has used up the corps, the third Soviet phase has none, so only reserves
// act (5, turn 1 note). Disabled: Rules::can_activate (movement.cc) still
// lets 2TA units start in a phase without an active corps.
TEST_F(Events, Rule5_WithoutACorpsLeftIndependentsDoNotActivate) {
  t.put("2TA/1", "0507");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-NEVER", {}, "2TC"))));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("3TC"))));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_EQ(t.engine.phase_name(t.s), "Soviet 3");
  ASSERT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"2TA/1"}, {"0506"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(Events, Rule20_GhostUnitLetsOneUnitIgnoreEnemyZoc) {
  t.put("ID/1", "0603");  // its ZOC covers 0504, 0604 and 0704 on the road
  t.put("1TC/1", "0404");
  t.put("1TC/R", "0404");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  const std::vector<std::string> through = {"0504", "0604", "0704", "0804"};
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"1TC/1"}, through), game::MUST_STOP_IN_ZOC));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-GHOST", {"1TC/1"}))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, through)));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/1"))].loc, t.loc("0804"));
  // Only that unit.
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"1TC/R"}, through), game::MUST_STOP_IN_ZOC));
}

TEST_F(Events, Rule20_GhostUnitGoesOnOneOfYourUnitsThatHasNotMoved) {
  t.put("1TC/1", "0404");
  t.put("1TC/R", "0404");
  t.put("2TC/1", "0406");
  t.put("ID/1", "0907");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-GHOST"), game::MALFORMED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-GHOST", {"1TC/1", "1TC/R"}), game::MALFORMED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-GHOST", {"ID/1"}), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-GHOST", {"2TC/1"}), game::UNIT_NOT_ACTIVE));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0504"})));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-GHOST", {"1TC/1"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(Events, Rule20_SurpriseAttackForbidsBreakingContactThisPhase) {
  t.put("PzB/1", "0603");  // movement 12: it could break contact
  t.put("1TC/1", "0404");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  {
    Table without = t;
    ASSERT_TRUE(Accepted(without.move(Side::Soviet, {"1TC/1"}, {"0504"})));
    EXPECT_EQ(without.decision().kind, game::Decision::BREAK_CONTACT);
    EXPECT_EQ(without.decision().side, Side::German);
  }
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-SURPRISE"))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0504"})));
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"1TC/1"}, {"0604"}), game::MUST_STOP_IN_ZOC));
}

// Surprise Attack reads "Play at the start of a Soviet activation phase": from
// revision 3 it is refused once a unit of the phase has acted, so that it cannot
// wait to see which units the German lets break contact.
TEST(EventsRevision3, Rule20_SurpriseAttackIsPlayedAtTheStartOfThePhase) {
  Table t(test_scenario(), revision_bits(3));
  give_chits(t, Side::Soviet, {"SOV-SURPRISE"});
  t.put("PzB/1", "0603");
  t.put("1TC/1", "0404");
  t.put("1TC/2", "0407");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  {
    Table at_start = t;
    EXPECT_TRUE(Accepted(at_start.order(Side::Soviet, event_order("SOV-SURPRISE"))));
  }
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/2"}, {"0408"})));
  const Outcome late = t.order(Side::Soviet, event_order("SOV-SURPRISE"));
  EXPECT_FALSE(late.accepted);
  EXPECT_NE(late.rejection.reason.find("at the start of the phase"), std::string::npos) << late.rejection.reason;
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-SURPRISE"), game::NOT_ALLOWED));
}

TEST(EventsRevision3, Rule20_SurpriseAttackIsNotPlayedAfterAPreparedDefenseOrAReserve) {
  Table t(test_scenario(), revision_bits(3));
  give_chits(t, Side::Soviet, {"SOV-SURPRISE"});
  t.put("1TC/2", "0407");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  {
    Table prepared = t;
    game::Order o;
    o.mutable_prepared_defense()->add_units("1TC/2");
    ASSERT_TRUE(Accepted(prepared.order(Side::Soviet, o)));
    EXPECT_TRUE(Rejected(prepared, Side::Soviet, event_order("SOV-SURPRISE"), game::NOT_ALLOWED));
  }
  game::Order o;
  o.mutable_place_reserve()->add_units("1TC/2");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, o)));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-SURPRISE"), game::NOT_ALLOWED));
}

// Games begun before revision 3 may play it later in the phase, as they did.
TEST(EventsRevision3, Rule20_InRevision2SurpriseAttackIsPlayedAnyTimeInMovement) {
  Table t(test_scenario(), revision_bits(2));
  give_chits(t, Side::Soviet, {"SOV-SURPRISE"});
  t.put("PzB/1", "0603");
  t.put("1TC/2", "0407");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/2"}, {"0408"})));
  EXPECT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-SURPRISE"))));
}

TEST_F(Events, Rule20_SurpriseAttackEndsWithThePhase) {
  t.put("PzB/1", "0603");
  t.put("2TC/1", "0404");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-SURPRISE"))));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"2TC/1"}, {"0504"})));
  EXPECT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
}

TEST_F(Events, Rule20_FieldRepairsRecoversASovietStep) {
  t.put("1TC/1", "0507");  // next to the Soviet source at 0508
  t.s.units[static_cast<size_t>(t.unit("1TC/1"))].hits = 1;
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  const Outcome out = t.order(Side::Soviet, event_order("SOV-REPAIR", {"1TC/1"}));
  ASSERT_TRUE(Accepted(out));
  EXPECT_TRUE(std::any_of(out.events.begin(), out.events.end(),
                          [](const game::Event& e) { return e.kind() == game::Event::STEP_RECOVERED; }));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/1"))].hits, 0);
  EXPECT_FALSE(holds(t, Side::Soviet, "SOV-REPAIR"));
}

TEST_F(Events, Rule20_FieldRepairsNeedsASuppliedReducedUnit) {
  t.put("1TC/1", "0102");  // far from the Soviet source
  t.put("1TC/2", "0507");
  t.s.units[static_cast<size_t>(t.unit("1TC/1"))].hits = 1;
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/1"}), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/2"}), game::NOT_ALLOWED));  // full
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR"), game::MALFORMED));
}

TEST_F(Events, Rule16_FieldRepairsReturnsAnEliminatedUnitNextToItsFormation) {
  t.put("1TC/2", "0507");
  t.put("2TC/1", "0406");
  t.put("1TC/3", "eliminated");
  t.put("2TA/1", "eliminated");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/3"}), game::MALFORMED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/3"}, "", "0305"), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/3"}, "", "WARSAW"), game::NOT_ALLOWED));
  // Next to 2TC/1 only: another corps.
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/3"}, "", "0405"), game::NOT_ALLOWED));
  {
    Table independent = t;  // an independent comes back next to any supplied friend
    EXPECT_TRUE(Accepted(independent.order(Side::Soviet, event_order("SOV-REPAIR", {"2TA/1"}, "", "0405"))));
  }
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-REPAIR", {"1TC/3"}, "", "0607"))));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/3"))].loc, t.loc("0607"));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/3"))].hits, 1);
}

// The test scenario with chits whose text names the units they take: Field
// Repairs for armor, and a Panzer Ace for German armor.
std::shared_ptr<const Scenario> classed_chits_scenario() {
  static const auto sc = [] {
    auto files = test_scenario_files();
    auto& ev = files["events"];
    const std::string repair = R"(effect: RECOVER_STEP })";
    ev.replace(ev.find(repair), repair.size(), R"(effect: RECOVER_STEP unit_class: ARMOR })");
    ev += R"(chit { id: "GER-ACE" name: "Panzer Ace" side: GERMAN effect: UNIT_BONUS amount: 1 stays_in_play: true
                    unit_class: ARMOR unit_class: MECHANIZED })";
    auto r = load_scenario(files);
    for (const auto& e : r.errors) ADD_FAILURE() << e.to_string();
    return r.scenario;
  }();
  return sc;
}

// 16: "The Soviet player can also recover lost steps of armored or infantry;
// however, to do so, they must play the appropriate events": from revision 3 a
// chit takes only the classes of unit its text names.
TEST(EventsRevision3, Rule16_FieldRepairsRecoversArmorOnly) {
  Table t(classed_chits_scenario(), revision_bits(3));
  give_chits(t, Side::Soviet, {"SOV-REPAIR"});
  t.put("1TC/1", "0507");  // armor, next to the Soviet source at 0508
  t.put("1TC/2", "0607");  // infantry
  t.put("1TC/3", "eliminated");  // armor
  t.s.units[static_cast<size_t>(t.unit("1TC/1"))].hits = 1;
  t.s.units[static_cast<size_t>(t.unit("1TC/2"))].hits = 1;
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  const Outcome refused = t.order(Side::Soviet, event_order("SOV-REPAIR", {"1TC/2"}));
  EXPECT_FALSE(refused.accepted);
  EXPECT_NE(refused.rejection.reason.find("Field Repairs is played on armor units only: 1TC/2 is infantry"), std::string::npos)
      << refused.rejection.reason;
  EXPECT_TRUE(Rejected(t, Side::Soviet, event_order("SOV-REPAIR", {"1TC/2"}), game::NOT_ALLOWED));
  {
    Table back = t;  // an eliminated armor unit comes back
    EXPECT_TRUE(Accepted(back.order(Side::Soviet, event_order("SOV-REPAIR", {"1TC/3"}, "", "0606"))));
  }
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-REPAIR", {"1TC/1"}))));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/1"))].hits, 0);
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/2"))].hits, 1);
}

// The list of legal orders offers the chit on the classes it takes only.
TEST(EventsRevision3, Rule16_TheLegalOrdersOfferFieldRepairsOnArmorOnly) {
  Table t(classed_chits_scenario(), revision_bits(3));
  give_chits(t, Side::Soviet, {"SOV-REPAIR"});
  t.put("1TC/2", "0607");
  t.s.units[static_cast<size_t>(t.unit("1TC/2"))].hits = 1;
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  for (const auto& o : t.engine.legal_orders(t.s)) EXPECT_NE(o.kind, Order::Kind::PlayEvent);
}

TEST(EventsRevision3, Rule20_PanzerAceGoesOnArmoredUnitsOnly) {
  Table t(classed_chits_scenario(), revision_bits(3));
  give_chits(t, Side::German, {"GER-ACE"});
  t.put("ID/1", "0905");
  t.put("PzA/2", "0907");
  t.begin_phase(1);
  EXPECT_TRUE(Rejected(t, Side::German, event_order("GER-ACE", {"ID/1"}), game::NOT_ALLOWED));
  ASSERT_TRUE(Accepted(t.order(Side::German, event_order("GER-ACE", {"PzA/2"}))));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("PzA/2"))].bonus, 1);
}

// 20: a chit that stays on a unit is a marker on the counter: its owner sees it, and so does the
// other side while the unit is the top of its stack; under the top, the opponent sees nothing of it.
TEST(EventsRevision3, Rule20_APanzerAceShowsOnItsCounterToWhoeverSeesTheUnit) {
  Table t(classed_chits_scenario(), revision_bits(3));
  give_chits(t, Side::German, {"GER-ACE"});
  t.put("PzA/2", "0907");
  t.put("PzA/1", "0907");  // the last one placed: on top of PzA/2
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.order(Side::German, event_order("GER-ACE", {"PzA/2"}))));
  auto markers_of = [&](Viewer who, const std::string& unit) {
    std::vector<std::string> out;
    bool seen = false;
    const game::View v = t.engine.view(t.s, who);
    for (const auto& st : v.stacks())
      for (const auto& u : st.units())
        if (u.id() == unit) {
          seen = true;
          out.assign(u.markers().begin(), u.markers().end());
        }
    return std::make_pair(seen, out);
  };
  EXPECT_EQ(markers_of(Viewer::German, "PzA/2"), std::make_pair(true, std::vector<std::string>{"+1 attack bonus (event chit)"}));
  ASSERT_TRUE(markers_of(Viewer::Soviet, "PzA/1").first) << "the top counter is seen from afar";
  EXPECT_FALSE(markers_of(Viewer::Soviet, "PzA/2").first) << "under the top: not seen from afar";
  EXPECT_TRUE(markers_of(Viewer::German, "PzA/1").second.empty());
}

// Games begun before revision 3 play the chits on any class, as they did.
TEST(EventsRevision3, Rule20_InRevision2AChitTakesAnyClass) {
  Table t(classed_chits_scenario(), revision_bits(2));
  give_chits(t, Side::Soviet, {"SOV-REPAIR"});
  give_chits(t, Side::German, {"GER-ACE"});
  t.put("1TC/2", "0607");
  t.put("ID/1", "0905");
  t.s.units[static_cast<size_t>(t.unit("1TC/2"))].hits = 1;
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, event_order("SOV-REPAIR", {"1TC/2"}))));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("1TC/2"))].hits, 0);
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.order(Side::German, event_order("GER-ACE", {"ID/1"}))));
  EXPECT_EQ(t.s.units[static_cast<size_t>(t.unit("ID/1"))].bonus, 1);
}

// The shipped chits name the classes their texts do.
TEST(EventsRevision3, Rule16_TheShippedRecoveryAndAceChitsNameTheirClasses) {
  const auto& sc = *default_scenario();
  auto classes = [&](const char* id) { return sc.events[static_cast<size_t>(*sc.event_index(id))].classes; };
  EXPECT_EQ(classes("SOV-REPAIR"), std::vector<UnitClass>{UnitClass::Armor});
  EXPECT_EQ(classes("SOV-REPLACE"), (std::vector<UnitClass>{UnitClass::Infantry, UnitClass::Mechanized, UnitClass::Cavalry}));
  EXPECT_EQ(classes("GER-ACE"), (std::vector<UnitClass>{UnitClass::Armor, UnitClass::Mechanized, UnitClass::AntiTank}));
  EXPECT_TRUE(classes("SOV-GUARDS").empty());  // "Place on a Soviet unit"
}

TEST_F(Events, Rule5_CounterstrokeActivatesAGermanStackASecondTime) {
  t.put("PzA/1", "0907");
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"0906"})));
  EXPECT_TRUE(Rejected(t, Side::German, event_order("GER-AGAIN", {"PzA/1"}), game::NOT_ALLOWED));  // still moving
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  end_phase(t, Side::Soviet);
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzA/1"}, {"0905"}), game::UNIT_NOT_ACTIVE));
  ASSERT_TRUE(Accepted(t.order(Side::German, event_order("GER-AGAIN", {"PzA/1"}))));
  EXPECT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"0905"})));
}

TEST_F(Events, Rule20_AirSupplyCountsAsSupplied) {
  const int u = t.unit("PzA/1");
  t.put("PzA/1", "0301");  // out of supply on the test map
  t.s.set(u, kOutOfSupply);
  t.begin_phase(1);
  ASSERT_EQ(t.engine.movement_half(t.s, u), 10);
  ASSERT_TRUE(Accepted(t.order(Side::German, event_order("GER-SUPPLY", {"PzA/1"}))));
  EXPECT_FALSE(t.s.has(u, kOutOfSupply));
  EXPECT_TRUE(t.engine.in_supply(t.s, u));
  EXPECT_EQ(t.engine.movement_half(t.s, u), 20);
  EXPECT_EQ(t.engine.combat_value(t.s, u), 6);
}

}  // namespace
}  // namespace counterattack::testing
