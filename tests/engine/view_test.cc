// 7 Visibility of enemy units, and the hidden information of the views.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "fixture.h"
#include "playout.h"

namespace counterattack::testing {
namespace {

game::Side proto_side(Side s) { return s == Side::Soviet ? game::SOVIET : game::GERMAN; }

// The stack of `side` at `where`, or nullptr.
const game::StackView* stack_at(const game::View& v, const std::string& where, Side side) {
  for (const auto& st : v.stacks()) {
    if (st.location() == where && st.side() == proto_side(side)) return &st;
  }
  return nullptr;
}

const game::HandView* hand_of(const game::View& v, Side side) {
  for (const auto& h : v.hands()) {
    if (h.side() == proto_side(side)) return &h;
  }
  return nullptr;
}

std::vector<std::string> ids(const game::StackView& st) {
  std::vector<std::string> out;
  for (const auto& u : st.units()) out.push_back(u.id());
  return out;
}

class Views : public ::testing::Test {
 protected:
  void SetUp() override {
    t.put("PzA/2", "0905");
    t.put("PzA/1", "0905");  // put last: on top
    t.s.units[static_cast<size_t>(t.unit("PzA/2"))].hits = 1;
    t.s.set(t.unit("PzA/2"), kDisorganized);
    t.put("1TC/2", "0502");
    t.put("1TC/1", "0502");
  }
  game::View view(Viewer v) const { return t.engine.view(t.s, v); }
  Table t;
};

TEST_F(Views, Rule7_AnEnemyStackShowsItsTopUnitAndHeight) {
  const auto v = view(Viewer::Soviet);
  const auto* st = stack_at(v, "0905", Side::German);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->height(), 2);
  EXPECT_FALSE(st->inspected());
  ASSERT_EQ(st->units_size(), 2);
  const auto& top = st->units(0);
  EXPECT_EQ(top.id(), "PzA/1");
  EXPECT_FALSE(top.hidden());
  EXPECT_EQ(top.steps(), 2);
  EXPECT_EQ(top.combat(), 6);
  EXPECT_EQ(top.movement(), 10);
}

TEST_F(Views, Rule7_TheUnitsBelowAreHiddenWithNoIdAndNoValues) {
  const auto v = view(Viewer::Soviet);
  const auto& below = stack_at(v, "0905", Side::German)->units(1);
  EXPECT_TRUE(below.hidden());
  EXPECT_TRUE(below.id().empty());
  EXPECT_EQ(below.steps(), 0);
  EXPECT_EQ(below.combat(), 0);
  EXPECT_EQ(below.movement(), 0);
  EXPECT_FALSE(below.disorganized());
  EXPECT_FALSE(below.moved());
  EXPECT_FALSE(below.out_of_supply());
  EXPECT_FALSE(below.prepared_defense());
  EXPECT_FALSE(below.reserve());
}

TEST_F(Views, Rule7_WhatIsBelowTheTopChangesNothingTheEnemySees) {
  const std::string before = view(Viewer::Soviet).SerializeAsString();
  // Another counter under the same top.
  t.s.units[static_cast<size_t>(t.unit("PzA/2"))].loc = kNotArrived;
  t.put("ID/2", "0905");
  std::swap(t.s.units[static_cast<size_t>(t.unit("ID/2"))].stack_seq, t.s.units[static_cast<size_t>(t.unit("PzA/1"))].stack_seq);
  ASSERT_EQ(t.engine.units_at(t.s, t.loc("0905")).front(), t.unit("PzA/1"));
  EXPECT_EQ(view(Viewer::Soviet).SerializeAsString(), before);
}

TEST_F(Views, Rule7_AnAdjacentFriendlyUnitInspectsTheWholeStack) {
  t.put("1TC/R", "0805");  // next to 0905
  const auto v = view(Viewer::Soviet);
  const auto* st = stack_at(v, "0905", Side::German);
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(st->inspected());
  EXPECT_EQ(ids(*st), (std::vector<std::string>{"PzA/1", "PzA/2"}));
  EXPECT_EQ(st->units(1).steps(), 1);
  EXPECT_TRUE(st->units(1).disorganized());
  EXPECT_EQ(st->units(1).combat(), 1);  // reduced 2, halved
  // The German sees the Soviet stack at 0502 only by its top: nobody of his is near.
  const auto g = view(Viewer::German);
  EXPECT_FALSE(stack_at(g, "0502", Side::Soviet)->inspected());
}

TEST_F(Views, Rule7_InspectionEndsWhenTheFriendlyUnitLeaves) {
  t.put("1TC/R", "0805");
  ASSERT_TRUE(stack_at(view(Viewer::Soviet), "0905", Side::German)->inspected());
  t.begin_phase(0, "1TC");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0705"})));
  const auto v = view(Viewer::Soviet);
  EXPECT_FALSE(stack_at(v, "0905", Side::German)->inspected());
  EXPECT_TRUE(stack_at(v, "0905", Side::German)->units(1).hidden());
}

TEST_F(Views, Rule7_OwnStacksAreAlwaysShownInFull) {
  const auto g = view(Viewer::German);
  const auto* st = stack_at(g, "0905", Side::German);
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(st->inspected());
  EXPECT_EQ(ids(*st), (std::vector<std::string>{"PzA/1", "PzA/2"}));
  EXPECT_EQ(st->units(1).steps(), 1);
  const auto s = view(Viewer::Soviet);
  EXPECT_EQ(ids(*stack_at(s, "0502", Side::Soviet)), (std::vector<std::string>{"1TC/1", "1TC/2"}));
}

TEST_F(Views, Rule7_TheSpectatorSeesTopsOnly) {
  t.put("1TC/R", "0805");  // adjacency helps players, not bystanders
  const auto v = view(Viewer::Spectator);
  for (auto [where, side, top] : {std::tuple{"0905", Side::German, "PzA/1"}, std::tuple{"0502", Side::Soviet, "1TC/1"}}) {
    const auto* st = stack_at(v, where, side);
    ASSERT_NE(st, nullptr) << where;
    EXPECT_FALSE(st->inspected()) << where;
    EXPECT_EQ(st->height(), 2) << where;
    EXPECT_EQ(st->units(0).id(), top);
    EXPECT_TRUE(st->units(1).hidden()) << where;
    EXPECT_TRUE(st->units(1).id().empty()) << where;
  }
}

TEST_F(Views, Rule7_OmniscientSeesEverything) {
  const auto v = view(Viewer::Omniscient);
  for (const auto& st : v.stacks()) {
    EXPECT_TRUE(st.inspected()) << st.location();
    for (const auto& u : st.units()) EXPECT_FALSE(u.id().empty()) << st.location();
  }
  EXPECT_EQ(ids(*stack_at(v, "0905", Side::German)), (std::vector<std::string>{"PzA/1", "PzA/2"}));
  for (Side side : {Side::Soviet, Side::German}) {
    EXPECT_EQ(hand_of(v, side)->chits_size(), 3);
    EXPECT_EQ(hand_of(v, side)->held(), 3);
  }
}

TEST_F(Views, Rule7_WarsawIsInspectedFromAPragaBridgeHex) {
  t.put("ID/1", "WARSAW");
  t.put("ID/2", "WARSAW");
  t.put("PzB/1", "WARSAW");
  {
    const auto v = view(Viewer::Soviet);
    const auto* st = stack_at(v, "WARSAW", Side::German);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->height(), 3);
    EXPECT_FALSE(st->inspected());
    EXPECT_EQ(st->units(0).id(), "PzB/1");
    EXPECT_TRUE(st->units(2).hidden());
  }
  t.put("2TC/1", "0106");
  const auto v = view(Viewer::Soviet);
  EXPECT_TRUE(stack_at(v, "WARSAW", Side::German)->inspected());
}

TEST_F(Views, Rule20_EventHandsShowChitsOnlyToTheirOwner) {
  const auto sov = view(Viewer::Soviet);
  EXPECT_EQ(hand_of(sov, Side::Soviet)->held(), 3);
  ASSERT_EQ(hand_of(sov, Side::Soviet)->chits_size(), 3);
  for (const auto& c : hand_of(sov, Side::Soviet)->chits()) EXPECT_EQ(c.rfind("SOV-", 0), 0u) << c;
  EXPECT_EQ(hand_of(sov, Side::German)->held(), 3);
  EXPECT_EQ(hand_of(sov, Side::German)->chits_size(), 0);
  const auto ger = view(Viewer::German);
  EXPECT_EQ(hand_of(ger, Side::German)->chits_size(), 3);
  EXPECT_EQ(hand_of(ger, Side::Soviet)->chits_size(), 0);
  EXPECT_EQ(hand_of(ger, Side::Soviet)->held(), 3);
  const auto spec = view(Viewer::Spectator);
  for (Side side : {Side::Soviet, Side::German}) {
    EXPECT_EQ(hand_of(spec, side)->chits_size(), 0);
    EXPECT_EQ(hand_of(spec, side)->held(), 3);
  }
}

TEST_F(Views, Rule5_DecisionCandidatesOnlyForTheDecider) {
  ASSERT_EQ(t.decision().kind, game::Decision::CHOOSE_CORPS);
  const auto sov = view(Viewer::Soviet);
  EXPECT_EQ(sov.decision().kind(), game::Decision::CHOOSE_CORPS);
  EXPECT_EQ(sov.decision().side(), game::SOVIET);
  EXPECT_EQ(std::vector<std::string>(sov.decision().candidates().begin(), sov.decision().candidates().end()),
            (std::vector<std::string>{"1TC", "2TC", "3TC"}));
  for (Viewer other : {Viewer::German, Viewer::Spectator}) {
    const auto v = view(other);
    EXPECT_EQ(v.decision().kind(), game::Decision::CHOOSE_CORPS);
    EXPECT_EQ(v.decision().side(), game::SOVIET);
    EXPECT_FALSE(v.decision().prompt().empty());
    EXPECT_EQ(v.decision().candidates_size(), 0);
  }
  EXPECT_EQ(view(Viewer::Omniscient).decision().candidates_size(), 3);
}

TEST_F(Views, Rule16_RecoveryCandidatesOnlyForTheGerman) {
  t.s.units[static_cast<size_t>(t.unit("PzA/1"))].hits = 1;
  t.begin_phase(5);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  EXPECT_GT(view(Viewer::German).decision().candidates_size(), 0);
  EXPECT_EQ(view(Viewer::Soviet).decision().candidates_size(), 0);
  EXPECT_EQ(view(Viewer::Spectator).decision().candidates_size(), 0);
}

TEST_F(Views, Rule6_MovementLeftIsShownOnlyToTheOwner) {
  t.begin_phase(0, "1TC");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0503"})));  // forest road: 0.5 MP
  const auto own = view(Viewer::Soviet);
  const auto* st = stack_at(own, "0503", Side::Soviet);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->units(0).movement_left_half(), 23);
  const auto enemy = view(Viewer::German);
  EXPECT_EQ(stack_at(enemy, "0503", Side::Soviet)->units(0).movement_left_half(), 0);
}

// The log is read by every viewer it is addressed to: a unit the Soviet may
// not see in its stack is not named to him.
bool soviet_reads(const game::Event& e) {
  return e.audience() == game::AUDIENCE_ALL || e.audience() == game::AUDIENCE_SOVIET ||
         e.audience() == game::AUDIENCE_ALL_BUT_GERMAN;
}

::testing::AssertionResult NamesNone(const Outcome& out, const std::vector<std::string>& units) {
  for (const auto& e : out.events) {
    if (!soviet_reads(e)) continue;
    for (const auto& u : units) {
      if (e.text().find(u) != std::string::npos) return ::testing::AssertionFailure() << "the Soviet reads: " << e.text();
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_F(Views, Rule7_TheLogDoesNotNameARecoveredUnitHiddenInItsStack) {
  t.begin_phase(5);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  const Outcome out = t.order(Side::German, [] {
    game::Order o;
    o.mutable_recover()->set_unit("PzA/2");  // under PzA/1, no Soviet unit near
    return o;
  }());
  ASSERT_TRUE(Accepted(out));
  EXPECT_TRUE(NamesNone(out, {"PzA/2"}));
  EXPECT_TRUE(std::any_of(out.events.begin(), out.events.end(), [](const game::Event& e) {
    return soviet_reads(e) && e.kind() == game::Event::STEP_RECOVERED;
  }));
}

TEST_F(Views, Rule7_TheLogDoesNotNameTheUnitsInWarsawThatFaceTheUprising) {
  for (const auto& u : {"ID/1", "ID/2", "PzB/1"}) t.put(u, "WARSAW");  // PzB/1 on top
  t.s.uprising = Uprising::Rising;
  t.begin_phase(5);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);  // PzA/2 is reduced
  ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::UPRISING_SUPPRESSION);
  const GameState before = t.s;
  bool pinned_once = false;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    t.s = before;
    t.rng = Prng::from_seed(seed);
    game::Order o;
    o.mutable_suppress_uprising()->add_units("ID/1");
    const Outcome out = t.order(Side::German, o);
    ASSERT_TRUE(Accepted(out));
    EXPECT_TRUE(NamesNone(out, {"ID/1", "ID/2"})) << "seed " << seed;
    if (t.decision().kind != game::Decision::UPRISING_UNITS_MOVED) continue;
    game::Order pin;
    pin.mutable_choose_units()->add_units("ID/2");
    const Outcome pinned = t.order(Side::German, pin);
    ASSERT_TRUE(Accepted(pinned));
    EXPECT_TRUE(NamesNone(pinned, {"ID/1", "ID/2"})) << "seed " << seed;
    pinned_once = true;
  }
  EXPECT_TRUE(pinned_once);
}

// Property: changing only one side's hidden information (its chits and the
// counters under the top of stacks no enemy is next to) never changes what
// the other side or a spectator sees, over random games on the real map.
TEST(ViewsProperty, Rule7_HiddenInformationNeverReachesTheOtherSide) {
  const Engine engine(default_scenario());
  int checks = 0, hidden_changed = 0, leaks = 0;
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> games = {
      {1, 0}, {2, 0}, {3, kLimitedGermanActivation}, {4, kRedArmyFlexibility}};
  for (const auto& [seed, options] : games) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Prng dice = Prng::from_seed(seed);
    Prng choices = Prng::from_seed(seed * 7919);
    Prng perturb = Prng::from_seed(seed * 104729);
    GameState s = engine.new_game(options, dice);
    for (int n = 0; n < 250 && s.step != Step::GameOver; ++n) {
      const Decision d = engine.decision(s);
      const Order o = random_order(engine, s, choices);
      const Outcome out = engine.apply(s, d.side, o, dice);
      ASSERT_TRUE(Accepted(out)) << engine.to_proto(o).ShortDebugString();
      for (Side hider : {Side::Soviet, Side::German}) {
        GameState other = s;
        perturb_hidden(engine, other, hider, perturb);
        hidden_changed += !(other == s);
        for (Viewer v : {viewer_of(enemy_of(hider)), Viewer::Spectator}) {
          ++checks;
          if (engine.view(s, v).SerializeAsString() == engine.view(other, v).SerializeAsString()) continue;
          if (++leaks <= 3) {
            ADD_FAILURE() << side_name(hider) << " hidden information shows in the "
                          << (v == Viewer::Spectator ? "spectator's" : side_name(enemy_of(hider))) << " view, turn "
                          << static_cast<int>(s.turn) << " " << engine.phase_name(s) << "\n"
                          << engine.view(s, v).ShortDebugString() << "\n"
                          << engine.view(other, v).ShortDebugString();
          }
        }
      }
    }
  }
  EXPECT_EQ(leaks, 0);
  EXPECT_GT(checks, 1000);
  EXPECT_GT(hidden_changed, checks / 8);  // the perturbation does change the game
}

}  // namespace
}  // namespace counterattack::testing
