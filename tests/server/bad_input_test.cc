// Bad input of every kind gets a clear error, changes nothing, and the server stays up.
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <algorithm>
#include <filesystem>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

// Connects until the server has noticed a close and given its place back.
std::unique_ptr<Client> once_a_place_is_free(const std::function<std::unique_ptr<Client>()>& connect_once) {
  std::unique_ptr<Client> c;
  for (int i = 0; i < 100 && !c; ++i) {
    std::this_thread::sleep_for(50ms);
    c = connect_once();
  }
  return c;
}

class ServerBadInput : public ServerTest {
 protected:
  // The server is up and a new connection is answered.
  void expect_still_serving() {
    EXPECT_TRUE(server_->alive());
    auto c = connect();
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->ping(1).has_pong());
  }
};

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace websocket = boost::beast::websocket;
using tcp = net::ip::tcp;

bool is_error(const std::optional<wire::ServerMessage>& m, wire::ErrorCode code) {
  return m && m->has_error() && m->error().code() == code;
}

// Reads and drops whatever arrives until the server hangs up; false if the
// connection is still open at the deadline.
bool hung_up_within(tcp::socket& s, Millis limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{s.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    boost::system::error_code ec;
    s.read_some(net::buffer(buf), ec);
    if (ec) return true;  // end of stream or reset
  }
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
  // Nothing that could steer the reader's terminal or reorder the line around it.
  for (const std::string text : {"\x1b[2J", "ring\a", "\x1b]52;c;aGk=\a", "a\rfake line", "tab\there", "\xc2\x9b" "31m",
                                 "evil \xe2\x80\xae txt.exe", "line\xe2\x80\xa8two"}) {
    chat.mutable_send_chat()->set_text(text);
    const auto refused = alice->request(chat);
    EXPECT_EQ(refused.error().code(), wire::BAD_REQUEST) << text;
    EXPECT_NE(refused.error().message().find("one line"), std::string::npos) << refused.DebugString();
  }
  // An unknown id is said back cut short, and without its control characters.
  const auto unknown = alice->watch(std::string(60, 'x') + "\x1b[2J" + std::string(10000, 'y'));
  ASSERT_TRUE(unknown.has_error());
  EXPECT_EQ(unknown.error().code(), wire::NOT_FOUND);
  EXPECT_LT(unknown.error().message().size(), 100u) << unknown.error().message();
  EXPECT_EQ(unknown.error().message().find('\x1b'), std::string::npos);
  EXPECT_EQ(alice->join(std::string(5000, 'z')).error().message().size(), std::string("There is no game '").size() + 64 + 5);
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
  expect_still_serving();
}

TEST_F(ServerBadInput, AFloodIsRateLimited) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "messages_per_second = 20\nmessage_burst = 40\n"));
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
  std::filesystem::remove(other + ".log", ec);
  std::filesystem::remove(other + ".conf", ec);
}

// A peer that connects and then says nothing, or stops halfway through the
// handshakes, or never answers the server's pings, would hold its connection
// for ever; each is dropped at its timeout, and a peer that answers stays.
TEST_F(ServerBadInput, SilentPeersAreDroppedAtTheirTimeouts) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "handshake_timeout_seconds = 1\nidle_timeout_seconds = 3\n"));
  const tcp::endpoint ep(net::ip::make_address("127.0.0.1"),
                         static_cast<unsigned short>(server_->port()));
  auto answering = connect();  // its io thread answers pings
  ASSERT_TRUE(answering);
  net::io_context io;
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_none);

  tcp::socket mute(io);  // no TLS handshake at all
  mute.connect(ep);
  ssl::stream<tcp::socket> no_upgrade(io, ctx);  // TLS, but no WebSocket upgrade
  no_upgrade.next_layer().connect(ep);
  no_upgrade.handshake(ssl::stream_base::client);
  websocket::stream<ssl::stream<tcp::socket>> deaf(io, ctx);  // a WebSocket that never reads
  deaf.next_layer().next_layer().connect(ep);
  deaf.next_layer().handshake(ssl::stream_base::client);
  deaf.handshake("127.0.0.1", "/");

  EXPECT_TRUE(hung_up_within(mute, 10s)) << "no TLS handshake";
  EXPECT_TRUE(hung_up_within(no_upgrade.next_layer(), 10s)) << "no WebSocket upgrade";
  EXPECT_TRUE(hung_up_within(deaf.next_layer().next_layer(), 10s)) << "no answer to pings";
  std::this_thread::sleep_for(3500ms);  // past the idle timeout once more
  EXPECT_FALSE(answering->closed());
  EXPECT_EQ(answering->ping(7).pong().nonce(), 7u);
  EXPECT_TRUE(server_->alive());
}

// Bytes that are not TLS on the TLS port end that connection at once and
// nothing else.
TEST_F(ServerBadInput, BytesThatAreNotTlsEndOnlyTheirConnection) {
  const tcp::endpoint ep(net::ip::make_address("127.0.0.1"),
                         static_cast<unsigned short>(server_->port()));
  net::io_context io;
  for (const std::string& bytes :
       {std::string("GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\r\n"),
        std::string(64, '\0'), std::string("\x16\x03\x01\xff\xff", 5) + std::string(300, 'z')}) {
    tcp::socket s(io);
    s.connect(ep);
    net::write(s, net::buffer(bytes));
    EXPECT_TRUE(hung_up_within(s, 10s)) << bytes.substr(0, 16);
  }
  expect_still_serving();
}

// One client cannot take every connection: beyond the cap new connections are
// closed before any handshake, the open ones go on, and a place given back can
// be taken again.
TEST_F(ServerBadInput, ConnectionsBeyondTheCapAreClosedAtOnce) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "max_connections = 4\n"));
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(connect());
    ASSERT_TRUE(held.back()) << "connection " << i;
  }
  EXPECT_FALSE(connect()) << "a fifth connection";
  for (auto& c : held) EXPECT_TRUE(c->ping(1).has_pong());
  held.pop_back();
  auto again = once_a_place_is_free([&] { return connect(); });
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->ping(2).has_pong());
  EXPECT_TRUE(server_->alive());
}

// An address of this machine other than loopback, or empty.
std::string outside_address() {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return {};
  std::string found;
  for (ifaddrs* a = all; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP)) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    const auto address = net::ip::make_address_v4(ntohl(in->sin_addr.s_addr));
    if (!address.is_loopback()) found = address.to_string();
  }
  ::freeifaddrs(all);
  return found;
}

// One address holds at most its share; loopback, where a reverse proxy would
// bring everyone from, counts only towards the total.
TEST_F(ServerBadInput, ConnectionsBeyondTheCapPerAddressAreClosedAtOnce) {
  const std::string outside = outside_address();
  if (outside.empty()) GTEST_SKIP() << "this machine has no address besides loopback";
  ASSERT_NO_FATAL_FAILURE(restart({"--listen", "0.0.0.0:0"}, "max_connections_per_address = 2\n"));
  auto a = Client::connect(server_->port(), true, outside), b = Client::connect(server_->port(), true, outside);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(Client::connect(server_->port(), true, outside)) << "a third from " << outside;
  std::vector<std::unique_ptr<Client>> local;
  for (int i = 0; i < 3; ++i) {
    local.push_back(connect());
    EXPECT_TRUE(local.back()) << "loopback connection " << i;
  }
  EXPECT_TRUE(a->ping(1).has_pong());
  EXPECT_NE(server_->log().find("too many from one address"), std::string::npos);
}

// A browser's upgrade request with its cookies is let in; one past the 8 KB a
// request may have gets no answer, and only that connection ends.
TEST_F(ServerBadInput, UpgradeRequestsOverEightKilobytesEndOnlyTheirConnection) {
  EXPECT_EQ(upgrade_status(server_->port(), {{"Cookie", std::string(4000, 'c')}}), 101);
  EXPECT_EQ(upgrade_status(server_->port(), {{"Cookie", std::string(9000, 'c')}}), 0);
  expect_still_serving();
}

// Behind a reverse proxy on this machine everyone arrives from loopback. With
// the proxy trusted, the address it forwards is counted: a client over its
// share gets an HTTP answer the proxy passes on, and the log names the client.
TEST_F(ServerBadInput, ClientsBehindATrustedProxyAreCountedByTheirOwnAddress) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 127.0.0.1\nmax_connections_per_address = 2\n"));
  const int port = server_->port();
  const Client::Headers from_client{{"X-Forwarded-For", "203.0.113.7"}};
  auto a = Client::connect_with(port, from_client);
  // What the client wrote itself, left of what the proxy added, proves nothing,
  // also when the proxy adds a header line of its own.
  auto b = Client::connect_with(port, {{"X-Forwarded-For", "198.51.100.1"}, {"X-Forwarded-For", "203.0.113.7"}});
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(Client::connect_with(port, from_client)) << "a third from 203.0.113.7";
  EXPECT_EQ(upgrade_status(port, from_client), 503);
  EXPECT_TRUE(Client::connect_with(port, {{"X-Forwarded-For", "203.0.113.8"}})) << "another client through the proxy";
  EXPECT_TRUE(a->ping(1).has_pong());
  const std::string log = server_->log();
  EXPECT_NE(log.find("too many from one address"), std::string::npos) << log;
  EXPECT_NE(log.find("203.0.113.7 via 127.0.0.1:"), std::string::npos) << log;
  b.reset();
  auto again = once_a_place_is_free([&] { return Client::connect_with(port, from_client); });
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->ping(2).has_pong());
}

// Anyone can write X-Forwarded-For: from a peer that is not a trusted proxy it
// names nobody, and the connection counts as its TCP peer's.
TEST_F(ServerBadInput, AForwardedAddressFromAnUntrustedPeerIsIgnored) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 192.0.2.1, 127.0.0.2\nmax_connections_per_address = 1\n"));
  std::vector<std::unique_ptr<Client>> held;
  for (const char* claimed : {"203.0.113.7", "203.0.113.7", "127.0.0.1"}) {
    held.push_back(Client::connect_with(server_->port(), {{"X-Forwarded-For", claimed}}));
    EXPECT_TRUE(held.back()) << "claiming " << claimed;
  }
  EXPECT_EQ(server_->log().find(" via "), std::string::npos);
}

// What the server does not read it does not keep: an order's unknown fields
// are neither stored nor sent on, an order over 4 KB is refused unstored, and a
// client that asks for answers faster than it reads them is disconnected once
// they weigh max_queued_bytes.
TEST_F(ServerBadInput, NothingAClientSendsGrowsTheServerWithoutBound) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "max_queued_bytes = 1048576\nhandshake_timeout_seconds = 2\n"));
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET);
  ASSERT_TRUE(alice->watch(id).has_game());
  soviet.absorb();
  const auto decider = soviet.view.decision().side();
  Client& deciding = decider == game::SOVIET ? *alice : *bob;
  game::Order huge;
  huge.mutable_choose_units()->add_units(std::string(5000, 'x'));
  EXPECT_TRUE(is_error(deciding.submit(id, "k1", huge), wire::BAD_REQUEST));
  auto order = Bot(decider, default_scenario()).next(soviet.view);
  ASSERT_TRUE(order);
  order->GetReflection()->MutableUnknownFields(&*order)->AddLengthDelimited(4000, std::string(30000, 'x'));
  ASSERT_TRUE(deciding.submit(id, "k1", *order).has_order_accepted()) << "the key was not used up";
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(alice->request(resign).has_ok());
  wire::ClientMessage get_log;
  get_log.mutable_get_log()->set_game_id(id);
  const auto log = connect()->request(get_log);
  ASSERT_TRUE(log.has_game_log()) << log.DebugString();
  ASSERT_EQ(log.game_log().orders_size(), 1);
  const auto& stored = log.game_log().orders(0).order();
  EXPECT_TRUE(stored.GetReflection()->GetUnknownFields(stored).empty());
  EXPECT_LT(log.ByteSizeLong(), 30000u);

  // Log after log, never read.
  net::io_context io;
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_none);
  websocket::stream<ssl::stream<tcp::socket>> deaf(io, ctx);
  deaf.next_layer().next_layer().open(tcp::v4());
  deaf.next_layer().next_layer().set_option(net::socket_base::receive_buffer_size(4096));  // the answers pile up on the server
  deaf.next_layer().next_layer().connect(
      tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->port())));
  deaf.next_layer().handshake(ssl::stream_base::client);
  deaf.handshake("127.0.0.1", "/");
  deaf.binary(true);
  const std::string frame = get_log.SerializeAsString();
  try {
    for (int i = 0; i < 4000; ++i) deaf.write(net::buffer(frame));  // 4000 answers: far over 1 MB
  } catch (const boost::system::system_error&) {  // closed by the server already
  }
  for (int i = 0; i < 1200 && server_->log().find("reads too slowly") == std::string::npos; ++i) {
    std::this_thread::sleep_for(50ms);  // the server answers, and nothing is read
  }
  EXPECT_NE(server_->log().find("client reads too slowly"), std::string::npos);
  EXPECT_TRUE(hung_up_within(deaf.next_layer().next_layer(), 10s));
  expect_still_serving();
}

// Slow readers together cannot take the server's memory: over max_queued_bytes_total,
// each that holds a megabyte or more unread is disconnected, well before its own
// bound, and a client that keeps up goes on.
TEST_F(ServerBadInput, SlowReadersTogetherAreCutAtTheServersBound) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "max_queued_bytes = 33554432\nmax_queued_bytes_total = 2097152\n"));
  auto keeps_up = user("alice");
  net::io_context io;
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_none);
  wire::ClientMessage ask;
  ask.mutable_get_scenario();  // tens of kilobytes of answer for a few bytes asked
  const std::string frame = ask.SerializeAsString();
  std::vector<std::unique_ptr<websocket::stream<ssl::stream<tcp::socket>>>> deaf;
  for (int k = 0; k < 3; ++k) {
    auto s = std::make_unique<websocket::stream<ssl::stream<tcp::socket>>>(io, ctx);
    s->next_layer().next_layer().open(tcp::v4());
    s->next_layer().next_layer().set_option(net::socket_base::receive_buffer_size(4096));
    s->next_layer().next_layer().connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->port())));
    s->next_layer().handshake(ssl::stream_base::client);
    s->handshake("127.0.0.1", "/");
    s->binary(true);
    deaf.push_back(std::move(s));
  }
  // 150 answers each, about 7 MB: under a connection's own bound, over the server's.
  for (int i = 0; i < 150; ++i) {
    for (auto& s : deaf) {
      try {
        s->write(net::buffer(frame));
      } catch (const boost::system::system_error&) {  // closed by the server already
      }
    }
  }
  for (int i = 0; i < 600 && server_->log().find("server_full=yes") == std::string::npos; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_NE(server_->log().find("server_full=yes"), std::string::npos) << server_->log();
  int cut = 0;
  for (auto& s : deaf) cut += hung_up_within(s->next_layer().next_layer(), 10s);
  EXPECT_GE(cut, 2) << "the slow readers over their share";
  EXPECT_EQ(keeps_up->ping(3).pong().nonce(), 3u);
  wire::ClientMessage scenario;
  scenario.mutable_get_scenario();
  EXPECT_TRUE(keeps_up->request(scenario).has_scenario_data()) << "a reader who keeps up gets even a large answer";
  expect_still_serving();
}

// Each chat message and each refused order is a row in the database. A writer
// gets a share of chat a minute and then RATE_LIMITED; a player's refused
// orders beyond the player's share, over all games, are still answered, but
// neither stored nor remembered, and a retry of one is judged again. Nothing
// else changes.
TEST_F(ServerBadInput, ChatAndRefusedOrdersAreStoredOnlyUpToEachSendersShare) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "chat_messages_per_minute = 3\nrefused_orders_per_minute = 2\n"));
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET);
  for (Client* c : {alice.get(), bob.get()}) ASSERT_TRUE(c->watch(id).has_game());
  auto chat = [&](Client& from, const std::string& text) {
    wire::ClientMessage m;
    m.mutable_send_chat()->set_game_id(id);
    m.mutable_send_chat()->set_text(text);
    return from.request(m);
  };
  for (const char* text : {"one", "two", "three"}) EXPECT_TRUE(chat(*alice, text).has_ok()) << text;
  EXPECT_TRUE(is_error(chat(*alice, "four"), wire::RATE_LIMITED));
  EXPECT_TRUE(chat(*bob, "bob's own share").has_ok());
  ASSERT_TRUE(bob->ping().has_pong());
  const auto read = bob->take_all([](const wire::ServerMessage& m) { return m.has_chat(); });
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[2].chat().text(), "three");

  soviet.absorb();
  const auto decider = soviet.view.decision().side();
  Client& deciding = decider == game::SOVIET ? *alice : *bob;
  Client& waiting = decider == game::SOVIET ? *bob : *alice;
  auto stored_refusals = [&](const std::string& game) {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", true, err);
    EXPECT_TRUE(db.ok()) << err;
    auto& q = db.prepare("SELECT count(*) FROM rejections WHERE game_id = ?");
    q.bind_all(game);
    return q.step() ? q.integer(0) : -1;
  };
  for (const char* key : {"r1", "r2", "r3", "r4"}) {
    const auto r = waiting.submit(id, key, done_order());
    ASSERT_TRUE(r.has_order_rejected()) << key << ": " << r.DebugString();
    EXPECT_EQ(r.order_rejected().rejection().code(), game::NOT_YOUR_DECISION);
  }
  EXPECT_EQ(stored_refusals(id), 2);
  EXPECT_TRUE(waiting.submit(id, "r1", done_order()).has_order_rejected()) << "a stored refusal, answered again";
  EXPECT_TRUE(waiting.submit(id, "r4", done_order()).has_order_rejected()) << "an unstored one, judged again";
  EXPECT_EQ(stored_refusals(id), 2);
  const std::string other = start_game(*alice, *bob);  // the same seats, so the same player waits
  const auto elsewhere = waiting.submit(other, "r1", done_order());
  EXPECT_TRUE(elsewhere.has_order_rejected()) << elsewhere.DebugString();
  EXPECT_EQ(stored_refusals(other), 0) << "the share is the player's, over all games";
  auto order = Bot(decider, default_scenario()).next(soviet.view);
  ASSERT_TRUE(order);
  const auto accepted = deciding.submit(id, "k1", *order);
  ASSERT_TRUE(accepted.has_order_accepted()) << accepted.DebugString();
  EXPECT_EQ(accepted.order_accepted().version(), 1);
}

// A TCP proxy that passes connections through, TLS and all, opens each with a
// PROXY header naming its client: that client is held to its own share, and a
// proxy named there in turn has its X-Forwarded-For believed.
TEST_F(ServerBadInput, ClientsBehindAProxyProtocolProxyAreCountedByTheirOwnAddress) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 127.0.0.1, 10.0.0.0/8\nproxy_protocol = on\n"
                                      "max_connections_per_address = 2\n"));
  const int port = server_->port();
  auto v1 = [](const std::string& client) { return "PROXY TCP4 " + client + " 192.0.2.1 40112 443\r\n"; };
  // Version 2, as HAProxy's send-proxy-v2 writes it: 203.0.113.7:40112 to 192.0.2.1:443.
  const std::string v2("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c" "\xcb\x00\x71\x07" "\xc0\x00\x02\x01\x9c\xb0\x01\xbb", 28);
  auto a = Client::connect_after(port, v1("203.0.113.7"));
  auto b = Client::connect_after(port, v2);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(b->ping(1).has_pong());
  EXPECT_FALSE(Client::connect_after(port, v1("203.0.113.7"))) << "a third from 203.0.113.7";
  EXPECT_FALSE(Client::connect_after(port, v2)) << "a third from 203.0.113.7, in version 2";
  auto other = Client::connect_after(port, v1("203.0.113.8"));
  ASSERT_TRUE(other) << "another client through the proxy";
  EXPECT_TRUE(other->ping(2).has_pong());
  // The proxy's own health check names nobody and counts as the proxy's.
  EXPECT_TRUE(Client::connect_after(port, std::string("\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00", 16)));
  EXPECT_TRUE(Client::connect_after(port, "PROXY UNKNOWN\r\n"));
  // What follows such a header comes from whoever is behind the proxy: its
  // X-Forwarded-For names nobody, neither to escape a share nor to use one up.
  EXPECT_TRUE(Client::connect_after(port, "PROXY UNKNOWN\r\n", {{"X-Forwarded-For", "203.0.113.7"}}));
  // A TCP proxy in front of a reverse proxy: the header names the reverse proxy,
  // trusted as well, whose X-Forwarded-For names the client.
  EXPECT_FALSE(Client::connect_after(port, v1("10.0.0.5"), {{"X-Forwarded-For", "203.0.113.7"}}));
  EXPECT_TRUE(Client::connect_after(port, v1("10.0.0.5"), {{"X-Forwarded-For", "203.0.113.9"}}));
  // From a client the header names, X-Forwarded-For is the client's own word.
  EXPECT_TRUE(Client::connect_after(port, v1("203.0.113.10"), {{"X-Forwarded-For", "203.0.113.7"}}));

  const std::string log = server_->log();
  EXPECT_NE(log.find("203.0.113.7 via 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("too many from one address"), std::string::npos) << log;
  a.reset();
  auto again = once_a_place_is_free([&] { return Client::connect_after(port, v1("203.0.113.7")); });
  ASSERT_TRUE(again) << "the place given back";
  EXPECT_TRUE(again->ping(3).has_pong());
}

// With proxy_protocol on, a trusted proxy's connection without a good header is
// closed: it would otherwise count as the proxy's own and escape every share.
// One that stops halfway is closed at the handshake timeout. Other peers need
// no header.
TEST_F(ServerBadInput, AProxyProtocolConnectionWithoutItsHeaderIsClosed) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 127.0.0.1\nproxy_protocol = on\nhandshake_timeout_seconds = 1\n"));
  EXPECT_FALSE(Client::connect(server_->port())) << "straight into TLS";
  const tcp::endpoint ep(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->port()));
  net::io_context io;
  for (const std::string& bytes :
       {std::string("PROXY TCP4 203.0.113.777 192.0.2.1 1 2\r\n"), std::string("PROXY TCP4 203.0.113.7 "),
        std::string("PROXY UNKNOWN ") + std::string(200, 'x'), std::string("\r\n\r\n\0\r\nQUIT\n\x21\x11\xff\xff", 16),
        std::string("GET / HTTP/1.1\r\n\r\n")}) {
    tcp::socket s(io);
    s.connect(ep);
    net::write(s, net::buffer(bytes));
    EXPECT_TRUE(hung_up_within(s, 10s)) << ::testing::PrintToString(bytes.substr(0, 24));
  }
  EXPECT_NE(server_->log().find("no PROXY header from a trusted proxy"), std::string::npos) << server_->log();
  auto c = Client::connect_after(server_->port(), "PROXY TCP4 203.0.113.7 192.0.2.1 40112 443\r\n");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->ping(1).has_pong());

  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 192.0.2.1\nproxy_protocol = on\n"));
  EXPECT_TRUE(Client::connect(server_->port())) << "a peer that is not a proxy comes straight in";
  EXPECT_FALSE(Client::connect_after(server_->port(), "PROXY TCP4 203.0.113.7 192.0.2.1 40112 443\r\n"))
      << "and its header would be taken for its TLS handshake";
}

// Two servers on one database would each play its games from their own memory.
TEST_F(ServerBadInput, ASecondServerOnTheSameDataRefusesToStartAndTheFirstGoesOn) {
  auto alice = user("alice");
  {
    ServerProcess second(server_->data_dir());
    EXPECT_FALSE(second.started());
    EXPECT_NE(second.log().find("another counterattackd (pid " + std::to_string(server_->pid()) + ") serves this database"),
              std::string::npos)
        << second.log();
  }
  // On the same address too, it is the database that is named, not the port.
  auto start_on = [&](const std::string& data_dir) {
    const std::string command = "timeout 20 " + std::string(COUNTERATTACKD) + " --data-dir '" + data_dir + "' --listen 127.0.0.1:" +
                                std::to_string(server_->port()) + " 2>&1";
    std::string said;
    if (FILE* p = ::popen(command.c_str(), "r")) {
      char buffer[512];
      while (std::fgets(buffer, sizeof buffer, p)) said += buffer;
      ::pclose(p);
    }
    return said;
  };
  const std::string same = start_on(server_->data_dir());
  EXPECT_NE(same.find("serves this database"), std::string::npos) << same;
  // Another server's port, for a new data directory: refused before anything is made on disk.
  const std::string fresh = dir_ + "/fresh-data";
  const std::string taken = start_on(fresh);
  EXPECT_NE(taken.find("cannot listen on 127.0.0.1:" + std::to_string(server_->port())), std::string::npos) << taken;
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "nothing made for a server that cannot listen";
  EXPECT_TRUE(alice->ping(1).has_pong());
  EXPECT_TRUE(user("bob")->ping(2).has_pong()) << "the first still serves";
}

// Going back to an older release after an upgrade: the older server would write rows
// into tables it does not know. It refuses to start, and says what to do.
TEST_F(ServerBadInput, ADatabaseFromANewerReleaseIsRefusedAtStartAndLeftAsItWas) {
  server_->terminate();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec("PRAGMA user_version=999");
  }
  ServerProcess older(server_->data_dir());
  EXPECT_FALSE(older.started());
  EXPECT_NE(older.log().find("has schema 999, made by a newer counterattackd"), std::string::npos) << older.log();
  std::string err;
  Db db(server_->data_dir() + "/counterattack.db", false, err);
  ASSERT_TRUE(db.ok()) << err;
  auto& v = db.prepare("PRAGMA user_version");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.integer(0), 999);
}

// Games the organiser decided before the server stored why they moved no rating are given
// that reason by the upgrade (schema 43); other games keep theirs.
TEST_F(ServerBadInput, AnUpgradeGivesGamesTheOrganiserDecidedTheirUnratedReason) {
  auto alice = user("alice");
  const std::string decided = alice->create_game(wire::CHOOSE_SOVIET).game_created().game().game_id();
  const std::string other = alice->create_game(wire::CHOOSE_GERMAN).game_created().game().game_id();
  ASSERT_FALSE(decided.empty());
  ASSERT_FALSE(other.empty());
  server_->terminate();
  const std::string db_path = server_->data_dir() + "/counterattack.db";
  {
    std::string err;
    Db db(db_path, false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec("UPDATE games SET tournament_id = 't1', unrated_reason = '', result_reason = "
            "'Decided by carol, the organiser of the tournament \"Spring\": Soviet victory (no rating changes).' WHERE id = '" + decided + "'");
    db.exec("UPDATE games SET tournament_id = 't1', unrated_reason = '', result_reason = 'The German player resigned.' WHERE id = '" + other + "'");
    db.exec("PRAGMA user_version=42");
  }
  restart();
  EXPECT_TRUE(login_as("alice")->ping().has_pong()) << "upgraded, and serving";
  std::string err;
  Db db(db_path, false, err);
  ASSERT_TRUE(db.ok()) << err;
  auto reason_of = [&](const std::string& id) {
    auto& q = db.prepare("SELECT unrated_reason FROM games WHERE id = ?").bind_all(id);
    std::string r = q.step() ? q.text(0) : "?";
    q.reset();
    return r;
  };
  EXPECT_EQ(reason_of(decided), "not rated: decided by the organiser without being played out");
  EXPECT_EQ(reason_of(other), "");
}

// A newer release's migrations change the database for good: the start first
// takes a backup of it as it was, named for its schema, and then upgrades it.
TEST_F(ServerBadInput, AnUpgradeTakesABackupOfTheDatabaseAsItWasBeforeItsMigrations) {
  auto alice = user("alice");
  auto created = alice->create_game(wire::CHOOSE_SOVIET);
  ASSERT_TRUE(created.has_game_created());
  const std::string id = created.game_created().game().game_id();
  server_->terminate();
  const std::string db_path = server_->data_dir() + "/counterattack.db";
  {
    // The database as a release before the last migrations left it (schema 29: 030's
    // rules revision, which the game below is checked for, 031's seen versions,
    // 032's end reasons, 033's chat moderation, 034's turn mail settings,
    // 035's unrated reasons, 036's rounds reasons, 037's record for --status,
    // 038's index of finished games, 039's end turns, 040's quiet challenges, 041's draw
    // offer turns, 042's digest listings and mute changes and 043's reasons of decided games undone, so that all are applied again).
    std::string err;
    Db db(db_path, false, err);
    ASSERT_TRUE(db.ok()) << err;
    for (const char* column : {"started_unix", "pid", "version", "listen", "mail", "backup_dir", "backup_every_seconds", "connections",
                               "games_in_memory", "mail_dropped"}) {
      db.exec(std::string("ALTER TABLE server_state DROP COLUMN ") + column);
    }
    db.exec("ALTER TABLE games DROP COLUMN end_turn");
    db.exec("ALTER TABLE games DROP COLUMN offer_quiet");
    db.exec("ALTER TABLE games DROP COLUMN soviet_offered_turn");
    db.exec("ALTER TABLE games DROP COLUMN german_offered_turn");
    db.exec("DROP INDEX games_finished_by_end");
    db.exec("DROP TABLE digest_listed");
    db.exec("DROP TABLE mute_changes");
    db.exec("DROP TABLE mutes");
    db.exec("DROP TABLE chat_reports");
    db.exec("DROP INDEX users_chat_banned");
    db.exec("ALTER TABLE users DROP COLUMN chat_ban_reason");
    db.exec("ALTER TABLE users DROP COLUMN chat_banned_until");
    db.exec("ALTER TABLE tournaments DROP COLUMN rounds_reason");
    db.exec("ALTER TABLE games DROP COLUMN unrated_reason");
    db.exec("DROP TABLE seen");
    db.exec("ALTER TABLE tournaments DROP COLUMN end_reason");
    db.exec("ALTER TABLE games DROP COLUMN rules_revision");
    db.exec("ALTER TABLE tournaments DROP COLUMN rules_revision");
    db.exec("ALTER TABLE users DROP COLUMN turn_mail");
    db.exec("ALTER TABLE users DROP COLUMN digest_hours");
    db.exec("ALTER TABLE users DROP COLUMN digest_sent_unix");
    db.exec("PRAGMA user_version=29");
  }
  restart();
  alice = login_as("alice");
  EXPECT_TRUE(alice->ping().has_pong()) << "upgraded, and serving";
  EXPECT_EQ(operator_command("--status").said.rfind("Server: running since ", 0), 0u) << "its start recorded in the new columns";
  std::string taken;
  for (const auto& e : std::filesystem::directory_iterator(server_->data_dir() + "/backups")) {
    if (e.path().filename().string().starts_with("counterattack-schema-29-before-upgrade-")) taken = e.path().string();
  }
  ASSERT_FALSE(taken.empty()) << "no backup before the upgrade";
  auto schema_of = [](const std::string& path) {
    std::string err;
    Db db(path, false, err);
    auto& v = db.prepare("PRAGMA user_version");
    return v.step() ? v.integer(0) : -1;
  };
  EXPECT_EQ(schema_of(taken), 29);
  EXPECT_GT(schema_of(db_path), 29);
  wire::ClientMessage get_account;
  get_account.mutable_get_account();
  const auto account = alice->request(get_account);
  EXPECT_EQ(account.account().turn_mail(), wire::TURN_MAIL_EACH) << "a mail per game, as before: " << account.DebugString();
  EXPECT_EQ(account.account().digest_hours(), 24);

  // The game made before keeps the revision of the rules it began with (revision
  // 1, xoshiro256**'s dice), and its log replays with them.
  auto bob = user("bob");
  ASSERT_TRUE(bob->join(id).has_game());
  play_opening(*alice, *bob, id);
  EXPECT_EQ(summary_in_my_games(*alice, id).your_seen_version(), 1) << "what she was shown, recorded in the new table";
  wire::ClientMessage mute;
  mute.mutable_mute()->set_name("bob");
  EXPECT_TRUE(alice->request(mute).has_muted_players()) << "mutes stored in the new table";
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob->request(resign).has_ok());
  EXPECT_NE(summary_in_my_games(*alice, id).unrated_reason().find(" side never moved"), std::string::npos)
      << "one side moved: why it is not rated, stored in the new column";
  wire::ClientMessage finished;
  finished.mutable_list_games()->set_kind(wire::FINISHED_GAMES);
  const auto over = bob->request(finished);
  ASSERT_EQ(over.game_list().games_size(), 1) << over.DebugString();
  EXPECT_EQ(over.game_list().games(0).game_id(), id) << "the finished games listed by the new index";
  EXPECT_GT(over.game_list().games(0).turn(), 0) << "the turn it ended on, stored in the new column: " << over.DebugString();
  wire::ClientMessage get;
  get.mutable_get_log()->set_game_id(id);
  const auto log = alice->request(get);
  ASSERT_TRUE(log.has_game_log()) << log.DebugString();
  EXPECT_EQ(log.game_log().rules_revision(), 1);
  const Engine engine(default_scenario());
  auto [s, dice] = audit_start(engine, log.game_log());
  for (const auto& lo : log.game_log().orders()) {
    Order o;
    Rejection why;
    ASSERT_TRUE(engine.from_proto(lo.order(), o, why));
    ASSERT_TRUE(engine.apply(s, lo.side() == game::SOVIET ? Side::Soviet : Side::German, o, dice).accepted);
  }
  ASSERT_GT(log.game_log().orders_size(), 0);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(state_hash(s)));
  EXPECT_EQ(log.game_log().state_hash(), hash);
  // A start with nothing to upgrade takes none.
  restart();
  int before_upgrade = 0;
  for (const auto& e : std::filesystem::directory_iterator(server_->data_dir() + "/backups")) {
    before_upgrade += e.path().filename().string().find("before-upgrade") != std::string::npos;
  }
  EXPECT_EQ(before_upgrade, 1);
}

// The operator publishes the fingerprint players pin: the start says it, as OpenSSL reads it from the certificate.
TEST_F(ServerBadInput, TheStartLineGivesTheFingerprintPlayersPin) {
  FILE* p = ::popen(("openssl x509 -noout -fingerprint -sha256 -in '" + server_->data_dir() + "/tls/cert.pem'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  char line[256] = {};
  const bool read = std::fgets(line, sizeof line, p) != nullptr;
  ::pclose(p);
  ASSERT_TRUE(read);
  std::string said(line);
  said = said.substr(said.find('=') + 1);
  said.erase(said.find_last_not_of("\r\n") + 1);
  std::transform(said.begin(), said.end(), said.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  ASSERT_EQ(said.size(), 95u) << said;
  EXPECT_NE(server_->log().find("fingerprint=" + said), std::string::npos) << said << "\n" << server_->log();
}

// A hangup (a terminal closed, a reload asked for out of habit) stops nothing.
TEST_F(ServerBadInput, AHangupIsLoggedAndTheServerGoesOn) {
  auto alice = user("alice");
  ASSERT_EQ(::kill(server_->pid(), SIGHUP), 0);
  for (int i = 0; i < 100 && server_->log().find("hangup ignored") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_NE(server_->log().find("hangup ignored"), std::string::npos) << server_->log();
  EXPECT_TRUE(alice->ping(1).has_pong());
  EXPECT_EQ(server_->terminate(), 0) << "a SIGTERM still stops it cleanly";
}

// An operator's command given an empty value (a script's unset variable) does not start a second server.
TEST_F(ServerBadInput, AnOperatorCommandWithAnEmptyValueIsRefusedAndStartsNothing) {
  for (const std::string args : {"--suspend '' --reason x", "--reinstate ''", "--backup ''", "--end-game '' --reason x"}) {
    const auto outcome = operator_command(args + " --listen 127.0.0.1:0");
    EXPECT_EQ(outcome.status, 2) << args << ": " << outcome.said;
    EXPECT_NE(outcome.said.find("needs a value"), std::string::npos) << args << ": " << outcome.said;
    EXPECT_EQ(outcome.said.find("listening on"), std::string::npos) << args << ": " << outcome.said;
  }
  const std::string dir = make_temp_dir("config-dir");
  const auto as_config = operator_command("--config " + dir + " --listen 127.0.0.1:0");
  EXPECT_EQ(as_config.status, 2) << as_config.said;
  EXPECT_NE(as_config.said.find("is a directory"), std::string::npos) << as_config.said;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// proxy_protocol without a proxy to expect it from is a mistake in the config.
TEST_F(ServerBadInput, ProxyProtocolWithoutATrustedProxyIsRefusedAtStart) {
  const std::string other = make_temp_dir("proxy-protocol");
  {
    ServerProcess refused(other, {}, test_config() + "proxy_protocol = on\n");
    EXPECT_FALSE(refused.started());
    EXPECT_NE(refused.log().find("trusted_proxies names no proxy"), std::string::npos) << refused.log();
  }
  std::error_code ec;
  std::filesystem::remove_all(other, ec);
  std::filesystem::remove(other + ".log", ec);
  std::filesystem::remove(other + ".conf", ec);
}

}  // namespace
}  // namespace counterattack::server::testing
