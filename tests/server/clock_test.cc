// Time per move, for games played over days: the player to decide has until a
// deadline, set afresh each time the decision passes to them, and loses the
// game when it passes. The deadline is stored: a restart keeps every clock.
#include <ctime>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerClock : public ServerTest {};

wire::ServerMessage create_timed(Client& c, std::int64_t move_seconds) {
  wire::ClientMessage m;
  m.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  m.mutable_create_game()->set_move_seconds(move_seconds);
  return c.request(m);
}

TEST_F(ServerClock, TheTimePerMoveIsZeroOrWithinTheServersBounds) {
  auto alice = user("alice");
  for (std::int64_t bad : {-60, 1, 3599, 31 * 86400}) {
    EXPECT_EQ(create_timed(*alice, bad).error().code(), wire::BAD_REQUEST) << bad;
  }
  EXPECT_EQ(create_timed(*alice, 1800).error().message(),
            "The time per move is from 1 hour to 30 days (3600 to 2592000 seconds), or none (untimed).")
      << "said as players say it";
  auto untimed = create_timed(*alice, 0);
  ASSERT_TRUE(untimed.has_game_created());
  EXPECT_EQ(untimed.game_created().game().move_seconds(), 0);
  auto timed = create_timed(*alice, 3 * 86400);
  ASSERT_TRUE(timed.has_game_created()) << timed.DebugString();
  EXPECT_EQ(timed.game_created().game().move_seconds(), 3 * 86400);
  EXPECT_EQ(timed.game_created().game().deadline_unix(), 0) << "no clock runs before the game starts";
}

TEST_F(ServerClock, AnOrderThatPassesTheDecisionGivesTheOtherPlayerAFreshDeadlineThatARestartKeeps) {
  auto alice = user("alice"), bob = user("bob");
  auto created = create_timed(*alice, 3600);
  ASSERT_TRUE(created.has_game_created()) << created.DebugString();
  const std::string id = created.game_created().game().game_id();
  const auto before_join = now_unix();
  auto joined = bob->join(id);
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_GE(joined.game().deadline_unix(), before_join + 3600);
  EXPECT_LE(joined.game().deadline_unix(), now_unix() + 3600);

  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  ASSERT_FALSE(HasFailure());
  const game::Side first = soviet.view.decision().side();
  const auto first_deadline = summary_in_my_games(*alice, id).deadline_unix();
  std::this_thread::sleep_for(1100ms);  // so that a fresh deadline differs from the first
  int serial = 0;
  std::int64_t last_sent = 0;  // when the order that passed the decision was sent, at the latest
  while (soviet.view.decision().side() == first && serial < 300) {
    last_sent = now_unix();
    play(soviet, german, nullptr, 1, "o" + std::to_string(serial++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  const auto after = summary_in_my_games(*alice, id);
  ASSERT_NE(after.to_decide(), first);
  EXPECT_GT(after.deadline_unix(), first_deadline);
  EXPECT_GE(after.deadline_unix(), last_sent + 3600) << "the whole time per move, from when the decision passed";
  EXPECT_LE(after.deadline_unix(), now_unix() + 3600);
  auto pushed = alice->wait_for([&](const wire::ServerMessage& m) {
    return m.has_game() && m.game().game_id() == id && m.game().deadline_unix() == after.deadline_unix();
  });
  EXPECT_TRUE(pushed) << "the watchers are told the fresh deadline";

  const auto down = now_unix();
  restart();
  const auto up = now_unix();
  auto again = connect();
  ASSERT_TRUE(again->login("alice").has_session());
  const auto reloaded = summary_in_my_games(*again, id);
  EXPECT_EQ(reloaded.status(), "playing");
  EXPECT_EQ(reloaded.move_seconds(), 3600);
  EXPECT_GE(reloaded.deadline_unix(), after.deadline_unix()) << "kept";
  EXPECT_LE(reloaded.deadline_unix(), after.deadline_unix() + (up - down) + 1) << "with the moment the server was down";
}

TEST_F(ServerClock, APlayerWhoLetsTheTimeRunOutLosesTheGameButNotForTimeTheServerWasDown) {
  restart({}, "min_move_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  auto created = create_timed(*alice, 12);  // after the restart, at least this long again for the watches below
  ASSERT_TRUE(created.has_game_created()) << created.DebugString();
  const std::string id = created.game_created().game().game_id();
  ASSERT_TRUE(bob->join(id).has_game());
  play_opening(*alice, *bob, id);  // a player who never moved would have the game aborted
  const auto deadline = summary_in_my_games(*alice, id).deadline_unix();
  ASSERT_GT(deadline, 0);

  // Stopped, and down until the deadline has passed: the clock comes back from the
  // database, and the time the server was down is given back.
  const auto stopped = now_unix();
  server_.reset();
  while (now_unix() <= deadline) std::this_thread::sleep_for(100ms);
  const auto restarted = now_unix();
  restart({}, "min_move_seconds = 1\n");
  alice = connect();
  bob = connect();
  ASSERT_TRUE(alice->login("alice").has_session());
  ASSERT_TRUE(bob->login("bob").has_session());
  const auto resumed = summary_in_my_games(*alice, id);
  EXPECT_EQ(resumed.status(), "playing") << "not lost for time the server was down";
  EXPECT_GE(resumed.deadline_unix(), deadline + (restarted - stopped) - 3) << "the deadline moved on by the time down";
  ASSERT_TRUE(alice->watch(id).has_game());
  ASSERT_TRUE(bob->watch(id).has_game());
  Player soviet(*alice, id, game::SOVIET);
  soviet.absorb();
  const game::Side late = soviet.view.decision().side();
  ASSERT_EQ(late, game::SOVIET) << "the Soviet, who made the opening order, decides on";

  auto ended = bob->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); }, 15s);
  ASSERT_TRUE(ended) << "no end by time";
  EXPECT_GE(now_unix(), deadline) << "not before the deadline";
  EXPECT_EQ(ended->game_ended().result(), late == game::SOVIET ? "German victory" : "Soviet victory");
  EXPECT_EQ(ended->game_ended().reason(),
            late == game::SOVIET ? "The Soviet player ran out of time." : "The German player ran out of time.");
  EXPECT_FALSE(ended->game_ended().seed_hex().empty()) << "the dice seed is revealed, as at any end";
  EXPECT_TRUE(alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); }));

  Client& decider = late == game::SOVIET ? *alice : *bob;
  auto r = decider.submit(id, "too-late", done_order());
  EXPECT_EQ(r.error().code(), wire::CONFLICT) << r.DebugString();
  const auto final_summary = summary_in_my_games(*alice, id);
  EXPECT_EQ(final_summary.status(), "finished");
  EXPECT_EQ(final_summary.deadline_unix(), 0);
}

// The time given back is what ran of the clock while the server was down: no more
// than since the deadline was set, however long ago the server last noted it was
// alive (a release before this one noted it only while a game clock ran).
TEST_F(ServerClock, ATimePerMoveGetsBackNoMoreThanRanOfItWhileTheServerWasDown) {
  auto alice = user("alice"), bob = user("bob");
  auto created = create_timed(*alice, 3600);
  ASSERT_TRUE(created.has_game_created());
  const std::string id = created.game_created().game().game_id();
  ASSERT_TRUE(bob->join(id).has_game());
  const auto deadline = summary_in_my_games(*alice, id).deadline_unix();
  server_->terminate();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec("UPDATE server_state SET alive_unix = alive_unix - 10 * 86400");  // noted ten days ago
  }
  restart();
  alice = login_as("alice");
  const auto after = summary_in_my_games(*alice, id).deadline_unix();
  EXPECT_GE(after, deadline);
  EXPECT_LE(after, deadline + 5) << "not the ten days since the last note";
}

}  // namespace
}  // namespace counterattack::server::testing
