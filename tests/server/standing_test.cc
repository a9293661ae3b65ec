// Standing orders: a player's answers given in advance to the decisions the
// other side's play asks of them. The server answers those decisions at once,
// as the player's own orders in the log; only that player reads their standing
// orders; they last through a restart; bad ones change nothing.
#include "engine.h"
#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerStanding : public ServerTest {};

wire::ServerMessage set_standing(Client& c, const std::string& game_id, const game::StandingOrders& orders) {
  wire::ClientMessage m;
  m.mutable_set_standing_orders()->set_game_id(game_id);
  *m.mutable_set_standing_orders()->mutable_orders() = orders;
  return c.request(m);
}

game::StandingOrders every_order(game::Side side) {
  game::StandingOrders so;
  so.set_stand_fast(true);
  so.set_no_support(true);
  so.set_take_losses(true);
  so.set_retreat(true);
  so.set_keep_die(side == game::GERMAN);
  return so;
}

// The answers standing orders give: each kind of order that only answers the other side's play.
bool answers_only(const game::Order& o) {
  return o.has_break_contact() || o.has_defensive_support() || o.has_reroll() || o.has_retreat();
}

// One game of two bots, both players with every standing order they may give:
// the number of orders the server gave for them.
int play_with_standing_orders(ServerTest& t, Client& alice, Client& bob, const std::string& id) {
  const auto soviet_orders = every_order(game::SOVIET), german_orders = every_order(game::GERMAN);
  EXPECT_TRUE(set_standing(alice, id, soviet_orders).has_ok());
  EXPECT_TRUE(set_standing(bob, id, german_orders).has_ok());

  // Each reads their own, and never the other's.
  EXPECT_EQ(summary_in_my_games(alice, id).standing_orders().SerializeAsString(), soviet_orders.SerializeAsString());
  EXPECT_EQ(summary_in_my_games(bob, id).standing_orders().SerializeAsString(), german_orders.SerializeAsString());

  auto [soviet, german] = watch_as_players(alice, bob, id);
  const PlayStats st = play(soviet, german, nullptr, 20000);
  EXPECT_TRUE(st.over);
  for (auto* p : {&soviet, &german}) {
    EXPECT_TRUE(p->problems.empty()) << p->problems.front();
    EXPECT_EQ(p->version, st.version);
  }
  (void)t;

  // The log holds the standing answers as the players' own orders: the bots
  // were never asked what standing orders cover, and every order the server
  // gave for a player answers such a decision.
  wire::ClientMessage get;
  get.mutable_get_log()->set_game_id(id);
  const auto log = alice.request(get);
  EXPECT_TRUE(log.has_game_log()) << log.DebugString();
  EXPECT_EQ(log.game_log().orders_size(), st.version);
  int answered = 0;
  for (const auto& lo : log.game_log().orders()) {
    const bool by_server = st.orders.count(lo.version()) == 0;
    if (answers_only(lo.order())) {
      EXPECT_TRUE(by_server) << "a bot answered at version " << lo.version() << ": " << lo.order().ShortDebugString();
    }
    if (!by_server) continue;
    ++answered;
    EXPECT_TRUE(answers_only(lo.order()) || lo.order().has_take_losses() || lo.order().has_choose_units())
        << lo.order().ShortDebugString();
  }
  std::cerr << "standing orders: " << answered << " answers of " << st.version << " orders\n";
  return answered;
}

TEST_F(ServerStanding, TheDecisionsTheyCoverAreAnsweredAtOnceForTheAbsentPlayerAndOnlyTheyReadThem) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice && bob);
  // The bots meet a decision standing orders cover in most games, not all: a few games make sure.
  int answered = 0;
  for (int game = 0; game < 5 && answered == 0 && !HasFailure(); ++game) {
    const std::string id = start_game(*alice, *bob);
    ASSERT_FALSE(HasFailure());
    answered += play_with_standing_orders(*this, *alice, *bob, id);
  }
  EXPECT_GT(answered, 0);
}

// The last order a player gave, and what the server answered.
struct Given {
  game::Side side = game::SIDE_UNSPECIFIED;
  std::string key;
  game::Order order;
  wire::OrderAccepted accepted;
};

// Two bots play game `id` until a decision the Soviet's standing orders would
// cover waits for him: true; false when the game ends first.
bool play_until_the_soviet_is_asked(Player& soviet, Player& german, Given* last = nullptr) {
  Bot bots[2] = {Bot(game::SOVIET, default_scenario()), Bot(game::GERMAN, default_scenario())};
  int serial = 0;
  for (int i = 0; i < 20000; ++i) {
    soviet.absorb();
    german.absorb();
    const auto& d = soviet.view.decision();
    if (d.kind() == game::Decision::GAME_OVER) return false;
    if (d.side() == game::SOVIET && (d.kind() == game::Decision::BARRAGE_LOSS || d.kind() == game::Decision::BREAK_CONTACT ||
                                     d.kind() == game::Decision::DEFENSIVE_SUPPORT || d.kind() == game::Decision::DEFENDER_LOSSES ||
                                     d.kind() == game::Decision::RETREAT)) {
      return true;
    }
    Player& p = d.side() == game::SOVIET ? soviet : german;
    Bot& bot = bots[d.side() == game::SOVIET ? 0 : 1];
    auto order = bot.next(p.view);
    if (!order) return ADD_FAILURE() << "the bot has no order for " << d.ShortDebugString(), false;
    const std::string key = "w" + std::to_string(serial++);
    auto r = p.client.submit(p.game_id, key, *order);
    bot.result(r.has_order_accepted(), r.order_rejected().rejection().reason());
    if (last && r.has_order_accepted()) *last = Given{d.side(), key, *order, r.order_accepted()};
    if (bot.stuck() > 40) return ADD_FAILURE() << "the bot is stuck at " << d.ShortDebugString(), false;
    if (r.has_order_accepted() && !(soviet.wait_version(r.order_accepted().version()) &&
                                    german.wait_version(r.order_accepted().version()))) {
      return ADD_FAILURE() << "no delta for version " << r.order_accepted().version(), false;
    }
  }
  return false;
}

TEST_F(ServerStanding, SetWhileTheirDecisionWaitsTheyAnswerItAndTheyLastThroughARestart) {
  auto alice = user("alice"), bob = user("bob");
  std::string id;
  bool asked = false;
  Given last;
  // Most games bring such a decision; a few games make sure.
  for (int game = 0; game < 5 && !asked && !HasFailure(); ++game) {
    id = start_game(*alice, *bob);
    ASSERT_FALSE(HasFailure());
    auto [soviet, german] = watch_as_players(*alice, *bob, id);
    asked = play_until_the_soviet_is_asked(soviet, german, &last);
    if (!asked) continue;
    const std::int64_t before = soviet.version;
    ASSERT_TRUE(set_standing(*alice, id, every_order(game::SOVIET)).has_ok());
    ASSERT_TRUE(soviet.wait_version(before + 1));  // answered at once
    ASSERT_TRUE(german.wait_version(before + 1));
    EXPECT_TRUE(soviet.problems.empty() && german.problems.empty());
  }
  ASSERT_TRUE(asked);

  restart();
  auto again = login_as("alice");
  ASSERT_TRUE(again);
  // The order before them, sent again, is the same order, and the answers the
  // standing orders gave when they were set are not told as following it.
  ASSERT_NE(last.side, game::SIDE_UNSPECIFIED);
  auto bob_again = login_as("bob");
  ASSERT_TRUE(bob_again);
  Client* sender = last.side == game::SOVIET ? again.get() : bob_again.get();
  const auto retry = sender->submit(id, last.key, last.order);
  ASSERT_TRUE(retry.has_order_accepted()) << retry.ShortDebugString();
  EXPECT_EQ(retry.order_accepted().version(), last.accepted.version());
  EXPECT_EQ(retry.order_accepted().answered_to_version(), last.accepted.answered_to_version());
  EXPECT_EQ(summary_in_my_games(*again, id).standing_orders().SerializeAsString(),
            every_order(game::SOVIET).SerializeAsString());
  // All off asks every decision again.
  ASSERT_TRUE(set_standing(*again, id, {}).has_ok());
  EXPECT_FALSE(summary_in_my_games(*again, id).has_standing_orders());
}

TEST_F(ServerStanding, BadStandingOrdersAreRefusedAndChangeNothing) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string id = start_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  // FM Model is the German's.
  game::StandingOrders keep;
  keep.set_keep_die(true);
  auto r = set_standing(*alice, id, keep);
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::BAD_REQUEST);
  EXPECT_FALSE(summary_in_my_games(*alice, id).has_standing_orders());
  // Only the game's players give it standing orders.
  r = set_standing(*carol, id, every_order(game::SOVIET));
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::FORBIDDEN);
  r = set_standing(*alice, "nosuchgame", every_order(game::SOVIET));
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::NOT_FOUND);
  // The server's own idempotency keys are not the players'.
  game::Order done;
  done.mutable_done();
  r = alice->submit(id, "standing:1", done);
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::BAD_REQUEST);
  // Over, a game takes no more.
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_FALSE(bob->request(resign).has_error());
  r = set_standing(*alice, id, every_order(game::SOVIET));
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::CONFLICT);
}

}  // namespace
}  // namespace counterattack::server::testing
