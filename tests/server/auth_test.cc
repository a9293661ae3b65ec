// Authorization and accounts: nobody acts for another side, another game or
// as a spectator; hidden information stays hidden; passwords and tokens are
// stored only hashed; logins are rate-limited.
#include <sodium.h>

#include <cctype>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerAuth : public ServerTest {};

bool is_error(const wire::ServerMessage& m, wire::ErrorCode code) { return m.has_error() && m.error().code() == code; }

// The operator reads who tried a password from where, loopback clients too
// (which the limits by address leave out).
TEST_F(ServerAuth, AFailedLoginAndARegistrationAreLoggedWithTheClientsAddress) {
  auto bob = user("bob");
  EXPECT_EQ(connect()->login("bob", "not his password").error().code(), wire::BAD_CREDENTIALS);
  std::string log;
  for (int i = 0; i < 100 && log.find("msg=\"login failed\"") == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
    log = server_->log();
  }
  const auto failed = log.find("msg=\"login failed\"");
  ASSERT_NE(failed, std::string::npos) << log;
  const std::string line = log.substr(failed, log.find('\n', failed) - failed);
  EXPECT_NE(line.find("address=127.0.0.1:"), std::string::npos) << line;
  const auto registered = log.find("msg=\"user registered\" user=bob");
  ASSERT_NE(registered, std::string::npos) << log;
  EXPECT_NE(log.substr(registered, log.find('\n', registered) - registered).find("address=127.0.0.1:"), std::string::npos);
}

TEST_F(ServerAuth, OnlyTheDecidingPlayerOfTheGameActs) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave"), eve = user("eve");
  auto anonymous = connect();
  const std::string id = start_game(*alice, *bob);
  const std::string other = start_game(*carol, *dave);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN);
  ASSERT_TRUE(alice->watch(id).has_game());
  ASSERT_TRUE(bob->watch(id).has_game());
  soviet.absorb();
  german.absorb();
  const auto decider = soviet.view.decision().side();
  ASSERT_NE(decider, game::SIDE_UNSPECIFIED);
  Client& waiting = decider == game::SOVIET ? *bob : *alice;
  Client& deciding = decider == game::SOVIET ? *alice : *bob;

  // The side that is not to decide: rejected by the rules, nothing changes.
  auto r = waiting.submit(id, "w1", done_order());
  ASSERT_TRUE(r.has_order_rejected()) << r.DebugString();
  EXPECT_EQ(r.order_rejected().rejection().code(), game::NOT_YOUR_DECISION);
  // The reason names the sender's own side as well as the one to decide.
  EXPECT_EQ(r.order_rejected().rejection().reason(),
            decider == game::SOVIET ? "You play the German side; it is the Soviet player's decision now."
                                    : "You play the Soviet side; it is the German player's decision now.");
  // A spectator, a player of another game, nobody logged in: refused before the rules.
  EXPECT_TRUE(is_error(eve->submit(id, "e1", done_order()), wire::FORBIDDEN));
  EXPECT_TRUE(is_error(carol->submit(id, "c1", done_order()), wire::FORBIDDEN));
  EXPECT_TRUE(is_error(anonymous->submit(id, "a1", done_order()), wire::UNAUTHENTICATED));
  // ... and the players of this game cannot act in the other one.
  EXPECT_TRUE(is_error(deciding.submit(other, "o1", done_order()), wire::FORBIDDEN));
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  EXPECT_TRUE(is_error(eve->request(resign), wire::FORBIDDEN));
  wire::ClientMessage draw;
  draw.mutable_offer_draw()->set_game_id(id);
  EXPECT_TRUE(is_error(carol->request(draw), wire::FORBIDDEN));

  // Nothing changed: still version 0 for everyone.
  ASSERT_TRUE(eve->watch(id).has_game());
  Player spectator(*eve, id, game::SIDE_UNSPECIFIED);
  spectator.absorb();
  EXPECT_EQ(spectator.version, 0);
  soviet.absorb();
  EXPECT_EQ(soviet.version, 0);

  // The decider's order goes through.
  Bot bot(decider, default_scenario());
  auto order = bot.next(decider == game::SOVIET ? soviet.view : german.view);
  ASSERT_TRUE(order);
  auto ok = deciding.submit(id, "d1", *order);
  ASSERT_TRUE(ok.has_order_accepted() || ok.has_order_rejected()) << ok.DebugString();
}

TEST_F(ServerAuth, TheGermanNeverSeesTheSovietChits) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  const std::string id = start_game(*alice, *bob);
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN), spectator(*eve, id, game::SIDE_UNSPECIFIED);
  for (auto* p : {&soviet, &german, &spectator}) {
    ASSERT_TRUE(p->client.watch(id).has_game());
    p->absorb();
  }
  play(soviet, german, &spectator, 120);
  ASSERT_FALSE(HasFailure());
  for (auto* p : {&soviet, &german, &spectator}) EXPECT_TRUE(p->problems.empty()) << p->problems.front();

  // A fresh German snapshot: the Soviet hand shows its size, never its chits.
  std::vector<std::string> soviet_chits;
  int held = 0;
  for (const auto& h : soviet.view.hands()) {
    if (h.side() == game::SOVIET) {
      soviet_chits.assign(h.chits().begin(), h.chits().end());
      held = h.held();
    }
  }
  ASSERT_GT(held, 0);
  ASSERT_EQ(static_cast<int>(soviet_chits.size()), held);
  for (auto* c : {bob.get(), eve.get()}) {
    ASSERT_TRUE(c->watch(id).has_game());
    auto snap = c->wait_for([](const wire::ServerMessage& m) { return m.has_snapshot(); });
    ASSERT_TRUE(snap);
    const std::string bytes = snap->snapshot().view().SerializeAsString();
    for (const auto& h : snap->snapshot().view().hands()) {
      if (h.side() == game::SOVIET) {
        EXPECT_EQ(h.held(), held);
        EXPECT_EQ(h.chits_size(), 0);
      }
    }
    for (const auto& chit : soviet_chits) EXPECT_EQ(bytes.find(chit), std::string::npos) << chit;
    // Hidden units carry no id.
    for (const auto& st : snap->snapshot().view().stacks()) {
      for (const auto& u : st.units()) {
        if (u.hidden()) {
          EXPECT_TRUE(u.id().empty());
        }
      }
    }
  }
}

// A player may close their account for good once nothing of theirs is under
// way: the name stays taken and their finished games keep it, but nobody can
// log in as them, and the ratings list forgets them.
TEST_F(ServerAuth, AClosedAccountLogsInNoMoreKeepsItsNameAndLeavesItsGames) {
  auto alice = user("alice"), bob = user("bob");
  auto elsewhere = login_as("alice");
  ASSERT_TRUE(elsewhere);
  const std::string id = start_game(*alice, *bob);
  wire::ClientMessage open_game;
  open_game.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  const auto made = alice->request(open_game);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string waiting = made.game_created().game().game_id();

  auto close = [](Client& c, const std::string& password) {
    wire::ClientMessage m;
    m.mutable_close_account()->set_password(password);
    return c.request(m);
  };
  EXPECT_TRUE(is_error(close(*alice, "wrong password"), wire::BAD_CREDENTIALS));
  const auto refused = close(*alice, "correct horse");
  ASSERT_TRUE(is_error(refused, wire::CONFLICT)) << refused.DebugString();
  EXPECT_NE(refused.error().message().find("you play in " + id), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find(waiting), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find(waiting + " waits for a player (resign withdraws it)"), std::string::npos)
      << "the command's name, lower-case mid-sentence: " << refused.error().message();

  // A tournament entered and not over keeps it open too, until she leaves it.
  wire::ClientMessage cup;
  cup.mutable_create_tournament()->set_name("Club cup");
  cup.mutable_create_tournament()->set_max_players(4);
  cup.mutable_create_tournament()->set_enter(true);
  cup.mutable_create_tournament()->set_move_seconds(86400);
  const auto made_cup = bob->request(cup);
  ASSERT_TRUE(made_cup.has_tournament()) << made_cup.DebugString();
  const std::string cup_id = made_cup.tournament().tournament_id();
  wire::ClientMessage enter;
  enter.mutable_join_tournament()->set_tournament_id(cup_id);
  ASSERT_TRUE(alice->request(enter).has_tournament());
  const auto entered = close(*alice, "correct horse");
  EXPECT_NE(entered.error().message().find("entered in the tournament " + cup_id), std::string::npos) << entered.DebugString();
  wire::ClientMessage leave;
  leave.mutable_leave_tournament()->set_tournament_id(cup_id);
  ASSERT_TRUE(alice->request(leave).has_ok());

  play_an_order_each(*alice, *bob, id);  // played by each side, so rated
  for (const auto& g : {id, waiting}) {
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(g);
    ASSERT_TRUE(alice->request(resign).has_ok());
  }
  wire::ClientMessage ratings;
  ratings.mutable_list_ratings();
  auto listed = [&](Client& c) {
    const auto r = c.request(ratings);
    for (const auto& p : r.rating_list().players()) {
      if (p.name() == "alice") return true;
    }
    return false;
  };
  EXPECT_TRUE(listed(*bob)) << "a rated game lost";
  ASSERT_TRUE(close(*alice, "correct horse").has_ok());

  // Every connection of hers is told and closed; her token resumes nothing.
  for (Client* c : {alice.get(), elsewhere.get()}) {
    const auto told = c->wait_for([](const wire::ServerMessage& m) { return m.has_error(); });
    ASSERT_TRUE(told);
    EXPECT_EQ(told->error().code(), wire::UNAUTHENTICATED);
  }
  auto again = connect();
  EXPECT_TRUE(is_error(again->login("alice", "correct horse"), wire::BAD_CREDENTIALS));
  EXPECT_TRUE(is_error(again->register_user("alice", "another password"), wire::NAME_TAKEN));
  EXPECT_FALSE(listed(*bob));
  wire::ClientMessage mine;
  mine.mutable_my_games();
  bool kept = false;
  const auto bobs = bob->request(mine);
  for (const auto& g : bobs.game_list().games()) kept |= g.game_id() == id && g.soviet() == "alice";
  EXPECT_TRUE(kept) << "bob's game against her keeps her name";
}

TEST_F(ServerAuth, AccountsSessionsAndLoginLimits) {
  auto c = connect();
  auto s = c->register_user("alice", "correct horse");
  ASSERT_TRUE(s.has_session()) << s.DebugString();
  const std::string token = s.session().token();
  EXPECT_EQ(token.size(), 64u);
  EXPECT_GT(s.session().expires_unix(), 0);
  EXPECT_TRUE(is_error(c->register_user("bob"), wire::CONFLICT));  // logged in already

  auto d = connect();
  EXPECT_TRUE(is_error(d->register_user("ALICE"), wire::NAME_TAKEN));
  EXPECT_TRUE(is_error(d->register_user("a!"), wire::BAD_REQUEST));
  EXPECT_TRUE(is_error(d->register_user("shorty", "short"), wire::BAD_REQUEST));
  EXPECT_TRUE(is_error(d->register_user("shorty", "\u00e9t\u00e9 \u00e9t\u00e9"), wire::BAD_REQUEST))
      << "7 characters in 11 bytes";
  EXPECT_TRUE(is_error(d->create_game(wire::CHOOSE_SOVIET), wire::UNAUTHENTICATED));

  // Wrong passwords: five refusals, then the name is rate-limited even with the right one.
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(is_error(d->login("alice", "wrong password"), wire::BAD_CREDENTIALS));
  EXPECT_TRUE(is_error(d->login("alice", "correct horse"), wire::RATE_LIMITED));
  EXPECT_TRUE(is_error(d->login("nobody", "whatever1"), wire::BAD_CREDENTIALS));

  // Attempts sent at once from many connections: no more than the limit are
  // checked. A name no account can have is refused without counting for anyone.
  ASSERT_TRUE(connect()->register_user("carol").has_session());
  std::vector<std::unique_ptr<Client>> many;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 12; ++i) {
    many.push_back(connect());
    wire::ClientMessage m;
    m.mutable_login()->set_name("carol");
    m.mutable_login()->set_password("wrong password");
    ids.push_back(many.back()->send(m));
  }
  int checked = 0, refused = 0;
  for (std::size_t i = 0; i < many.size(); ++i) {
    auto r = many[i]->wait_for([&](const wire::ServerMessage& m) { return m.request_id() == ids[i]; });
    ASSERT_TRUE(r);
    checked += is_error(*r, wire::BAD_CREDENTIALS);
    refused += is_error(*r, wire::RATE_LIMITED);
  }
  EXPECT_EQ(checked, 5);
  EXPECT_EQ(refused, 7);
  for (const std::string& impossible : {std::string(60000, 'x'), std::string("dave!")}) {
    EXPECT_TRUE(is_error(connect()->login(impossible, "whatever1"), wire::BAD_CREDENTIALS));
  }
  ASSERT_TRUE(connect()->register_user("dave").has_session());
  EXPECT_TRUE(connect()->login("dave").has_session());

  // A connection gets a bounded number of attempts, whatever the names.
  auto e = connect();
  int limited = 0;
  for (int i = 0; i < 25; ++i) limited += is_error(e->login("user" + std::to_string(i), "wrong password"), wire::RATE_LIMITED);
  EXPECT_EQ(limited, 5);

  // The token resumes on another connection; logout ends it everywhere it is presented next.
  auto f = connect();
  auto resumed = f->resume(token);
  ASSERT_TRUE(resumed.has_session()) << resumed.DebugString();
  EXPECT_EQ(resumed.session().name(), "alice");
  EXPECT_TRUE(f->create_game(wire::CHOOSE_GERMAN).has_game_created());
  wire::ClientMessage logout;
  logout.mutable_logout();
  EXPECT_TRUE(f->request(logout).has_ok());
  EXPECT_TRUE(is_error(f->create_game(wire::CHOOSE_GERMAN), wire::UNAUTHENTICATED));
  EXPECT_TRUE(is_error(connect()->resume(token), wire::UNAUTHENTICATED));
  EXPECT_TRUE(is_error(connect()->resume("not a token"), wire::UNAUTHENTICATED));

  // Stored: an Argon2id hash, and only the SHA-256 of tokens.
  auto g = connect();
  auto again = g->login("bob_is_not_here", "whatever1");
  EXPECT_TRUE(is_error(again, wire::BAD_CREDENTIALS));
  std::string err;
  Db db(server_->data_dir() + "/counterattack.db", false, err);
  ASSERT_TRUE(db.ok()) << err;
  auto& q = db.prepare("SELECT password_hash FROM users WHERE name = 'alice'");
  q.bind_all();
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.text(0).rfind("$argon2id$", 0), 0u) << q.text(0);
  q.reset();
  auto& t = db.prepare("SELECT token_hash FROM sessions");
  t.bind_all();
  while (t.step()) {
    EXPECT_NE(t.text(0), token);
    EXPECT_EQ(t.text(0).size(), 64u);
  }
}

// Behind a trusted proxy each client is limited by its own address: failed
// logins across many names, and accounts made. Other addresses, and loopback,
// are not held back by them.
TEST_F(ServerAuth, FailedLoginsAndNewAccountsAreLimitedPerAddress) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 127.0.0.1\nlogin_failures_per_address = 6\n"
                                      "registrations_per_address_per_hour = 3\n"));
  const int port = server_->port();
  const Client::Headers from_a{{"X-Forwarded-For", "203.0.113.7"}}, from_b{{"X-Forwarded-For", "203.0.113.8"}};
  for (int i = 0; i < 3; ++i) {
    auto c = Client::connect_with(port, from_a);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->register_user("member" + std::to_string(i)).has_session()) << i;
  }
  auto a = Client::connect_with(port, from_a);
  auto b = Client::connect_with(port, from_b);
  ASSERT_TRUE(a && b);
  const auto fourth = a->register_user("member3");
  EXPECT_TRUE(is_error(fourth, wire::RATE_LIMITED)) << fourth.DebugString();
  EXPECT_TRUE(b->register_user("member3").has_session()) << "another address";
  EXPECT_TRUE(connect()->register_user("member4").has_session()) << "loopback";

  auto guesser = Client::connect_with(port, from_a);
  ASSERT_TRUE(guesser);
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(is_error(guesser->login("member" + std::to_string(i % 3), "wrong password"), wire::BAD_CREDENTIALS)) << i;
  }
  const auto refused = Client::connect_with(port, from_a)->login("member4");
  EXPECT_TRUE(is_error(refused, wire::RATE_LIMITED)) << refused.DebugString();
  EXPECT_NE(refused.error().message().find("address"), std::string::npos);
  EXPECT_TRUE(Client::connect_with(port, from_b)->login("member0").has_session()) << "another address";
  EXPECT_TRUE(connect()->login("member1").has_session()) << "loopback";
}

// Wrong passwords from one address lock the name there only: its player logs in
// from elsewhere. Password checks under way are shared out by address, so that
// one client's flood of logins cannot keep the others waiting.
TEST_F(ServerAuth, NoAddressLocksAPlayerOutFromElsewhereOrTakesAllThePasswordChecks) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "trusted_proxies = 127.0.0.1\nlogin_failures_per_name = 3\n"
                                      "login_failures_per_address = 1000\nauth_attempts_per_connection = 1000\n"
                                      "argon2_opslimit = 3\nargon2_memlimit_kib = 32768\n"));  // checks that take a while
  const int port = server_->port();
  const Client::Headers from_a{{"X-Forwarded-For", "203.0.113.7"}}, from_b{{"X-Forwarded-For", "203.0.113.8"}};
  ASSERT_TRUE(connect()->register_user("victim").has_session());
  auto guesser = Client::connect_with(port, from_a);
  ASSERT_TRUE(guesser);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(is_error(guesser->login("victim", "wrong password"), wire::BAD_CREDENTIALS)) << i;
  EXPECT_TRUE(is_error(guesser->login("victim"), wire::RATE_LIMITED)) << "locked for that name, from there";
  EXPECT_TRUE(Client::connect_with(port, from_b)->login("victim").has_session()) << "not from elsewhere";

  // Twenty logins at once from one address, each for its own name: no more than
  // eight wait for a password check, the others are told the server is busy.
  std::vector<std::unique_ptr<Client>> flood;
  for (int i = 0; i < 20; ++i) {
    flood.push_back(Client::connect_with(port, from_b));
    ASSERT_TRUE(flood.back());
  }
  std::vector<std::uint64_t> ids;
  for (size_t i = 0; i < flood.size(); ++i) {
    wire::ClientMessage m;
    m.mutable_login()->set_name("nobody" + std::to_string(i));  // checked all the same, against a stand-in
    m.mutable_login()->set_password("guess");
    ids.push_back(flood[i]->send(m));
  }
  int busy = 0, checked = 0;
  for (size_t i = 0; i < flood.size(); ++i) {
    auto r = flood[i]->wait_for([&](const wire::ServerMessage& m) { return m.request_id() == ids[i]; }, 60s);
    ASSERT_TRUE(r && r->has_error());
    busy += r->error().code() == wire::RATE_LIMITED && r->error().message().find("busy checking passwords") != std::string::npos;
    checked += r->error().code() == wire::BAD_CREDENTIALS;
  }
  EXPECT_GE(busy, 1) << "one address holds only its share of the password checks";
  EXPECT_GE(checked, 8);
  EXPECT_EQ(busy + checked, 20);
  EXPECT_TRUE(Client::connect_with(port, from_a)->login("victim", "correct horse").error().code() == wire::RATE_LIMITED)
      << "still locked from the guesser's address";
}

wire::ClientMessage change_password(const std::string& old_password, const std::string& new_password) {
  wire::ClientMessage m;
  m.mutable_change_password()->set_old_password(old_password);
  m.mutable_change_password()->set_new_password(new_password);
  return m;
}

// A changed password ends the player's other sessions, at once on their live
// connections; the connection that changed it stays, and only the new one logs in.
TEST_F(ServerAuth, AChangedPasswordEndsThePlayersOtherSessionsAndOnlyTheNewOneLogsIn) {
  auto alice = user("alice");
  auto other = connect();
  const auto session = other->login("alice");
  ASSERT_TRUE(session.has_session());
  const std::string other_token = session.session().token();

  EXPECT_EQ(alice->request(change_password("wrong horse", "battery staple")).error().code(), wire::BAD_CREDENTIALS);
  EXPECT_EQ(alice->request(change_password("correct horse", "short")).error().code(), wire::BAD_REQUEST);
  EXPECT_TRUE(other->ping().has_pong()) << "nothing changed yet";
  auto changed = alice->request(change_password("correct horse", "battery staple"));
  ASSERT_TRUE(changed.has_ok()) << changed.DebugString();

  const auto told = other->wait_for([](const wire::ServerMessage& m) { return m.has_error(); });
  ASSERT_TRUE(told);
  EXPECT_EQ(told->error().code(), wire::UNAUTHENTICATED);
  for (int i = 0; i < 100 && !other->closed(); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(other->closed());
  EXPECT_EQ(connect()->resume(other_token).error().code(), wire::UNAUTHENTICATED) << "its token is void";
  wire::ClientMessage mine;
  mine.mutable_my_games();
  EXPECT_TRUE(alice->request(mine).has_game_list()) << "the connection that changed it stays logged in";
  EXPECT_EQ(connect()->login("alice").error().code(), wire::BAD_CREDENTIALS) << "the old password";
  EXPECT_TRUE(connect()->login("alice", "battery staple").has_session());

  // A server that sends no mail resets no password.
  wire::ClientMessage reset;
  reset.mutable_request_password_reset()->set_name("alice");
  EXPECT_EQ(connect()->request(reset).error().code(), wire::UNAVAILABLE);
}

// Two connections of a player change the password at once, each from the
// password both knew: one change is made, the other is refused, and the
// password that logs in is the one its sender was told of.
TEST_F(ServerAuth, OfTwoPasswordChangesAtOnceOnlyTheOneMadeIsAccepted) {
  ASSERT_NO_FATAL_FAILURE(restart({}, "login_failures_per_name = 1000\n"));
  ASSERT_TRUE(user("alice"));
  std::string password = "correct horse";
  for (int round = 0; round < 5; ++round) {
    auto a = connect(), b = connect();
    ASSERT_TRUE(a->login("alice", password).has_session()) << round;
    ASSERT_TRUE(b->login("alice", password).has_session()) << round;
    const std::string to_a = "password " + std::to_string(round) + "a", to_b = "password " + std::to_string(round) + "b";
    const auto id_a = a->send(change_password(password, to_a));
    const auto id_b = b->send(change_password(password, to_b));
    // The change made ends the other connection, which may close before its answer comes.
    const auto answer_a = a->wait_for([&](const wire::ServerMessage& m) { return m.request_id() == id_a; });
    const auto answer_b = b->wait_for([&](const wire::ServerMessage& m) { return m.request_id() == id_b; });
    const bool a_logs_in = connect()->login("alice", to_a).has_session();
    const bool b_logs_in = connect()->login("alice", to_b).has_session();
    ASSERT_NE(a_logs_in, b_logs_in) << round;
    EXPECT_EQ(answer_a && answer_a->has_ok(), a_logs_in) << "round " << round << ": "
                                                         << (answer_a ? answer_a->DebugString() : "no answer");
    EXPECT_EQ(answer_b && answer_b->has_ok(), b_logs_in) << "round " << round << ": "
                                                         << (answer_b ? answer_b->DebugString() : "no answer");
    for (const auto& answer : {answer_a, answer_b}) {
      if (answer && !answer->has_ok()) {
        EXPECT_EQ(answer->error().code(), wire::BAD_CREDENTIALS) << answer->DebugString();
      }
    }
    password = a_logs_in ? to_a : to_b;
  }
}

// Logging out ends the session on every connection that resumed with its
// token: each is told and closed, and nothing it sends acts for the player.
// The player's other sessions go on.
TEST_F(ServerAuth, ATokenStopsWorkingAfterLogoutOnEveryConnection) {
  auto alice = connect();
  const auto session = alice->register_user("alice");
  ASSERT_TRUE(session.has_session());
  const std::string token = session.session().token();
  auto same = connect();
  ASSERT_TRUE(same->resume(token).has_session());
  ASSERT_TRUE(same->follow_turns().has_ok());
  auto elsewhere = login_as("alice");

  wire::ClientMessage logout;
  logout.mutable_logout();
  ASSERT_TRUE(alice->request(logout).has_ok());
  const auto told = same->wait_for([](const wire::ServerMessage& m) { return m.has_error(); });
  ASSERT_TRUE(told) << "the other connection of the session is told";
  EXPECT_EQ(told->error().code(), wire::UNAUTHENTICATED);
  for (int i = 0; i < 100 && !same->closed(); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(same->closed());
  EXPECT_EQ(connect()->resume(token).error().code(), wire::UNAUTHENTICATED);
  wire::ClientMessage mine;
  mine.mutable_my_games();
  EXPECT_TRUE(elsewhere->request(mine).has_game_list()) << "another session of the player goes on";
  EXPECT_TRUE(is_error(alice->create_game(wire::CHOOSE_GERMAN), wire::UNAUTHENTICATED));
}

// A session lasts its time also on a connection that stays open: when it
// expires, the connection resumed with it is told and closed.
TEST_F(ServerAuth, ASessionExpiresAlsoOnTheConnectionsStillOpenWithIt) {
  const auto session = connect()->register_user("alice");
  ASSERT_TRUE(session.has_session());
  const std::string token = session.session().token();
  const std::int64_t expires = unix_now() + 3;
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.prepare("UPDATE sessions SET expires_unix = ? WHERE token_hash = ?").run(expires, sha256_hex(token));
    ASSERT_EQ(db.changes(), 1);
  }
  auto open = connect();
  const auto resumed = open->resume(token);
  ASSERT_TRUE(resumed.has_session()) << resumed.DebugString();
  ASSERT_EQ(resumed.session().expires_unix(), expires);
  const auto told = open->wait_for([](const wire::ServerMessage& m) { return m.has_error(); }, 20s);
  ASSERT_TRUE(told) << "the connection is told when the session ends";
  EXPECT_EQ(told->error().code(), wire::UNAUTHENTICATED);
  EXPECT_GE(unix_now(), expires);
  for (int i = 0; i < 100 && !open->closed(); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(open->closed());
  EXPECT_EQ(connect()->resume(token).error().code(), wire::UNAUTHENTICATED);
}

// A connection closed while its login is being checked is let go at once: the
// session's end is not waited for, and its place under max_connections is
// given back.
TEST_F(ServerAuth, AConnectionClosedWhileItsLoginIsCheckedGivesItsPlaceBack) {
  // A hash slower than a delayed ACK, so that the close comes in before the
  // password is checked; without TLS, whose closing takes longer.
  ASSERT_NO_FATAL_FAILURE(restart({"--plain"}, "max_connections = 2\nargon2_opslimit = 12\nargon2_memlimit_kib = 32768\n"));
  ASSERT_TRUE(connect(false)->register_user("alice").has_session());
  auto connect_soon = [&] {
    std::unique_ptr<Client> c;
    for (int i = 0; i < 400 && !c; ++i) {  // patient: a loaded machine hashes slowly
      c = connect(false);
      if (!c) std::this_thread::sleep_for(50ms);  // a close not yet noticed
    }
    return c;
  };
  for (int i = 0; i < 6; ++i) {
    auto c = connect_soon();
    ASSERT_TRUE(c) << "attempt " << i << ": every place is held by a connection closed before";
    wire::ClientMessage login;
    login.mutable_login()->set_name("alice");
    login.mutable_login()->set_password("correct horse");
    c->send(login);
  }  // each closed at once, its answer unread
  auto a = connect_soon();
  auto b = connect_soon();
  ASSERT_TRUE(a && b) << "the closed connections hold their places";
  EXPECT_TRUE(a->ping(1).has_pong());
  EXPECT_TRUE(b->ping(2).has_pong());
}

TEST_F(ServerAuth, PrivateGamesNeedTheirInviteCode) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  auto created = alice->create_game(wire::CHOOSE_RANDOM, true);
  ASSERT_TRUE(created.has_game_created());
  const std::string id = created.game_created().game().game_id();
  const std::string code = created.game_created().invite_code();
  EXPECT_FALSE(code.empty());
  EXPECT_TRUE(created.game_created().game().private_());
  wire::ClientMessage list;
  list.mutable_list_games();
  EXPECT_EQ(bob->request(list).game_list().games_size(), 0);
  EXPECT_TRUE(is_error(bob->join(id), wire::FORBIDDEN));
  const auto wrong = bob->join(id, "wrong");
  EXPECT_TRUE(is_error(wrong, wire::FORBIDDEN));
  EXPECT_NE(wrong.error().message().find("not this game's invite code"), std::string::npos) << wrong.error().message();
  EXPECT_TRUE(is_error(eve->watch(id), wire::NOT_FOUND));
  // Its maker may read the code again to pass it on; nobody else ever does.
  EXPECT_EQ(summary_in_my_games(*alice, id).invite_code(), code);
  auto joined = bob->join(id, code);
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_EQ(joined.game().status(), "playing");
  EXPECT_TRUE(joined.game().invite_code().empty());
  EXPECT_TRUE(summary_in_my_games(*alice, id).invite_code().empty()) << "no longer needed once joined";
  EXPECT_TRUE(is_error(eve->join(id, code), wire::CONFLICT));  // full
  EXPECT_TRUE(is_error(eve->watch(id), wire::NOT_FOUND));
  EXPECT_TRUE(bob->watch(id).has_game());
  wire::ClientMessage mine;
  mine.mutable_my_games();
  auto my = bob->request(mine);
  ASSERT_EQ(my.game_list().games_size(), 1);
  EXPECT_EQ(my.game_list().games(0).game_id(), id);
}

// Codes are made lower-case; one typed in capitals (read aloud, copied from a
// message that shouted it) is the same code.
TEST_F(ServerAuth, APrivateGamesInviteCodeIsTakenInAnyCase) {
  auto alice = user("alice"), bob = user("bob");
  auto created = alice->create_game(wire::CHOOSE_RANDOM, true);
  ASSERT_TRUE(created.has_game_created());
  const std::string id = created.game_created().game().game_id();
  std::string shouted = created.game_created().invite_code();
  for (auto& ch : shouted) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  auto joined = bob->join(id, shouted);
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_EQ(joined.game().status(), "playing");
}

// The full log (what `export` reads) of a public game opens to all at its end, not while it
// is played: an anonymous reader is refused, and told when it opens, with nothing of the game.
TEST_F(ServerAuth, AnAnonymousReaderGetsNoFullLogOfAPublicGameInPlay) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  auto anonymous = connect();
  wire::ClientMessage get_log;
  get_log.mutable_get_log()->set_game_id(id);
  const auto refused = anonymous->request(get_log);
  ASSERT_TRUE(refused.has_error()) << refused.DebugString();
  EXPECT_EQ(refused.error().code(), wire::FORBIDDEN);
  EXPECT_EQ(refused.error().message(), "The log, the seed and the full view open when the game ends.");
  EXPECT_FALSE(refused.has_game_log());
}

// A private game stays its players' after its end: to an anonymous reader its log is
// refused just as a game that does not exist, so not even its existence shows.
TEST_F(ServerAuth, AnAnonymousReaderGetsNoLogOfAPrivateFinishedGame) {
  auto alice = user("alice"), bob = user("bob");
  auto created = alice->create_game(wire::CHOOSE_SOVIET, true);
  ASSERT_TRUE(created.has_game_created());
  const std::string id = created.game_created().game().game_id();
  ASSERT_TRUE(bob->join(id, created.game_created().invite_code()).has_game());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob->request(resign).has_ok());
  wire::ClientMessage get_log;
  get_log.mutable_get_log()->set_game_id(id);
  ASSERT_TRUE(alice->request(get_log).has_game_log()) << "open to its players";

  auto anonymous = connect();
  wire::ClientMessage unknown;
  unknown.mutable_get_log()->set_game_id("g999999");
  const auto none = anonymous->request(unknown);
  ASSERT_EQ(none.error().code(), wire::NOT_FOUND) << none.DebugString();
  for (const bool as_seen : {false, true}) {
    get_log.mutable_get_log()->set_as_seen(as_seen);
    const auto refused = anonymous->request(get_log);
    ASSERT_TRUE(refused.has_error()) << refused.DebugString();
    EXPECT_EQ(refused.error().code(), wire::NOT_FOUND);
    EXPECT_EQ(refused.error().message(), "There is no game '" + id + "'.") << "as for a game that does not exist";
    EXPECT_FALSE(refused.has_game_log());
  }
}

}  // namespace
}  // namespace counterattack::server::testing
