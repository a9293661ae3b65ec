// Reconnecting: Watch from a version gets exactly the missed deltas, and a view
// rebuilt from them equals a fresh snapshot. Idempotency keys: never twice.
#include <google/protobuf/util/message_differencer.h>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

class ServerResume : public ServerTest {};
class ServerIdempotency : public ServerTest {};

TEST_F(ServerResume, WatchFromVersionGetsExactlyTheMissedDeltas) {
  auto alice = user("alice"), bob = user("bob");
  auto spectator = connect(), spectator2 = connect();
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN), watching(*spectator, id, game::SIDE_UNSPECIFIED);
  for (auto* p : {&soviet, &german, &watching}) {
    ASSERT_TRUE(p->client.watch(id).has_game());
    p->absorb();
  }
  // A second window of the German player, and a second spectator, that will drop.
  const std::string bob_token = [&] {
    auto again = connect();
    auto s = again->login("bob");
    return s.session().token();
  }();
  auto bob_window = connect();
  ASSERT_TRUE(bob_window->resume(bob_token).has_session());
  Player window(*bob_window, id, game::GERMAN), dropped(*spectator2, id, game::SIDE_UNSPECIFIED);
  ASSERT_TRUE(bob_window->watch(id).has_game());
  ASSERT_TRUE(spectator2->watch(id).has_game());

  const PlayStats first = play(soviet, german, &watching, 60, "a");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(window.wait_version(first.version));
  ASSERT_TRUE(dropped.wait_version(first.version));
  const std::int64_t gone_at = first.version;
  bob_window.reset();
  spectator2.reset();

  const PlayStats second = play(soviet, german, &watching, 3, "b");
  ASSERT_FALSE(HasFailure());
  const std::int64_t now = second.version;
  ASSERT_GT(now, gone_at);

  struct Case {
    Player* stale;
    std::function<std::unique_ptr<Client>()> reconnect;
    Player* live;
  };
  const std::vector<Case> cases = {
      {&window,
       [&] {
         auto c = connect();
         EXPECT_TRUE(c->resume(bob_token).has_session());
         return c;
       },
       &german},
      {&dropped, [&] { return connect(); }, &watching},
  };
  for (const auto& cs : cases) {
    auto c = cs.reconnect();
    const auto w = c->watch(id, gone_at);
    ASSERT_TRUE(w.has_game()) << w.DebugString();
    EXPECT_EQ(w.game().version(), now);
    auto missed = c->take_all([](const wire::ServerMessage& m) { return m.has_delta() || m.has_snapshot(); });
    ASSERT_EQ(static_cast<std::int64_t>(missed.size()), now - gone_at);
    for (size_t i = 0; i < missed.size(); ++i) {
      ASSERT_TRUE(missed[i].has_delta());
      EXPECT_EQ(missed[i].delta().delta().from_version(), gone_at + static_cast<std::int64_t>(i));
      EXPECT_EQ(missed[i].delta().delta().to_version(), gone_at + static_cast<std::int64_t>(i) + 1);
    }
    Player rebuilt = *cs.stale;
    for (const auto& m : missed) rebuilt.apply(m);
    EXPECT_TRUE(rebuilt.problems.empty());
    EXPECT_EQ(rebuilt.version, now);
    EXPECT_TRUE(MessageDifferencer::Equals(rebuilt.view, cs.live->view));
    // ... and equals a fresh snapshot.
    auto fresh = connect();
    if (cs.stale->side == game::GERMAN) {
      ASSERT_TRUE(fresh->resume(bob_token).has_session());
    }
    ASSERT_TRUE(fresh->watch(id, 0).has_game());
    auto snap = fresh->wait_for([](const wire::ServerMessage& m) { return m.has_snapshot(); });
    ASSERT_TRUE(snap);
    EXPECT_EQ(snap->snapshot().version(), now);
    EXPECT_TRUE(MessageDifferencer::Equals(snap->snapshot().view(), rebuilt.view));
  }

  // Far behind: when the missed deltas weigh more than the view, a snapshot instead.
  auto late = connect();
  ASSERT_TRUE(late->watch(id, 1).has_game());
  auto caught = late->take_all([](const wire::ServerMessage& m) { return m.has_snapshot() || m.has_delta(); });
  ASSERT_EQ(caught.size(), 1u);
  ASSERT_TRUE(caught[0].has_snapshot());
  EXPECT_EQ(caught[0].snapshot().version(), now);
  EXPECT_TRUE(MessageDifferencer::Equals(caught[0].snapshot().view(), watching.view));
}

// An end adds no version (a resignation, an agreed draw, the operator's end):
// a player who comes back at the version they had is told the game is over.
TEST_F(ServerResume, WatchingAgainAfterTheGameEndedWhileAwayTellsTheEnd) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  play_opening(*alice, *bob, id);
  const auto before = bob->watch(id);
  ASSERT_TRUE(before.has_game()) << before.DebugString();
  const std::int64_t version = before.game().version();
  bob.reset();  // away

  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(alice->request(resign).has_ok());

  auto back = login_as("bob");
  const auto w = back->watch(id, version);
  ASSERT_TRUE(w.has_game()) << w.DebugString();
  EXPECT_EQ(w.game().status(), "finished");
  const auto ended = back->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == id; });
  ASSERT_TRUE(ended) << "the same message as had he been there";
  EXPECT_EQ(ended->game_ended().result(), "German victory");
  EXPECT_EQ(ended->game_ended().reason(), "The Soviet player resigned.");
  EXPECT_FALSE(ended->game_ended().seed_hex().empty());
}

TEST_F(ServerIdempotency, TheSameKeyNeverAppliesTwice) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
  ASSERT_TRUE(alice->watch(id).has_game());
  ASSERT_TRUE(bob->watch(id).has_game());
  soviet.absorb();
  german.absorb();
  Bot bots[2] = {Bot(game::SOVIET, default_scenario(), 0), Bot(game::GERMAN, default_scenario(), 0)};
  auto decider = [&]() -> std::pair<Client*, Bot*> {
    soviet.absorb();
    german.absorb();
    const bool s = soviet.view.decision().side() == game::SOVIET;
    return {s ? alice.get() : bob.get(), &bots[s ? 0 : 1]};
  };
  auto [c1, b1] = decider();
  auto o1 = b1->next(c1 == alice.get() ? soviet.view : german.view);
  ASSERT_TRUE(o1);
  auto first = c1->submit(id, "x", *o1);
  ASSERT_TRUE(first.has_order_accepted()) << first.DebugString();
  const auto v1 = first.order_accepted().version();
  EXPECT_EQ(v1, 1);
  b1->result(true);
  auto again = c1->submit(id, "x", *o1);
  ASSERT_TRUE(again.has_order_accepted());
  EXPECT_EQ(again.order_accepted().version(), v1);
  EXPECT_EQ(again.order_accepted().idempotency_key(), "x");
  // The key names one order only.
  game::Order other = *o1;
  other.mutable_done();
  if (o1->has_done()) other.mutable_break_contact();
  EXPECT_EQ(c1->submit(id, "x", other).error().code(), wire::CONFLICT);
  ASSERT_TRUE(soviet.wait_version(v1));

  // Twice at once, before the first is durable: one application, one answer twice.
  auto [c2, b2] = decider();
  auto o2 = b2->next(c2 == alice.get() ? soviet.view : german.view);
  ASSERT_TRUE(o2);
  wire::ClientMessage m;
  m.mutable_submit_order()->set_game_id(id);
  m.mutable_submit_order()->set_idempotency_key("y");
  *m.mutable_submit_order()->mutable_order() = *o2;
  const auto r1 = c2->send(m);
  const auto r2 = c2->send(m);
  auto a1 = c2->wait_for([&](const wire::ServerMessage& s) { return s.request_id() == r1; });
  auto a2 = c2->wait_for([&](const wire::ServerMessage& s) { return s.request_id() == r2; });
  ASSERT_TRUE(a1 && a2);
  ASSERT_EQ(a1->has_order_accepted(), a2->has_order_accepted()) << a1->DebugString() << a2->DebugString();
  std::int64_t v2 = v1;
  if (a1->has_order_accepted()) {
    EXPECT_EQ(a1->order_accepted().version(), v1 + 1);
    EXPECT_EQ(a2->order_accepted().version(), v1 + 1);
    v2 = v1 + 1;
  } else {
    EXPECT_TRUE(MessageDifferencer::Equals(a1->order_rejected(), a2->order_rejected()));
  }
  // From another connection after a "lost" answer: the same answer again.
  auto c3 = connect();
  ASSERT_TRUE(c3->login(c2 == alice.get() ? "alice" : "bob").has_session());
  auto a3 = c3->submit(id, "y", *o2);
  EXPECT_EQ(a3.has_order_accepted(), a1->has_order_accepted());
  if (a3.has_order_accepted()) {
    EXPECT_EQ(a3.order_accepted().version(), v2);
  }

  // A rejection is remembered as well.
  game::Order bad;
  bad.mutable_move()->add_units("NOBODY");
  auto rj1 = c2->submit(id, "bad", bad);
  auto rj2 = c2->submit(id, "bad", bad);
  ASSERT_TRUE(rj1.has_order_rejected() && rj2.has_order_rejected());
  EXPECT_TRUE(MessageDifferencer::Equals(rj1.order_rejected(), rj2.order_rejected()));

  // Exactly one delta per version reached each player: no version was made twice.
  ASSERT_TRUE(c1->ping(1).has_pong());
  soviet.absorb();
  german.absorb();
  EXPECT_EQ(soviet.version, v2);
  EXPECT_EQ(soviet.deltas, v2);
  EXPECT_EQ(german.deltas, v2);
  EXPECT_TRUE(soviet.problems.empty() && german.problems.empty());
}

}  // namespace
}  // namespace counterattack::server::testing
