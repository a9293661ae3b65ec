// The game log as the live client shows it: after a reconnect that brings a
// fresh snapshot, the events already printed are not printed again.
#include <gtest/gtest.h>

#include "live.h"

namespace counterattack::cli {
namespace {

game::Event event(const std::string& text) {
  game::Event e;
  e.set_kind(game::Event::MOVED);
  e.set_text(text);
  return e;
}

std::vector<game::Event> events(std::initializer_list<const char*> texts) {
  std::vector<game::Event> out;
  for (const char* t : texts) out.push_back(event(t));
  return out;
}

TEST(LiveLog, ASnapshotAfterAReconnectShowsOnlyTheEventsMissed) {
  const auto before = events({"a", "b", "c", "d"});
  // The snapshot's recent events begin later and run on past what was shown.
  EXPECT_EQ(events_already_shown(before, 4, events({"c", "d", "e", "f"})), 2u);
  // Nothing missed: all it holds was shown.
  EXPECT_EQ(events_already_shown(before, 4, events({"b", "c", "d"})), 3u);
}

TEST(LiveLog, EventsThatRepeatAreLinedUpByTheRunBeforeThem) {
  // "x" repeats: the last shown run (c, x) lines up with the later one.
  const auto before = events({"x", "c", "x"});
  EXPECT_EQ(events_already_shown(before, 3, events({"x", "c", "x", "e", "x"})), 3u);
}

TEST(LiveLog, WhenTheShownEventsAreAllOlderEverythingIsNew) {
  EXPECT_EQ(events_already_shown(events({"a", "b"}), 2, events({"p", "q", "r"})), 0u);
  EXPECT_EQ(events_already_shown({}, 0, events({"p"})), 0u);
}

TEST(LiveLog, EventsHeldButNotYetShownAreShownAfterTheSnapshot) {
  // Only "a" and "b" were printed before the connection dropped.
  EXPECT_EQ(events_already_shown(events({"a", "b", "c"}), 2, events({"a", "b", "c", "d"})), 2u);
}

wire::ServerMessage snapshot(const std::string& game_id, std::int64_t version, std::initializer_list<const char*> texts) {
  wire::ServerMessage m;
  m.mutable_snapshot()->set_game_id(game_id);
  m.mutable_snapshot()->set_version(version);
  for (const auto& e : events(texts)) *m.mutable_snapshot()->add_recent_events() = e;
  return m;
}

// The server ends a game's stream with an error (the game is being read again):
// the view is dropped and asked for again in full, but the log printed stays printed.
TEST(LiveLog, AFullViewAskedForAgainAfterAnErrorShowsOnlyTheEventsMissed) {
  Session s(GlobalOptions{});
  LiveGame g(s, "g1");
  ASSERT_TRUE(g.handle(snapshot("g1", 4, {"a", "b", "c"})));
  EXPECT_EQ(g.take_new_events().size(), 3u);
  wire::ServerMessage error;
  error.mutable_error()->set_code(wire::INTERNAL);
  error.mutable_error()->set_game_id("g1");
  error.mutable_error()->set_message("The game is being reloaded; Watch it again.");
  g.handle(error);
  ASSERT_FALSE(g.has_view());
  ASSERT_TRUE(g.handle(snapshot("g1", 5, {"b", "c", "d"})));
  const auto fresh = g.take_new_events();
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].text(), "d");
}

// Each notice says whose it is and what it is: a chat line is its game's, another game's turn of
// none, and the game's end is marked as the end, with what it adds to an end already drawn (the
// ratings, the dice seed) apart, so that the shell tells the end once.
TEST(LiveNotices, TheEndIsMarkedAsTheEndWithWhatItAddsToAnEndAlreadyDrawn) {
  Session s(GlobalOptions{});
  LiveGame g(s, "g1", true);
  wire::ServerMessage chat;
  chat.mutable_chat()->set_game_id("g1");
  chat.mutable_chat()->set_from("bob");
  chat.mutable_chat()->set_text("Good game");
  g.handle(chat);
  wire::ServerMessage turn;
  turn.mutable_your_turn()->set_game_id("g2");
  g.handle(turn);
  wire::ServerMessage ended;
  auto* e = ended.mutable_game_ended();
  e->set_game_id("g1");
  e->set_result("Soviet victory");
  e->set_reason("The German player resigned.");
  e->set_unrated_reason("not rated: a casual game");
  e->set_seed_hex("00ff");
  g.handle(ended);
  const auto notices = g.take_notices();
  ASSERT_EQ(notices.size(), 3u);
  EXPECT_EQ(notices[0].text, "[chat] bob: Good game");
  EXPECT_TRUE(notices[0].of_this_game);
  EXPECT_EQ(notices[0].kind, LiveGame::Notice::Kind::plain);
  EXPECT_FALSE(notices[1].of_this_game) << notices[1].text;
  EXPECT_EQ(notices[1].kind, LiveGame::Notice::Kind::plain);
  EXPECT_EQ(notices[2].kind, LiveGame::Notice::Kind::end);
  EXPECT_TRUE(notices[2].of_this_game);
  EXPECT_EQ(notices[2].text,
            "The game is over. Soviet victory: The German player resigned. Not rated: a casual game. Dice seed: 00ff "
            "(`verify` checks every die).");
  EXPECT_EQ(notices[2].adds, "Not rated: a casual game. Dice seed: 00ff (`verify` checks every die).");
  EXPECT_TRUE(g.take_notices().empty()) << "each is taken once";
}

}  // namespace
}  // namespace counterattack::cli
