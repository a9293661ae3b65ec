// Game clocks, for live play: each player has a time for the whole game, which
// runs while the decision is theirs and stops when it passes, giving back the
// increment. A player whose clock runs out loses. The clocks are stored: a
// restart keeps them.
#include <ctime>
#include <set>
#include <thread>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerGameClock : public ServerTest {};

wire::ServerMessage create_clocked(Client& c, std::int64_t clock, std::int64_t increment, std::int64_t move_seconds = 0) {
  wire::ClientMessage m;
  m.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  m.mutable_create_game()->set_clock_seconds(clock);
  m.mutable_create_game()->set_increment_seconds(increment);
  m.mutable_create_game()->set_move_seconds(move_seconds);
  return c.request(m);
}

std::int64_t left_of(const wire::GameSummary& g, game::Side side) {
  return side == game::SOVIET ? g.soviet_clock_left() : g.german_clock_left();
}

TEST_F(ServerGameClock, AGameClockIsWithinTheServersBoundsAndNotWithATimePerMove) {
  auto alice = user("alice");
  EXPECT_EQ(create_clocked(*alice, 900, 10, 3600).error().code(), wire::BAD_REQUEST) << "both kinds of clock";
  EXPECT_EQ(create_clocked(*alice, 59, 0).error().code(), wire::BAD_REQUEST) << "below a minute";
  EXPECT_EQ(create_clocked(*alice, 59, 0).error().message(),
            "A game clock has from 1 minute to 30 days (60 to 2592000 seconds) for each player.");
  EXPECT_EQ(create_clocked(*alice, 31 * 86400, 0).error().code(), wire::BAD_REQUEST) << "beyond 30 days";
  EXPECT_EQ(create_clocked(*alice, -60, 0).error().code(), wire::BAD_REQUEST);
  EXPECT_EQ(create_clocked(*alice, 0, 10).error().code(), wire::BAD_REQUEST) << "an increment without a clock";
  EXPECT_EQ(create_clocked(*alice, 900, -1).error().code(), wire::BAD_REQUEST);
  auto made = create_clocked(*alice, 900, 10);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const auto& g = made.game_created().game();
  EXPECT_EQ(g.clock_seconds(), 900);
  EXPECT_EQ(g.increment_seconds(), 10);
  EXPECT_EQ(g.move_seconds(), 0);
  EXPECT_EQ(g.soviet_clock_left(), 900);
  EXPECT_EQ(g.german_clock_left(), 900);
  EXPECT_EQ(g.deadline_unix(), 0) << "no clock runs before the game starts";
}

TEST_F(ServerGameClock, TheDecidersClockRunsAndWhenTheDecisionPassesTheyKeepWhatWasLeftWithTheIncrement) {
  auto alice = user("alice"), bob = user("bob");
  auto made = create_clocked(*alice, 900, 10);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  const auto started = now_unix();
  auto joined = bob->join(id);
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_GE(joined.game().deadline_unix(), started + 900) << "the first player's whole clock";
  EXPECT_LE(joined.game().deadline_unix(), now_unix() + 900);

  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  ASSERT_FALSE(HasFailure());
  const game::Side first = soviet.view.decision().side();
  const game::Side second = first == game::SOVIET ? game::GERMAN : game::SOVIET;
  std::this_thread::sleep_for(2100ms);  // at least two whole seconds off the first player's clock
  int serial = 0;
  std::int64_t last_sent = 0;
  while (soviet.view.decision().side() == first && serial < 300) {
    last_sent = now_unix();
    play(soviet, german, nullptr, 1, "c" + std::to_string(serial++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  const auto passed = now_unix();
  const auto after = summary_in_my_games(*alice, id);
  ASSERT_EQ(after.to_decide(), second);
  EXPECT_LE(left_of(after, first), 900 - 2 + 10) << "the time used is gone, the increment given";
  EXPECT_GE(left_of(after, first), 900 - (passed - started) + 10);
  EXPECT_EQ(left_of(after, second), 900) << "the second player's clock has not run yet";
  EXPECT_GE(after.deadline_unix(), last_sent + 900) << "it runs now, from all it had";
  EXPECT_LE(after.deadline_unix(), passed + 900);

  // Both players' connections are told the clocks as they now stand.
  for (Client* c : {alice.get(), bob.get()}) {
    auto pushed = c->wait_for(
        [&](const wire::ServerMessage& m) { return m.has_game() && m.game().game_id() == id && m.game().to_decide() == second; });
    ASSERT_TRUE(pushed) << "no summary pushed when the clock passed";
    EXPECT_EQ(left_of(pushed->game(), first), left_of(after, first));
    EXPECT_EQ(pushed->game().deadline_unix(), after.deadline_unix());
  }

  const auto stopped = now_unix();
  restart();
  const auto back = now_unix();
  auto again = connect();
  ASSERT_TRUE(again->login("alice").has_session());
  const auto reloaded = summary_in_my_games(*again, id);
  EXPECT_EQ(reloaded.clock_seconds(), 900);
  EXPECT_EQ(reloaded.increment_seconds(), 10);
  EXPECT_EQ(left_of(reloaded, first), left_of(after, first));
  EXPECT_EQ(left_of(reloaded, second), 900);
  EXPECT_GE(reloaded.deadline_unix(), after.deadline_unix()) << "kept, with the moment the server was down";
  EXPECT_LE(reloaded.deadline_unix(), after.deadline_unix() + (back - stopped) + 2);
}

TEST_F(ServerGameClock, APlayerWhoseClockRunsOutLosesAndAVacationDoesNotHoldIt) {
  restart({}, "min_clock_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  auto made = create_clocked(*alice, 10, 0);  // room for the orders below on a loaded machine
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  ASSERT_TRUE(bob->join(id).has_game());
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  ASSERT_FALSE(HasFailure());
  // Both players have moved: whoever then lets the clock run out has lost, not abandoned.
  std::set<game::Side> moved;
  for (int serial = 0; moved.size() < 2 && serial < 300; ++serial) {
    moved.insert(soviet.view.decision().side());
    play(soviet, german, nullptr, 1, "t" + std::to_string(serial) + "-");
    ASSERT_FALSE(HasFailure());
  }
  const auto before = summary_in_my_games(*alice, id);
  ASSERT_GT(before.deadline_unix(), 0);
  const game::Side late = before.to_decide();
  ASSERT_TRUE(late == game::SOVIET || late == game::GERMAN);
  Client& decider = late == game::SOVIET ? *alice : *bob;

  // A vacation holds a time per move, not a game clock: that is for play at one sitting.
  wire::ClientMessage away;
  away.mutable_start_vacation()->set_days(2);
  ASSERT_TRUE(decider.request(away).has_account());
  EXPECT_EQ(summary_in_my_games(*alice, id).deadline_unix(), before.deadline_unix());

  Client& other = late == game::SOVIET ? *bob : *alice;
  auto ended = other.wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); }, 30s);
  ASSERT_TRUE(ended) << "no end by time";
  EXPECT_GE(now_unix(), before.deadline_unix()) << "not before the clock ran out";
  EXPECT_EQ(ended->game_ended().result(), late == game::SOVIET ? "German victory" : "Soviet victory");
  EXPECT_EQ(ended->game_ended().reason(),
            late == game::SOVIET ? "The Soviet player ran out of time." : "The German player ran out of time.");
  EXPECT_EQ(summary_in_my_games(other, id).status(), "finished");
}

TEST_F(ServerGameClock, ALiveGameWhoseFirstPlayerNeverMovesIsAbortedAndLeavesTheRatings) {
  restart({}, "min_clock_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  auto made = create_clocked(*alice, 3, 0);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  EXPECT_TRUE(made.game_created().game().rated());
  ASSERT_TRUE(bob->join(id).has_game());
  ASSERT_TRUE(bob->watch(id).has_game());
  const auto first = summary_in_my_games(*bob, id).to_decide();
  auto ended = bob->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); }, 30s);
  ASSERT_TRUE(ended) << "no end by time";
  EXPECT_EQ(ended->game_ended().result(), "Aborted");
  EXPECT_EQ(ended->game_ended().reason(),
            std::string(first == game::SOVIET ? "The Soviet" : "The German") +
                " player made no first move before their time ran out: the game is aborted, and no rating changes.");
  const auto after = summary_in_my_games(*alice, id);
  EXPECT_EQ(after.status(), "finished");
  EXPECT_EQ(after.soviet_rating_change(), 0);
  EXPECT_EQ(after.german_rating_change(), 0);
  EXPECT_EQ(after.soviet_rating().rating(), 1500);
  EXPECT_EQ(after.german_rating().rating(), 1500);
}

TEST_F(ServerGameClock, TheTimeTheServerIsDownDoesNotCountOnAGameClock) {
  auto alice = user("alice"), bob = user("bob");
  auto made = create_clocked(*alice, 900, 0);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  ASSERT_TRUE(bob->join(id).has_game());
  std::this_thread::sleep_for(1500ms);  // the server notes each second that it is alive
  const auto before = summary_in_my_games(*alice, id);
  ASSERT_GT(before.deadline_unix(), 0);
  const auto killed = now_unix();
  server_->kill9();
  std::this_thread::sleep_for(4s);
  restart();
  const auto back = now_unix();
  alice = login_as("alice");
  const auto after = summary_in_my_games(*alice, id);
  EXPECT_EQ(after.status(), "playing");
  EXPECT_GE(after.deadline_unix(), before.deadline_unix() + 3) << "the four seconds down are given back";
  EXPECT_LE(after.deadline_unix(), before.deadline_unix() + (back - killed) + 3)
      << "and little more: the time since the server last noted it was alive";
}

}  // namespace
}  // namespace counterattack::server::testing
