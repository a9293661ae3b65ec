// Bad input of every kind gets a clear error, changes nothing, and the server stays up.
#include <filesystem>
#include <thread>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerBadInput : public ServerTest {};

bool is_error(const std::optional<wire::ServerMessage>& m, wire::ErrorCode code) {
  return m && m->has_error() && m->error().code() == code;
}

TEST_F(ServerBadInput, EveryKindGetsAClearErrorAndChangesNothing) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  auto c = connect();

  c->send_raw(std::string(12, '\xff'));  // not protobuf
  EXPECT_TRUE(is_error(c->next(), wire::BAD_REQUEST));
  c->send_raw(std::string("\x52\x05" "ab", 4));  // truncated
  EXPECT_TRUE(is_error(c->next(), wire::BAD_REQUEST));
  c->send_raw("{\"ping\": 7}", false);  // a text frame
  EXPECT_TRUE(is_error(c->next(), wire::BAD_REQUEST));
  wire::ClientMessage empty;
  empty.set_request_id(99);
  auto e = c->request(empty);
  EXPECT_TRUE(e.has_error() && e.error().code() == wire::BAD_REQUEST && e.request_id() == 99) << e.DebugString();
  c->send_raw(std::string(100 * 1024, 'x'));  // over the 64 KiB limit
  auto big = c->next();
  EXPECT_TRUE(is_error(big, wire::TOO_LARGE));
  EXPECT_FALSE(big->error().message().empty());
  EXPECT_EQ(c->ping(5).pong().nonce(), 5u);  // the connection is still fine

  // Unknown games, missing fields, wrong versions.
  auto r = c->watch("no-such-game");
  EXPECT_TRUE(r.has_error() && r.error().code() == wire::NOT_FOUND) << r.DebugString();
  EXPECT_EQ(alice->submit("no-such-game", "k", done_order()).error().code(), wire::NOT_FOUND);
  EXPECT_EQ(alice->join("no-such-game").error().code(), wire::NOT_FOUND);
  EXPECT_EQ(alice->submit(id, "", done_order()).error().code(), wire::BAD_REQUEST);
  EXPECT_EQ(alice->submit(id, "k", game::Order()).error().code(), wire::BAD_REQUEST);
  EXPECT_EQ(alice->watch(id, -1).error().code(), wire::BAD_REQUEST);
  EXPECT_EQ(alice->watch(id, 1000).error().code(), wire::BAD_REQUEST);
  wire::ClientMessage log;
  log.mutable_get_log()->set_game_id(id);
  EXPECT_EQ(c->request(log).error().code(), wire::FORBIDDEN);  // not before the end
  wire::ClientMessage chat;
  chat.mutable_send_chat()->set_game_id(id);
  chat.mutable_send_chat()->set_text(std::string(501, 'a'));
  EXPECT_EQ(alice->request(chat).error().code(), wire::BAD_REQUEST);
  wire::ClientMessage create;
  create.mutable_create_game()->add_options("no_such_rule");
  EXPECT_EQ(alice->request(create).error().code(), wire::BAD_REQUEST);
  create.mutable_create_game()->clear_options();
  create.mutable_create_game()->set_scenario("chess");
  EXPECT_EQ(alice->request(create).error().code(), wire::BAD_REQUEST);

  // Orders the rules refuse: a clear rejection, nothing applied.
  game::Order bogus;
  bogus.mutable_move()->add_units("NO-SUCH-UNIT");
  bogus.mutable_move()->add_path("9999");
  const std::string who = [&] {
    Player p(*alice, id, game::SOVIET);
    EXPECT_TRUE(alice->watch(id).has_game());
    p.absorb();
    return p.view.decision().side() == game::SOVIET ? std::string("alice") : std::string("bob");
  }();
  Client& decider = who == "alice" ? *alice : *bob;
  auto rj = decider.submit(id, "bogus", bogus);
  ASSERT_TRUE(rj.has_order_rejected()) << rj.DebugString();
  EXPECT_EQ(rj.order_rejected().rejection().code(), game::UNKNOWN_UNIT);
  Player check(*c, id, game::SIDE_UNSPECIFIED);
  ASSERT_TRUE(c->watch(id).has_game());
  check.absorb();
  EXPECT_EQ(check.version, 0);

  // Far over the limit: the connection is closed (1009), the server lives on.
  auto d = connect();
  d->send_raw(std::string(2 * 1024 * 1024, 'y'));
  EXPECT_FALSE(d->next(5s));
  EXPECT_TRUE(d->closed());
  EXPECT_TRUE(server_->alive());
  EXPECT_TRUE(connect()->ping(1).has_pong());
}

TEST_F(ServerBadInput, AFloodIsRateLimited) {
  server_.reset();
  server_ = std::make_unique<ServerProcess>(dir_, std::vector<std::string>{},
                                            test_config() + "messages_per_second = 20\nmessage_burst = 40\n");
  ASSERT_TRUE(server_->started()) << server_->log();
  auto c = connect();
  auto calm = connect();
  wire::ClientMessage ping;
  for (int i = 0; i < 300; ++i) {
    ping.set_request_id(static_cast<std::uint64_t>(i + 1));
    ping.mutable_ping()->set_nonce(static_cast<std::uint64_t>(i));
    c->send(ping);
  }
  int pongs = 0, limited = 0;
  for (int i = 0; i < 300; ++i) {
    auto m = c->next();
    ASSERT_TRUE(m) << "after " << i << " answers";
    if (m->has_pong()) ++pongs;
    if (m->has_error() && m->error().code() == wire::RATE_LIMITED) ++limited;
  }
  EXPECT_GE(pongs, 40);
  EXPECT_LT(pongs, 100);
  EXPECT_EQ(pongs + limited, 300);
  EXPECT_TRUE(calm->ping(1).has_pong());  // other connections are not affected
  std::this_thread::sleep_for(1500ms);    // the bucket refills
  EXPECT_TRUE(c->ping(2).has_pong());
  EXPECT_TRUE(server_->alive());
}

TEST_F(ServerBadInput, PlainWebSocketOnlyWhenAskedAndOnlyOnLoopback) {
  EXPECT_FALSE(Client::connect(server_->port(), false)) << "the default is TLS";
  const std::string other = make_temp_dir("plain");
  {
    ServerProcess refused(other, {"--plain", "--listen", "0.0.0.0:0"});
    EXPECT_FALSE(refused.started());
    EXPECT_NE(refused.log().find("loopback"), std::string::npos) << refused.log();
  }
  ServerProcess plain(other, {"--plain"});
  ASSERT_TRUE(plain.started()) << plain.log();
  auto c = Client::connect(plain.port(), false);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->ping(3).has_pong());
  EXPECT_FALSE(Client::connect(plain.port(), true));
  EXPECT_EQ(plain.terminate(), 0);
  std::error_code ec;
  std::filesystem::remove_all(other, ec);
}

}  // namespace
}  // namespace counterattack::server::testing
