#include "fixture.h"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdio>

#include <sodium.h>

#include <filesystem>
#include <stdexcept>

#include "scenario.h"
#include "storage.h"
#include "view_delta.h"

namespace counterattack::server::testing {

Player::Player(Client& c, std::string id, game::Side s) : client(c), game_id(std::move(id)), side(s) {}

void Player::apply(const wire::ServerMessage& m) {
  if (m.has_snapshot()) {
    view = m.snapshot().view();
    version = m.snapshot().version();
    ++snapshots;
  } else {
    const auto& d = m.delta().delta();
    if (d.from_version() != version) {
      problems.push_back("delta " + std::to_string(d.from_version()) + "->" + std::to_string(d.to_version()) +
                         " on version " + std::to_string(version));
    }
    if (!apply_delta(view, d)) problems.push_back("delta does not apply at " + std::to_string(version));
    version = d.to_version();
    for (const auto& e : d.events()) events.push_back(e);
    ++deltas;
  }
  // The opponent's event chits never reach a player, nor anyone's a spectator.
  for (const auto& h : view.hands()) {
    if (h.chits_size() > 0 && h.side() != side) {
      problems.push_back("sees chits of a hand not its own at version " + std::to_string(version));
    }
  }
}

bool Player::mine(const wire::ServerMessage& m) const {
  return (m.has_snapshot() && m.snapshot().game_id() == game_id) || (m.has_delta() && m.delta().game_id() == game_id);
}

void Player::absorb() {
  for (auto& m : client.take_all([&](const wire::ServerMessage& s) { return mine(s); })) apply(m);
}

bool Player::wait_version(std::int64_t v, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    absorb();
    if (version >= v) return true;
    const auto left = std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    auto m = client.wait_for([&](const wire::ServerMessage& s) { return mine(s); }, left);
    if (!m) return false;
    apply(*m);
  }
}

wire::GameSummary summary_in_my_games(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_my_games();
  const auto reply = c.request(m);
  for (const auto& g : reply.game_list().games()) {
    if (g.game_id() == game_id) return g;
  }
  ADD_FAILURE() << "game " << game_id << " is not among the player's games";
  return {};
}

void ServerTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = make_temp_dir(info->name());
  ASSERT_FALSE(dir_.empty());
  server_ = std::make_unique<ServerProcess>(dir_);
  ASSERT_TRUE(server_->started()) << server_->log();
}

void ServerTest::TearDown() {
  if (server_ && HasFailure()) std::cerr << "---- server log ----\n" << server_->log() << "--------------------\n";
  server_.reset();
  if (!HasFailure()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    std::filesystem::remove(dir_ + ".log", ec);
    std::filesystem::remove(dir_ + ".conf", ec);
  }
}

void ServerTest::restart(std::vector<std::string> extra_args, const std::string& settings) {
  server_.reset();
  server_ = std::make_unique<ServerProcess>(dir_, std::move(extra_args), test_config() + settings);
  ASSERT_TRUE(server_->started()) << server_->log();
}

void ServerTest::make_unloadable(const std::vector<std::string>& game_ids) {
  server_->kill9();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    for (const auto& id : game_ids) {
      db.prepare("UPDATE games SET seed = x'00' WHERE id = ?").run(id);
      ASSERT_EQ(db.changes(), 1) << "no game " << id;
    }
  }
  restart();
}

bool ServerTest::eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 200; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

std::unique_ptr<Client> ServerTest::connect(bool tls) { return Client::connect(server_->port(), tls); }

std::unique_ptr<Client> ServerTest::user(const std::string& name) {
  auto c = connect();
  EXPECT_TRUE(c);
  if (!c) return c;
  auto r = c->register_user(name);
  EXPECT_TRUE(r.has_session()) << r.DebugString();
  return c;
}

std::unique_ptr<Client> ServerTest::login_as(const std::string& name) {
  auto c = connect();
  if (!c) throw std::runtime_error("no connection to the server");  // the test fails here, not on a null client
  auto r = c->login(name);
  EXPECT_TRUE(r.has_session()) << r.DebugString();
  return c;
}

ServerTest::CommandOutcome ServerTest::operator_command(const std::string& args) {
  const std::string command = std::string(COUNTERATTACKD) + " --data-dir '" + server_->data_dir() + "' " + args + " 2>&1";
  CommandOutcome out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, p)) out.said += buffer;
  const int raw = ::pclose(p);
  out.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

std::pair<Player, Player> watch_as_players(Client& soviet, Client& german, const std::string& game_id) {
  EXPECT_TRUE(soviet.watch(game_id).has_game());
  EXPECT_TRUE(german.watch(game_id).has_game());
  std::pair<Player, Player> p{Player(soviet, game_id, game::SOVIET), Player(german, game_id, game::GERMAN)};
  p.first.absorb();
  p.second.absorb();
  return p;
}

void play_opening(Client& soviet, Client& german, const std::string& game_id) {
  {
    auto [s, g] = watch_as_players(soviet, german, game_id);
    EXPECT_EQ(play(s, g, nullptr, 1, "opening-").accepted, 1) << "no opening order in " << game_id;
  }
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(game_id);
  for (Client* c : {&soviet, &german}) EXPECT_TRUE(c->request(unwatch).has_ok());
}

void play_an_order_each(Client& soviet, Client& german, const std::string& game_id) {
  {
    auto [s, g] = watch_as_players(soviet, german, game_id);
    bool moved[2] = {false, false};
    for (int serial = 0; serial < 400 && !(moved[0] && moved[1]); ++serial) {
      s.absorb();
      const auto& d = s.view.decision();
      if (d.kind() == game::Decision::GAME_OVER) break;
      const int who = d.side() == game::SOVIET ? 0 : 1;
      if (play(s, g, nullptr, 1, "each-" + std::to_string(serial) + "-").accepted != 1) break;
      moved[who] = true;
    }
    EXPECT_TRUE(moved[0] && moved[1]) << "not an order from each side in " << game_id;
  }
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(game_id);
  for (Client* c : {&soviet, &german}) EXPECT_TRUE(c->request(unwatch).has_ok());
}

std::string ServerTest::start_game(Client& soviet, Client& german, std::vector<std::string> options) {
  auto created = soviet.create_game(wire::CHOOSE_SOVIET, false, std::move(options));
  EXPECT_TRUE(created.has_game_created()) << created.DebugString();
  const std::string id = created.game_created().game().game_id();
  auto joined = german.join(id);
  EXPECT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_EQ(joined.game().status(), "playing");
  EXPECT_EQ(joined.game().your_side(), "german");
  return id;
}

PlayStats play(Player& soviet, Player& german, Player* spectator, int max_orders, const std::string& key_prefix,
               int take_back_every) {
  PlayStats st;
  static const auto sc = default_scenario();
  Bot bots[2] = {Bot(game::SOVIET, sc, 2, take_back_every), Bot(game::GERMAN, sc, 2, take_back_every)};
  Player* players[2] = {&soviet, &german};
  int serial = 0;
  while (st.accepted < max_orders) {
    for (auto* p : players) p->absorb();
    if (spectator) spectator->absorb();
    const auto& d = soviet.view.decision();
    if (d.kind() == game::Decision::GAME_OVER) {
      st.over = true;
      break;
    }
    const int who = d.side() == game::SOVIET ? 0 : 1;
    Player& p = *players[who];
    Bot& bot = bots[who];
    auto order = bot.next(p.view);
    if (!order) {
      ADD_FAILURE() << "the bot has no order for " << d.DebugString();
      break;
    }
    const std::string key = key_prefix + std::to_string(serial++);
    auto r = p.client.submit(p.game_id, key, *order);
    if (r.has_order_accepted()) {
      bot.result(true);
      ++st.accepted;
      // The opponent's standing orders may have answered after it: every version up to theirs is awaited.
      st.version = std::max(r.order_accepted().version(), r.order_accepted().answered_to_version());
      if (r.order_accepted().answered_to_version() != 0) {
        EXPECT_GT(r.order_accepted().answered_to_version(), r.order_accepted().version());
      }
      if (order->has_move()) ++st.moves;
      if (order->has_undo()) ++st.takebacks;
      st.orders[r.order_accepted().version()] = *order;
      for (auto* q : players) {
        if (!q->wait_version(st.version)) {
          ADD_FAILURE() << "no delta for version " << st.version;
          return st;
        }
      }
      if (spectator && !spectator->wait_version(st.version)) {
        ADD_FAILURE() << "spectator got no delta for version " << st.version;
        return st;
      }
    } else if (r.has_order_rejected()) {
      bot.result(false, r.order_rejected().rejection().reason());
      ++st.rejected;
      if (bot.stuck() > 40) {
        ADD_FAILURE() << "the bot is stuck at " << d.DebugString() << " last: " << r.DebugString();
        break;
      }
    } else {
      ADD_FAILURE() << "unexpected answer to an order: " << r.DebugString();
      break;
    }
  }
  return st;
}

wire::ServerMessage log_as_seen(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_get_log()->set_game_id(game_id);
  m.mutable_get_log()->set_as_seen(true);
  return c.request(m);
}

void play_until_decision_leaves(Player& p, Bot& bot, const std::string& key_prefix) {
  for (int serial = 0; serial < 300; ++serial) {
    p.absorb();
    const auto& d = p.view.decision();
    if (d.side() != p.side || d.kind() == game::Decision::GAME_OVER) return;
    auto order = bot.next(p.view);
    ASSERT_TRUE(order) << d.DebugString();
    auto r = p.client.submit(p.game_id, key_prefix + std::to_string(serial), *order);
    if (r.has_order_accepted()) {
      bot.result(true);
      ASSERT_TRUE(p.wait_version(r.order_accepted().version()));
    } else {
      ASSERT_TRUE(r.has_order_rejected()) << r.DebugString();
      bot.result(false, r.order_rejected().rejection().reason());
    }
  }
  ADD_FAILURE() << "the decision stayed with one side for 300 orders";
}

std::int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  char hex[2 * crypto_hash_sha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return hex;
}

std::string from_hex(const std::string& hex) {
  std::string out(hex.size() / 2, '\0');
  size_t len = 0;
  if (sodium_hex2bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), hex.c_str(), hex.size(), nullptr, &len,
                     nullptr) != 0) {
    return {};
  }
  out.resize(len);
  return out;
}

AuditStart audit_start(const Engine& engine, const wire::GameLog& log, std::vector<game::Event>* setup) {
  const std::string seed = from_hex(log.seed_hex());
  Prng::State st{};
  for (size_t w = 0; w < 4 && seed.size() == 32; ++w) {
    for (size_t b = 0; b < 8; ++b) st[w] |= static_cast<std::uint64_t>(static_cast<unsigned char>(seed[w * 8 + b])) << (8 * b);
  }
  std::uint32_t bits = revision_bits(log.rules_revision());
  for (const auto& key : log.options()) bits |= option_bit(key);
  Prng dice(st, dice_kind(bits));
  GameState s = engine.new_game(bits, dice, setup);
  return {std::move(s), dice};
}

}  // namespace counterattack::server::testing
