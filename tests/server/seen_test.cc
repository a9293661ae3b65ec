// "Since you last looked": the server records, per game and seated player, the
// highest version that player has been shown: when a connection of theirs stops
// watching, when they read the log, and by their own orders; never by what the
// other side plays. It outlives a restart, and the log's events carry their
// versions so that a client can mark the place.
#include <algorithm>
#include <chrono>
#include <thread>

#include "bot.h"
#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerSeen : public ServerTest {};

wire::ServerMessage unwatch(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_unwatch()->set_game_id(game_id);
  return c.request(m);
}

TEST_F(ServerSeen, APlayersSeenVersionMovesOnlyWithWhatTheyWereShownAndOutlivesARestart) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);  // alice plays the Soviet side
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), 0) << "never looked";

  // Both play at their boards until a few orders are made and the decision is bob's.
  auto alice_board = login_as("alice"), bob_board = login_as("bob");
  auto [soviet, german] = watch_as_players(*alice_board, *bob_board, id);
  ASSERT_FALSE(HasFailure());
  int serial = 0;
  while ((soviet.version < 3 || soviet.view.decision().side() != game::GERMAN) && serial < 300) {
    play(soviet, german, nullptr, 1, "a" + std::to_string(serial++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  ASSERT_EQ(german.view.decision().side(), game::GERMAN);
  const std::int64_t alice_saw = soviet.version;
  // Watching is not recorded delivery by delivery: only her own orders count so far.
  EXPECT_LE(summary_in_my_games(*alice, id).your_seen_version(), alice_saw);
  // She leaves the board: what it was shown is recorded.
  ASSERT_TRUE(unwatch(*alice_board, id).has_ok());
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), alice_saw);

  // bob plays on while alice is away: his play moves her seen version not at all.
  Bot bob_bot(game::GERMAN, default_scenario());
  play_until_decision_leaves(german, bob_bot, "b");
  ASSERT_FALSE(HasFailure());
  const std::int64_t now = german.version;
  ASSERT_GT(now, alice_saw);
  auto mine = summary_in_my_games(*alice, id);
  EXPECT_EQ(mine.version(), now);
  EXPECT_EQ(mine.your_seen_version(), alice_saw) << "the other side's orders are not what alice was shown";
  // bob's last order was the last version: his own order says he saw up to it.
  EXPECT_EQ(summary_in_my_games(*bob, id).your_seen_version(), now);

  // A restart keeps both.
  server_->terminate();
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(alice && bob);
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), alice_saw);
  EXPECT_EQ(summary_in_my_games(*bob, id).your_seen_version(), now);

  // alice reads the log: it says where she had been, each event carries its version,
  // and from then on she has seen it all.
  const auto read = log_as_seen(*alice, id);
  ASSERT_TRUE(read.has_game_log()) << read.DebugString();
  const auto& gl = read.game_log();
  EXPECT_EQ(gl.seen_version(), alice_saw);
  EXPECT_EQ(gl.version(), now);
  ASSERT_EQ(gl.event_versions_size(), gl.events_size());
  ASSERT_GT(gl.events_size(), 0);
  EXPECT_EQ(gl.event_versions(0), 0) << "the setup's";
  EXPECT_EQ(gl.event_versions(gl.events_size() - 1), now);
  for (int i = 1; i < gl.events_size(); ++i) EXPECT_LE(gl.event_versions(i - 1), gl.event_versions(i));
  EXPECT_TRUE(std::any_of(gl.event_versions().begin(), gl.event_versions().end(), [&](auto v) { return v > alice_saw; }));
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), now);
  EXPECT_EQ(log_as_seen(*alice, id).game_log().seen_version(), now) << "read again: nothing new";

  // A spectator's reading records nothing, and is told no seen version.
  auto carol = user("carol");
  const auto watched = log_as_seen(*carol, id);
  ASSERT_TRUE(watched.has_game_log());
  EXPECT_EQ(watched.game_log().seen_version(), 0);

  server_->terminate();
  restart();
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), now) << "the log read, recorded";

  // Over, and read from its row alone after a restart (not held in memory): the same.
  bob = login_as("bob");
  ASSERT_TRUE(bob);
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob->request(resign).has_ok());
  server_->terminate();
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(alice && bob);
  EXPECT_EQ(summary_in_my_games(*alice, id).status(), "finished");
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), now) << "as recorded";
  EXPECT_EQ(summary_in_my_games(*bob, id).your_seen_version(), now) << "by his own last order";
}

// A connection that closes without Unwatch records what it was shown, as Unwatch does.
TEST_F(ServerSeen, AConnectionClosedWhileWatchingRecordsWhatItWasShown) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  std::int64_t shown = 0;
  {
    auto alice_board = login_as("alice"), bob_board = login_as("bob");
    auto [soviet, german] = watch_as_players(*alice_board, *bob_board, id);
    ASSERT_FALSE(HasFailure());
    int serial = 0;
    while ((soviet.version < 3 || soviet.view.decision().side() != game::GERMAN) && serial < 300) {
      play(soviet, german, nullptr, 1, "a" + std::to_string(serial++) + "-");
      ASSERT_FALSE(HasFailure());
    }
    Bot bob_bot(game::GERMAN, default_scenario());
    play_until_decision_leaves(german, bob_bot, "b");  // alice's board still watches
    ASSERT_FALSE(HasFailure());
    ASSERT_TRUE(soviet.wait_version(german.version));
    shown = german.version;
    EXPECT_LT(summary_in_my_games(*alice, id).your_seen_version(), shown) << "while she watches, as her last order";
  }  // both boards close
  for (int i = 0; i < 100 && summary_in_my_games(*alice, id).your_seen_version() != shown; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), shown);
  server_->terminate();
  restart();
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), shown);
}

}  // namespace
}  // namespace counterattack::server::testing
