// Suspensions: the operator suspends a player with `counterattackd --suspend`,
// run beside the server. The player is signed out within seconds and told why
// (only when they give their password), cannot log in until the suspension ends
// or is lifted, and their games waiting for an opponent and their entries in
// tournaments not yet started are withdrawn. Their games in play go on, unless
// the suspension lasts until they are reinstated: then they resign them.
#include <functional>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerModeration : public ServerTest {
 protected:
  // A round robin not yet started, organised and entered by `organiser`, entered by `entrant`: its id.
  static std::string tournament_of(Client& organiser, Client& entrant) {
    wire::ClientMessage create;
    create.mutable_create_tournament()->set_name("Club cup");
    create.mutable_create_tournament()->set_max_players(4);
    create.mutable_create_tournament()->set_enter(true);
    create.mutable_create_tournament()->set_move_seconds(86400);
    const auto made = organiser.request(create);
    EXPECT_TRUE(made.has_tournament()) << made.DebugString();
    const std::string id = made.tournament().tournament_id();
    wire::ClientMessage enter;
    enter.mutable_join_tournament()->set_tournament_id(id);
    EXPECT_FALSE(entrant.request(enter).has_error());
    return id;
  }

  // Whether the open games listed to `c` include `id`.
  static bool listed(Client& c, const std::string& id) {
    wire::ClientMessage list;
    list.mutable_list_games();
    const auto games = c.request(list);
    for (const auto& g : games.game_list().games()) {
      if (g.game_id() == id) return true;
    }
    return false;
  }

  // Waits until `id` is no longer listed.
  static bool withdrawn(Client& c, const std::string& id) {
    return eventually([&] { return !listed(c, id); });
  }
};

TEST_F(ServerModeration, ASuspendedPlayerIsSignedOutAndToldWhyOnlyWithTheirPassword) {
  auto alice = user("alice");
  auto bob = connect();
  const auto registered = bob->register_user("bob");
  ASSERT_TRUE(registered.has_session()) << registered.DebugString();

  const auto suspended = operator_command("--suspend bob --days 7 --reason 'Abusive chat in the lobby.'");
  ASSERT_EQ(suspended.status, 0) << suspended.said;
  EXPECT_NE(suspended.said.find("Suspended bob until "), std::string::npos) << suspended.said;
  EXPECT_NE(suspended.said.find("1 session ended"), std::string::npos) << suspended.said;

  const auto told = bob->wait_for([](const wire::ServerMessage& m) { return m.has_error(); });
  ASSERT_TRUE(told) << "the connection he is on is told, within seconds";
  EXPECT_EQ(told->error().code(), wire::UNAUTHENTICATED);
  EXPECT_NE(told->error().message().find("suspended until "), std::string::npos) << told->error().message();
  // The running server's log says so, once, though another process made it.
  const std::string logged = "msg=\"suspension in force\" user=bob until=";
  EXPECT_TRUE(eventually([&] { return server_->log().find(logged) != std::string::npos; })) << server_->log();
  EXPECT_EQ(server_->log().find(logged), server_->log().rfind(logged));
  EXPECT_NE(told->error().message().find("Abusive chat in the lobby."), std::string::npos) << told->error().message();
  EXPECT_TRUE(eventually([&] { return bob->closed(); }));

  auto again = connect();
  const auto refused = again->login("bob");
  ASSERT_EQ(refused.error().code(), wire::UNAUTHENTICATED) << refused.DebugString();
  EXPECT_NE(refused.error().message().find("Abusive chat in the lobby."), std::string::npos) << refused.DebugString();
  const auto wrong = again->login("bob", "not his password");
  EXPECT_EQ(wrong.error().code(), wire::BAD_CREDENTIALS) << "without the password, nothing is told";
  EXPECT_EQ(wrong.error().message().find("suspended"), std::string::npos) << wrong.DebugString();
  const auto resumed = connect()->resume(registered.session().token());
  EXPECT_EQ(resumed.error().code(), wire::UNAUTHENTICATED) << "his sessions ended";
  EXPECT_TRUE(alice->ping().has_pong()) << "others play on";

  const auto listed_now = operator_command("--suspended");
  ASSERT_EQ(listed_now.status, 0);
  EXPECT_NE(listed_now.said.find("bob\tuntil "), std::string::npos) << listed_now.said;

  const auto lifted = operator_command("--reinstate BOB");
  ASSERT_EQ(lifted.status, 0) << lifted.said;
  EXPECT_TRUE(connect()->login("bob").has_session()) << "reinstated, he logs in again";
  EXPECT_EQ(operator_command("--suspended").said, "No account is suspended.\n");
}

TEST_F(ServerModeration, ASuspendedPlayersWaitingGamesAreWithdrawnAndTheirGamesInPlayGoOn) {
  auto alice = user("alice"), bob = user("bob");
  const std::string playing = start_game(*alice, *bob);
  const auto made = bob->create_game(wire::CHOOSE_GERMAN);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string waiting = made.game_created().game().game_id();
  ASSERT_TRUE(listed(*alice, waiting));

  ASSERT_EQ(operator_command("--suspend bob --days 3 --reason 'Rude in chat.'").status, 0);
  ASSERT_TRUE(withdrawn(*alice, waiting)) << "nobody can sit down to a game its maker cannot play";
  EXPECT_EQ(alice->join(waiting).error().code(), wire::CONFLICT);
  EXPECT_EQ(summary_in_my_games(*alice, playing).status(), "playing") << "a game in play is not taken from his opponent";

  ASSERT_EQ(operator_command("--reinstate bob").status, 0);
  auto back = login_as("bob");
  const auto was_waiting = summary_in_my_games(*back, waiting);
  EXPECT_EQ(was_waiting.status(), "finished");
  EXPECT_EQ(was_waiting.result(), "Cancelled");
  EXPECT_EQ(summary_in_my_games(*back, playing).status(), "playing");
}

TEST_F(ServerModeration, APlayerSuspendedUntilReinstatedResignsTheirGamesInPlay) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  const std::string playing = start_game(*alice, *bob);
  ASSERT_TRUE(alice->watch(playing).has_game());

  ASSERT_EQ(operator_command("--suspend bob --reason 'Several accounts.'").status, 0);
  const auto ended = alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == playing; });
  ASSERT_TRUE(ended) << "his opponent is not left waiting for a player who cannot come back";
  EXPECT_EQ(ended->game_ended().result(), "Soviet victory");
  EXPECT_EQ(ended->game_ended().reason(), "bob's account is suspended.");
  EXPECT_EQ(summary_in_my_games(*alice, playing).status(), "finished");
}

TEST_F(ServerModeration, ARematchKeptForASuspendedPlayerIsWithdrawnAndNoneIsOfferedToThemMeanwhile) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  auto finished = [&] {
    const std::string id = start_game(*alice, *bob);
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(id);
    EXPECT_TRUE(bob->request(resign).has_ok());
    return id;
  };
  auto rematch = [&](const std::string& of) {
    wire::ClientMessage m;
    m.mutable_rematch()->set_game_id(of);
    return alice->request(m);
  };
  const std::string first = finished(), second = finished();
  const auto offered = rematch(first);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string kept = offered.game_created().game().game_id();

  ASSERT_EQ(operator_command("--suspend bob --days 3 --reason 'Rude in chat.'").status, 0);
  const auto declined = alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == kept; });
  ASSERT_TRUE(declined) << "the one who offered it is told";
  EXPECT_EQ(declined->game_ended().result(), "Cancelled") << "withdrawn, not declined: bob never answered";
  EXPECT_EQ(declined->game_ended().reason(), "bob's account is suspended.");
  const auto refused = rematch(second);
  ASSERT_EQ(refused.error().code(), wire::CONFLICT) << refused.DebugString();
  EXPECT_NE(refused.error().message().find("bob's account is suspended"), std::string::npos) << refused.DebugString();

  ASSERT_EQ(operator_command("--reinstate bob").status, 0);
  EXPECT_TRUE(rematch(first).has_game_created()) << "back, he may be offered it again";
  EXPECT_TRUE(rematch(second).has_game_created());
}

// The operator's command ends the player's sessions, but a connection of theirs
// lives on until the server's next reading of the suspensions; meanwhile the
// writes that start something refuse the account.
TEST_F(ServerModeration, ASuspendedPlayersConnectionStartsNothingAndTheirSessionDoesNotResume) {
  auto bob = connect();
  const auto registered = bob->register_user("bob");
  ASSERT_TRUE(registered.has_session());
  {  // Suspended in the database alone: his session is still stored.
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.prepare("UPDATE users SET suspended_until = ?, suspended_reason = 'Spam.' WHERE name = 'bob'").run(unix_now() + 3600);
  }
  const auto made = bob->create_game(wire::CHOOSE_SOVIET);
  EXPECT_FALSE(made.has_game_created()) << made.DebugString();
  // Refused as suspended ("This account is suspended."), or, when the server's reading
  // of the suspensions signed him out first, as no longer logged in: refused either way.
  if (made.has_error()) {
    EXPECT_EQ(made.error().code(), wire::UNAUTHENTICATED) << made.DebugString();
  }
  const auto resumed = connect()->resume(registered.session().token());
  EXPECT_EQ(resumed.error().code(), wire::UNAUTHENTICATED);
  EXPECT_NE(resumed.error().message().find("until "), std::string::npos) << resumed.DebugString();
  EXPECT_NE(resumed.error().message().find("Spam."), std::string::npos) << resumed.DebugString();
}

TEST_F(ServerModeration, ATournamentNotYetStartedLosesASuspendedEntrant) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = tournament_of(*alice, *bob);
  ASSERT_FALSE(HasFailure());

  const auto suspended = operator_command("--suspend bob --days 1 --reason 'Time-wasting.'");
  ASSERT_EQ(suspended.status, 0) << suspended.said;
  EXPECT_NE(suspended.said.find("1 tournament entry withdrawn"), std::string::npos) << suspended.said;
  wire::ClientMessage get;
  get.mutable_get_tournament()->set_tournament_id(id);
  const auto now = alice->request(get);
  ASSERT_TRUE(now.has_tournament()) << now.DebugString();
  EXPECT_EQ(now.tournament().entrants(), 1);
  for (const auto& s : now.tournament().standings()) EXPECT_NE(s.player(), "bob");
}

TEST_F(ServerModeration, ATournamentNotYetStartedOfAnOrganiserSuspendedUntilReinstatedIsCancelledAndItsEntrantsAreTold) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  const std::string id = tournament_of(*bob, *alice);
  ASSERT_FALSE(HasFailure());
  const auto days = operator_command("--suspend bob --days 2 --reason 'Rude in chat.'");
  ASSERT_EQ(days.status, 0) << days.said;
  EXPECT_EQ(days.said.find("cancelled"), std::string::npos) << "a player back in two days keeps his tournament: " << days.said;
  ASSERT_EQ(operator_command("--reinstate bob").status, 0);
  bob = login_as("bob");

  const auto ever = operator_command("--suspend bob --reason 'Several accounts.'");
  ASSERT_EQ(ever.status, 0) << ever.said;
  EXPECT_NE(ever.said.find("1 tournament they organise cancelled"), std::string::npos) << ever.said;
  const auto told = alice->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); });
  ASSERT_TRUE(told) << "its entrants are told, within seconds";
  EXPECT_EQ(told->tournament_cancelled().tournament().tournament_id(), id);
  EXPECT_EQ(told->tournament_cancelled().reason(), "Its organiser bob's account is suspended.");
  wire::ClientMessage get;
  get.mutable_get_tournament()->set_tournament_id(id);
  EXPECT_EQ(alice->request(get).tournament().status(), "cancelled");
  std::this_thread::sleep_for(2500ms);
  EXPECT_FALSE(alice->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); }, 100ms))
      << "told once";
}

TEST_F(ServerModeration, TheOperatorsCommandRefusesWhatItCannotDoAndChangesNothing) {
  auto bob = user("bob");
  auto carol = user("carol");
  wire::ClientMessage close;
  close.mutable_close_account()->set_password("correct horse");
  ASSERT_TRUE(carol->request(close).has_ok());

  const auto nobody = operator_command("--suspend nobody --reason 'x'");
  EXPECT_EQ(nobody.status, 1);
  EXPECT_NE(nobody.said.find("there is no player 'nobody'"), std::string::npos) << nobody.said;
  const auto no_reason = operator_command("--suspend bob");
  EXPECT_EQ(no_reason.status, 1);
  EXPECT_NE(no_reason.said.find("--reason"), std::string::npos) << no_reason.said;
  EXPECT_EQ(operator_command("--suspend bob --days 0 --reason 'x'").status, 2) << "a command line not understood";
  EXPECT_EQ(operator_command("--days 3").status, 2);
  EXPECT_NE(operator_command("--reason 'x'").status, 0) << "a reason alone suspends nobody";
  const auto two_lines = operator_command("--suspend bob --reason \"$(printf 'one\\ntwo')\"");
  EXPECT_EQ(two_lines.status, 1) << two_lines.said;
  const auto not_text = operator_command("--suspend bob --reason \"$(printf 'Insult\\351')\"");
  EXPECT_EQ(not_text.status, 1) << "the player could not read it: " << not_text.said;
  const auto closed = operator_command("--suspend carol --reason 'x'");
  EXPECT_EQ(closed.status, 1);
  EXPECT_NE(closed.said.find("carol has closed their account"), std::string::npos) << closed.said;
  const auto not_suspended = operator_command("--reinstate bob");
  EXPECT_EQ(not_suspended.status, 1);
  EXPECT_NE(not_suspended.said.find("bob is not suspended"), std::string::npos) << not_suspended.said;

  // Two actions at once: neither is done, rather than one done and the other left unsaid.
  const auto two = operator_command("--end-game nosuchgame --suspend bob --days 1 --reason 'x y'");
  EXPECT_EQ(two.status, 2) << two.said;
  EXPECT_NE(two.said.find("one action at a time: --suspend and --end-game"), std::string::npos) << two.said;
  EXPECT_EQ(operator_command("--players --suspended").status, 2);

  EXPECT_EQ(operator_command("--suspended").said, "No account is suspended.\n");
  EXPECT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(login_as("bob")) << "bob was never suspended";
}

TEST_F(ServerModeration, ASuspensionMadeWhileTheServerIsDownTakesHoldAtStartAndEndsOnItsOwn) {
  auto bob = user("bob");
  const auto made = bob->create_game(wire::CHOOSE_SOVIET);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string waiting = made.game_created().game().game_id();
  bob.reset();
  ASSERT_EQ(server_->terminate(), 0);
  ASSERT_EQ(operator_command("--suspend bob --days 2 --reason 'Cooling off.'").status, 0);
  restart();
  auto alice = user("alice");
  EXPECT_TRUE(withdrawn(*alice, waiting)) << "the server reads the suspensions as it starts";
  EXPECT_EQ(connect()->login("bob").error().code(), wire::UNAUTHENTICATED);

  {  // Two days later (the clock moved on in the database): he logs in as before.
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.prepare("UPDATE users SET suspended_until = ? WHERE name = 'bob'").run(unix_now() - 1);
  }
  EXPECT_TRUE(connect()->login("bob").has_session());
  EXPECT_EQ(operator_command("--suspended").said, "No account is suspended.\n");
}

// A player who lost their password on a server that sends no mail: the operator gives them a new one.
TEST_F(ServerModeration, TheOperatorGivesAPlayerANewPasswordAndTheirSessionsEnd) {
  auto bob = user("bob");
  const auto reset = operator_command("--reset-password BOB");
  ASSERT_EQ(reset.status, 0) << reset.said;
  const auto line = reset.said.find("\n  ");
  ASSERT_NE(line, std::string::npos) << reset.said;
  const std::string password = reset.said.substr(line + 3, 23);
  EXPECT_EQ(password.size(), 23u);
  EXPECT_NE(reset.said.find("The new password of bob:"), std::string::npos) << reset.said;
  EXPECT_EQ(connect()->login("bob").error().code(), wire::BAD_CREDENTIALS) << "the old one is gone";
  EXPECT_TRUE(connect()->login("bob", password).has_session());
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    auto& q = db.prepare("SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.name = 'bob'");
    q.bind_all();
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.integer(0), 1) << "only the session of the login with the new password";
  }
  const auto unknown = operator_command("--reset-password nobody");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.said.find("there is no player 'nobody'"), std::string::npos) << unknown.said;
}


// The operator's list of games, for the ids --end-game takes: those waiting or in
// play, with their players, of one player when named.
TEST_F(ServerModeration, TheOperatorListsTheGamesWaitingOrInPlayWithTheirIds) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string playing = start_game(*alice, *bob);
  play_opening(*alice, *bob, playing);
  const auto made = carol->create_game(wire::CHOOSE_GERMAN);
  ASSERT_TRUE(made.has_game_created());
  const std::string waiting = made.game_created().game().game_id();
  const auto all = operator_command("--games");
  ASSERT_EQ(all.status, 0) << all.said;
  EXPECT_EQ(all.said.rfind("2 games waiting or in play\n", 0), 0u) << all.said;
  EXPECT_NE(all.said.find(playing + "\tplaying\tSoviet: alice\tGerman: bob\t"), std::string::npos) << all.said;
  EXPECT_NE(all.said.find(" the last "), std::string::npos) << "when it was last played: " << all.said;
  EXPECT_NE(all.said.find(waiting + "\twaiting\tSoviet: (open)\tGerman: carol\tno order yet, made "), std::string::npos) << all.said;
  const auto bobs = operator_command("--games BOB");
  EXPECT_EQ(bobs.said.rfind("1 game waiting or in play of BOB\n", 0), 0u) << bobs.said;
  EXPECT_EQ(bobs.said.find(waiting), std::string::npos) << bobs.said;
  const auto nobody = operator_command("--games nobody");
  EXPECT_EQ(nobody.status, 1);
  EXPECT_NE(nobody.said.find("there is no player 'nobody'"), std::string::npos) << nobody.said;
}

// The operator's list of players: who is online now (as the running server keeps
// it, connection by connection), when the others were last seen, their games and
// whether each account is active, suspended or closed.
TEST_F(ServerModeration, TheOperatorListsThePlayersAndWhoIsOnline) {
  auto alice = user("alice");
  auto bob = user("bob");
  const std::string playing = start_game(*alice, *bob);
  auto carol = user("carol");
  ASSERT_EQ(operator_command("--suspend carol --days 2 --reason 'Rude in chat.'").status, 0);
  bob.reset();

  // Logins and departures are stored as they happen, behind the writes before them.
  auto line_of = [](const std::string& said, const std::string& name) {
    const auto at = said.find("\n" + name + "\t");
    return at == std::string::npos ? std::string() : said.substr(at + 1, said.find('\n', at + 1) - at - 1);
  };
  CommandOutcome listed;
  eventually([&] {
    listed = operator_command("--players");
    return line_of(listed.said, "bob").find("last seen ") != std::string::npos &&
           line_of(listed.said, "carol").find("last seen ") != std::string::npos;
  });
  ASSERT_EQ(listed.status, 0) << listed.said;
  EXPECT_EQ(listed.said.rfind("3 players, 1 online now", 0), 0u) << listed.said;
  EXPECT_EQ(line_of(listed.said, "alice").rfind("alice\tonline\t1 in play, 0 finished\tactive\tjoined ", 0), 0u) << listed.said;
  EXPECT_NE(line_of(listed.said, "bob").find("\tlast seen "), std::string::npos) << "he left: " << listed.said;
  EXPECT_NE(line_of(listed.said, "carol").find("\tsuspended until "), std::string::npos) << listed.said;
  EXPECT_LT(listed.said.find("\nalice\t"), listed.said.find("\nbob\t")) << "those online come first";
}

// The operator ends a game: one in play is aborted, its players are told why,
// and no rating moves; one waiting for an opponent is cancelled. Asked again,
// or for a game there is not, the command refuses.
TEST_F(ServerModeration, TheOperatorEndsAGameAndNoRatingChanges) {
  auto alice = user("alice"), bob = user("bob");
  const std::string playing = start_game(*alice, *bob);
  play_opening(*alice, *bob, playing);
  ASSERT_TRUE(alice->watch(playing).has_game());
  const auto made = bob->create_game(wire::CHOOSE_GERMAN);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string waiting = made.game_created().game().game_id();

  const auto asked = operator_command("--end-game " + playing + " --reason 'Played from one machine by both.'");
  ASSERT_EQ(asked.status, 0) << asked.said;
  EXPECT_NE(asked.said.find("will be aborted, with no rating change,"), std::string::npos) << asked.said;
  const auto ended = alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == playing; });
  ASSERT_TRUE(ended) << "its players are told within seconds";
  EXPECT_EQ(ended->game_ended().result(), "Aborted");
  EXPECT_EQ(ended->game_ended().reason(), "Aborted by the server's operator, and no rating changes: Played from one machine by both.");
  const auto summary = summary_in_my_games(*bob, playing);
  EXPECT_EQ(summary.status(), "finished");
  EXPECT_EQ(summary.soviet_rating_change(), 0);
  EXPECT_EQ(summary.german_rating_change(), 0);

  ASSERT_EQ(operator_command("--end-game " + waiting + " --reason 'Test game.'").status, 0);
  ASSERT_TRUE(withdrawn(*alice, waiting));
  EXPECT_EQ(summary_in_my_games(*bob, waiting).result(), "Cancelled");

  const auto again = operator_command("--end-game " + playing + " --reason 'x'");
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.said.find("is already over"), std::string::npos) << again.said;
  const auto missing = operator_command("--end-game nosuchgame --reason 'x'");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.said.find("there is no game 'nosuchgame'"), std::string::npos) << missing.said;
  EXPECT_NE(operator_command("--end-game " + playing).status, 0) << "the players are told why: a reason is needed";
}


// The operator cancels a tournament under way: its games in play are aborted,
// its entrants and organiser are told why, and it makes no next round.
TEST_F(ServerModeration, TheOperatorCancelsATournamentUnderWayAndItsGamesAreAborted) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  wire::ClientMessage create;
  create.mutable_create_tournament()->set_name("Club cup");
  create.mutable_create_tournament()->set_max_players(2);
  create.mutable_create_tournament()->set_enter(true);
  create.mutable_create_tournament()->set_move_seconds(86400);
  const auto made = alice->request(create);
  ASSERT_TRUE(made.has_tournament()) << made.DebugString();
  const std::string id = made.tournament().tournament_id();
  wire::ClientMessage enter;
  enter.mutable_join_tournament()->set_tournament_id(id);
  const auto started = bob->request(enter);
  ASSERT_EQ(started.tournament().status(), "playing") << started.DebugString();
  ASSERT_EQ(started.tournament().games_size(), 2) << started.DebugString();
  const std::string game = started.tournament().games(0).game_id();

  const auto asked = operator_command("--cancel-tournament " + id + " --reason 'Entrants share one account.'");
  ASSERT_EQ(asked.status, 0) << asked.said;
  EXPECT_NE(asked.said.find("its 2 games under way will be aborted"), std::string::npos) << asked.said;
  const auto told = alice->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); });
  ASSERT_TRUE(told) << "its organiser and entrants are told, within seconds";
  EXPECT_EQ(told->tournament_cancelled().reason(), "The server's operator cancelled it: Entrants share one account.");
  EXPECT_TRUE(eventually([&] { return summary_in_my_games(*bob, game).status() == "finished"; }));
  const auto ended = summary_in_my_games(*bob, game);
  EXPECT_EQ(ended.result(), "Aborted");
  wire::ClientMessage get;
  get.mutable_get_tournament()->set_tournament_id(id);
  const auto shown = alice->request(get).tournament();
  EXPECT_EQ(shown.status(), "cancelled");
  EXPECT_EQ(shown.cancel_reason(), "The server's operator cancelled it: Entrants share one account.");
  EXPECT_EQ(shown.games_size(), 2) << "its games stay on show, aborted";

  const auto again = operator_command("--cancel-tournament " + id + " --reason 'x'");
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.said.find("is already cancelled"), std::string::npos) << again.said;
  EXPECT_EQ(operator_command("--cancel-tournament nosuchcup --reason 'x'").status, 1);
  std::this_thread::sleep_for(2500ms);
  EXPECT_FALSE(alice->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); }, 100ms))
      << "told once";
}


// A session ended elsewhere (a logout) just as its other connections close is
// counted off once for each: the player, still on one connection, stays online.
TEST_F(ServerModeration, ThePlayersListCountsEachConnectionOffOnceWhenASessionEndsAsItCloses) {
  auto keeper = user("alice");
  for (int round = 0; round < 20; ++round) {
    auto x = connect();
    const auto s = x->login("alice");
    ASSERT_TRUE(s.has_session()) << s.DebugString();
    std::vector<std::unique_ptr<Client>> others;
    for (int i = 0; i < 6; ++i) {
      auto y = connect();
      ASSERT_TRUE(y->resume(s.session().token()).has_session());
      others.push_back(std::move(y));
    }
    wire::ClientMessage out;
    out.mutable_logout();
    x->send(out);
    others.clear();  // closed as the session's end reaches them
    ASSERT_TRUE(x->wait_for([](const wire::ServerMessage& m) { return m.has_ok(); }));
  }
  std::this_thread::sleep_for(500ms);
  const auto listed = operator_command("--players");
  const auto at = listed.said.find("\nalice\t");
  ASSERT_NE(at, std::string::npos) << listed.said;
  EXPECT_EQ(listed.said.compare(at + 1, 13, "alice\tonline\t"), 0) << "one connection is still alice's: " << listed.said;
}


// Asked while the server is down, the end waits for its start; asked twice, the
// second is refused and the first reason stands. A blank reason tells nobody anything.
TEST_F(ServerModeration, AnEndAskedWhileTheServerIsDownTakesHoldAtStartAndIsAskedOnce) {
  auto alice = user("alice"), bob = user("bob");
  const std::string playing = start_game(*alice, *bob);
  play_opening(*alice, *bob, playing);
  alice.reset();
  bob.reset();
  ASSERT_EQ(server_->terminate(), 0);
  EXPECT_EQ(operator_command("--end-game " + playing + " --reason '   '").status, 1) << "a blank reason";
  const auto wide = operator_command("--end-game " + playing + " --reason \"$(printf '\\302\\240\\343\\200\\200 ')\"");
  EXPECT_EQ(wide.status, 1) << "no-break and ideographic spaces are blank too";
  EXPECT_NE(wide.said.find("say why with --reason"), std::string::npos) << wide.said;
  const auto tab = operator_command("--end-game " + playing + " --reason \"$(printf 'a\\tb')\"");
  EXPECT_EQ(tab.status, 1);
  EXPECT_NE(tab.said.find("without tabs"), std::string::npos) << tab.said;
  ASSERT_EQ(operator_command("--end-game " + playing + " --reason 'Dispute settled by the club.'").status, 0);
  const auto twice = operator_command("--end-game " + playing + " --reason 'Another.'");
  EXPECT_EQ(twice.status, 1);
  EXPECT_NE(twice.said.find("is already asked for (\"Dispute settled by the club.\")"), std::string::npos) << twice.said;

  restart();
  auto back = login_as("alice");
  EXPECT_TRUE(eventually([&] { return summary_in_my_games(*back, playing).status() == "finished"; }));
  EXPECT_EQ(summary_in_my_games(*back, playing).result(), "Aborted");
  // Presence is stored a moment after the login is answered: ask until it shows.
  std::string listed;
  EXPECT_TRUE(eventually([&] {
    listed = operator_command("--players").said;
    return listed.find("alice\tonline\t") != std::string::npos;
  })) << listed;
  EXPECT_NE(listed.find("alice\tonline\t0 in play, 0 finished\t"), std::string::npos) << "an aborted game has no result: " << listed;
}

// A game whose stored log cannot be read ends in its row alone: its players can
// leave it (and close their accounts), the reason is theirs to read, and the log
// stays as stored for the operator.
TEST_F(ServerModeration, AnEndOfAGameThatCannotBeLoadedEndsItsRowAndKeepsItsLog) {
  auto alice = user("alice"), bob = user("bob");
  const std::string broken = start_game(*alice, *bob);
  alice.reset();
  bob.reset();
  ASSERT_NO_FATAL_FAILURE(make_unloadable({broken}));
  auto back = login_as("alice");
  EXPECT_EQ(summary_in_my_games(*back, broken).status(), "playing");
  ASSERT_EQ(operator_command("--end-game " + broken + " --reason 'Abandoned.'").status, 0);
  const std::string ended = "msg=\"game ended by the operator in its row alone: its stored log cannot be read, and stays as it is\" game=" + broken;
  ASSERT_TRUE(eventually([&] { return server_->log().find(ended) != std::string::npos; }));
  ASSERT_TRUE(eventually([&] { return summary_in_my_games(*back, broken).status() == "finished"; }));
  const auto over = summary_in_my_games(*back, broken);
  EXPECT_EQ(over.result(), "Aborted");
  EXPECT_NE(over.result_reason().find("Abandoned."), std::string::npos) << over.result_reason();
  EXPECT_FALSE(over.rating_counted());
  std::this_thread::sleep_for(4500ms);  // two more polls
  const std::string log = server_->log();
  EXPECT_EQ(log.find(ended), log.rfind(ended)) << "ended once";
  const auto again = operator_command("--end-game " + broken + " --reason 'Another.'");
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.said.find("is already over"), std::string::npos) << again.said;
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    auto& q = db.prepare("SELECT hex(seed) FROM games WHERE id = ?");
    q.bind_all(broken);
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.text(0), "00") << "the damaged row is kept as it was, for the operator";
  }
}

// Ended in its row alone, a game in play that cannot be loaded is told to its players
// who follow turns as any other game of theirs that ends: aborted, in the operator's
// words, with no rating change and no seed (its log cannot be read). Nobody else hears of it.
TEST_F(ServerModeration, TheEndOfAGameInPlayThatCannotBeLoadedIsToldToItsPlayersAlone) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string broken = start_game(*alice, *bob);
  alice.reset();
  bob.reset();
  carol.reset();
  ASSERT_NO_FATAL_FAILURE(make_unloadable({broken}));
  alice = login_as("alice");
  bob = login_as("bob");
  carol = login_as("carol");
  ASSERT_TRUE(alice && bob && carol);
  for (auto* c : {alice.get(), bob.get(), carol.get()}) ASSERT_TRUE(c->follow_turns().has_ok());

  ASSERT_EQ(operator_command("--end-game " + broken + " --reason 'Abandoned.'").status, 0);
  const auto is_end = [&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == broken; };
  for (auto* player : {alice.get(), bob.get()}) {
    const auto ended = player->wait_for(is_end);
    ASSERT_TRUE(ended) << "each player is told within seconds";
    EXPECT_EQ(ended->game_ended().result(), "Aborted");
    EXPECT_EQ(ended->game_ended().reason(), "Aborted by the server's operator, and no rating changes: Abandoned.");
    EXPECT_TRUE(ended->game_ended().seed_hex().empty()) << "no seed to reveal from a log that cannot be read";
    EXPECT_FALSE(ended->game_ended().rating_counted());
    EXPECT_EQ(ended->game_ended().soviet_rating_change(), 0);
    EXPECT_EQ(ended->game_ended().german_rating_change(), 0);
  }
  std::this_thread::sleep_for(4500ms);  // two more polls
  for (auto* player : {alice.get(), bob.get()}) {
    ASSERT_TRUE(player->ping().has_pong());
    EXPECT_TRUE(player->take_all(is_end).empty()) << "told once";
  }
  ASSERT_TRUE(carol->ping().has_pong());
  EXPECT_TRUE(carol->take_all([&](const wire::ServerMessage& m) {
                      return m.has_game_ended() || m.has_challenge_withdrawn() ||
                             m.DebugString().find(broken) != std::string::npos;
                    }).empty())
      << "nothing of it to a user who does not play it";
}

}  // namespace
}  // namespace counterattack::server::testing
