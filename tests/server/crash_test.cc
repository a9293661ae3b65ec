// A killed server loses no acknowledged order and resumes the game with the
// same state: checked against the log line of the load and a replay of the log.
// An order that cannot be stored leaves nothing behind, and the game goes on.
#include <google/protobuf/util/message_differencer.h>

#include <regex>

#include "engine.h"
#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

class ServerCrash : public ServerTest {};

std::string hash_hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A trigger that refuses every order stands in for a full disk. The order's
// sender is answered; every watcher's stream, the sender's too, ends with an
// error naming the game, and no delta of the lost version reaches anyone. Once orders can be
// stored again the game goes on from its log, and the same order is accepted.
TEST_F(ServerCrash, AnOrderThatCannotBeStoredEndsEveryStreamAndTheGameGoesOn) {
  auto alice = user("alice"), bob = user("bob");
  auto eve = connect();
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
  for (Client* c : {alice.get(), bob.get(), eve.get()}) ASSERT_TRUE(c->watch(id).has_game());
  soviet.absorb();
  german.absorb();
  auto set_disk = [&](const char* sql) {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", true, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec(sql);
  };
  ASSERT_NO_FATAL_FAILURE(set_disk("CREATE TRIGGER full_disk BEFORE INSERT ON orders BEGIN SELECT RAISE(ABORT, 'disk full'); END"));
  const auto decider = soviet.view.decision().side();
  Client& deciding = decider == game::SOVIET ? *alice : *bob;
  Client& waiting = decider == game::SOVIET ? *bob : *alice;
  auto order = Bot(decider, default_scenario()).next(decider == game::SOVIET ? soviet.view : german.view);
  ASSERT_TRUE(order);
  const auto refused = deciding.submit(id, "k1", *order);
  EXPECT_EQ(refused.error().code(), wire::INTERNAL) << refused.DebugString();
  for (Client* c : {&deciding, &waiting, eve.get()}) {
    auto ended = c->wait_for([&](const wire::ServerMessage& m) { return m.has_error() && m.error().game_id() == id; });
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->error().code(), wire::INTERNAL);
  }
  for (Client* c : {alice.get(), bob.get(), eve.get()}) {
    ASSERT_TRUE(c->ping().has_pong());
    EXPECT_TRUE(c->take_all([](const wire::ServerMessage& m) { return m.has_delta(); }).empty());
  }

  ASSERT_NO_FATAL_FAILURE(set_disk("DROP TRIGGER full_disk"));
  for (Client* c : {alice.get(), bob.get(), eve.get()}) c->take_all([](const wire::ServerMessage&) { return true; });
  Player spectator(*eve, id, game::SIDE_UNSPECIFIED);
  ASSERT_TRUE(eve->watch(id).has_game());
  spectator.absorb();
  EXPECT_EQ(spectator.version, 0);
  const auto accepted = deciding.submit(id, "k1", *order);
  ASSERT_TRUE(accepted.has_order_accepted()) << accepted.DebugString();
  EXPECT_EQ(accepted.order_accepted().version(), 1);
  EXPECT_TRUE(spectator.wait_version(1));
  EXPECT_TRUE(spectator.problems.empty()) << spectator.problems.front();
}

// The operator reads in the log whether the last run ended cleanly; a SIGTERM ends it so.
TEST_F(ServerCrash, AStartAfterAKillSaysTheLastRunDidNotStopCleanly) {
  const std::string note = "the last run did not stop cleanly";
  EXPECT_EQ(server_->log().find(note), std::string::npos) << "a first start";
  restart();  // kills the server with SIGKILL first
  EXPECT_NE(server_->log().find(note), std::string::npos) << server_->log();
  EXPECT_EQ(server_->terminate(), 0);
  const std::size_t before = server_->log().size();  // the log file goes on from run to run
  restart();
  EXPECT_EQ(server_->log().find(note, before), std::string::npos) << server_->log().substr(before);
}

TEST_F(ServerCrash, KillNineLosesNoAcknowledgedOrderAndKeepsTheStateHash) {
  std::string tokens[2];
  std::string id;
  PlayStats before;
  game::Order in_flight;
  std::int64_t acked = 0;
  bool by_soviet = false;
  game::View soviet_view;
  {
    auto alice = connect(), bob = connect();
    tokens[0] = alice->register_user("alice").session().token();
    tokens[1] = bob->register_user("bob").session().token();
    id = start_game(*alice, *bob);
    Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
    ASSERT_TRUE(alice->watch(id).has_game());
    ASSERT_TRUE(bob->watch(id).has_game());
    before = play(soviet, german, nullptr, 150, "a");
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(before.version, 150);
    // On to a step that Done always ends, so that the order in flight is legal.
    auto kind = [&] { return soviet.view.decision().kind(); };
    for (int n = 0; n < 100 && kind() != game::Decision::BARRAGE && kind() != game::Decision::COMBAT &&
                    kind() != game::Decision::RESERVES;
         ++n) {
      const PlayStats one = play(soviet, german, nullptr, 1, "c" + std::to_string(n) + "-");
      ASSERT_FALSE(HasFailure());
      before.orders.insert(one.orders.begin(), one.orders.end());
      before.version = one.version;
    }
    acked = before.version;
    soviet_view = soviet.view;
    // One more order on the wire, unanswered, and the server dies.
    by_soviet = soviet.view.decision().side() == game::SOVIET;
    in_flight = done_order();
    wire::ClientMessage m;
    m.mutable_submit_order()->set_game_id(id);
    m.mutable_submit_order()->set_idempotency_key("in-flight");
    *m.mutable_submit_order()->mutable_order() = in_flight;
    (by_soviet ? alice : bob)->send(m);
    server_->kill9();
  }

  restart();
  const std::string log = server_->log();
  const std::regex loaded("msg=\"game loaded\" game=" + id + " version=([0-9]+) state_hash=([0-9a-f]+)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(log, m, loaded)) << log;
  const std::int64_t loaded_version = std::stoll(m[1]);
  const std::string loaded_hash = m[2];
  EXPECT_GE(loaded_version, acked);  // nothing acknowledged is lost
  EXPECT_LE(loaded_version, acked + 1);

  // Sessions survive; the retried order is applied once, whether or not it was committed.
  auto alice = connect(), bob = connect();
  ASSERT_TRUE(alice->resume(tokens[0]).has_session());
  ASSERT_TRUE(bob->resume(tokens[1]).has_session());
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
  ASSERT_TRUE(alice->watch(id, 0).has_game());
  ASSERT_TRUE(bob->watch(id, 0).has_game());
  soviet.absorb();
  german.absorb();
  ASSERT_EQ(soviet.version, loaded_version);
  if (loaded_version == acked) {
    EXPECT_TRUE(MessageDifferencer::Equals(soviet.view, soviet_view));
  }
  // Committed before the kill or not, the retry answers version acked + 1 and applies once.
  auto retry = (by_soviet ? alice : bob)->submit(id, "in-flight", in_flight);
  ASSERT_TRUE(retry.has_order_accepted()) << retry.DebugString();
  EXPECT_EQ(retry.order_accepted().version(), acked + 1);
  ASSERT_TRUE(soviet.wait_version(acked + 1));
  ASSERT_TRUE(german.wait_version(acked + 1));

  // Play on a little, then resign; the log replays to the loaded hash and the final one.
  const PlayStats after = play(soviet, german, nullptr, 40, "b");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(alice->request(resign).has_ok());
  auto ended = bob->wait_for([](const wire::ServerMessage& s) { return s.has_game_ended(); });
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->game_ended().result(), "German victory");
  wire::ClientMessage get;
  get.mutable_get_log()->set_game_id(id);
  auto gl = bob->request(get);
  ASSERT_TRUE(gl.has_game_log()) << gl.DebugString();
  ASSERT_EQ(gl.game_log().orders_size(), acked + 1 + after.accepted);
  for (const auto& [v, order] : before.orders) {
    EXPECT_TRUE(MessageDifferencer::Equals(gl.game_log().orders(static_cast<int>(v - 1)).order(), order)) << "version " << v;
  }
  EXPECT_TRUE(MessageDifferencer::Equals(gl.game_log().orders(static_cast<int>(acked)).order(), in_flight));
  // Keys from before the crash are still known, to the side that used them: the first
  // order's key answers as version 1 (or refuses a different order) for its side only.
  const bool first_by_soviet = gl.game_log().orders(0).side() == game::SOVIET;
  for (auto* player : {alice.get(), bob.get()}) {
    auto r = player->submit(id, "a0", done_order());
    const bool known = (r.has_order_accepted() && r.order_accepted().version() == 1) ||
                       (r.has_error() && r.error().message().find("already used") != std::string::npos);
    EXPECT_EQ(known, (player == alice.get()) == first_by_soviet) << r.DebugString();
  }

  const Engine engine(default_scenario());
  ASSERT_EQ(from_hex(gl.game_log().seed_hex()).size(), 32u);
  auto [s, dice] = audit_start(engine, gl.game_log());
  for (const auto& lo : gl.game_log().orders()) {
    Order o;
    Rejection why;
    ASSERT_TRUE(engine.from_proto(lo.order(), o, why));
    ASSERT_TRUE(engine.apply(s, lo.side() == game::SOVIET ? Side::Soviet : Side::German, o, dice).accepted);
    if (lo.version() == loaded_version) {
      EXPECT_EQ(hash_hex(state_hash(s)), loaded_hash);
    }
  }
  EXPECT_EQ(hash_hex(state_hash(s)), gl.game_log().state_hash());
}

}  // namespace
}  // namespace counterattack::server::testing
