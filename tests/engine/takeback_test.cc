// Taking back orders (Undo): a player may take back their own orders while
// those orders rolled no die, drew no chit, showed them no enemy stack (7) and
// kept the decision theirs. What the rules fixed stays fixed.
#include <string>
#include <vector>

#include "fixture.h"

namespace counterattack::testing {
namespace {

game::Order undo_order() {
  game::Order o;
  o.mutable_undo();
  return o;
}

class Takeback : public ::testing::Test {
 protected:
  void SetUp() override {
    t.clear_board();
    t.put("1TC/1", "0101");
    t.put("1TC/R", "0601");
    t.put("PzA/2", "0905");
    t.put("PzA/1", "0905");
    t.begin_phase(0, "1TC");
  }
  std::string at(const std::string& unit) const { return t.name(t.s.units[static_cast<size_t>(t.unit(unit))].loc); }
  int takebacks(Viewer v) const { return t.engine.view(t.s, v).decision().takebacks(); }
  Outcome undo(Side who) { return t.order(who, undo_order()); }

  Table t;
};

TEST_F(Takeback, AMoveIsTakenBackToTheStateBeforeIt) {
  const GameState start = t.s;
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  EXPECT_EQ(at("1TC/1"), "0201");
  EXPECT_EQ(takebacks(Viewer::Soviet), 1);

  const Outcome out = undo(Side::Soviet);
  ASSERT_TRUE(Accepted(out));
  EXPECT_EQ(at("1TC/1"), "0101");
  EXPECT_TRUE(t.s == start);
  EXPECT_EQ(state_hash(t.s), state_hash(start));
  EXPECT_EQ(takebacks(Viewer::Soviet), 0);
  // The log says so to everyone.
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].kind(), game::Event::TAKEN_BACK);
  EXPECT_EQ(out.events[0].audience(), game::AUDIENCE_ALL);
  EXPECT_EQ(out.events[0].text(), "Soviet takes back an order.");
}

TEST_F(Takeback, OrdersAreTakenBackLatestFirstUntilNoneIsLeft) {
  const GameState start = t.s;
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  const GameState after_first = t.s;
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0602"})));
  ASSERT_TRUE(Accepted(t.done(Side::Soviet)));  // ending movement keeps the decision: barrage step
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE);
  EXPECT_EQ(takebacks(Viewer::Soviet), 3);

  ASSERT_TRUE(Accepted(undo(Side::Soviet)));
  EXPECT_EQ(t.decision().kind, game::Decision::MOVEMENT);
  ASSERT_TRUE(Accepted(undo(Side::Soviet)));
  EXPECT_TRUE(t.s == after_first);
  ASSERT_TRUE(Accepted(undo(Side::Soviet)));
  EXPECT_TRUE(t.s == start);
  EXPECT_TRUE(Rejected(t, Side::Soviet, undo_order(), game::NOT_ALLOWED));
}

TEST_F(Takeback, OnlyThePlayerWhoDecidesMayTakeBack) {
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  EXPECT_TRUE(Rejected(t, Side::German, undo_order(), game::NOT_YOUR_DECISION));
  EXPECT_EQ(takebacks(Viewer::German), 0);     // the count is the decider's to see
  EXPECT_EQ(takebacks(Viewer::Spectator), 0);
}

TEST_F(Takeback, Rule7_AMoveThatInspectsAnEnemyStackCannotBeTakenBack) {
  t.put("1TC/R", "0705");
  t.put("1TC/2", "0502");
  t.s.no_break_contact = true;  // 20: as by an event, so the German is not asked to break contact
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  ASSERT_EQ(t.engine.inspected_enemy_stacks(t.s, Side::Soviet), std::vector<Loc>{});
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0805"})));  // next to 0905
  ASSERT_EQ(t.engine.inspected_enemy_stacks(t.s, Side::Soviet), std::vector<Loc>{t.loc("0905")});
  // What the stack holds is known now: neither this move nor those before it come back.
  EXPECT_EQ(takebacks(Viewer::Soviet), 0);
  EXPECT_TRUE(Rejected(t, Side::Soviet, undo_order(), game::NOT_ALLOWED));
  // A later move that shows nothing new may be taken back.
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/2"}, {"0602"})));
  EXPECT_EQ(takebacks(Viewer::Soviet), 1);
}

TEST_F(Takeback, PassingTheDecisionToTheOtherSideFixesWhatCameBefore) {
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  for (int i = 0; i < 8 && t.decision().side == Side::Soviet; ++i) ASSERT_TRUE(Accepted(t.done(Side::Soviet)));
  ASSERT_EQ(t.decision().side, Side::German);
  EXPECT_TRUE(Rejected(t, Side::Soviet, undo_order(), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(t, Side::German, undo_order(), game::NOT_ALLOWED));
}

TEST_F(Takeback, Rule10_ADieFixesWhatCameBefore) {
  t.clear_board();
  t.put("1TC/1", "0908");
  t.put("PzA/2", "0101");
  t.begin_phase(1);
  ASSERT_TRUE(Accepted(t.move(Side::German, {"PzA/2"}, {"0201"})));
  ASSERT_TRUE(Accepted(t.done(Side::German)));
  ASSERT_EQ(t.decision().kind, game::Decision::BARRAGE);
  EXPECT_EQ(takebacks(Viewer::German), 2);
  game::Order strike;
  strike.mutable_barrage()->set_marker("Stuka-1");
  strike.mutable_barrage()->set_target("0908");
  ASSERT_TRUE(Accepted(t.order(Side::German, strike)));
  EXPECT_EQ(takebacks(Viewer::German), 0);
  EXPECT_TRUE(Rejected(t, Side::German, undo_order(), game::NOT_ALLOWED));
}

TEST_F(Takeback, TheOtherSideSeesExactlyWhatItSawBefore) {
  const std::string german = t.engine.view(t.s, Viewer::German).SerializeAsString();
  const std::string spectator = t.engine.view(t.s, Viewer::Spectator).SerializeAsString();
  const std::string soviet = t.engine.view(t.s, Viewer::Soviet).SerializeAsString();
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  ASSERT_TRUE(Accepted(undo(Side::Soviet)));
  EXPECT_EQ(t.engine.view(t.s, Viewer::German).SerializeAsString(), german);
  EXPECT_EQ(t.engine.view(t.s, Viewer::Spectator).SerializeAsString(), spectator);
  EXPECT_EQ(t.engine.view(t.s, Viewer::Soviet).SerializeAsString(), soviet);
}

TEST_F(Takeback, IsKeptInTheStatesEncodingButNotInItsHash) {
  const std::string plain = encode_state(t.s);
  const auto hash = state_hash(t.s);
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0301"})));
  GameState decoded;
  ASSERT_TRUE(decode_state(t.sc(), encode_state(t.s), decoded));
  EXPECT_TRUE(decoded == t.s);
  EXPECT_EQ(decoded.takeback.before.size(), 2u);
  // The position alone hashes as it did before takebacks were kept.
  GameState position = t.s;
  position.takeback = {};
  EXPECT_EQ(state_hash(t.s), state_hash(position));
  EXPECT_NE(encode_state(t.s), encode_state(position));
  // Taken back after decoding, to the very first bytes.
  t.s = decoded;
  ASSERT_TRUE(Accepted(undo(Side::Soviet)));
  ASSERT_TRUE(Accepted(undo(Side::Soviet)));
  EXPECT_EQ(encode_state(t.s), plain);
  EXPECT_EQ(state_hash(t.s), hash);
  // Damaged takeback bytes do not decode.
  std::string bytes = encode_state(decoded);
  bytes.pop_back();
  EXPECT_FALSE(decode_state(t.sc(), bytes, decoded));
}

TEST_F(Takeback, AtMostTheLast64OrdersAreKept) {
  game::Order place, remove;
  place.mutable_place_reserve()->add_units("1TC/1");
  remove.mutable_remove_reserve()->add_units("1TC/1");
  std::vector<GameState> states{t.s};
  for (int i = 0; i < 70; ++i) {
    ASSERT_TRUE(Accepted(t.order(Side::Soviet, i % 2 == 0 ? place : remove))) << i;
    states.push_back(t.s);
  }
  EXPECT_EQ(takebacks(Viewer::Soviet), static_cast<int>(kMaxTakebacks));
  for (size_t k = 0; k < kMaxTakebacks; ++k) ASSERT_TRUE(Accepted(undo(Side::Soviet))) << k;
  GameState oldest_kept = states[70 - kMaxTakebacks];
  oldest_kept.takeback = {};
  EXPECT_TRUE(t.s == oldest_kept);
  EXPECT_TRUE(Rejected(t, Side::Soviet, undo_order(), game::NOT_ALLOWED));
}

TEST_F(Takeback, AMoveThatOffersTheEnemyToBreakContactIsFixed) {
  t.put("1TC/R", "0705");
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/1"}, {"0201"})));
  ASSERT_TRUE(Accepted(t.move(Side::Soviet, {"1TC/R"}, {"0805"})));  // into the German stack's zone of control
  ASSERT_EQ(t.decision().kind, game::Decision::BREAK_CONTACT);
  EXPECT_TRUE(Rejected(t, Side::Soviet, undo_order(), game::NOT_YOUR_DECISION));
  EXPECT_TRUE(Rejected(t, Side::German, undo_order(), game::NOT_ALLOWED));
  game::Order stand;
  stand.mutable_break_contact();
  ASSERT_TRUE(Accepted(t.order(Side::German, stand)));
  ASSERT_EQ(t.decision().side, Side::Soviet);
  EXPECT_EQ(takebacks(Viewer::Soviet), 0);
  EXPECT_TRUE(Rejected(t, Side::Soviet, undo_order(), game::NOT_ALLOWED));
}

TEST_F(Takeback, TheEndOfATurnIsFixedEvenWithoutADie) {
  for (auto& side : t.s.sides) side.cup.clear();  // late in the game: no chit left to draw
  t.s.units[static_cast<size_t>(t.unit("PzA/2"))].hits = 1;  // a German step to recover next turn
  t.begin_phase(5);                                // German 3, the turn's last phase
  const int turn = t.s.turn;
  for (int i = 0; i < 12 && t.s.turn == turn; ++i) ASSERT_TRUE(Accepted(t.done(t.decision().side)));
  // The German ended his phase and the turn, and decides again: his recovery.
  ASSERT_EQ(t.decision().kind, game::Decision::RECOVERY);
  ASSERT_EQ(t.decision().side, Side::German);
  ASSERT_EQ(t.s.turn, turn + 1);
  EXPECT_EQ(takebacks(viewer_of(t.decision().side)), 0);
  EXPECT_TRUE(Rejected(t, t.decision().side, undo_order(), game::NOT_ALLOWED));
}

TEST_F(Takeback, DamagedTakebackCountsDoNotDecode) {
  const std::string position = encode_state(t.s);
  GameState out;
  ASSERT_TRUE(decode_state(t.sc(), position, out));
  // A takeback section says how many states follow: none is not written, and more than 64 is never kept.
  EXPECT_FALSE(decode_state(t.sc(), position + std::string(1, '\0'), out));
  std::string many = position + "\x41";  // 65
  for (int k = 0; k < 65; ++k) many += position;
  EXPECT_FALSE(decode_state(t.sc(), many, out));
  std::string one = position + "\x01" + position;
  EXPECT_TRUE(decode_state(t.sc(), one, out));
  EXPECT_EQ(out.takeback.before.size(), 1u);
  one[position.size() + 1] = '\x7f';  // a damaged inner state
  EXPECT_FALSE(decode_state(t.sc(), one, out));
}

}  // namespace
}  // namespace counterattack::testing
