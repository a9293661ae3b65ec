// Taking back an order over the wire: every viewer's delta turns its view back,
// the other side cannot take back, and a killed server keeps what may be taken back.
#include <google/protobuf/util/message_differencer.h>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

class ServerTakeback : public ServerTest {};

game::Order undo_order() {
  game::Order o;
  o.mutable_undo();
  return o;
}

TEST_F(ServerTakeback, AMoveTakenBackTurnsEveryViewBackAndSurvivesAKill) {
  // A snapshot after every order: the game loads from one that holds what may be taken back.
  const std::string every_order = "snapshot_every = 1\n";
  ASSERT_NO_FATAL_FAILURE(restart({}, every_order));
  std::string id;
  game::View before[3];  // Soviet, German, spectator: just before the move
  game::Side mover = game::SIDE_UNSPECIFIED;
  int takebacks = 0;
  std::int64_t version = 0;
  {
    auto alice = user("alice"), bob = user("bob"), watcher = connect();
    id = start_game(*alice, *bob);
    auto [soviet, german] = watch_as_players(*alice, *bob, id);
    Player spectator(*watcher, id, game::SIDE_UNSPECIFIED);
    ASSERT_TRUE(watcher->watch(id).has_game());
    spectator.absorb();
    // Bots play one order at a time until a move is kept for taking back.
    for (int n = 0; n < 400 && mover == game::SIDE_UNSPECIFIED; ++n) {
      soviet.absorb();
      german.absorb();
      spectator.absorb();
      const game::View views[3] = {soviet.view, german.view, spectator.view};
      const PlayStats one = play(soviet, german, &spectator, 1, "k" + std::to_string(n) + "-");
      ASSERT_FALSE(HasFailure());
      ASSERT_FALSE(one.over);
      const auto& order = one.orders.begin()->second;
      Player& decider = soviet.view.decision().side() == game::SOVIET ? soviet : german;
      if (order.has_move() && decider.view.decision().takebacks() > 0) {
        mover = decider.side;
        takebacks = decider.view.decision().takebacks();
        version = one.version;
        for (int v = 0; v < 3; ++v) before[v] = views[v];
      }
    }
    ASSERT_NE(mover, game::SIDE_UNSPECIFIED) << "no move was kept for taking back";
    // The count is the mover's alone to see.
    Player& other = mover == game::SOVIET ? german : soviet;
    EXPECT_EQ(other.view.decision().takebacks(), 0);
    EXPECT_EQ(spectator.view.decision().takebacks(), 0);
    // The other side may not take it back.
    auto refused = other.client.submit(id, "not-mine", undo_order());
    ASSERT_TRUE(refused.has_order_rejected()) << refused.DebugString();
    EXPECT_EQ(refused.order_rejected().rejection().code(), game::NOT_YOUR_DECISION);
    // It made no version: the mover's next order is still the next version.
    EXPECT_EQ(summary_in_my_games(other.client, id).version(), version);
  }

  // A kill and a restart: the game loads with the same takebacks.
  server_->kill9();
  ASSERT_NO_FATAL_FAILURE(restart({}, every_order));
  auto alice = login_as("alice"), bob = login_as("bob"), watcher = connect();
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  Player spectator(*watcher, id, game::SIDE_UNSPECIFIED);
  ASSERT_TRUE(watcher->watch(id).has_game());
  spectator.absorb();
  Player& me = mover == game::SOVIET ? soviet : german;
  ASSERT_EQ(me.version, version);
  EXPECT_EQ(me.view.decision().takebacks(), takebacks);

  auto r = me.client.submit(id, "undo-1", undo_order());
  ASSERT_TRUE(r.has_order_accepted()) << r.DebugString();
  EXPECT_EQ(r.order_accepted().version(), version + 1);
  Player* all[3] = {&soviet, &german, &spectator};
  for (int v = 0; v < 3; ++v) {
    ASSERT_TRUE(all[v]->wait_version(version + 1));
    EXPECT_TRUE(all[v]->problems.empty()) << all[v]->problems.front();
    EXPECT_TRUE(MessageDifferencer::Equals(all[v]->view, before[v])) << "viewer " << v << "\n"
                                                                     << all[v]->view.decision().DebugString();
  }
  // Everyone reads in the log that an order was taken back.
  bool told = false;
  for (const auto& e : spectator.events) told |= e.kind() == game::Event::TAKEN_BACK;
  EXPECT_TRUE(told);
  // A retry of the same key is the same answer, not a second take-back.
  auto again = me.client.submit(id, "undo-1", undo_order());
  ASSERT_TRUE(again.has_order_accepted()) << again.DebugString();
  EXPECT_EQ(again.order_accepted().version(), version + 1);
}

}  // namespace
}  // namespace counterattack::server::testing
