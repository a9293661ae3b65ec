// 3 Victory conditions, 4 Game preparation, 5 Sequence of play.
#include <algorithm>
#include <string>
#include <vector>

#include "fixture.h"
#include "view_delta.h"

namespace counterattack::testing {
namespace {

game::Order corps_order(const std::string& corps, bool with_47th = false) {
  game::Order o;
  o.mutable_activate_corps()->set_corps(corps);
  o.mutable_activate_corps()->set_with_47th(with_47th);
  return o;
}

// Ends the movement, barrage, combat and reserves steps of the current phase.
void end_phase(Table& t, Side side) {
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(side))) << "step " << i;
}

// Plays out the third German phase: the turn ends.
void end_turn(Table& t) {
  t.begin_phase(5);
  end_phase(t, Side::German);
}

std::vector<std::string> candidate_ids(const Table& t, const Decision& d) {
  std::vector<std::string> out;
  for (int c : d.candidates) out.push_back(t.sc().formations[static_cast<size_t>(c)].id);
  return out;
}

const game::UnitView* find_unit(const game::View& v, const std::string& id) {
  for (const auto& st : v.stacks()) {
    for (const auto& u : st.units()) {
      if (u.id() == id) return &u;
    }
  }
  return nullptr;
}

class Sequence : public ::testing::Test {
 protected:
  Table t;
};

// ---------------------------------------------------------------------------
// 4 Game preparation
// ---------------------------------------------------------------------------

TEST_F(Sequence, Rule4_NewGameStartsOnTurnOneWithThreeSecretEventsEach) {
  EXPECT_EQ(t.s.turn, 1);
  EXPECT_EQ(t.s.sides[0].hand.size(), 3u);
  EXPECT_EQ(t.s.sides[1].hand.size(), 3u);
  // The test cups hold five Soviet and four German chits.
  EXPECT_EQ(t.s.sides[0].cup.size(), 2u);
  EXPECT_EQ(t.s.sides[1].cup.size(), 1u);
  for (int side = 0; side < 2; ++side) {
    for (auto c : t.s.sides[side].hand) EXPECT_EQ(static_cast<int>(t.sc().events[c].side), side);
  }
  const Decision d = t.decision();
  EXPECT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(d.side, Side::Soviet);
  EXPECT_EQ(candidate_ids(t, d), (std::vector<std::string>{"1TC", "2TC", "3TC"}));
}

TEST_F(Sequence, Rule4_RealScenarioStartsWithOnlyGermanUnitsOnTheMap) {
  Table real(default_scenario());
  const Scenario& sc = real.sc();
  EXPECT_EQ(real.s.turn, 1);
  EXPECT_EQ(real.s.sides[0].hand.size(), 3u);
  EXPECT_EQ(real.s.sides[1].hand.size(), 3u);
  int german_on_map = 0;
  for (size_t u = 0; u < sc.units.size(); ++u) {
    const Loc l = real.s.units[u].loc;
    const bool on_map = sc.is_hex(l) || l == sc.warsaw();
    if (sc.units[u].side == Side::Soviet) {
      EXPECT_FALSE(on_map) << sc.units[u].id << " is on the map at " << sc.location_name(l);
    } else {
      german_on_map += on_map;
    }
  }
  EXPECT_GT(german_on_map, 0);
  // Both turn-1 Soviet corps wait at their entry points.
  int soviet_waiting = 0;
  for (size_t u = 0; u < sc.units.size(); ++u) {
    soviet_waiting += sc.units[u].side == Side::Soviet && sc.is_entry(real.s.units[u].loc);
  }
  EXPECT_GT(soviet_waiting, 0);
  const Decision d = real.decision();
  EXPECT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(d.side, Side::Soviet);
  EXPECT_EQ(d.candidates.size(), 3u);
  EXPECT_EQ(real.engine.view(real.s, Viewer::Spectator).header().turn(), 1);
}

TEST_F(Sequence, Rule4_SameSeedSameGame) {
  Table other;
  EXPECT_TRUE(other.s == t.s);
}

// ---------------------------------------------------------------------------
// 5 Sequence of play
// ---------------------------------------------------------------------------

TEST_F(Sequence, Rule5_SixPhasesAlternateSovietGermanWithFourSteps) {
  struct Expect {
    const char* phase;
    game::Decision::Kind kind;
    Side side;
  };
  const std::vector<game::Decision::Kind> steps = {game::Decision::MOVEMENT, game::Decision::BARRAGE,
                                                   game::Decision::COMBAT, game::Decision::RESERVES};
  const char* corps[] = {"1TC", "2TC", "3TC"};
  for (int phase = 0; phase < 6; ++phase) {
    const Side side = phase % 2 == 0 ? Side::Soviet : Side::German;
    const std::string name = std::string(side_name(side)) + " " + std::to_string(phase / 2 + 1);
    EXPECT_EQ(t.engine.phase_name(t.s), name);
    if (side == Side::Soviet) {
      ASSERT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS) << name;
      ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order(corps[phase / 2]))));
    }
    for (auto kind : steps) {
      const Decision d = t.decision();
      EXPECT_EQ(d.kind, kind) << name;
      EXPECT_EQ(d.side, side) << name;
      EXPECT_EQ(t.engine.phase_name(t.s), name);
      ASSERT_TRUE(Accepted(t.done(side)));
    }
  }
  // The turn is over: turn 2 begins with the Soviet choice again.
  EXPECT_EQ(t.s.turn, 2);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(t.decision().side, Side::Soviet);
  EXPECT_EQ(t.engine.phase_name(t.s), "Soviet 1");
}

TEST_F(Sequence, Rule5_SovietCorpsActivatesOncePerTurn) {
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  const Decision d = t.decision();
  ASSERT_EQ(d.kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(candidate_ids(t, d), (std::vector<std::string>{"2TC", "3TC"}));
  EXPECT_TRUE(Rejected(t, Side::Soviet, corps_order("1TC"), game::NOT_ALLOWED));
  EXPECT_TRUE(Accepted(t.order(Side::Soviet, corps_order("3TC"))));
  const auto header = t.engine.view(t.s, Viewer::German).header();
  EXPECT_EQ(header.active_corps(), "3TC");
  EXPECT_EQ(header.activated_corps_size(), 2);
}

TEST_F(Sequence, Rule5_OnlyAnArmyCorpsCanBeChosen) {
  EXPECT_TRUE(Rejected(t, Side::Soviet, corps_order("2TA"), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, corps_order("47A"), game::NOT_ALLOWED));
  EXPECT_TRUE(Rejected(t, Side::Soviet, corps_order("PzA"), game::NOT_ALLOWED));
  // The refusal names the corps there are.
  EXPECT_EQ(t.order(Side::Soviet, corps_order("2TA")).rejection.reason, "That is not a Soviet corps: the corps are 1TC, 2TC, 3TC.");
  // Once one is chosen, the phase's steps are under way: another waits for the next phase.
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  const Outcome again = t.order(Side::Soviet, corps_order("2TC"));
  EXPECT_EQ(again.rejection.code, game::WRONG_ORDER_KIND);
  EXPECT_EQ(again.rejection.reason, "A corps is chosen as a Soviet phase begins; this phase's Movement step is under way.");
}

TEST_F(Sequence, Rule5_OnlyTheActiveCorpsMoves) {
  t.put("1TC/1", "0507");
  t.put("2TC/1", "0607");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"2TC/1"}, {"0606"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0506"})));
}

TEST_F(Sequence, Rule5_TheWholeCorpsIsMarkedMovedAfterItsPhase) {
  t.put("1TC/1", "0507");
  t.put("1TC/2", "0607");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0506"})));
  end_phase(t, Side::Soviet);
  // 1TC/2 stayed put, but its corps has been activated.
  const auto v = t.engine.view(t.s, Viewer::Soviet);
  ASSERT_NE(find_unit(v, "1TC/2"), nullptr);
  EXPECT_TRUE(find_unit(v, "1TC/1")->moved());
  EXPECT_TRUE(find_unit(v, "1TC/2")->moved());
}

TEST_F(Sequence, Rule5_IndependentsActivateWithAnyCorps) {
  t.put("2TA/1", "0507");
  Table other;
  other.put("2TA/1", "0507");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0506"})));
  ASSERT_TRUE(Accepted(other.order(Side::Soviet, corps_order("3TC"))));
  EXPECT_TRUE(Accepted(other.move(Side::Soviet, {"2TA/1"}, {"0506"})));
}

TEST_F(Sequence, Rule5_AnIndependentActivatesOnlyOncePerTurn) {
  t.put("2TA/1", "0507");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"2TA/1"}, {"0506"})));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"2TA/1"}, {"0505"}), game::UNIT_NOT_ACTIVE));
}

TEST_F(Sequence, Rule17_FortySeventhArmyActivatesWithOneCorpsOncePerTurn) {
  t.put("47A/1", "0507");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC", true))));
  EXPECT_TRUE(t.engine.view(t.s, Viewer::Spectator).header().forty_seventh_activated());
  end_phase(t, Side::Soviet);  // 47A/1 did not move in its phase
  end_phase(t, Side::German);
  EXPECT_TRUE(Rejected(t, Side::Soviet, corps_order("2TC", true), game::LIMIT_REACHED));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"47A/1"}, {"0506"}), game::UNIT_NOT_ACTIVE));
}

// The activation of the turn may be spent before any of its units has come: the log says so.
TEST_F(Sequence, Rule17_FortySeventhArmyActivatedBeforeItsUnitsCameIsToldSo) {
  const Outcome none = t.order(Side::Soviet, corps_order("1TC", true));
  ASSERT_TRUE(Accepted(none));
  ASSERT_FALSE(none.events.empty());
  EXPECT_EQ(none.events.front().text(), "1TC activates, with the 47th Army (none of its units is on the map yet).");
  Table other;
  other.put("47A/1", "0507");
  const Outcome some = other.order(Side::Soviet, corps_order("1TC", true));
  ASSERT_TRUE(Accepted(some));
  ASSERT_FALSE(some.events.empty());
  EXPECT_EQ(some.events.front().text(), "1TC activates, with the 47th Army.");
}

TEST_F(Sequence, Rule17_FortySeventhArmyMovesOnlyWithTheCorpsThatTookIt) {
  t.put("47A/1", "0507");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"47A/1"}, {"0506"}), game::UNIT_NOT_ACTIVE));
  end_phase(t, Side::Soviet);
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC", true))));
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"47A/1"}, {"0506"})));
}

TEST_F(Sequence, Rule5_GermanUnitsActInAnyGermanPhaseButOncePerTurn) {
  t.put("PzA/1", "0907");
  t.put("PzB/1", "0807");
  t.put("ID/1", "0707");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  end_phase(t, Side::Soviet);
  // Units of different formations in the same German phase.
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"0906"})));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"0706"})));
  end_phase(t, Side::German);
  EXPECT_TRUE(find_unit(t.engine.view(t.s, Viewer::Soviet), "PzA/1")->moved());
  EXPECT_FALSE(find_unit(t.engine.view(t.s, Viewer::Soviet), "PzB/1")->moved());
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("2TC"))));
  end_phase(t, Side::Soviet);
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzA/1"}, {"0905"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"ID/1"}, {"0705"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"0806"})));
}

TEST_F(Sequence, Rule5_MovedAndDisorganizedComeOffInTheAdministrativePhase) {
  t.put("PzA/1", "0907");
  t.put("ID/1", "0301");  // out of supply in the test map
  t.begin_phase(5);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"0906"})));
  t.s.set(t.unit("PzA/1"), kDisorganized);
  ASSERT_TRUE(Accepted(t.done(Side::German)));
  {
    const auto v = t.engine.view(t.s, Viewer::German);
    EXPECT_TRUE(find_unit(v, "PzA/1")->moved());
    EXPECT_TRUE(find_unit(v, "PzA/1")->disorganized());
  }
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.s.turn, 2);
  const auto v = t.engine.view(t.s, Viewer::German);
  EXPECT_FALSE(find_unit(v, "PzA/1")->moved());
  EXPECT_FALSE(find_unit(v, "PzA/1")->disorganized());
  EXPECT_EQ(find_unit(v, "PzA/1")->combat(), 6);
  // The out-of-supply marker stays until the next supply check (15).
  EXPECT_TRUE(find_unit(v, "ID/1")->out_of_supply());
  // The corps boxes are cleared too.
  EXPECT_EQ(v.header().activated_corps_size(), 0);
  EXPECT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
}

TEST_F(Sequence, Rule5_ArtilleryAndStukasAreReadyAgainNextTurn) {
  t.s.artillery[1] = MarkerState::Used;  // PzA-art
  t.s.stukas[0] = MarkerState::Used;
  end_turn(t);
  const auto v = t.engine.view(t.s, Viewer::Soviet);
  ASSERT_EQ(v.artillery_size(), 2);
  EXPECT_EQ(v.artillery(1).id(), "PzA-art");
  EXPECT_EQ(v.artillery(1).state(), "ready");
  EXPECT_EQ(v.stukas(0).state(), "ready");
}

TEST_F(Sequence, Rule5_TheTurnAdvancesUntilTheTenth) {
  t.s.turn = 9;
  end_turn(t);
  EXPECT_EQ(t.s.turn, 10);
  EXPECT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(t.s.result, Result::Ongoing);
}

TEST_F(Sequence, Rule5_TheGameEndsAfterTheTenthTurn) {
  t.s.turn = 10;
  end_turn(t);
  EXPECT_EQ(t.s.turn, 10);
  const Decision d = t.decision();
  EXPECT_EQ(d.kind, game::Decision::GAME_OVER);
  EXPECT_NE(t.s.result, Result::Ongoing);
  const auto header = t.engine.view(t.s, Viewer::Spectator).header();
  EXPECT_EQ(header.result(), "German victory");
  EXPECT_FALSE(header.result_reason().empty());
  EXPECT_TRUE(Rejected(t, Side::Soviet, done_order(), game::GAME_OVER));
  EXPECT_TRUE(Rejected(t, Side::German, done_order(), game::GAME_OVER));
  EXPECT_TRUE(t.engine.legal_orders(t.s).empty());
}

TEST_F(Sequence, Rule5_OrdersFromTheSideNotToDecideAreRejected) {
  t.put("PzA/1", "0907");
  t.put("1TC/1", "0507");
  EXPECT_TRUE(Rejected(t, Side::German, done_order(), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(t, Side::German, corps_order("1TC"), game::NOT_YOUR_DECISION));
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"PzA/1"}, {"0906"}), game::NOT_YOUR_DECISION));
  end_phase(t, Side::Soviet);
  EXPECT_TRUE(Rejected(t, Side::Soviet, move_order({"1TC/1"}, {"0506"}), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(t, Side::Soviet, done_order(), game::NOT_YOUR_DECISION));
}

TEST_F(Sequence, Rule5_EveryRejectedOrderLeavesTheStateUnchanged) {
  t.put("PzA/1", "0907");
  t.put("1TC/1", "0404");
  t.put("1TC/2", "0507");
  t.put("2TC/1", "0607");
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0504"})));  // in motion
  game::Order no_kind;
  game::Order recover;
  recover.mutable_recover()->set_unit("1TC/2");
  game::Order reserve;
  reserve.mutable_place_reserve()->add_units("2TC/1");
  game::Order event;
  event.mutable_play_event()->set_chit("GER-AGAIN");
  const std::vector<std::pair<Side, game::Order>> bad = {
      {Side::German, done_order()},
      {Side::Soviet, corps_order("2TC")},
      {Side::Soviet, move_order({"2TC/1"}, {"0606"})},
      {Side::Soviet, move_order({"PzA/1"}, {"0906"})},
      {Side::Soviet, move_order({"1TC/2"}, {"0506", "0505", "0405", "0404", "0304"})},
      {Side::Soviet, move_order({"1TC/2"}, {"0707"})},
      {Side::Soviet, move_order({"1TC/2"}, {})},
      {Side::Soviet, move_order({"1TC/2", "1TC/2"}, {"0506"})},
      {Side::Soviet, move_order({"1TC/2"}, {"WARSAW"})},
      {Side::Soviet, move_order({"nobody"}, {"0506"})},
      {Side::Soviet, move_order({"1TC/2"}, {"9999"})},
      {Side::Soviet, no_kind},
      {Side::Soviet, recover},
      {Side::Soviet, reserve},
      {Side::Soviet, event},
  };
  for (const auto& [who, o] : bad) {
    const GameState before = t.s;
    const Outcome out = t.order(who, o);
    EXPECT_FALSE(out.accepted) << o.ShortDebugString();
    EXPECT_NE(out.rejection.code, game::REJECT_UNSPECIFIED) << o.ShortDebugString();
    EXPECT_FALSE(out.rejection.reason.empty()) << o.ShortDebugString();
    EXPECT_TRUE(t.s == before) << o.ShortDebugString();
  }
  // The unit in motion may still go on.
  EXPECT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0604"})));
}

// ---------------------------------------------------------------------------
// 5 Limited activation for the German player (optional)
// ---------------------------------------------------------------------------

class SequenceLimitedActivation : public ::testing::Test {
 protected:
  explicit SequenceLimitedActivation(std::uint32_t options = kLimitedGermanActivation) : t(test_scenario(), options) {}
  void SetUp() override {
    t.clear_board();
    t.put("PzA/1", "1007");
    t.put("PzA/2", "0907");
    t.put("PzB/1", "0807");
    t.put("ID/1", "0707");
    t.put("ID/2", "0607");
    t.put("GER/Zug", "0305");
  }
  Table t;
};

TEST_F(SequenceLimitedActivation, Rule5_FromTurnSixTwoDivisionsIndependentsAndOneOtherUnit) {
  t.s.turn = 6;
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"1006"})));   // first division
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"0806"})));   // second division
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"0706"})));    // the one unit of another
  EXPECT_TRUE(Rejected(t, Side::German, move_order({"ID/2"}, {"0606"}), game::UNIT_NOT_ACTIVE));
  EXPECT_TRUE(Accepted(t.move(Side::German, {"PzA/2"}, {"0906"})));   // a division already active
  EXPECT_TRUE(Accepted(t.move(Side::German, {"GER/Zug"}, {"0306"})));  // independent
}

TEST_F(SequenceLimitedActivation, Rule5_TheLimitAppliesPerPhase) {
  t.s.turn = 6;
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"1006"})));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzB/1"}, {"0806"})));
  ASSERT_TRUE(Accepted(t.move(Side::German, {"ID/1"}, {"0706"})));
  end_phase(t, Side::German);
  ASSERT_TRUE(Accepted(t.order(Side::Soviet, corps_order("1TC"))));
  end_phase(t, Side::Soviet);
  ASSERT_EQ(t.engine.phase_name(t.s), "German 2");
  EXPECT_TRUE(Accepted(t.move(Side::German, {"ID/2"}, {"0606"})));
}

TEST_F(SequenceLimitedActivation, Rule5_BeforeTurnSixEveryUnitMayAct) {
  t.s.turn = 5;
  t.begin_phase(1);
  for (const auto& [u, to] : std::vector<std::pair<std::string, std::string>>{
           {"PzA/1", "1006"}, {"PzB/1", "0806"}, {"ID/1", "0706"}, {"ID/2", "0606"}, {"PzA/2", "0906"}}) {
    EXPECT_TRUE(Accepted(t.move(Side::German, {u}, {to}))) << u;
  }
}

class SequenceUnlimitedActivation : public SequenceLimitedActivation {
 protected:
  SequenceUnlimitedActivation() : SequenceLimitedActivation(0) {}
};

TEST_F(SequenceUnlimitedActivation, Rule5_WithoutTheOptionalRuleEveryUnitMayAct) {
  t.s.turn = 6;
  t.begin_phase(1);
  for (const auto& [u, to] : std::vector<std::pair<std::string, std::string>>{
           {"PzA/1", "1006"}, {"PzB/1", "0806"}, {"ID/1", "0706"}, {"ID/2", "0606"}, {"PzA/2", "0906"}}) {
    EXPECT_TRUE(Accepted(t.move(Side::German, {u}, {to}))) << u;
  }
}

// ---------------------------------------------------------------------------
// 3 Victory conditions
// ---------------------------------------------------------------------------

class Victory : public ::testing::Test {
 protected:
  void SetUp() override { t.clear_board(); }
  Table t;
};

TEST_F(Victory, Rule3_TheGermanHoldsEveryVictoryHexAtTheStart) {
  EXPECT_EQ(t.engine.victory_points(t.s, Side::German), 3);  // Praga 1 + Town 2
  EXPECT_EQ(t.engine.victory_points(t.s, Side::Soviet), 0);
  Table real(default_scenario());
  EXPECT_EQ(real.engine.victory_points(real.s, Side::Soviet), 0);
  int total = 0;
  for (const auto& v : real.sc().victory) total += v.points_per_hex * static_cast<int>(v.hexes.size());
  EXPECT_EQ(real.engine.victory_points(real.s, Side::German), total);
}

TEST_F(Victory, Rule3_ASovietUnitOccupyingAVictoryHexTakesItsPoints) {
  t.put("1TC/2", "0904");
  t.s.set(t.unit("1TC/2"), kOutOfSupply);  // supply does not matter
  EXPECT_EQ(t.engine.victory_points(t.s, Side::Soviet), 2);
  EXPECT_EQ(t.engine.victory_points(t.s, Side::German), 1);
  const auto view = t.engine.view(t.s, Viewer::Spectator);
  EXPECT_EQ(view.header().soviet_vp(), 2);
  EXPECT_EQ(view.header().german_vp(), 1);
  EXPECT_NE(std::find(view.victory_control().begin(), view.victory_control().end(), "0904=SOVIET"),
            view.victory_control().end());
}

// The victory hexes travel in the view's own list: a new phase or step resends
// the header but not the list, and a hex changing hands sends only the list.
TEST_F(Victory, Rule3_TheDeltaCarriesTheVictoryHexesOnlyWhenOneChangesHands) {
  const auto start = t.engine.view(t.s, Viewer::Soviet);
  t.s.turn += 1;
  const auto next_turn = t.engine.view(t.s, Viewer::Soviet);
  const auto header_only = diff_views(start, next_turn);
  EXPECT_TRUE(header_only.has_header());
  EXPECT_FALSE(header_only.victory_changed());
  EXPECT_EQ(header_only.victory_control_size(), 0);

  t.put("1TC/2", "0904");
  const auto taken = diff_views(next_turn, t.engine.view(t.s, Viewer::Soviet));
  EXPECT_TRUE(taken.victory_changed());
  EXPECT_NE(std::find(taken.victory_control().begin(), taken.victory_control().end(), "0904=SOVIET"),
            taken.victory_control().end());
  game::View rebuilt = next_turn;
  ASSERT_TRUE(apply_delta(rebuilt, taken));
  EXPECT_EQ(rebuilt.SerializeAsString(), t.engine.view(t.s, Viewer::Soviet).SerializeAsString());
}

TEST_F(Victory, Rule3_TheHexReturnsToTheGermanWhenTheSovietLeaves) {
  t.put("1TC/1", "0904");
  EXPECT_EQ(t.engine.victory_points(t.s, Side::Soviet), 2);
  t.begin_phase(0, "1TC");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0804"})));
  EXPECT_EQ(t.engine.victory_points(t.s, Side::Soviet), 0);
  EXPECT_EQ(t.engine.victory_points(t.s, Side::German), 3);
}

TEST_F(Victory, Rule3_SovietBonusPointsCount) {
  t.s.soviet_bonus_vp = 2;
  EXPECT_EQ(t.engine.victory_points(t.s, Side::Soviet), 2);
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).header().soviet_bonus_vp(), 2);
}

TEST_F(Victory, Rule3_MostPointsAtTheEndWins) {
  t.put("1TC/1", "0904");  // Town: 2 VP against the German's Praga 1
  t.s.turn = 10;
  end_turn(t);
  EXPECT_EQ(t.s.result, Result::SovietWin);
  EXPECT_EQ(t.engine.view(t.s, Viewer::Soviet).header().result(), "Soviet victory");
}

TEST_F(Victory, Rule3_EqualPointsAtTheEndIsADraw) {
  t.put("1TC/1", "0106");  // Praga: 1 VP, +1 bonus = 2 against the Town's 2
  t.s.soviet_bonus_vp = 1;
  t.s.turn = 10;
  end_turn(t);
  EXPECT_EQ(t.s.result, Result::Draw);
  EXPECT_EQ(t.engine.view(t.s, Viewer::Spectator).header().result(), "Draw");
}

TEST_F(Victory, Rule3_DecisiveVictoryWhenTheLastEnemyUnitIsGone) {
  for (const auto& id : {"PzA/1", "PzA/2", "PzA/3", "PzB/1", "ID/2", "GER/Zug"}) t.put(id, "eliminated");
  t.put("ID/1", "WARSAW");
  t.s.units[static_cast<size_t>(t.unit("ID/1"))].hits = 1;
  t.put("1TC/1", "0706");  // within six hexes of Praga: Warsaw rises next turn (18)
  t.s.turn = 3;
  end_turn(t);
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_STEP_LOSS);
  game::Order o;
  o.mutable_choose_units()->add_units("ID/1");
  ASSERT_TRUE(Accepted(t.order(Side::German, o)));
  EXPECT_EQ(t.s.result, Result::SovietWin);
  EXPECT_EQ(t.decision().kind, game::Decision::GAME_OVER);
  EXPECT_EQ(t.s.turn, 4);  // before the tenth turn
  EXPECT_NE(t.s.result_reason.find("Decisive"), std::string::npos);
}

TEST_F(Victory, Rule3_DecisiveGermanVictoryWhenNoSovietUnitIsLeft) {
  for (size_t u = 0; u < t.sc().units.size(); ++u) {
    if (t.sc().units[u].side == Side::Soviet) t.s.units[u].loc = kEliminated;
  }
  t.put("PzA/1", "0907");
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/1"}, {"0906"})));
  EXPECT_EQ(t.s.result, Result::GermanWin);
  EXPECT_EQ(t.decision().kind, game::Decision::GAME_OVER);
}

}  // namespace
}  // namespace counterattack::testing
