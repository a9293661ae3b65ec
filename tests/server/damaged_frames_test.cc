// Randomly damaged frames over a real connection: every one gets an answer, no
// answer is a failure of the server's own, an outsider changes no game, and
// what the players' damaged orders did is exactly what a restart reloads.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <functional>
#include <map>
#include <random>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerDamagedFrames : public ServerTest {};

// One valid request of every kind, aimed at `game_id`, plus the orders given.
std::vector<wire::ClientMessage> every_request(const std::string& game_id,
                                               const std::vector<game::Order>& orders) {
  std::vector<wire::ClientMessage> out;
  auto add = [&](auto fill) {
    wire::ClientMessage m;
    m.set_request_id(1);
    fill(m);
    out.push_back(std::move(m));
  };
  add([](auto& m) {
    m.mutable_register_()->set_name("someone_new");
    m.mutable_register_()->set_password("long enough");
  });
  add([](auto& m) {
    m.mutable_login()->set_name("nobody_here");
    m.mutable_login()->set_password("no password");
  });
  add([](auto& m) { m.mutable_resume()->set_token(std::string(43, 'A')); });
  add([](auto& m) { m.mutable_logout(); });
  add([](auto& m) {
    m.mutable_create_game()->set_side(wire::CHOOSE_GERMAN);
    m.mutable_create_game()->add_options("red_army_flexibility");
  });
  add([](auto& m) { m.mutable_list_games(); });
  add([&](auto& m) { m.mutable_join_game()->set_game_id(game_id); });
  add([](auto& m) { m.mutable_my_games(); });
  add([&](auto& m) {
    m.mutable_watch()->set_game_id(game_id);
    m.mutable_watch()->set_from_version(3);
  });
  add([&](auto& m) { m.mutable_unwatch()->set_game_id(game_id); });
  add([&](auto& m) { m.mutable_resign()->set_game_id(game_id); });
  add([&](auto& m) { m.mutable_offer_draw()->set_game_id(game_id); });
  add([&](auto& m) {
    m.mutable_answer_draw()->set_game_id(game_id);
    m.mutable_answer_draw()->set_accept(true);
  });
  add([&](auto& m) {
    m.mutable_send_chat()->set_game_id(game_id);
    m.mutable_send_chat()->set_channel(wire::SPECTATORS);
    m.mutable_send_chat()->set_text("hello");
  });
  add([&](auto& m) { m.mutable_get_log()->set_game_id(game_id); });
  add([](auto& m) { m.mutable_ping()->set_nonce(42); });
  for (const auto& o : orders) {
    add([&](auto& m) {
      auto* s = m.mutable_submit_order();
      s->set_game_id(game_id);
      s->set_idempotency_key("damaged");
      *s->mutable_order() = o;
    });
  }
  return out;
}

// Bit flips, overwritten, inserted and deleted bytes, truncation, or noise.
std::string damage(std::string b, std::mt19937& rng) {
  auto pick = [&](std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0; };
  auto byte = [&] { return static_cast<char>(rng() & 0xff); };
  switch (rng() % 6) {
    case 0:
      for (int i = 1 + static_cast<int>(rng() % 3); i > 0 && !b.empty(); --i)
        b[pick(b.size())] ^= static_cast<char>(1 << (rng() % 8));
      break;
    case 1:
      for (int i = 1 + static_cast<int>(rng() % 3); i > 0 && !b.empty(); --i)
        b[pick(b.size())] = byte();
      break;
    case 2:
      b.resize(pick(b.size()));
      break;
    case 3:
      for (int i = 1 + static_cast<int>(rng() % 8); i > 0; --i)
        b.insert(b.begin() + static_cast<long>(pick(b.size() + 1)), byte());
      break;
    case 4: {
      const auto at = pick(b.size());
      b.erase(at, 1 + pick(8));
      break;
    }
    default:
      b.assign(1 + pick(200), '\0');
      for (auto& c : b) c = byte();
  }
  return b;
}

// Damage inside the message: it still parses, but names, numbers, lists and
// the kind of order are wrong. `words` are the strings to put in.
void damage_fields(google::protobuf::Message& m, std::mt19937& rng,
                   const std::vector<std::string>& words) {
  using google::protobuf::FieldDescriptor;
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  auto word = [&] { return words[rng() % words.size()]; };
  static const std::int64_t numbers[] = {0, -1, 1, 2, 7, 1000, 2147483647, -2147483647 - 1};
  auto number = [&] { return numbers[rng() % std::size(numbers)]; };
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int k = 0; k < r->FieldSize(m, f); ++k)
          damage_fields(*r->MutableRepeatedMessage(&m, f, k), rng, words);
      } else if (r->HasField(m, f)) {
        damage_fields(*r->MutableMessage(&m, f), rng, words);
      }
      continue;
    }
    if (rng() % 3) continue;  // about a third of the fields
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        if (!f->is_repeated()) {
          r->SetString(&m, f, word());
        } else if (const int n = r->FieldSize(m, f); n > 0 && rng() % 2) {
          if (rng() % 2)
            r->RemoveLast(&m, f);
          else
            r->SetRepeatedString(&m, f, static_cast<int>(rng() % n), word());
        } else {
          r->AddString(&m, f, word());
        }
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        if (!f->is_repeated()) r->SetInt32(&m, f, static_cast<std::int32_t>(number()));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        if (!f->is_repeated()) r->SetInt64(&m, f, number());
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        if (!f->is_repeated()) r->SetUInt64(&m, f, static_cast<std::uint64_t>(number()));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        if (!f->is_repeated()) r->SetBool(&m, f, !r->GetBool(m, f));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        if (!f->is_repeated()) r->SetEnumValue(&m, f, static_cast<int>(number() % 8));
        break;
      default:
        break;
    }
  }
}

// The same order read as another kind: the fields keep their numbers and change their meaning.
void switch_kind(game::Order& o, std::mt19937& rng) {
  const auto* d = o.GetDescriptor();
  const auto* r = o.GetReflection();
  const auto* from = r->GetOneofFieldDescriptor(o, d->oneof_decl(0));
  if (!from) return;
  const std::string inner = r->GetMessage(o, from).SerializeAsString();
  const auto* to =
      d->oneof_decl(0)->field(static_cast<int>(rng() % d->oneof_decl(0)->field_count()));
  r->MutableMessage(&o, to)->ParsePartialFromString(inner);  // what does not fit stays unknown
}

// All the strings in `m` and below it.
void collect_words(const google::protobuf::Message& m, std::vector<std::string>& out) {
  using google::protobuf::FieldDescriptor;
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int k = 0; k < r->FieldSize(m, f); ++k)
          collect_words(r->GetRepeatedMessage(m, f, k), out);
      } else if (r->HasField(m, f)) {
        collect_words(r->GetMessage(m, f), out);
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (f->is_repeated()) {
        for (int k = 0; k < r->FieldSize(m, f); ++k) out.push_back(r->GetRepeatedString(m, f, k));
      } else {
        out.push_back(r->GetString(m, f));
      }
    }
  }
}

// A damaged frame from one of `corpus`: half the time its bytes, half the time its fields.
std::string damaged_frame(const std::vector<wire::ClientMessage>& corpus,
                          const std::vector<std::string>& words, std::mt19937& rng) {
  wire::ClientMessage m = corpus[rng() % corpus.size()];
  if (rng() % 2) return damage(m.SerializeAsString(), rng);
  if (m.has_submit_order() && rng() % 4 == 0)
    switch_kind(*m.mutable_submit_order()->mutable_order(), rng);
  damage_fields(m, rng, words);
  return m.SerializeAsString();
}

std::vector<std::string> words_of(const std::vector<wire::ClientMessage>& corpus) {
  std::vector<std::string> w = {
      "", "9999", "0000", "WARSAW", "x", std::string(300, 'w'), "\u00e9t\u00e9"};
  for (const auto& m : corpus) collect_words(m, w);
  return w;
}

struct Tally {
  int sent = 0, parsed = 0, unparsed = 0, accepted = 0, rejected = 0;
  std::map<wire::ErrorCode, int> errors;
  std::vector<std::string> problems;
};

// Sends one damaged frame and waits for its answer. A frame that parses is
// re-sent with a request id of its own so that its answer can be told apart;
// `allowed` filters which parsed requests may go out at all.
void send_damaged(Client& c, const std::string& bytes, std::uint64_t rid, Tally& t,
                  const std::function<bool(const wire::ClientMessage&)>& allowed = nullptr) {
  wire::ClientMessage m;
  bool parses;
  {
    const google::protobuf::LogSilencer quiet;  // broken UTF-8 is logged, then refused
    parses = m.ParseFromString(bytes);
  }
  if (parses) {
    if (allowed && !allowed(m)) return;
    m.set_request_id(rid);
    // A key of its own, or every later order would get the first one's answer again.
    if (m.has_submit_order())
      m.mutable_submit_order()->mutable_idempotency_key()->append(std::to_string(rid));
    c.send_raw(m.SerializeAsString());
    ++t.parsed;
    auto a = c.wait_for([&](const wire::ServerMessage& s) { return s.request_id() == rid; });
    if (!a) {
      t.problems.push_back("no answer to " + m.ShortDebugString());
    } else if (a->has_order_accepted()) {
      ++t.accepted;
    } else if (a->has_order_rejected()) {
      ++t.rejected;
      if (a->order_rejected().rejection().reason().empty())
        t.problems.push_back("no reason for " + m.ShortDebugString());
    } else if (a->has_error()) {
      ++t.errors[a->error().code()];
      if (a->error().code() == wire::INTERNAL || a->error().message().empty()) {
        t.problems.push_back("answer " + a->ShortDebugString() + " to " + m.ShortDebugString());
      }
    }
  } else {
    c.send_raw(bytes);
    ++t.unparsed;
    auto a = c.wait_for(
        [](const wire::ServerMessage& s) { return s.request_id() == 0 && s.has_error(); });
    if (!a || a->error().code() != wire::BAD_REQUEST)
      t.problems.push_back("no BAD_REQUEST for an unparsable frame");
  }
  ++t.sent;
  // Drop what else arrived (snapshots, summaries, chat), but not the deltas a
  // player follows the game by: answers are matched by id.
  c.take_all([](const wire::ServerMessage& s) { return !s.has_delta(); });
}

std::string report(const Tally& t) {
  std::string s = std::to_string(t.sent) + " sent, " + std::to_string(t.parsed) + " parsed, " +
                  std::to_string(t.unparsed) + " unparsable, " + std::to_string(t.accepted) +
                  " orders accepted, " + std::to_string(t.rejected) + " rejected; problems:";
  for (size_t i = 0; i < t.problems.size() && i < 5; ++i) s += "\n  " + t.problems[i];
  return s;
}

// A fresh snapshot of the game as `side` sees it, on a new connection.
game::View fresh_view(Client& c, const std::string& id, game::Side side, std::int64_t& version) {
  Player p(c, id, side);
  EXPECT_TRUE(c.watch(id).has_game());
  p.absorb();
  version = p.version;
  return p.view;
}

TEST_F(ServerDamagedFrames, EveryFrameIsAnsweredAndAnOutsiderChangesNoGame) {
  // Damaged logins and registrations count against the connection's attempts;
  // the outsider's own logins must not run out of them.
  ASSERT_NO_FATAL_FAILURE(restart({}, "auth_attempts_per_connection = 100000\n"));
  auto alice = user("alice"), bob = user("bob"), mallory = user("mallory");
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
  for (auto* p : {&soviet, &german}) {
    ASSERT_TRUE(p->client.watch(id).has_game());
    p->absorb();
  }
  const PlayStats st = play(soviet, german, nullptr, 40);
  ASSERT_FALSE(HasFailure());
  std::vector<game::Order> orders;
  for (const auto& [v, o] : st.orders) orders.push_back(o);
  const auto corpus = every_request(id, orders);
  const auto words = words_of(corpus);

  std::mt19937 rng(20261122);
  Tally t;
  for (int i = 0; i < 800; ++i) {
    if (i % 100 == 0) {  // a damaged Logout may have ended the session
      const auto r = mallory->login("mallory");
      ASSERT_TRUE(r.has_session() || r.error().code() == wire::CONFLICT) << r.DebugString();
    }
    send_damaged(*mallory, damaged_frame(corpus, words, rng), 1'000'000 + i, t);
  }
  EXPECT_TRUE(t.problems.empty()) << report(t);
  EXPECT_GT(t.parsed, 200) << report(t);
  EXPECT_GT(t.unparsed, 100) << report(t);
  EXPECT_GT(t.errors.size(), 3u) << report(t);
  ASSERT_TRUE(server_->alive());

  // The game is where it was, for both players, and goes on.
  for (auto* p : {&soviet, &german}) {
    auto c = connect();
    ASSERT_TRUE(c && c->login(p == &soviet ? "alice" : "bob").has_session());
    std::int64_t v = -1;
    const game::View now = fresh_view(*c, id, p->side, v);
    EXPECT_EQ(v, st.version);
    p->absorb();
    EXPECT_EQ(p->version, st.version);
    EXPECT_EQ(now.SerializeAsString(), p->view.SerializeAsString());
  }
  const PlayStats more = play(soviet, german, nullptr, 20, "after");
  ASSERT_FALSE(HasFailure());
  EXPECT_TRUE(more.over || more.accepted == 20);
}

TEST_F(ServerDamagedFrames, PlayersDamagedOrdersAreAnsweredAndWhatTheyDidSurvivesARestart) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
  for (auto* p : {&soviet, &german}) {
    ASSERT_TRUE(p->client.watch(id).has_game());
    p->absorb();
  }
  PlayStats st = play(soviet, german, nullptr, 40);
  ASSERT_FALSE(HasFailure());

  // Rounds of damaged orders from both players, each followed by real play.
  // Only orders and pings go out: a damaged frame that parses as a resignation
  // would end the game this test plays on.
  auto orders_only = [](const wire::ClientMessage& m) {
    return m.has_submit_order() || m.has_ping();
  };
  std::mt19937 rng(1944);
  Tally t;
  std::int64_t version = st.version;
  for (int round = 0; round < 6; ++round) {
    std::vector<game::Order> orders;
    for (const auto& [v, o] : st.orders) orders.push_back(o);
    const auto corpus = every_request(id, orders);
    const auto words = words_of(corpus);
    for (int i = 0; i < 200; ++i) {
      Player& p = i % 2 ? german : soviet;
      send_damaged(p.client, damaged_frame(corpus, words, rng),
                   2'000'000 + static_cast<std::uint64_t>(round * 1000 + i), t, orders_only);
    }
    // What the damaged orders did, if any were accepted, reaches both players.
    std::int64_t v = -1;
    {
      auto c = connect();
      ASSERT_TRUE(c && c->login("alice").has_session());
      fresh_view(*c, id, game::SOVIET, v);
    }
    ASSERT_GE(v, version);
    for (auto* p : {&soviet, &german}) ASSERT_TRUE(p->wait_version(v)) << "round " << round;
    if (soviet.view.decision().kind() == game::Decision::GAME_OVER) break;
    st = play(soviet, german, nullptr, 15, "r" + std::to_string(round) + "-");
    ASSERT_FALSE(HasFailure());
    version = std::max(v, st.version);
    if (st.over) break;
  }
  EXPECT_TRUE(t.problems.empty()) << report(t);
  EXPECT_GT(t.parsed, 100) << report(t);
  EXPECT_GT(t.rejected, 100) << report(t);  // the damaged orders did reach the rules
  for (auto* p : {&soviet, &german}) {
    p->absorb();
    EXPECT_TRUE(p->problems.empty()) << p->problems.front();
  }

  // A restart reloads every game from its log: the same views at the same version.
  restart();
  for (auto* p : {&soviet, &german}) {
    auto c = connect();
    ASSERT_TRUE(c && c->login(p == &soviet ? "alice" : "bob").has_session());
    std::int64_t v = -1;
    const game::View reloaded = fresh_view(*c, id, p->side, v);
    EXPECT_EQ(v, p->version);
    EXPECT_EQ(reloaded.SerializeAsString(), p->view.SerializeAsString());
  }
}

}  // namespace
}  // namespace counterattack::server::testing
