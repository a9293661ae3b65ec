// Turn notices by e-mail, through a real SMTP listener on 127.0.0.1: an address
// gets mail only once its code is entered, a player who is away is mailed when
// the decision passes to them, and the outbox outlives the server.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "fixture.h"
#include "smtp_sink.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerMail : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    ASSERT_GT(sink_.port(), 0);
    restart({}, mail_settings(sink_.url()));
  }
  static std::string mail_settings(const std::string& smtp_url) {
    return "smtp_url = " + smtp_url + "\nmail_from = games@club.test\npublic_url = wss://club.test:8443\nmail_retry_seconds = 1\n";
  }

  // The server killed after storing a tournament's start or cancellation (with
  // 2: a knock-out's deciding games; 3: its end) but before telling anyone of it, then started again.
  void crash_before_telling(int unannounced = 1) {
    server_->kill9();
    {
      std::string err;
      Db db(server_->data_dir() + "/counterattack.db", false, err);
      ASSERT_TRUE(db.ok()) << err;
      db.exec("UPDATE tournaments SET unannounced = " + std::to_string(unannounced));
    }
    restart({}, mail_settings(sink_.url()));
  }

  // Whether the server has logged, within five seconds, that its mail server cannot be reached.
  bool mail_server_found_unreachable() {
    for (int i = 0; i < 100 && server_->log().find("mail server unreachable") == std::string::npos; ++i) {
      std::this_thread::sleep_for(50ms);
    }
    return server_->log().find("mail server unreachable") != std::string::npos;
  }

  SmtpSink sink_;  // outlives the server, which TearDown stops
};

class ServerNoMail : public ServerTest {};

// The events of an as-seen log after version `seen`, as a mail words them (a die
// its text does not name is added), with their versions in `versions` if given.
std::vector<std::string> mailed_lines_after(const wire::GameLog& gl, std::int64_t seen,
                                            std::vector<std::int64_t>* versions = nullptr) {
  std::vector<std::string> lines;
  for (int i = 0; i < gl.events_size(); ++i) {
    if (gl.event_versions(i) <= seen) continue;
    const auto& e = gl.events(i);
    std::string text = e.text();
    if (e.kind() == game::Event::DIE_ROLLED && e.die() > 0 && text.find(std::to_string(e.die())) == std::string::npos) {
      text += " (die " + std::to_string(e.die()) + ")";
    }
    lines.push_back(text);
    if (versions) versions->push_back(gl.event_versions(i));
  }
  return lines;
}

wire::ClientMessage set_email(const std::string& address) {
  wire::ClientMessage m;
  m.mutable_set_email()->set_address(address);
  return m;
}

wire::ClientMessage confirm_email(const std::string& code) {
  wire::ClientMessage m;
  m.mutable_confirm_email()->set_code(code);
  return m;
}

wire::ClientMessage get_account() {
  wire::ClientMessage m;
  m.mutable_get_account();
  return m;
}

// The code a confirmation mail carries in its subject.
std::string code_of(const SmtpSink::Mail& mail) {
  const std::string subject = mail.header("Subject");
  const auto colon = subject.rfind(": ");
  return colon == std::string::npos ? "" : subject.substr(colon + 2);
}

std::string body_of(const SmtpSink::Mail& mail) {
  const auto gap = mail.data.find("\r\n\r\n");
  return gap == std::string::npos ? "" : mail.data.substr(gap + 4);
}

// Sets and confirms `address` for the client's player; the mails now received.
std::size_t confirm_address(Client& c, SmtpSink& sink, const std::string& address) {
  const auto before = sink.mails().size();
  EXPECT_TRUE(c.request(set_email(address)).has_account());
  auto mails = sink.wait_for(before + 1);
  EXPECT_EQ(mails.size(), before + 1);
  if (mails.size() != before + 1) return mails.size();
  const auto confirmed = c.request(confirm_email(code_of(mails.back())));
  EXPECT_TRUE(confirmed.account().email_confirmed()) << confirmed.DebugString();
  return mails.size();
}

TEST_F(ServerMail, AnAddressGetsTurnNoticesOnlyOnceTheCodeMailedToItIsEntered) {
  auto alice = user("alice");
  auto account = alice->request(get_account());
  ASSERT_TRUE(account.has_account()) << account.DebugString();
  EXPECT_TRUE(account.account().mail_enabled());
  EXPECT_EQ(account.account().name(), "alice");
  EXPECT_EQ(account.account().email(), "");

  for (const char* bad : {"nobody", "alice@example.org\r\nBcc: everyone@example.org", "<alice@example.org>", "@example.org"}) {
    EXPECT_EQ(alice->request(set_email(bad)).error().code(), wire::BAD_REQUEST) << bad;
  }
  EXPECT_EQ(alice->request(confirm_email("00000000")).error().code(), wire::CONFLICT) << "no address waits for a code";

  account = alice->request(set_email("alice@example.org"));
  ASSERT_TRUE(account.has_account()) << account.DebugString();
  EXPECT_EQ(account.account().email(), "alice@example.org");
  EXPECT_FALSE(account.account().email_confirmed());
  auto mails = sink_.wait_for(1);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].to, "alice@example.org");
  EXPECT_EQ(mails[0].from, "games@club.test");
  EXPECT_EQ(mails[0].header("To"), "<alice@example.org>");
  const std::string code = code_of(mails[0]);
  ASSERT_EQ(code.size(), 8u) << mails[0].data;
  EXPECT_NE(body_of(mails[0]).find("    counterattack --server wss://club.test:8443 email confirm " + code), std::string::npos)
      << mails[0].data;

  EXPECT_EQ(alice->request(confirm_email("00000000")).error().code(), wire::BAD_REQUEST);
  EXPECT_FALSE(alice->request(get_account()).account().email_confirmed()) << "a wrong code confirms nothing";
  std::string typed = code;
  for (auto& ch : typed) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  account = alice->request(confirm_email(typed));
  ASSERT_TRUE(account.has_account()) << account.DebugString();
  EXPECT_TRUE(account.account().email_confirmed()) << "the code as typed, in either case";
  EXPECT_EQ(alice->request(confirm_email(code)).error().code(), wire::CONFLICT) << "a code serves once";

  account = alice->request(set_email(""));
  EXPECT_EQ(account.account().email(), "");
  EXPECT_FALSE(account.account().email_confirmed());

  // Each address set is mailed a code: five an hour (email_changes_per_hour), then no more.
  for (int i = 2; i <= 5; ++i) {
    EXPECT_TRUE(alice->request(set_email("alice" + std::to_string(i) + "@example.org")).has_account()) << i;
  }
  EXPECT_EQ(alice->request(set_email("alice6@example.org")).error().code(), wire::RATE_LIMITED);
  EXPECT_EQ(alice->request(get_account()).account().email(), "alice5@example.org");
  // The last address's code comes; one still waiting for an address replaced since does not.
  auto mail_to = [&](const std::string& to) -> std::optional<SmtpSink::Mail> {
    for (int i = 0; i < 300; ++i) {
      for (const auto& m : sink_.mails()) {
        if (m.to == to) return m;
      }
      std::this_thread::sleep_for(50ms);
    }
    return std::nullopt;
  };
  EXPECT_TRUE(mail_to("alice5@example.org"));
  for (const auto& m : sink_.mails()) EXPECT_NE(m.to, "alice6@example.org");

  // Whoever asks, one address is mailed three codes an hour; and a player
  // guessing at codes is stopped after five wrong ones.
  auto bob = user("bob");
  EXPECT_TRUE(bob->request(set_email("alice@example.org")).has_account());
  EXPECT_TRUE(bob->request(set_email("ALICE@example.org")).has_account());
  EXPECT_EQ(bob->request(set_email("alice@example.org")).error().code(), wire::RATE_LIMITED);
  const auto bobs = mail_to("ALICE@example.org");
  ASSERT_TRUE(bobs);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bob->request(confirm_email("00000000")).error().code(), wire::BAD_REQUEST) << i;
  EXPECT_EQ(bob->request(confirm_email(code_of(*bobs))).error().code(), wire::RATE_LIMITED);
  EXPECT_FALSE(bob->request(get_account()).account().email_confirmed());
}

TEST_F(ServerMail, APlayerAwayIsMailedWhenTheDecisionPassesToThem) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const std::string id = start_game(*alice, *bob);  // alice plays the Soviet side
  auto alice_board = login_as("alice"), bob_board = login_as("bob");
  auto [soviet, german] = watch_as_players(*alice_board, *bob_board, id);
  ASSERT_FALSE(HasFailure());
  if (soviet.view.decision().side() == game::SOVIET) {
    // alice watched nothing when bob joined: told that the game starts with her.
    auto all = sink_.wait_for(++mails);
    ASSERT_EQ(all.size(), mails);
    EXPECT_EQ(all.back().header("Subject"), "Your move in game " + id + " (turn 1)");
  }

  // While alice watches the game, nothing is mailed; once she has gone, the pass is.
  int serial = 0;
  while (soviet.view.decision().side() != game::GERMAN && serial < 300) {
    play(soviet, german, nullptr, 1, "a" + std::to_string(serial++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  ASSERT_TRUE(alice_board->request(unwatch).has_ok());
  static const auto sc = default_scenario();
  Bot bob_bot(game::GERMAN, sc);
  play_until_decision_leaves(german, bob_bot, "b");
  ASSERT_FALSE(HasFailure());
  auto all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  const auto& notice = all.back();
  EXPECT_EQ(notice.to, "alice@example.org");
  const std::string turn = std::to_string(german.view.header().turn());
  EXPECT_EQ(notice.header("Subject"), "Your move in game " + id + " (turn " + turn + ")");
  const std::string body = body_of(notice);
  for (const std::string& said : std::vector<std::string>{"against bob", "you play the Soviet side", "open " + id,
                                                           "wss://club.test:8443", "email off"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }

  // Back at the board until the decision is bob's; then away again, but with a
  // connection that follows turns: told there, and not mailed.
  ASSERT_TRUE(alice_board->watch(id).has_game());
  soviet.absorb();
  while (soviet.view.decision().side() != game::GERMAN && serial < 600) {
    play(soviet, german, nullptr, 1, "a" + std::to_string(serial++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  ASSERT_TRUE(alice_board->request(unwatch).has_ok());
  ASSERT_TRUE(alice->follow_turns().has_ok());
  play_until_decision_leaves(german, bob_bot, "c");
  ASSERT_FALSE(HasFailure());
  EXPECT_TRUE(alice->wait_for([](const wire::ServerMessage& m) { return m.has_your_turn(); }));
  // Mail leaves in the order it was stored: once bob's own code has come, nothing
  // queued before it is still on its way.
  ASSERT_TRUE(bob->request(set_email("bob@example.org")).has_account());
  all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  EXPECT_EQ(all.back().to, "bob@example.org") << "alice, following turns, was mailed: " << all.back().data;
}

// The turn mail tells what happened since the player last looked, exactly as their
// own view reads it: what the other side's view alone holds (its chits drawn, its
// hidden units named) never reaches it.
TEST_F(ServerMail, TheTurnMailTellsWhatHappenedSinceYouLastLookedAsYourViewReadsIt) {
  restart({}, mail_settings(sink_.url()) + "recent_events = 100000\n");  // every event held: none left out
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const std::string id = start_game(*alice, *bob);  // alice plays the Soviet side
  auto alice_board = login_as("alice"), bob_board = login_as("bob");
  auto [soviet, german] = watch_as_players(*alice_board, *bob_board, id);
  ASSERT_FALSE(HasFailure());
  if (soviet.view.decision().side() == game::SOVIET) {
    ASSERT_EQ(sink_.wait_for(++mails).size(), mails);  // the start's
  }
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  static const auto sc = default_scenario();
  Bot bob_bot(game::GERMAN, sc);
  int serial = 0, hidden = 0;
  // alice plays at her board until the decision is bob's, and leaves; bob plays until it is hers again,
  // and she is mailed; until some of bob's play was for the German's eyes alone.
  for (int round = 0; round < 40 && hidden == 0; ++round) {
    while (soviet.view.decision().side() != game::GERMAN && soviet.view.decision().kind() != game::Decision::GAME_OVER &&
           serial < 3000) {
      play(soviet, german, nullptr, 1, "a" + std::to_string(serial++) + "-");
      ASSERT_FALSE(HasFailure());
    }
    ASSERT_EQ(soviet.view.decision().side(), game::GERMAN) << "the game ended first";
    ASSERT_TRUE(alice_board->request(unwatch).has_ok());
    play_until_decision_leaves(german, bob_bot, "b" + std::to_string(round) + "-");
    ASSERT_FALSE(HasFailure());
    if (german.view.decision().kind() == game::Decision::GAME_OVER) break;
    auto all = sink_.wait_for(++mails);
    ASSERT_EQ(all.size(), mails);
    const std::string body = body_of(all.back());

    // What alice reads in the log after the version she had seen, in the mail, word for word.
    const auto hers = log_as_seen(*alice, id);
    ASSERT_TRUE(hers.has_game_log()) << hers.DebugString();
    const auto& gl = hers.game_log();
    ASSERT_EQ(gl.event_versions_size(), gl.events_size());
    const std::int64_t seen = gl.seen_version();
    const std::vector<std::string> lines = mailed_lines_after(gl, seen);
    ASSERT_FALSE(lines.empty()) << "bob played since alice looked";
    std::string expected = "Since you last looked:\r\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(lines.size(), 15); ++i) expected += "  " + lines[i] + "\r\n";
    if (lines.size() > 15) {
      expected += "  ... and " + std::to_string(lines.size() - 15) +
                  " more: `counterattack --server wss://club.test:8443 show " + id + " --log 0`\r\n";
    }
    EXPECT_NE(body.find(expected + "\r\n"), std::string::npos) << "expected\n" << expected << "in\n" << body;

    // What bob's view alone read meanwhile is nowhere in it.
    const auto his = log_as_seen(*bob, id);
    ASSERT_TRUE(his.has_game_log()) << his.DebugString();
    const auto& hl = his.game_log();
    ASSERT_EQ(hl.event_versions_size(), hl.events_size());
    for (int i = 0; i < hl.events_size(); ++i) {
      if (hl.event_versions(i) <= seen || hl.events(i).audience() != game::AUDIENCE_GERMAN) continue;
      ++hidden;
      EXPECT_EQ(body.find(hl.events(i).text()), std::string::npos) << "a German secret mailed to alice: " << hl.events(i).text();
    }
    ASSERT_TRUE(alice_board->watch(id).has_game());
    soviet.absorb();
  }
  EXPECT_GT(hidden, 0) << "no play for the German's eyes alone happened while alice was away";
}

// The server's withdrawal of an open game nobody joined is read in the maker's
// games; it is not worth a mail, even to a player away with a confirmed address.
TEST_F(ServerMail, AnOpenGameWithdrawnForWantOfAnOpponentIsNotMailed) {
  restart({}, mail_settings(sink_.url()) + "open_game_expiry_seconds = 2\n");
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const std::string lapsed = alice->create_game(wire::CHOOSE_SOVIET).game_created().game().game_id();
  ASSERT_FALSE(lapsed.empty());
  wire::GameSummary s;
  for (int i = 0; i < 150 && s.status() != "finished"; ++i) {
    std::this_thread::sleep_for(100ms);
    s = summary_in_my_games(*alice, lapsed);
  }
  ASSERT_EQ(s.result(), "Cancelled");
  // Mail leaves in order: once one she is sent after it has come, none about it will.
  const std::string played = start_game(*alice, *bob);
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(played);
  ASSERT_TRUE(bob->request(resign).has_ok());
  bool told = false;
  for (const auto until = std::chrono::steady_clock::now() + 20s; !told && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(50ms);
    for (const auto& m : sink_.mails()) told |= m.header("Subject").starts_with("Game " + played + " is over");
  }
  ASSERT_TRUE(told);
  const auto all = sink_.mails();
  ASSERT_GT(all.size(), mails);
  for (const auto& m : all) EXPECT_EQ(m.data.find(lapsed), std::string::npos) << m.data;
}

TEST_F(ServerMail, APlayerAwayIsRemindedBeforeTheTimeRunsOutAndToldHowTheGameEnded) {
  restart({}, mail_settings(sink_.url()) + "min_move_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage create;
  create.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  create.mutable_create_game()->set_move_seconds(16);  // the reminder comes with 4 s left
  auto created = alice->request(create);
  ASSERT_TRUE(created.has_game_created()) << created.DebugString();
  const std::string id = created.game_created().game().game_id();
  ASSERT_TRUE(bob->join(id).has_game());
  ASSERT_TRUE(bob->watch(id).has_game());
  Player german(*bob, id, game::GERMAN);
  german.absorb();
  static const auto sc = default_scenario();
  Bot bob_bot(game::GERMAN, sc);
  play_until_decision_leaves(german, bob_bot, "b");  // nothing to do when alice decides first
  ASSERT_FALSE(HasFailure());

  // alice, away, decides now: told so, reminded with a quarter of the time left, then told how it
  // ended: aborted, as she never made a first move.
  auto all = sink_.wait_for(mails + 3, 30s);
  ASSERT_EQ(all.size(), mails + 3);
  EXPECT_EQ(all[mails].header("Subject").rfind("Your move in game " + id, 0), 0u) << all[mails].data;
  EXPECT_EQ(all[mails + 1].header("Subject"), "Your time runs out soon in game " + id);
  // Both say what the deadline does to a player who never moved: aborts the game, not loses it.
  for (const auto& m : {all[mails], all[mails + 1]}) {
    const std::string body = body_of(m);
    EXPECT_NE(body.find("Answer by "), std::string::npos) << m.data;
    EXPECT_NE(body.find(", or the game is aborted, with no rating change, as you have made no first move in it yet."),
              std::string::npos)
        << m.data;
    EXPECT_EQ(body.find("lost on time"), std::string::npos) << m.data;
  }
  EXPECT_EQ(all[mails + 2].header("Subject"), "Game " + id + " is over: Aborted");
  EXPECT_NE(body_of(all[mails + 2]).find("The Soviet player made no first move before their time ran out"), std::string::npos)
      << all[mails + 2].data;
  mails += 3;

  // A player is not mailed about an end they made themselves; an opponent who is away is.
  auto untimed_game = [&]() {
    auto c = alice->create_game(wire::CHOOSE_SOVIET);
    const std::string game_id = c.game_created().game().game_id();
    EXPECT_TRUE(bob->join(game_id).has_game());
    return game_id;
  };
  wire::ClientMessage resign;
  const std::string resigned_by_alice = untimed_game();
  resign.mutable_resign()->set_game_id(resigned_by_alice);
  ASSERT_TRUE(alice->request(resign).has_ok());
  const std::string resigned_by_bob = untimed_game();
  resign.mutable_resign()->set_game_id(resigned_by_bob);
  ASSERT_TRUE(bob->request(resign).has_ok());
  std::optional<SmtpSink::Mail> told;  // mail leaves in order: any about her own resignation comes first
  for (const auto until = std::chrono::steady_clock::now() + 20s; !told && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(50ms);
    for (const auto& m : sink_.mails()) {
      if (m.header("Subject").starts_with("Game " + resigned_by_bob + " is over")) told = m;
    }
  }
  for (const auto& m : sink_.mails()) {
    EXPECT_FALSE(m.header("Subject").starts_with("Game " + resigned_by_alice + " is over")) << "her own resignation";
  }
  ASSERT_TRUE(told) << "alice was not told that bob resigned";
  EXPECT_EQ(told->header("Subject"), "Game " + resigned_by_bob + " is over: Soviet victory");
  EXPECT_NE(body_of(*told).find("The German player resigned."), std::string::npos) << told->data;
  EXPECT_NE(body_of(*told).find("`counterattack --server wss://club.test:8443 export " + resigned_by_bob + "`"), std::string::npos)
      << told->data;
}

// "Summer Cup", made and entered by `organiser`, started by `second` joining it: the answer to the join.
wire::ServerMessage two_player_tournament(Client& organiser, Client& second) {
  wire::ClientMessage create;
  auto* c = create.mutable_create_tournament();
  c->set_name("Summer Cup");
  c->set_max_players(2);
  c->set_enter(true);
  c->set_move_seconds(86400);
  auto created = organiser.request(create);
  EXPECT_TRUE(created.has_tournament()) << created.DebugString();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(created.tournament().tournament_id());
  return second.request(join);
}

// A Swiss started with fewer entrants than its set rounds need: the start's mail
// to an entrant who is away says it plays fewer, and why.
TEST_F(ServerMail, TheStartMailOfASwissThatPlaysFewerRoundsThanSetSaysSo) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage create;
  auto* c = create.mutable_create_tournament();
  c->set_name("Short Swiss");
  c->set_max_players(6);
  c->set_rounds(5);
  c->set_enter(true);
  c->set_move_seconds(86400);
  auto created = bob->request(create);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(id);
  for (Client* e : {alice.get(), carol.get(), dave.get()}) ASSERT_TRUE(e->request(join).has_tournament());
  wire::ClientMessage start;
  start.mutable_start_tournament()->set_tournament_id(id);
  ASSERT_TRUE(bob->request(start).has_tournament());

  auto all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  EXPECT_EQ(all.back().to, "alice@example.org");
  EXPECT_EQ(all.back().header("Subject"), "The tournament \"Short Swiss\" has started");
  const std::string body = body_of(all.back());
  EXPECT_NE(body.find("has started with round 1 of 3"), std::string::npos) << body;
  EXPECT_NE(body.find("It plays 3 rounds, not the 5 set: 4 entrants cannot play more without meeting twice."),
            std::string::npos)
      << body;
}

// A tournament starts many games at once: an entrant who is away gets one mail
// naming the games that wait for them, not one mail per game.
TEST_F(ServerMail, AnEntrantAwayIsMailedOnceWhenTheirTournamentStarts) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const auto started = two_player_tournament(*alice, *bob);
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  ASSERT_EQ(started.tournament().games_size(), 2);

  auto all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  EXPECT_EQ(all.back().to, "alice@example.org");
  EXPECT_EQ(all.back().header("Subject"), "The tournament \"Summer Cup\" has started");
  const std::string body = body_of(all.back());
  // She moves first in exactly one of the two games: the one where she plays the side that opens.
  int named = 0;
  for (const auto& g : started.tournament().games()) named += body.find(g.game_id() + " against bob") != std::string::npos;
  EXPECT_EQ(named, 1) << body;
  for (const std::string& said : std::vector<std::string>{"you play 2 games", "Answer by", "tournament show", "email off"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  // A tournament's game whose player never moves is lost on time (its standings need a result), unrated.
  EXPECT_NE(body.find(", or the game is lost on time: a loss in the tournament's standings, though with no first move of"
                      " yours no rating changes."),
            std::string::npos)
      << body;
  // Nothing else for her: bob's own code is the next mail.
  ASSERT_TRUE(bob->request(set_email("bob@example.org")).has_account());
  all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  EXPECT_EQ(all.back().to, "bob@example.org") << "alice was mailed again: " << all.back().data;

  // A server stopped between a start and its announcement announces it when it starts again.
  crash_before_telling();
  const auto told_again = [&] {
    const auto now = sink_.mails();
    return std::any_of(now.begin() + static_cast<std::ptrdiff_t>(mails), now.end(), [](const auto& m) {
      return m.to == "alice@example.org" && m.header("Subject") == "The tournament \"Summer Cup\" has started";
    });
  };
  for (int i = 0; i < 200 && !told_again(); ++i) std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(told_again());
}

// A knock-out match level after its two games goes to a deciding game: the
// player who moves first in it, away, is mailed that it is a deciding game.
TEST_F(ServerMail, APlayerAwayIsMailedAKnockOutsDecidingGame) {
  auto alice = user("alice"), bob = user("bob");
  confirm_address(*alice, sink_, "alice@example.org");
  confirm_address(*bob, sink_, "bob@example.org");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage create;
  auto* c = create.mutable_create_tournament();
  c->set_name("Autumn Cup");
  c->set_max_players(2);
  c->set_enter(true);
  c->set_move_seconds(86400);
  c->set_knockout(true);
  const auto created = alice->request(create);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(created.tournament().tournament_id());
  const auto started = bob->request(join);
  ASSERT_EQ(started.tournament().games_size(), 2) << started.DebugString();
  // Each wins one: the one playing the Soviet side resigns.
  for (const auto& g : started.tournament().games()) {
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(g.game_id());
    ASSERT_TRUE((g.soviet() == "alice" ? *alice : *bob).request(resign).has_ok());
  }
  // The first mail from `from` on about the deciding game.
  auto deciding_mail = [&](std::size_t from) {
    std::optional<SmtpSink::Mail> found;
    for (const auto until = std::chrono::steady_clock::now() + 20s; !found && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(50ms);
      const auto all = sink_.mails();
      for (std::size_t i = from; i < all.size() && !found; ++i) {
        if (all[i].header("Subject") == "A deciding game in the tournament \"Autumn Cup\"") found = all[i];
      }
    }
    return found;
  };
  const auto deciding = deciding_mail(0);
  ASSERT_TRUE(deciding) << "nobody was mailed the deciding game";
  const std::string body = body_of(*deciding);
  for (const std::string& said : std::vector<std::string>{"level after its two games", "sides drawn", "Answer by"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  // A server stopped before announcing it announces it, as a deciding game, when it starts again.
  const auto mails = sink_.mails().size();
  crash_before_telling(2);
  const auto again = deciding_mail(mails);
  ASSERT_TRUE(again) << "not announced again";
  EXPECT_EQ(again->to, deciding->to);
}

// A deciding game is made while the round's other match is still played: a
// server stopped before announcing it mails it again, as a deciding game, when
// it starts, and not the other match's games, which were announced with the round.
TEST_F(ServerMail, AServerStoppedBeforeAnnouncingADecidingGameMailsItAndNotTheRoundsOtherGames) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave"}) {
    players[name] = user(name);
    confirm_address(*players[name], sink_, std::string(name) + "@example.org");
  }
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage create;
  auto* c = create.mutable_create_tournament();
  c->set_name("Winter Cup");
  c->set_max_players(4);
  c->set_enter(true);
  c->set_move_seconds(86400);
  c->set_knockout(true);
  const auto created = players["alice"]->request(create);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(created.tournament().tournament_id());
  wire::ServerMessage started;
  for (const char* name : {"bob", "carol", "dave"}) started = players[name]->request(join);
  ASSERT_EQ(started.tournament().games_size(), 4) << started.DebugString();
  // A round's games are made match by match: the first two are one match's. Each wins one of them.
  const auto& games = started.tournament().games();
  for (int i = 0; i < 2; ++i) {
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(games[i].game_id());
    ASSERT_TRUE(players[games[i].soviet()]->request(resign).has_ok());
  }
  const std::set<std::string> others{games[2].soviet() + "@example.org", games[2].german() + "@example.org"};
  const std::string subject = "A deciding game in the tournament \"Winter Cup\"";
  // The mails from `from` on, once one about the deciding game is among them.
  auto until_deciding = [&](std::size_t from) {
    for (const auto until = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < until;) {
      const auto all = sink_.mails();
      for (std::size_t i = from; i < all.size(); ++i) {
        if (all[i].header("Subject") == subject) return std::vector<SmtpSink::Mail>(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
      }
      std::this_thread::sleep_for(50ms);
    }
    return std::vector<SmtpSink::Mail>{};
  };
  const auto first = until_deciding(0);
  ASSERT_FALSE(first.empty()) << "nobody was mailed the deciding game";
  const auto mover = std::find_if(first.begin(), first.end(), [&](const auto& x) { return x.header("Subject") == subject; })->to;
  EXPECT_FALSE(others.count(mover));

  const auto before = sink_.mails().size();
  crash_before_telling(2);
  ASSERT_FALSE(until_deciding(before).empty()) << "not announced again";
  // The mail after the announcement's: a code for a new address.
  auto erin = user("erin");
  ASSERT_TRUE(erin->request(set_email("erin@example.org")).has_account());
  std::vector<SmtpSink::Mail> since;
  for (int i = 0; i < 200; ++i) {
    const auto all = sink_.mails();
    since.assign(all.begin() + static_cast<std::ptrdiff_t>(before), all.end());
    if (std::any_of(since.begin(), since.end(), [](const auto& x) { return x.to == "erin@example.org"; })) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(std::any_of(since.begin(), since.end(), [](const auto& x) { return x.to == "erin@example.org"; }));
  for (const auto& mail : since) {
    EXPECT_FALSE(others.count(mail.to)) << "the other match's players were mailed again: " << mail.data;
    if (mail.header("Subject") == subject) {
      EXPECT_EQ(mail.to, mover);
    }
  }
}

// A forgotten password: a code mailed to the confirmed address, and with it a
// new password, which ends every session of the player. The answer to a request
// tells nothing of whether a mail went.
TEST_F(ServerMail, AForgottenPasswordIsResetWithACodeMailedToTheConfirmedAddress) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  auto request = [&](const std::string& name) {
    wire::ClientMessage m;
    m.mutable_request_password_reset()->set_name(name);
    return connect()->request(m);
  };
  auto reset = [&](const std::string& code, const std::string& password) {
    wire::ClientMessage m;
    m.mutable_reset_password()->set_name("alice");
    m.mutable_reset_password()->set_code(code);
    m.mutable_reset_password()->set_new_password(password);
    return connect()->request(m);
  };
  EXPECT_TRUE(request("bob").has_ok()) << "no address: the same answer";
  EXPECT_TRUE(request("nobody").has_ok()) << "no such player: the same answer";
  ASSERT_TRUE(request("alice").has_ok());
  auto all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails) << "one mail, to alice alone";
  EXPECT_EQ(all.back().to, "alice@example.org");
  const std::string subject = all.back().header("Subject");
  const std::string prefix = "Your Counterattack password reset code: ";
  ASSERT_EQ(subject.rfind(prefix, 0), 0u) << subject;
  const std::string code = subject.substr(prefix.size());
  EXPECT_EQ(code.size(), 16u) << "64 bits, too many to guess from many addresses: " << code;
  EXPECT_NE(body_of(all.back()).find("counterattack --server wss://club.test:8443 password --reset alice " + code),
            std::string::npos)
      << all.back().data;

  EXPECT_EQ(reset("00000000", "battery staple").error().code(), wire::BAD_CREDENTIALS);
  EXPECT_EQ(reset(code, "short").error().code(), wire::BAD_REQUEST);
  EXPECT_TRUE(alice->ping().has_pong()) << "nothing changed yet";
  auto done = reset(code, "battery staple");
  ASSERT_TRUE(done.has_ok()) << done.DebugString();
  const auto told = alice->wait_for([](const wire::ServerMessage& m) { return m.has_error(); });
  ASSERT_TRUE(told) << "alice's live session ends";
  EXPECT_EQ(told->error().code(), wire::UNAUTHENTICATED);
  EXPECT_EQ(connect()->login("alice").error().code(), wire::BAD_CREDENTIALS);
  EXPECT_TRUE(connect()->login("alice", "battery staple").has_session());
  EXPECT_EQ(reset(code, "another staple").error().code(), wire::BAD_CREDENTIALS) << "a code serves once";
  EXPECT_TRUE(bob->ping().has_pong()) << "bob's session is his own";
}

// A Swiss of two rounds made and entered by alice, then entered by bob, and
// started by carol entering it: the answer to carol's entry.
wire::ServerMessage three_player_swiss(std::map<std::string, std::unique_ptr<Client>>& players, const std::string& name) {
  wire::ClientMessage create;
  auto* c = create.mutable_create_tournament();
  c->set_name(name);
  c->set_max_players(3);
  c->set_enter(true);
  c->set_move_seconds(86400);
  c->set_rounds(2);
  auto created = players["alice"]->request(create);
  EXPECT_TRUE(created.has_tournament()) << created.DebugString();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(created.tournament().tournament_id());
  EXPECT_TRUE(players["bob"]->request(join).has_tournament());
  return players["carol"]->request(join);
}

// A Swiss's later rounds start when the round before is over, maybe days after
// the last look: an entrant away is mailed each round that has a move for them.
TEST_F(ServerMail, AnEntrantAwayIsMailedWhenTheNextRoundOfTheirSwissBegins) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol"}) players[name] = user(name);
  confirm_address(*players["alice"], sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  auto started = three_player_swiss(players, "Swiss Cup");
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  ASSERT_EQ(started.tournament().round(), 1);
  ASSERT_EQ(started.tournament().games_size(), 2) << "one pair; the third sits out";
  // alice wins what she plays: so the other who played is placed last, and sits out round 2.
  for (const auto& g : started.tournament().games()) {
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(g.game_id());
    const std::string& loser = g.soviet() == "alice" ? g.german() : g.german() == "alice" ? g.soviet() : g.german();
    ASSERT_TRUE(players[loser]->request(resign).has_ok());
  }
  const std::string subject = "Round 2 of the tournament \"Swiss Cup\" has begun";
  std::optional<SmtpSink::Mail> round2;
  for (int i = 0; i < 150 && !round2; ++i) {
    for (const auto& m : sink_.mails()) {
      if (m.to == "alice@example.org" && m.header("Subject") == subject) round2 = m;
    }
    if (!round2) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(round2) << "no mail for round 2";
  const std::string body = body_of(*round2);
  for (const std::string& said : std::vector<std::string>{"round 2 of 2 of the tournament \"Swiss Cup\"",
                                                         "you play two games against one other entrant", "Answer by",
                                                         "tournament show"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
}

// With an odd number, one entrant sits out each round of a Swiss: with no game
// to move in, they are told all the same.
TEST_F(ServerMail, AnEntrantAwayWhoSitsOutASwissRoundIsToldSo) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol"}) {
    players[name] = user(name);
    confirm_address(*players[name], sink_, std::string(name) + "@example.org");
    ASSERT_FALSE(HasFailure());
  }
  auto started = three_player_swiss(players, "Odd Cup");
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  const std::string sitter = started.tournament().sits_out();
  ASSERT_FALSE(sitter.empty());
  std::optional<SmtpSink::Mail> told;
  for (int i = 0; i < 150 && !told; ++i) {
    for (const auto& m : sink_.mails()) {
      if (m.to == sitter + "@example.org" && m.header("Subject") == "The tournament \"Odd Cup\" has started") told = m;
    }
    if (!told) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(told) << sitter << " was not told";
  const std::string body = body_of(*told);
  for (const std::string& said : std::vector<std::string>{"has started with round 1 of 2", "you sit out this round",
                                                         "The next round pairs you again.", "tournament show"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  EXPECT_EQ(body.find("Answer by"), std::string::npos) << "no game waits for them";
}

TEST_F(ServerMail, AnEntrantAwayIsMailedWhenTheirTournamentIsCancelled) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*bob, sink_, "bob@example.org");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage create;
  auto* c = create.mutable_create_tournament();
  c->set_name("Winter Cup");
  c->set_max_players(4);
  c->set_enter(true);
  c->set_move_seconds(86400);
  auto created = alice->request(create);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(id);
  ASSERT_TRUE(bob->request(join).has_tournament());
  wire::ClientMessage cancel;
  cancel.mutable_cancel_tournament()->set_tournament_id(id);
  ASSERT_TRUE(alice->request(cancel).has_ok());

  auto all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  EXPECT_EQ(all.back().to, "bob@example.org");
  EXPECT_EQ(all.back().header("Subject"), "The tournament \"Winter Cup\" was cancelled");
  const std::string body = body_of(all.back());
  for (const std::string& said : std::vector<std::string>{"Hello bob", "(" + id + ") was cancelled before it started",
                                                         "Its organiser alice cancelled it.", "tournament list", "email off"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }

  // A server stopped between the cancellation's commit and its telling tells it at its next start, once.
  // (Once the outbox is empty too, so that no mail is sent again only because its sending was not stored.)
  const auto told_of_cancellation_stored = [&] {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", true, err);
    EXPECT_TRUE(db.ok()) << err;
    auto& q = db.prepare("SELECT unannounced = 0 AND NOT EXISTS (SELECT 1 FROM outbox) FROM tournaments WHERE id = ?");
    q.bind_all(id);
    return q.step() && q.integer(0) == 1;
  };
  for (int i = 0; i < 100 && !told_of_cancellation_stored(); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(told_of_cancellation_stored());
  crash_before_telling();
  all = sink_.wait_for(++mails);
  ASSERT_EQ(all.size(), mails);
  EXPECT_EQ(all.back().to, "bob@example.org");
  EXPECT_EQ(all.back().header("Subject"), "The tournament \"Winter Cup\" was cancelled");
  EXPECT_NE(body_of(all.back()).find("Its organiser alice cancelled it."), std::string::npos) << body_of(all.back());
  for (int i = 0; i < 100 && !told_of_cancellation_stored(); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(told_of_cancellation_stored());
  restart({}, mail_settings(sink_.url()));
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(sink_.mails().size(), mails) << "told once";
}

TEST_F(ServerMail, AnEntrantAwayIsMailedTheFinalStandingsWhenTheirTournamentEnds) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const auto started = two_player_tournament(*alice, *bob);
  ASSERT_EQ(started.tournament().games_size(), 2) << started.DebugString();
  mails = sink_.wait_for(mails + 1).size();  // the start

  // bob resigns both games: alice is mailed each end, then the tournament's.
  for (const auto& g : started.tournament().games()) {
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(g.game_id());
    ASSERT_TRUE(bob->request(resign).has_ok());
  }
  auto all = sink_.wait_for(mails + 3);
  ASSERT_EQ(all.size(), mails + 3);
  const auto& last = all.back();
  EXPECT_EQ(last.to, "alice@example.org");
  EXPECT_EQ(last.header("Subject"), "The tournament \"Summer Cup\" is over");
  const std::string body = body_of(last);
  for (const std::string& said : std::vector<std::string>{"1. alice  2 points  (you)", "2. bob  0 points", "tournament show",
                                                         "email off"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  // Said once: nothing more for her after bob's own code.
  ASSERT_TRUE(bob->request(set_email("bob@example.org")).has_account());
  all = sink_.wait_for(mails + 4);
  ASSERT_EQ(all.size(), mails + 4);
  EXPECT_EQ(all.back().to, "bob@example.org") << "alice was mailed again: " << all.back().data;

  // A server stopped between the last game's end and the tournament's is told at its next start.
  server_->kill9();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec("UPDATE tournaments SET finished_unix = 0");
  }
  restart({}, mail_settings(sink_.url()));
  // (bob's code may come again too: the kill can come before its sending is stored.)
  const auto told_again = [&] {
    const auto now = sink_.mails();
    return std::count_if(now.begin() + static_cast<std::ptrdiff_t>(mails + 4), now.end(), [](const auto& m) {
             return m.to == "alice@example.org" && m.header("Subject") == "The tournament \"Summer Cup\" is over";
           }) == 1;
  };
  for (int i = 0; i < 200 && !told_again(); ++i) std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(told_again());
}

// The server killed after storing a tournament's end but before telling it:
// the final standings are mailed when it starts again, once.
TEST_F(ServerMail, AnEntrantAwayIsMailedTheFinalStandingsEvenWhenTheServerStopsBeforeTellingThem) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const auto started = two_player_tournament(*alice, *bob);
  ASSERT_EQ(started.tournament().games_size(), 2) << started.DebugString();
  const std::string id = started.tournament().tournament_id();
  mails = sink_.wait_for(mails + 1).size();  // the start
  for (const auto& g : started.tournament().games()) {
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(g.game_id());
    ASSERT_TRUE(bob->request(resign).has_ok());
  }
  mails = sink_.wait_for(mails + 3).size();  // each game's end, then the tournament's
  const auto told_and_sent = [&] {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", true, err);
    EXPECT_TRUE(db.ok()) << err;
    auto& q = db.prepare(
        "SELECT finished_unix > 0 AND unannounced = 0 AND NOT EXISTS (SELECT 1 FROM outbox) FROM tournaments WHERE id = ?");
    q.bind_all(id);
    return q.step() && q.integer(0) == 1;
  };
  for (int i = 0; i < 100 && !told_and_sent(); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(told_and_sent());

  crash_before_telling(3);  // 3: the end
  const auto ends = [&] {
    const auto now = sink_.mails();
    return std::count_if(now.begin() + static_cast<std::ptrdiff_t>(mails), now.end(), [](const auto& m) {
      return m.to == "alice@example.org" && m.header("Subject") == "The tournament \"Summer Cup\" is over";
    });
  };
  for (int i = 0; i < 200 && ends() == 0; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(ends(), 1);
  for (int i = 0; i < 100 && !told_and_sent(); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(told_and_sent());
  restart({}, mail_settings(sink_.url()));
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(ends(), 1) << "told once";
}

TEST_F(ServerMail, AnOpponentAwayIsMailedARematchOfferWithHowToAcceptOrDeclineIt) {
  auto alice = user("alice"), bob = user("bob");
  confirm_address(*bob, sink_, "bob@example.org");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage create;
  create.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  create.mutable_create_game()->set_clock_seconds(900);
  create.mutable_create_game()->set_increment_seconds(10);
  create.mutable_create_game()->add_options("limited_bonus");
  auto made = alice->request(create);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string old = made.game_created().game().game_id();
  ASSERT_TRUE(bob->join(old).has_game());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(old);
  ASSERT_TRUE(alice->request(resign).has_ok());
  wire::ClientMessage rematch;
  rematch.mutable_rematch()->set_game_id(old);
  auto offered = alice->request(rematch);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string id = offered.game_created().game().game_id();

  std::optional<SmtpSink::Mail> told;
  for (int i = 0; i < 150 && !told; ++i) {
    for (const auto& m : sink_.mails()) {
      if (m.to == "bob@example.org" && m.header("Subject") == "alice offers you a rematch of game " + old) told = m;
    }
    if (!told) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(told) << "bob was not mailed the offer";
  const std::string body = body_of(*told);
  for (const std::string& said :
       std::vector<std::string>{"Hello bob,", "game " + id + ", rated, in which you would play the Soviet side",
                                "a game clock of 15 minutes for each player and 10 seconds more at each move, options: limited_bonus.",
                                "`counterattack --server wss://club.test:8443 rematch " + old + "`",
                                "`counterattack --server wss://club.test:8443 rematch " + old + " --decline`"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
}

TEST_F(ServerMail, MailWaitsInTheOutboxUntilTheMailServerTakesIt) {
  restart({}, mail_settings("smtp://127.0.0.1:1"));  // nothing listens there
  auto alice = user("alice");
  ASSERT_TRUE(alice->request(set_email("alice@example.org")).has_account());
  ASSERT_TRUE(mail_server_found_unreachable()) << "the first attempt failed";
  EXPECT_TRUE(sink_.mails().empty());

  restart({}, mail_settings(sink_.url()));  // killed, then started with a mail server that answers
  auto mails = sink_.wait_for(1);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].to, "alice@example.org");
  alice = connect();
  ASSERT_TRUE(alice->login("alice").has_session());
  EXPECT_TRUE(alice->request(confirm_email(code_of(mails[0]))).account().email_confirmed());
  std::this_thread::sleep_for(3s);  // past any retry delay: a message taken is not sent again
  EXPECT_EQ(sink_.mails().size(), 1u);
  const std::string log = server_->log();
  EXPECT_EQ(log.find("mail sent"), log.rfind("mail sent")) << "sent once";
  EXPECT_EQ(log.find("confirmation code"), std::string::npos) << "the code stays out of the log";
}

// A player who removes or replaces an address while the mail server is away is
// not written to at the old one once it is back: what waited for it is dropped.
TEST_F(ServerMail, MailWaitingForAnAddressItsPlayerRemovedIsNotSent) {
  restart({}, mail_settings("smtp://127.0.0.1:1"));  // nothing listens there
  auto alice = user("alice");
  ASSERT_TRUE(alice->request(set_email("alice@old.example.org")).has_account());
  ASSERT_TRUE(mail_server_found_unreachable()) << "the code waits in the outbox";
  const auto removed = alice->request(set_email(""));
  ASSERT_TRUE(removed.has_account()) << removed.DebugString();
  EXPECT_EQ(removed.account().email(), "");
  {
    // Dropped as the address is: not merely later in the outbox than what follows.
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", true, err);
    ASSERT_TRUE(db.ok()) << err;
    auto& q = db.prepare("SELECT COUNT(*) FROM outbox WHERE to_address = 'alice@old.example.org'");
    q.bind_all();
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.integer(0), 0);
  }

  restart({}, mail_settings(sink_.url()));
  auto bob = user("bob");
  ASSERT_TRUE(bob->request(set_email("bob@example.org")).has_account());
  // The outbox is sent oldest first: anything left for alice would come before bob's.
  const auto mails = sink_.wait_for(1);
  ASSERT_GE(mails.size(), 1u);
  EXPECT_EQ(mails[0].to, "bob@example.org");
  for (const auto& m : mails) EXPECT_NE(m.to, "alice@old.example.org");
}

wire::ClientMessage set_turn_mail(wire::TurnMail mode, int digest_hours = 0) {
  wire::ClientMessage m;
  m.mutable_set_turn_mail()->set_mode(mode);
  m.mutable_set_turn_mail()->set_digest_hours(digest_hours);
  return m;
}

// A game of alice's (the Soviet) against bob in which the decision is now alice's;
// `move_seconds` 0: untimed.
std::string game_waiting_for_alice(Client& alice, Client& bob, std::int64_t move_seconds = 0) {
  wire::ClientMessage create;
  create.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  create.mutable_create_game()->set_move_seconds(move_seconds);
  const auto created = alice.request(create);
  EXPECT_TRUE(created.has_game_created()) << created.DebugString();
  const std::string id = created.game_created().game().game_id();
  EXPECT_TRUE(bob.join(id).has_game());
  EXPECT_TRUE(bob.watch(id).has_game());
  Player german(bob, id, game::GERMAN);
  german.absorb();
  static const auto sc = default_scenario();
  Bot bob_bot(game::GERMAN, sc);
  play_until_decision_leaves(german, bob_bot, "w" + id + "-");
  EXPECT_EQ(german.view.decision().side(), game::SOVIET);
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  EXPECT_TRUE(bob.request(unwatch).has_ok());
  return id;
}

// How many times `what` occurs in `text`.
std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The mails since the first `from`, by subject.
std::vector<std::string> subjects(const std::vector<SmtpSink::Mail>& mails, std::size_t from) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < mails.size(); ++i) out.push_back(mails[i].header("Subject"));
  return out;
}

// The setting is the player's, shown with the account; values outside it are
// refused and change nothing.
TEST_F(ServerMail, TurnMailIsSetEachAsADigestOrOffAndBadValuesChangeNothing) {
  auto alice = user("alice");
  auto account = alice->request(get_account());
  EXPECT_EQ(account.account().turn_mail(), wire::TURN_MAIL_EACH) << "a mail per game unless chosen otherwise";
  EXPECT_EQ(account.account().digest_hours(), 24);
  account = alice->request(set_turn_mail(wire::TURN_MAIL_DIGEST, 12));
  ASSERT_TRUE(account.has_account()) << account.DebugString();
  EXPECT_EQ(account.account().turn_mail(), wire::TURN_MAIL_DIGEST);
  EXPECT_EQ(account.account().digest_hours(), 12);
  for (const auto& [mode, hours] : std::vector<std::pair<int, int>>{{wire::TURN_MAIL_DIGEST, 169},
                                                                    {wire::TURN_MAIL_DIGEST, -1},
                                                                    {wire::TURN_MAIL_EACH, 1000},
                                                                    {wire::TURN_MAIL_UNSPECIFIED, 0},
                                                                    {7, 24}}) {
    const auto refused = alice->request(set_turn_mail(static_cast<wire::TurnMail>(mode), hours));
    EXPECT_EQ(refused.error().code(), wire::BAD_REQUEST) << mode << " " << hours << ": " << refused.DebugString();
  }
  account = alice->request(get_account());
  EXPECT_EQ(account.account().turn_mail(), wire::TURN_MAIL_DIGEST) << "unchanged";
  EXPECT_EQ(account.account().digest_hours(), 12);
  account = alice->request(set_turn_mail(wire::TURN_MAIL_OFF));
  EXPECT_EQ(account.account().turn_mail(), wire::TURN_MAIL_OFF);
  EXPECT_EQ(account.account().digest_hours(), 12) << "kept for the next digest";
  restart({}, mail_settings(sink_.url()));
  alice = login_as("alice");
  account = alice->request(get_account());
  EXPECT_EQ(account.account().turn_mail(), wire::TURN_MAIL_OFF) << "stored";
  EXPECT_EQ(account.account().digest_hours(), 12);
}

// `off`: the decision passing to a player away mails nothing; `each` again mails
// the next pass, as before.
TEST_F(ServerMail, APlayerWhoTurnedTurnMailOffIsNotMailedWhenTheDecisionPasses) {
  restart({}, mail_settings(sink_.url()) + "digest_hour_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(alice->request(set_turn_mail(wire::TURN_MAIL_OFF)).account().turn_mail(), wire::TURN_MAIL_OFF);
  ASSERT_FALSE(game_waiting_for_alice(*alice, *bob).empty());
  ASSERT_FALSE(HasFailure());
  std::this_thread::sleep_for(2s);  // past any digest's interval, were there one
  // Mail leaves in the order it was stored: once bob's code has come, nothing before it is on its way.
  ASSERT_TRUE(bob->request(set_email("bob@example.org")).has_account());
  auto all = sink_.wait_for(mails + 1);
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().to, "bob@example.org") << "alice was mailed: " << all.back().data;
  mails = all.size();

  ASSERT_EQ(alice->request(set_turn_mail(wire::TURN_MAIL_EACH)).account().turn_mail(), wire::TURN_MAIL_EACH);
  const std::string next = game_waiting_for_alice(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  all = sink_.wait_for(mails + 1);
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().header("Subject").rfind("Your move in game " + next + " (turn ", 0), 0u) << all.back().data;
}

// A challenge comes from anyone: a player away is mailed it with its terms (as his
// games names them) and how to answer it, unless they have turned turn mail off.
TEST_F(ServerMail, AChallengedPlayerAwayIsMailedTheChallengeUnlessTheirTurnMailIsOff) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  std::size_t mails = confirm_address(*bob, sink_, "bob@example.org");
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage challenge;
  challenge.mutable_create_game()->set_opponent("bob");
  challenge.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  challenge.mutable_create_game()->set_clock_seconds(900);
  challenge.mutable_create_game()->set_increment_seconds(10);
  challenge.mutable_create_game()->set_private_(true);
  challenge.mutable_create_game()->add_options("limited_bonus");
  challenge.mutable_create_game()->add_options("red_army_flexibility");
  auto made = alice->request(challenge);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();

  auto all = sink_.wait_for(mails + 1);
  ASSERT_EQ(all.size(), mails + 1) << "bob was not mailed the challenge";
  mails = all.size();
  const auto& told = all.back();
  EXPECT_EQ(told.to, "bob@example.org");
  EXPECT_EQ(told.header("Subject"), "alice challenges you to a game");
  const std::string body = body_of(told);
  for (const std::string& said :
       std::vector<std::string>{"Hello bob,", "game " + id + ", rated, private, in which you would play the German side",
                                "a game clock of 15 minutes for each player and 10 seconds more at each move, "
                                "options: limited_bonus red_army_flexibility.",
                                "`counterattack --server wss://club.test:8443 join " + id + "`",
                                "`counterattack --server wss://club.test:8443 decline " + id + "`"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  const std::string code = made.game_created().invite_code();
  EXPECT_TRUE(code.empty() || body.find(code) == std::string::npos) << "he joins it without the code: " << body;

  ASSERT_EQ(bob->request(set_turn_mail(wire::TURN_MAIL_OFF)).account().turn_mail(), wire::TURN_MAIL_OFF);
  wire::ClientMessage withdraw;  // one challenge to a player at a time
  withdraw.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(alice->request(withdraw).has_ok());
  made = alice->request(challenge);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  // Mail leaves in the order it was stored: once carol's code has come, nothing before it is on its way.
  ASSERT_TRUE(carol->request(set_email("carol@example.org")).has_account());
  all = sink_.wait_for(mails + 1);
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().to, "carol@example.org") << "bob was mailed: " << all.back().data;
}

// A game whose stored log does not replay, ended by the operator in its row alone,
// is mailed to a player away as any other game's end: the result and the operator's
// words, and that it ended because the server could not load it, with the operator to
// ask, instead of the export of a log that cannot be read. A player who follows turns
// is told on their connection instead.
TEST_F(ServerMail, APlayerAwayIsMailedTheEndOfAGameThatCouldNotBeLoaded) {
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  mails = confirm_address(*bob, sink_, "bob@example.org");
  ASSERT_FALSE(HasFailure());
  const std::string broken = start_game(*alice, *bob);
  auto turn = sink_.wait_for(mails + 1);  // alice, who follows no turns, is mailed her first move
  ASSERT_EQ(turn.size(), mails + 1);
  ASSERT_EQ(turn.back().header("Subject").rfind("Your move in game " + broken, 0), 0u) << turn.back().data;
  mails = turn.size();
  alice.reset();
  bob.reset();
  server_->kill9();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.prepare("UPDATE games SET seed = x'00' WHERE id = ?").run(broken);
    ASSERT_EQ(db.changes(), 1);
  }
  restart({}, mail_settings(sink_.url()));
  bob = login_as("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());

  ASSERT_EQ(operator_command("--end-game " + broken + " --reason 'Abandoned.'").status, 0);
  const auto all = sink_.wait_for(mails + 1, 20s);
  ASSERT_EQ(all.size(), mails + 1);
  const auto& over = all.back();
  EXPECT_EQ(over.to, "alice@example.org");
  EXPECT_EQ(over.header("Subject"), "Game " + broken + " is over: Aborted");
  const std::string body = body_of(over);
  for (const std::string& said :
       {std::string("Hello alice,"), "game " + broken + " against bob is over: Aborted.",
        std::string("Aborted by the server's operator, and no rating changes: Abandoned."),
        std::string("The server could not load this game from its stored record"), std::string("ask them about it")}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  EXPECT_EQ(body.find("export " + broken), std::string::npos) << "no log to export\n" << body;
  const auto ended = bob->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == broken; });
  EXPECT_TRUE(ended) << "bob, following turns, is told on his connection";
  std::this_thread::sleep_for(4500ms);  // two more polls of the operator's requests
  EXPECT_EQ(sink_.mails().size(), mails + 1) << "mailed once, and not to bob: " << sink_.mails().back().data;
}

// `digest`: one mail names every game that waits for the player, at most once an
// interval, the interval's start kept over a restart, and only when a game waits
// that the last digest did not list: the same list is not mailed again, over a
// restart too, and a game listed before is named again, marked, beside a new one.
// A draw offered in a game listed is news. None while they are on vacation, and an
// ended game is no longer in it.
TEST_F(ServerMail, ADigestComesAtMostOnceAnIntervalAndOnlyWhenAGameWaitsThatTheLastDidNotList) {
  const std::string settings = mail_settings(sink_.url()) + "digest_hour_seconds = 3\n";  // 3 hours: 9 s
  restart({}, settings);
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  const auto set = alice->request(set_turn_mail(wire::TURN_MAIL_DIGEST, 3));
  ASSERT_EQ(set.account().turn_mail(), wire::TURN_MAIL_DIGEST) << set.DebugString();
  const std::string untimed = game_waiting_for_alice(*alice, *bob);
  const std::string timed = game_waiting_for_alice(*alice, *bob, 2 * 86400);
  ASSERT_FALSE(HasFailure());

  auto all = sink_.wait_for(mails + 1, 20s);
  ASSERT_EQ(all.size(), mails + 1);
  const auto digest_at = std::chrono::steady_clock::now();
  const auto& digest = all.back();
  EXPECT_EQ(digest.to, "alice@example.org");
  EXPECT_EQ(digest.header("Subject"), "Your move in 2 games");
  const std::string body = body_of(digest);
  for (const std::string& said :
       std::vector<std::string>{"Hello alice,", "2 games wait for your move:",
                                "Game " + untimed + " against bob (counterattack, turn ", "Game " + timed + " against bob",
                                "you play the Soviet side", "Untimed", "Time left: 1 day 23 hours",
                                "counterattack --server wss://club.test:8443 play " + untimed, "at most once every 3 hours",
                                "email --turns each"}) {
    EXPECT_NE(body.find(said), std::string::npos) << said << " in\n" << body;
  }
  EXPECT_EQ(body.find("Still waiting"), std::string::npos) << "the first digest: every game is new\n" << body;
  mails = all.size();

  // None before the interval has passed, nor after it with nothing new, over a restart too.
  // The server stops once it has noted the digest sent, which a kill before could have it send again.
  for (int i = 0; i < 100 && count_of(server_->log(), "msg=\"mail sent\"") < mails; ++i) std::this_thread::sleep_for(50ms);
  server_->terminate();
  restart({}, settings);
  std::this_thread::sleep_for(std::max<std::chrono::steady_clock::duration>(
      1s, std::chrono::milliseconds(4000) - (std::chrono::steady_clock::now() - digest_at)));
  EXPECT_EQ(sink_.mails().size(), mails) << "a digest before its interval: " << subjects(sink_.mails(), mails).back();
  std::this_thread::sleep_for(std::max<std::chrono::steady_clock::duration>(
      1s, std::chrono::milliseconds(13000) - (std::chrono::steady_clock::now() - digest_at)));
  EXPECT_EQ(sink_.mails().size(), mails) << "the same games mailed again: " << subjects(sink_.mails(), mails).back();

  // A game newly waiting: the next digest names it, and the others again, marked as still waiting.
  alice = login_as("alice");
  bob = login_as("bob");
  const std::string third = game_waiting_for_alice(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  all = sink_.wait_for(mails + 1, 20s);
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().header("Subject"), "Your move in 3 games");
  const std::string again = body_of(all.back());
  EXPECT_NE(again.find("3 games wait for your move, 1 new since the last digest:"), std::string::npos) << again;
  const auto block_of = [&](const std::string& text, const std::string& id) {
    const auto at = text.find("Game " + id + " against");
    if (at == std::string::npos) return std::string();
    const auto next = text.find("\r\nGame ", at + 1);
    return text.substr(at, next == std::string::npos ? std::string::npos : next - at);
  };
  for (const auto& id : {untimed, timed}) {
    EXPECT_NE(block_of(again, id).find("Still waiting, as in the last digest"), std::string::npos) << id << " in\n" << again;
  }
  EXPECT_NE(block_of(again, third).find("play " + third), std::string::npos) << again;
  EXPECT_EQ(block_of(again, third).find("Still waiting"), std::string::npos) << "the new game is not marked\n" << again;
  mails = all.size();

  // On vacation, nothing waits for her; back, the games do, but for the one bob resigned,
  // and a digest comes once something in them is new.
  wire::ClientMessage vacation;
  vacation.mutable_start_vacation()->set_days(1);
  ASSERT_TRUE(alice->request(vacation).has_account());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(untimed);
  ASSERT_TRUE(bob->request(resign).has_ok());
  all = sink_.wait_for(mails + 1);  // told of the end, as with every setting
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().header("Subject").rfind("Game " + untimed + " is over", 0), 0u) << all.back().data;
  mails = all.size();
  std::this_thread::sleep_for(11s);  // past the interval
  EXPECT_EQ(sink_.mails().size(), mails) << "a digest during a vacation: " << subjects(sink_.mails(), mails).back();
  wire::ClientMessage back;
  back.mutable_end_vacation();
  ASSERT_TRUE(alice->request(back).has_account());
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(sink_.mails().size(), mails) << "back, with nothing new: " << subjects(sink_.mails(), mails).back();
  // A draw bob offers in a game that waits for her is news too.
  wire::ClientMessage offer;
  offer.mutable_offer_draw()->set_game_id(timed);
  ASSERT_TRUE(bob->request(offer).has_ok());
  all = sink_.wait_for(mails + 1, 20s);
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().header("Subject"), "Your move in 2 games");
  const std::string last = body_of(all.back());
  EXPECT_NE(last.find("2 games wait for your move, 1 new since the last digest:"), std::string::npos) << last;
  EXPECT_EQ(last.find(untimed), std::string::npos) << all.back().data;
  EXPECT_NE(block_of(last, timed).find("Your opponent offers a draw."), std::string::npos) << last;
  EXPECT_EQ(block_of(last, timed).find("Still waiting"), std::string::npos) << last;
  EXPECT_NE(block_of(last, third).find("Still waiting"), std::string::npos) << last;
  for (const auto& s : subjects(all, 0)) {
    EXPECT_FALSE(s.starts_with("Your move in game ") && s.find(" (turn ") != std::string::npos) << "a per-game mail: " << s;
  }
}

// The digest tells what happened in each game since the player last looked as
// their own view reads it: what the other side's view alone holds never reaches it.
TEST_F(ServerMail, TheDigestTellsWhatHappenedSinceYouLastLookedAsYourViewReadsIt) {
  restart({}, mail_settings(sink_.url()) + "recent_events = 100000\ndigest_hour_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(alice->request(set_turn_mail(wire::TURN_MAIL_DIGEST, 1)).account().digest_hours(), 1);
  const std::string id = start_game(*alice, *bob);
  auto alice_board = login_as("alice"), bob_board = login_as("bob");
  auto [soviet, german] = watch_as_players(*alice_board, *bob_board, id);
  ASSERT_FALSE(HasFailure());
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  static const auto sc = default_scenario();
  Bot bob_bot(game::GERMAN, sc);
  int serial = 0, hidden = 0;
  for (int round = 0; round < 40 && hidden == 0; ++round) {
    while (soviet.view.decision().side() != game::GERMAN && soviet.view.decision().kind() != game::Decision::GAME_OVER &&
           serial < 3000) {
      play(soviet, german, nullptr, 1, "a" + std::to_string(serial++) + "-");
      ASSERT_FALSE(HasFailure());
    }
    ASSERT_EQ(soviet.view.decision().side(), game::GERMAN) << "the game ended first";
    ASSERT_TRUE(alice_board->request(unwatch).has_ok());
    play_until_decision_leaves(german, bob_bot, "b" + std::to_string(round) + "-");
    ASSERT_FALSE(HasFailure());
    if (german.view.decision().kind() == game::Decision::GAME_OVER) break;

    // The digest with what alice's log reads after the version she had seen, word for word
    // (digests sent before it, within the second, may say less).
    std::string body;
    for (int wait = 0; wait < 300 && body.empty(); ++wait) {
      const auto all = sink_.mails();
      for (std::size_t i = mails; i < all.size() && body.empty(); ++i) {
        if (all[i].to == "alice@example.org" && body_of(all[i]).find("  Since you last looked:") != std::string::npos) {
          body = body_of(all[i]);
        }
      }
      if (body.empty()) std::this_thread::sleep_for(50ms);
    }
    ASSERT_FALSE(body.empty()) << "no digest with news";
    const auto hers = log_as_seen(*alice, id);
    ASSERT_TRUE(hers.has_game_log()) << hers.DebugString();
    const auto& gl = hers.game_log();
    ASSERT_EQ(gl.event_versions_size(), gl.events_size());
    const std::int64_t seen = gl.seen_version();
    std::vector<std::int64_t> versions;
    const std::vector<std::string> lines = mailed_lines_after(gl, seen, &versions);
    ASSERT_FALSE(lines.empty()) << "bob played since alice looked";
    constexpr std::size_t kShown = 5;
    std::string expected = "  Since you last looked:\r\n";
    for (std::size_t i = 0; i < std::min(lines.size(), kShown); ++i) expected += "    " + lines[i] + "\r\n";
    if (lines.size() > kShown) expected += "    ... and " + std::to_string(lines.size() - kShown) + " more\r\n";
    EXPECT_NE(body.find(expected), std::string::npos) << "expected\n" << expected << "in\n" << body;
    const std::int64_t shown_up_to = versions[std::min(lines.size(), kShown) - 1];

    // What bob's view alone read meanwhile is in no mail of hers.
    const auto his = log_as_seen(*bob, id);
    ASSERT_TRUE(his.has_game_log()) << his.DebugString();
    const auto& hl = his.game_log();
    ASSERT_EQ(hl.event_versions_size(), hl.events_size());
    const auto all = sink_.mails();
    for (int i = 0; i < hl.events_size(); ++i) {
      if (hl.event_versions(i) <= seen || hl.events(i).audience() != game::AUDIENCE_GERMAN) continue;
      if (hl.event_versions(i) <= shown_up_to) ++hidden;
      for (std::size_t m = mails; m < all.size(); ++m) {
        EXPECT_EQ(all[m].data.find(hl.events(i).text()), std::string::npos) << "a German secret mailed to alice: " << hl.events(i).text();
      }
    }
    ASSERT_TRUE(alice_board->watch(id).has_game());
    soviet.absorb();
    std::this_thread::sleep_for(1500ms);  // a digest stored before she came back has come
    mails = sink_.mails().size();
  }
  EXPECT_GT(hidden, 0) << "no play for the German's eyes alone happened within what the digest showed";
}

// A game is news to a digest only when it came back to the player since the last one: orders
// of their own in a game that stays theirs are none, though its version moved; the opponent's
// play that hands it back is.
TEST_F(ServerMail, ADigestCountsAGameNewOnlyWhenItCameBackToThePlayerNotForTheirOwnOrders) {
  restart({}, mail_settings(sink_.url()) + "digest_hour_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  std::size_t mails = confirm_address(*alice, sink_, "alice@example.org");
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(alice->request(set_turn_mail(wire::TURN_MAIL_DIGEST, 1)).account().digest_hours(), 1);
  const std::string id = game_waiting_for_alice(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  auto all = sink_.wait_for(mails + 1, 20s);
  ASSERT_EQ(all.size(), mails + 1);
  EXPECT_EQ(all.back().header("Subject"), "Your move in game " + id);
  mails = all.size();

  // alice gives an order, and the decision stays hers: no digest, over intervals.
  static const auto sc = default_scenario();
  ASSERT_TRUE(alice->watch(id).has_game());
  Player soviet(*alice, id, game::SOVIET);
  soviet.absorb();
  Bot alice_bot(game::SOVIET, sc);
  const auto order = alice_bot.next(soviet.view);
  ASSERT_TRUE(order);
  const auto r = alice->submit(id, "own-1", *order);
  ASSERT_TRUE(r.has_order_accepted()) << r.DebugString();
  ASSERT_TRUE(soviet.wait_version(r.order_accepted().version()));
  ASSERT_EQ(soviet.view.decision().side(), game::SOVIET) << "the decision stays alice's: " << soviet.view.decision().DebugString();
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  ASSERT_TRUE(alice->request(unwatch).has_ok());
  std::this_thread::sleep_for(4s);  // past the interval, several times
  EXPECT_EQ(sink_.mails().size(), mails) << "her own order mailed as news: " << subjects(sink_.mails(), mails).back();

  // She hands it to bob, who plays until it comes back: that is news.
  ASSERT_TRUE(alice->watch(id).has_game());
  alice_bot.result(true);
  play_until_decision_leaves(soviet, alice_bot, "own-2-");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(alice->request(unwatch).has_ok());
  ASSERT_TRUE(bob->watch(id).has_game());
  Player german(*bob, id, game::GERMAN);
  german.absorb();
  Bot bob_bot(game::GERMAN, sc);
  play_until_decision_leaves(german, bob_bot, "back-");
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(german.view.decision().side(), game::SOVIET);
  ASSERT_TRUE(bob->request(unwatch).has_ok());
  all = sink_.wait_for(mails + 1, 20s);
  ASSERT_EQ(all.size(), mails + 1);
  const std::string body = body_of(all.back());
  EXPECT_NE(body.find("one game waits for your move:"), std::string::npos) << body;
  EXPECT_EQ(body.find("Still waiting"), std::string::npos) << body;
}

TEST_F(ServerNoMail, AServerWithoutAMailServerSaysSo) {
  auto alice = user("alice");
  auto account = alice->request(get_account());
  ASSERT_TRUE(account.has_account()) << account.DebugString();
  EXPECT_FALSE(account.account().mail_enabled());
  EXPECT_EQ(alice->request(set_email("alice@example.org")).error().code(), wire::UNAVAILABLE);
  EXPECT_EQ(alice->request(confirm_email("00000000")).error().code(), wire::UNAVAILABLE);
  EXPECT_EQ(alice->request(set_turn_mail(wire::TURN_MAIL_DIGEST)).error().code(), wire::UNAVAILABLE);
  auto anonymous = connect();
  EXPECT_EQ(anonymous->request(get_account()).error().code(), wire::UNAUTHENTICATED);
}

}  // namespace
}  // namespace counterattack::server::testing
