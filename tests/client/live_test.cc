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

}  // namespace
}  // namespace counterattack::cli
