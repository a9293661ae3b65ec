// counterattack-load: G concurrent games played by bot clients over real
// WebSocket/TLS connections, with throughput and latency measured from an
// order being sent, through its acknowledgement, to every viewer's delta
// arriving. In the same run, a bare WebSocket echo over TLS with the same
// number of connections gives the baseline the ratio is taken against: half of
// it measured just before the games (once they are set up) and half just after,
// as this machine's speed drifts within minutes.
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <google/protobuf/util/message_differencer.h>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "scenario.h"
#include "view_delta.h"
#include "wire.pb.h"

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace counterattack;

namespace {

using WsStream = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

struct Target {
  std::string host = "127.0.0.1";
  std::string port = "8443";
};

Target parse_url(const std::string& url) {
  Target t;
  std::string rest = url;
  const auto scheme = rest.find("://");
  if (scheme != std::string::npos) rest = rest.substr(scheme + 3);
  const auto slash = rest.find('/');
  if (slash != std::string::npos) rest = rest.substr(0, slash);
  const auto colon = rest.rfind(':');
  if (colon != std::string::npos) {
    t.host = rest.substr(0, colon);
    t.port = rest.substr(colon + 1);
  } else {
    t.host = rest;
  }
  return t;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

// ---------------------------------------------------------------------------
// One client connection: a reader loop, and writes queued one at a time.
// ---------------------------------------------------------------------------

class Conn : public std::enable_shared_from_this<Conn> {
 public:
  using Handler = std::function<void(wire::ServerMessage&)>;  // may take the message's parts

  Conn(asio::io_context& io, ssl::context& ctx) : ws_(asio::make_strand(io), ctx), wake_(io) {}

  asio::awaitable<void> connect(const Target& t) {
    auto resolver = tcp::resolver(co_await asio::this_coro::executor);
    auto results = co_await resolver.async_resolve(t.host, t.port, asio::use_awaitable);
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(30));
    co_await beast::get_lowest_layer(ws_).async_connect(results, asio::use_awaitable);
    beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true));
    SSL_set_tlsext_host_name(ws_.next_layer().native_handle(), t.host.c_str());
    co_await ws_.next_layer().async_handshake(ssl::stream_base::client, asio::use_awaitable);
    beast::get_lowest_layer(ws_).expires_never();
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
    ws_.binary(true);
    co_await ws_.async_handshake(t.host + ":" + t.port, "/", asio::use_awaitable);
    asio::co_spawn(ws_.get_executor(), reader(shared_from_this()), asio::detached);
    asio::co_spawn(ws_.get_executor(), writer(shared_from_this()), asio::detached);
  }

  // Sends a request and returns its id; the reply goes to the handler.
  std::uint64_t send(wire::ClientMessage m) {
    const std::uint64_t id = ++next_id_;
    m.set_request_id(id);
    queue_.push_back(m.SerializeAsString());
    wake_.cancel();
    return id;
  }

  // Sends and waits for the reply to this request.
  asio::awaitable<wire::ServerMessage> call(wire::ClientMessage m) {
    const auto id = send(std::move(m));
    auto timer = std::make_shared<asio::steady_timer>(ws_.get_executor());
    timer->expires_after(std::chrono::seconds(60));
    waiting_[id] = timer;
    boost::system::error_code answered;  // the reader cancels the wait when the reply is in
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, answered));
    waiting_.erase(id);
    auto it = replies_.find(id);
    if (it == replies_.end()) throw std::runtime_error("no reply from the server");
    auto reply = std::move(it->second);
    replies_.erase(it);
    co_return reply;
  }

  Handler on_message;
  bool closed = false;

 private:
  static asio::awaitable<void> reader(std::shared_ptr<Conn> self) {
    beast::flat_buffer buffer;
    wire::ServerMessage m;  // parsed into again and again: it keeps what it allocated
    try {
      for (;;) {
        co_await self->ws_.async_read(buffer, asio::use_awaitable);
        const bool ok = m.ParseFromArray(buffer.data().data(), static_cast<int>(buffer.size()));
        buffer.consume(buffer.size());
        if (!ok) continue;
        if (m.has_bundle()) {
          for (auto& inner : *m.mutable_bundle()->mutable_messages()) self->receive(inner);
        } else {
          self->receive(m);
        }
      }
    } catch (const boost::system::system_error&) {
    }
    self->closed = true;
    for (auto& [id, t] : self->waiting_) t->cancel();
    self->wake_.cancel();
  }

  void receive(wire::ServerMessage& m) {
    auto w = waiting_.find(m.request_id());
    if (m.request_id() && w != waiting_.end()) {
      replies_.emplace(m.request_id(), m);  // the first answer; any later one is a push
      w->second->cancel();
      waiting_.erase(w);
      return;
    }
    if (on_message) on_message(m);
  }

  static asio::awaitable<void> writer(std::shared_ptr<Conn> self) {
    try {
      while (!self->closed) {
        if (self->queue_.empty()) {
          self->wake_.expires_at(Clock::time_point::max());
          boost::system::error_code woken;  // send() cancels the wait: no exception for that
          co_await self->wake_.async_wait(asio::redirect_error(asio::use_awaitable, woken));
          continue;
        }
        std::string frame = std::move(self->queue_.front());
        self->queue_.pop_front();
        co_await self->ws_.async_write(asio::buffer(frame), asio::use_awaitable);
      }
    } catch (const boost::system::system_error&) {
      self->closed = true;
    }
  }

  WsStream ws_;
  asio::steady_timer wake_;
  std::deque<std::string> queue_;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, std::shared_ptr<asio::steady_timer>> waiting_;
  std::map<std::uint64_t, wire::ServerMessage> replies_;
};

// ---------------------------------------------------------------------------
// A game played by two bots
// ---------------------------------------------------------------------------

struct Stats {
  std::vector<double> latency_ms;
  long orders = 0, errors = 0, desyncs = 0, games_finished = 0;
  std::map<std::string, long> error_texts;  // what the errors said, for standard error
  void error(const std::string& what) {
    ++errors;
    ++error_texts[what];
  }
};

struct Game;

// A player's seat: its connection and the view it rebuilt from deltas.
struct Seat {
  std::shared_ptr<Conn> conn;
  game::Side side = game::SIDE_UNSPECIFIED;
  game::View view;
  std::int64_t version = 0;
};

struct Game {
  std::string id;
  Seat seats[2];
  bool busy = false;        // an order is out, and its player may not send the next one yet
  std::int64_t awaited = 0; // version the pending order made (0 until acknowledged)
  Clock::time_point sent;
  // Acknowledged orders whose deltas have not reached both seats: version, time sent.
  std::deque<std::pair<std::int64_t, Clock::time_point>> undelivered;
  bool over = false;
};

const Scenario* g_scenario = nullptr;

// The bots answer every decision the quickest legal way: end steps, take the
// first corps, stand fast, decline options, choose the first candidates.
std::optional<game::Order> bot_order(const game::View& v) {
  const auto& d = v.decision();
  game::Order o;
  switch (d.kind()) {
    case game::Decision::GAME_OVER:
      return std::nullopt;
    case game::Decision::CHOOSE_CORPS:
      if (d.candidates_size() == 0) return std::nullopt;
      o.mutable_activate_corps()->set_corps(d.candidates(0));
      return o;
    case game::Decision::BREAK_CONTACT:
      o.mutable_break_contact();
      return o;
    case game::Decision::DEFENSIVE_SUPPORT:
      o.mutable_defensive_support();
      return o;
    case game::Decision::MODEL_REROLL:
      o.mutable_reroll();
      return o;
    case game::Decision::ADVANCE:
      o.mutable_advance();
      return o;
    case game::Decision::UPRISING_STEP_LOSS:
    case game::Decision::UPRISING_UNITS_MOVED:
    case game::Decision::BARRAGE_LOSS:
      for (int i = 0; i < d.count() && i < d.candidates_size(); ++i) o.mutable_choose_units()->add_units(d.candidates(i));
      return o;
    case game::Decision::MAGNUSZEW: {
      // Match what the track asks for this turn from the public counter manifest.
      auto* c = o.mutable_choose_units();
      std::vector<bool> used(static_cast<size_t>(d.candidates_size()), false);
      auto kind_of = [&](const std::string& id) {
        for (const auto& a : g_scenario->artillery) if (a.id == id) return data::WITHDRAW_ARTILLERY;
        for (const auto& s : g_scenario->stukas) if (s.id == id) return data::WITHDRAW_PLANE;
        auto u = g_scenario->unit_index(id);
        if (!u) return data::WITHDRAWAL_TYPE_UNSPECIFIED;
        const auto cls = g_scenario->units[static_cast<size_t>(*u)].unit_class;
        if (cls == UnitClass::ArmoredTrain) return data::WITHDRAWAL_TYPE_UNSPECIFIED;
        return (cls == UnitClass::Armor || cls == UnitClass::Mechanized || cls == UnitClass::AntiTank) ? data::WITHDRAW_ARMORED
                                                                                                        : data::WITHDRAW_INFANTRY;
      };
      const auto track = g_scenario->magnuszew.find(v.header().turn());
      if (track == g_scenario->magnuszew.end()) return o;
      for (const auto need : track->second) {
        for (int i = 0; i < d.candidates_size(); ++i) {
          if (!used[static_cast<size_t>(i)] && kind_of(d.candidates(i)) == need) {
            used[static_cast<size_t>(i)] = true;
            c->add_units(d.candidates(i));
            break;
          }
        }
      }
      return o;
    }
    case game::Decision::ATTACKER_LOSSES:
    case game::Decision::DEFENDER_LOSSES: {
      auto* t = o.mutable_take_losses();
      int left = d.count();
      for (const auto& st : v.stacks()) {
        for (const auto& u : st.units()) {
          if (std::find(d.candidates().begin(), d.candidates().end(), u.id()) == d.candidates().end()) continue;
          for (int k = 0; k < u.steps() && left > 0; ++k, --left) t->add_steps(u.id());
        }
      }
      return o;
    }
    default:
      o.mutable_done();
      return o;
  }
}

class Runner {
 public:
  Runner(asio::io_context& io, ssl::context& ctx, Target target, int games, double seconds, double rate)
      : io_(io), ctx_(ctx), target_(std::move(target)), games_(games), seconds_(seconds), rate_(rate) {}

  asio::awaitable<void> run() {
    try {
      co_await setup();
    } catch (const std::exception& e) {
      std::cerr << "setup failed: " << e.what() << "\n";
      stats.error(std::string("setup: ") + e.what());
      co_return;
    }
    if (before_games) before_games(connections());
    start_ = Clock::now();
    end_ = start_ + std::chrono::milliseconds(static_cast<long>(seconds_ * 1000));
    if (rate_ > 0) {
      co_await open_loop();
    } else {
      for (auto& g : all_) kick(*g);
      asio::steady_timer t(io_);
      t.expires_at(end_);
      co_await t.async_wait(asio::use_awaitable);
    }
    stopping_ = true;
    elapsed_ = std::chrono::duration<double>(Clock::now() - start_).count();
    co_await check_desyncs();
  }

  Stats stats;
  double elapsed_ = 0;
  // Runs once every game is set up, just before the games start (it may block).
  std::function<void(int connections)> before_games;
  int connections() const { return static_cast<int>(all_.size()) * 2; }

 private:
  asio::awaitable<std::shared_ptr<Conn>> open() {
    auto c = std::make_shared<Conn>(io_, ctx_);
    co_await c->connect(target_);
    co_return c;
  }

  asio::awaitable<std::string> account(const std::string& name) {
    auto c = co_await open();
    wire::ClientMessage m;
    m.mutable_register_()->set_name(name);
    m.mutable_register_()->set_password("load-test-password");
    auto r = co_await c->call(m);
    if (!r.has_session()) throw std::runtime_error("register: " + r.error().message());
    co_return r.session().token();
  }

  asio::awaitable<std::shared_ptr<Conn>> seat_conn(const std::string& token) {
    auto c = co_await open();
    wire::ClientMessage m;
    m.mutable_resume()->set_token(token);
    auto r = co_await c->call(m);
    if (!r.has_session()) throw std::runtime_error("resume: " + r.error().message());
    co_return c;
  }

  asio::awaitable<void> setup() {
    const auto tag = std::to_string(std::random_device{}() % 1000000);
    std::array<std::string, 2> tokens;
    for (int g = 0; g < games_; ++g) {
      // A pair of players for every few games: the server holds a player to a
      // few games waiting for an opponent, and every game here starts as one.
      if (g % kGamesPerPair == 0) {
        const std::string pair = tag + "x" + std::to_string(g / kGamesPerPair);
        tokens[0] = co_await account("load" + pair + "a");
        tokens[1] = co_await account("load" + pair + "b");
      }
      auto game = std::make_shared<Game>();
      for (int k = 0; k < 2; ++k) game->seats[k].conn = co_await seat_conn(tokens[static_cast<size_t>(k)]);
      co_await new_game(*game);
      all_.push_back(game);
    }
  }

  asio::awaitable<void> new_game(Game& g) {
    wire::ClientMessage create;
    create.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
    auto r = co_await g.seats[0].conn->call(create);
    if (!r.has_game_created()) throw std::runtime_error("create: " + r.error().message());
    g.id = r.game_created().game().game_id();
    wire::ClientMessage join;
    join.mutable_join_game()->set_game_id(g.id);
    r = co_await g.seats[1].conn->call(join);
    if (r.has_error()) throw std::runtime_error("join: " + r.error().message());
    g.seats[0].side = game::SOVIET;
    g.seats[1].side = game::GERMAN;
    g.over = false;
    for (auto& seat : g.seats) {
      wire::ClientMessage watch;
      watch.mutable_watch()->set_game_id(g.id);
      auto snap = co_await seat.conn->call(watch);
      if (!snap.has_snapshot()) throw std::runtime_error("watch: " + snap.error().message());
      seat.view = snap.snapshot().view();
      seat.version = snap.snapshot().version();
      auto* gp = &g;
      auto* sp = &seat;
      seat.conn->on_message = [this, gp, sp](wire::ServerMessage& m) { on_push(*gp, *sp, m); };
    }
  }

  void on_push(Game& g, Seat& seat, wire::ServerMessage& m) {
    if (m.has_delta() && m.delta().game_id() == g.id) {
      auto& d = *m.mutable_delta()->mutable_delta();
      const auto to = d.to_version();
      if (d.from_version() != seat.version || !apply_delta(seat.view, std::move(d))) {
        stats.desyncs++;
        return;
      }
      seat.version = to;
      delivered(g);
      settle(g);
    } else if (m.has_order_accepted() && m.order_accepted().game_id() == g.id) {
      g.awaited = m.order_accepted().version();
      g.undelivered.emplace_back(g.awaited, g.sent);
      delivered(g);
      settle(g);
    } else if (m.has_order_rejected() && m.order_rejected().game_id() == g.id) {
      stats.error("order rejected: " + m.order_rejected().rejection().reason());
      g.busy = false;
      g.over = true;  // a bot that is refused stops rather than loop
    } else if (m.has_game_ended() && m.game_ended().game_id() == g.id) {
      g.over = true;
    } else if (m.has_error()) {
      stats.error("error: " + m.error().message());
    }
  }

  // An order is delivered, and its latency taken, when it is acknowledged and
  // both seats have its version's delta. Called as each of those arrives.
  void delivered(Game& g) {
    const auto both = std::min(g.seats[0].version, g.seats[1].version);
    while (!g.undelivered.empty() && g.undelivered.front().first <= both) {
      stats.latency_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - g.undelivered.front().second).count());
      stats.orders++;
      g.undelivered.pop_front();
    }
    if (g.over && g.undelivered.empty() && rate_ <= 0) kick(g);  // the next game, now that this one is all delivered
  }

  // The seat whose player decides next, once its view has reached `version`.
  static Seat* decider_at(Game& g, std::int64_t version) {
    for (auto& seat : g.seats) {
      if (seat.version != version) continue;
      const auto side = seat.view.decision().side();
      Seat& decider = g.seats[side == game::GERMAN ? 1 : 0];
      return decider.version == version ? &decider : nullptr;
    }
    return nullptr;
  }

  // The next order goes out as soon as this one is acknowledged and the player
  // who decides next has seen its delta; the other seat's delta may still be on its way.
  void settle(Game& g) {
    if (!g.busy || g.awaited == 0) return;
    Seat* next = decider_at(g, g.awaited);
    if (!next) return;
    g.busy = false;
    g.awaited = 0;
    if (next->view.decision().kind() == game::Decision::GAME_OVER) g.over = true;
    if (rate_ <= 0) kick(g);
  }

  void kick(Game& g) {
    if (stopping_ || g.busy) return;
    if (g.over) {
      if (!g.undelivered.empty()) return;  // its last deltas first: delivered() kicks again
      stats.games_finished++;
      g.busy = true;  // until the next game is set up
      asio::co_spawn(io_, restart(g), asio::detached);
      return;
    }
    Seat* decider = decider_at(g, std::max(g.seats[0].version, g.seats[1].version));
    if (!decider) return;  // not yet: settle() kicks again when the deciding seat catches up
    Seat& seat = *decider;
    auto order = bot_order(seat.view);
    if (!order) {
      g.over = true;
      return;
    }
    wire::ClientMessage m;
    auto* s = m.mutable_submit_order();
    s->set_game_id(g.id);
    s->set_idempotency_key(g.id + ":" + std::to_string(seat.version));
    *s->mutable_order() = *order;
    g.busy = true;
    g.awaited = 0;
    g.sent = Clock::now();
    seat.conn->send(m);
  }

  asio::awaitable<void> restart(Game& g) {
    g.busy = true;
    try {
      for (auto& seat : g.seats) {
        wire::ClientMessage un;
        un.mutable_unwatch()->set_game_id(g.id);
        seat.conn->send(un);
      }
      co_await new_game(g);
    } catch (const std::exception& e) {
      stats.error(std::string("next game: ") + e.what());
      co_return;
    }
    g.busy = false;
    if (rate_ <= 0) kick(g);
  }

  asio::awaitable<void> open_loop() {
    // R orders a second in total, spread over the games in turn.
    asio::steady_timer t(io_);
    const auto step = std::chrono::duration<double>(1.0 / rate_);
    auto next = Clock::now();
    size_t i = 0;
    while (Clock::now() < end_) {
      next += std::chrono::duration_cast<Clock::duration>(step);
      for (size_t tries = 0; tries < all_.size(); ++tries) {
        Game& g = *all_[i++ % all_.size()];
        if (!g.busy) {
          kick(g);
          break;
        }
      }
      t.expires_at(next);
      co_await t.async_wait(asio::use_awaitable);
    }
  }

  // A desync: a view rebuilt from deltas differs from a fresh snapshot of that version.
  asio::awaitable<void> check_desyncs() {
    asio::steady_timer t(io_);
    t.expires_after(std::chrono::milliseconds(500));  // let the last deliveries land
    co_await t.async_wait(asio::use_awaitable);
    for (auto& g : all_) {
      for (auto& seat : g->seats) {
        if (seat.conn->closed) {
          stats.error("connection closed");
          continue;
        }
        seat.conn->on_message = nullptr;
        wire::ClientMessage watch;
        watch.mutable_watch()->set_game_id(g->id);
        auto snap = co_await seat.conn->call(watch);
        if (!snap.has_snapshot()) {
          stats.error("watch at the end: " + snap.error().message());
          continue;
        }
        // A game that has just ended shows its players the whole board: that view is
        // no longer the one their deltas built.
        const bool ended = snap.snapshot().view().viewer() == game::VIEWER_OMNISCIENT;
        if (!ended && snap.snapshot().version() == seat.version &&
            !google::protobuf::util::MessageDifferencer::Equals(snap.snapshot().view(), seat.view)) {
          stats.desyncs++;
        }
      }
    }
  }

  asio::io_context& io_;
  ssl::context& ctx_;
  Target target_;
  int games_;
  double seconds_, rate_;
  static constexpr int kGamesPerPair = 10;
  std::vector<std::shared_ptr<Game>> all_;
  Clock::time_point start_, end_;
  bool stopping_ = false;
};

// ---------------------------------------------------------------------------
// The baseline: a bare Beast WebSocket echo over TLS on this machine
// ---------------------------------------------------------------------------

void self_signed(ssl::context& ctx) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  SSL_CTX_use_certificate(ctx.native_handle(), cert);
  SSL_CTX_use_PrivateKey(ctx.native_handle(), key);
  X509_free(cert);
  EVP_PKEY_free(key);
}

asio::awaitable<void> echo_session(WsStream ws) {
  try {
    co_await ws.next_layer().async_handshake(ssl::stream_base::server, asio::use_awaitable);
    ws.binary(true);
    co_await ws.async_accept(asio::use_awaitable);
    beast::flat_buffer buffer;
    for (;;) {
      co_await ws.async_read(buffer, asio::use_awaitable);
      co_await ws.async_write(buffer.data(), asio::use_awaitable);
      buffer.consume(buffer.size());
    }
  } catch (const boost::system::system_error&) {
  }
}

asio::awaitable<void> echo_listen(tcp::acceptor& acceptor, ssl::context& ctx) {
  for (;;) {
    auto socket = co_await acceptor.async_accept(asio::use_awaitable);
    socket.set_option(tcp::no_delay(true));
    auto ex = socket.get_executor();
    asio::co_spawn(ex, echo_session(WsStream(beast::tcp_stream(std::move(socket)), ctx)), asio::detached);
  }
}

asio::awaitable<void> echo_client(std::shared_ptr<Conn> c, Clock::time_point end, std::vector<double>& rtt) {
  wire::ClientMessage ping;
  ping.mutable_ping()->set_nonce(1);
  while (Clock::now() < end && !c->closed) {
    const auto t0 = Clock::now();
    co_await c->call(ping);
    rtt.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
}

// Round trips per second over `connections` echo clients, and each round trip's time in ms.
std::pair<double, std::vector<double>> measure_echo(int connections, double seconds) {
  asio::io_context io(1);
  ssl::context server_ctx(ssl::context::tls_server);
  self_signed(server_ctx);
  tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  asio::io_context client_io(1);
  ssl::context client_ctx(ssl::context::tls_client);
  client_ctx.set_verify_mode(ssl::verify_none);
  Target t{"127.0.0.1", std::to_string(acceptor.local_endpoint().port())};
  asio::co_spawn(io, echo_listen(acceptor, server_ctx), asio::detached);
  std::thread server([&] { io.run(); });
  std::vector<double> rtt;
  double elapsed = 0;
  asio::co_spawn(client_io, [&]() -> asio::awaitable<void> {
    std::vector<std::shared_ptr<Conn>> conns;
    for (int i = 0; i < connections; ++i) {
      auto c = std::make_shared<Conn>(client_io, client_ctx);
      co_await c->connect(t);
      conns.push_back(c);
    }
    const auto start = Clock::now();
    const auto end = start + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    int done = 0;
    asio::steady_timer all(client_io);
    all.expires_at(Clock::time_point::max());
    for (auto& c : conns) {
      asio::co_spawn(client_io, [&, c]() -> asio::awaitable<void> {
        co_await echo_client(c, end, rtt);
        if (++done == static_cast<int>(conns.size())) all.cancel();
      }, asio::detached);
    }
    try {
      co_await all.async_wait(asio::use_awaitable);
    } catch (const boost::system::system_error&) {
    }
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    client_io.stop();
  }, asio::detached);
  client_io.run();
  io.stop();
  server.join();
  return {elapsed > 0 ? static_cast<double>(rtt.size()) / elapsed : 0, std::move(rtt)};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"counterattack-load: concurrent bot games against a counterattackd, with latency and throughput"};
  std::string server = "wss://127.0.0.1:8443";
  bool insecure = false;
  int games = 10;
  double seconds = 10, rate = 0, echo_seconds = 5;
  app.add_option("--server", server, "Server URL (wss://host:port)");
  app.add_flag("--insecure", insecure, "Accept the server's self-signed certificate");
  app.add_option("--games", games, "Concurrent games")->check(CLI::Range(1, 100000));
  app.add_option("--seconds", seconds, "How long to play")->check(CLI::Range(0.5, 86400.0));
  app.add_option("--rate", rate, "Open loop: orders per second in total (default: closed loop)");
  app.add_option("--echo-seconds", echo_seconds, "How long to measure the echo baseline (half before the games, half after)");
  CLI11_PARSE(app, argc, argv);

  auto sc = load_builtin_scenario("counterattack");
  if (!sc.ok()) return 2;
  g_scenario = sc.scenario.get();

  asio::io_context io(1);
  ssl::context ctx(ssl::context::tls_client);
  if (insecure) {
    ctx.set_verify_mode(ssl::verify_none);
  } else {
    ctx.set_default_verify_paths();
    ctx.set_verify_mode(ssl::verify_peer);
  }
  Runner runner(io, ctx, parse_url(server), games, seconds, rate);
  // Half the echo just before the games and half just after, with as many connections as they had.
  double echo_before = 0, echo_after = 0;
  std::vector<double> echo_rtt;
  runner.before_games = [&](int connections) {
    auto [per_second, rtt] = measure_echo(std::max(1, connections), echo_seconds / 2);
    echo_before = per_second;
    echo_rtt = std::move(rtt);
  };
  asio::co_spawn(io, runner.run(), [&](std::exception_ptr) { io.stop(); });
  io.run();

  const auto& st = runner.stats;
  if (echo_before > 0) {
    auto [per_second, rtt] = measure_echo(std::max(1, runner.connections()), echo_seconds / 2);
    echo_after = per_second;
    echo_rtt.insert(echo_rtt.end(), rtt.begin(), rtt.end());
  }
  const double echo_rate = (echo_before + echo_after) / 2;
  const double ops = runner.elapsed_ > 0 ? static_cast<double>(st.orders) / runner.elapsed_ : 0;
  nlohmann::ordered_json j;
  j["games"] = games;
  j["mode"] = rate > 0 ? "open" : "closed";
  j["seconds"] = runner.elapsed_;
  j["orders"] = st.orders;
  j["orders_per_second"] = ops;
  j["p50_ms"] = percentile(st.latency_ms, 0.5);
  j["p99_ms"] = percentile(st.latency_ms, 0.99);
  j["games_finished"] = st.games_finished;
  j["errors"] = st.errors;
  j["desyncs"] = st.desyncs;
  j["connections"] = runner.connections();
  j["echo_per_second"] = echo_rate;
  j["echo_p50_ms"] = percentile(echo_rtt, 0.5);
  j["echo_before_per_second"] = echo_before;
  j["echo_after_per_second"] = echo_after;
  j["ratio"] = echo_rate > 0 ? ops / echo_rate : 0;
  for (const auto& [text, n] : st.error_texts) std::cerr << n << " x " << text << "\n";
  std::cout << j.dump() << std::endl;
  return st.errors == 0 && st.desyncs == 0 && st.orders > 0 ? 0 : 1;
}
