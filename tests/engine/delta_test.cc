// Versioned deltas: a viewer rebuilds exactly its view from deltas.
#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include "playout.h"
#include "view_delta.h"

namespace counterattack {
namespace {

using google::protobuf::util::MessageDifferencer;

TEST(Deltas, Rule7_ViewsRebuiltFromDeltasEqualTheViews) {
  const Engine engine(default_scenario());
  Prng dice = Prng::from_seed(3), choices = Prng::from_seed(4);
  GameState s = engine.new_game(0, dice);
  const Viewer viewers[] = {Viewer::Soviet, Viewer::German, Viewer::Spectator, Viewer::Omniscient};
  std::vector<game::View> rebuilt;
  for (Viewer v : viewers) rebuilt.push_back(engine.view(s, v));
  for (int i = 0; i < 1500 && s.step != Step::GameOver; ++i) {
    std::vector<game::View> before;
    for (Viewer v : viewers) before.push_back(engine.view(s, v));
    ASSERT_TRUE(engine.apply(s, engine.decision(s).side, random_order(engine, s, choices), dice).accepted);
    for (size_t k = 0; k < 4; ++k) {
      const game::View after = engine.view(s, viewers[k]);
      const auto delta = diff_views(before[k], after);
      ASSERT_TRUE(apply_delta(rebuilt[k], delta));
      ASSERT_TRUE(MessageDifferencer::Equals(rebuilt[k], after)) << "viewer " << k << " order " << i;
    }
  }
  // A change the viewer may not see gives it an empty delta.
  GameState hidden = s;
  perturb_hidden(engine, hidden, Side::German, choices);
  EXPECT_TRUE(delta_is_empty(diff_views(engine.view(s, Viewer::Soviet), engine.view(hidden, Viewer::Soviet))));
  EXPECT_TRUE(delta_is_empty(diff_views(engine.view(s, Viewer::Spectator), engine.view(hidden, Viewer::Spectator))));
}

// The server computes deltas from plain-value views; they must be exactly the
// deltas between the wire views, byte for byte.
TEST(Deltas, Rule7_DeltasOfPlainViewsEqualDeltasOfWireViews) {
  const Engine engine(default_scenario());
  const Viewer viewers[] = {Viewer::Soviet, Viewer::German, Viewer::Spectator, Viewer::Omniscient};
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Prng dice = Prng::from_seed(seed), choices = Prng::from_seed(seed + 100);
    GameState s = engine.new_game(0, dice);
    std::vector<ViewModel> models;
    for (Viewer v : viewers) models.push_back(engine.view_model(s, v));
    for (int i = 0; i < 3000 && s.step != Step::GameOver; ++i) {
      ASSERT_TRUE(engine.apply(s, engine.decision(s).side, random_order(engine, s, choices), dice).accepted);
      for (size_t k = 0; k < 4; ++k) {
        ViewModel after = engine.view_model(s, viewers[k]);
        const game::View before_wire = engine.to_proto(models[k]), after_wire = engine.to_proto(after);
        ASSERT_EQ(after_wire.SerializeAsString(), engine.view(s, viewers[k]).SerializeAsString());
        ASSERT_EQ(engine.delta(models[k], after).SerializeAsString(),
                  diff_views(before_wire, after_wire).SerializeAsString())
            << "seed " << seed << " viewer " << k << " order " << i;
        models[k] = std::move(after);
      }
    }
  }
}

TEST(Deltas, Rule7_EventsAreFilteredByAudience) {
  std::vector<game::Event> events(5);
  events[0].set_audience(game::AUDIENCE_ALL);
  events[1].set_audience(game::AUDIENCE_SOVIET);
  events[2].set_audience(game::AUDIENCE_GERMAN);
  events[3].set_audience(game::AUDIENCE_ALL_BUT_SOVIET);
  events[4].set_audience(game::AUDIENCE_ALL_BUT_GERMAN);
  EXPECT_EQ(events_for(events, Viewer::Soviet).size(), 3u);     // all, own, redacted German
  EXPECT_EQ(events_for(events, Viewer::German).size(), 3u);
  EXPECT_EQ(events_for(events, Viewer::Spectator).size(), 3u);  // all and both redacted
  EXPECT_EQ(events_for(events, Viewer::Omniscient).size(), 3u); // all and both in full
}

}  // namespace
}  // namespace counterattack
