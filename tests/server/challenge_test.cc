// Challenges: a game made for one named player (CreateGame.opponent), on the
// terms its maker chose. Nobody else sees, watches or joins it; the challenged
// player is told at once and joins it or declines it, for good; its maker may
// withdraw it, and unanswered it lapses like any open game.
#include <functional>
#include <thread>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerChallenge : public ServerTest {};

wire::ClientMessage challenge_to(const std::string& name) {
  wire::ClientMessage m;
  m.mutable_create_game()->set_opponent(name);
  return m;
}

wire::ServerMessage decline(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_decline_challenge()->set_game_id(game_id);
  return c.request(m);
}

wire::ServerMessage my_games(Client& c) {
  wire::ClientMessage m;
  m.mutable_my_games();
  return c.request(m);
}

bool in_my_games(Client& c, const std::string& id) {
  const auto mine = my_games(c);
  for (const auto& g : mine.game_list().games()) {
    if (g.game_id() == id) return true;
  }
  return false;
}

bool listed_open(Client& c, const std::string& id) {
  wire::ClientMessage m;
  m.mutable_list_games();
  const auto open = c.request(m);
  for (const auto& g : open.game_list().games()) {
    if (g.game_id() == id) return true;
  }
  return false;
}

wire::ServerMessage resign(Client& c, const std::string& id) {
  wire::ClientMessage m;
  m.mutable_resign()->set_game_id(id);
  return c.request(m);
}

// alice's challenge to `name`, German, with a game clock, casual, with an optional rule; its id.
std::string challenge(Client& alice, const std::string& name) {
  auto m = challenge_to(name);
  auto* g = m.mutable_create_game();
  g->set_side(wire::CHOOSE_GERMAN);
  g->set_clock_seconds(900);
  g->set_increment_seconds(10);
  g->set_casual(true);
  g->add_options("limited_bonus");
  const auto made = alice.request(m);
  EXPECT_TRUE(made.has_game_created()) << made.DebugString();
  return made.game_created().game().game_id();
}

TEST_F(ServerChallenge, AChallengeReachesOnlyTheChallengedPlayerWhoStartsItOnTheChosenTermsByJoining) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(carol->follow_turns().has_ok());

  auto m = challenge_to("BOB");  // any case
  auto* terms = m.mutable_create_game();
  terms->set_side(wire::CHOOSE_GERMAN);
  terms->set_clock_seconds(900);
  terms->set_increment_seconds(10);
  terms->set_casual(true);
  terms->add_options("limited_bonus");
  const auto made = alice->request(m);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const auto& g = made.game_created().game();
  const std::string id = g.game_id();
  EXPECT_EQ(g.status(), "open");
  EXPECT_EQ(g.your_side(), "german");
  EXPECT_EQ(g.reserved_for(), "bob") << "the name as registered";
  EXPECT_EQ(g.rematch_of(), "");
  EXPECT_TRUE(made.game_created().invite_code().empty()) << "no code to pass on";

  auto told = bob->wait_for([](const wire::ServerMessage& x) { return x.has_challenge_offered(); });
  ASSERT_TRUE(told) << "the challenged player is told at once";
  EXPECT_EQ(told->challenge_offered().by(), "alice");
  EXPECT_EQ(told->challenge_offered().game().game_id(), id);
  EXPECT_EQ(told->challenge_offered().game().your_side(), "soviet") << "the side he would play";
  const auto his = summary_in_my_games(*bob, id);
  EXPECT_EQ(his.your_side(), "soviet");
  EXPECT_EQ(his.reserved_for(), "bob");
  EXPECT_EQ(his.german(), "alice");

  // Carol is told nothing, does not find it, and cannot watch or join it, even with its id.
  ASSERT_TRUE(carol->ping().has_pong());
  EXPECT_TRUE(carol->take_all([](const wire::ServerMessage& x) { return x.has_challenge_offered(); }).empty());
  EXPECT_FALSE(listed_open(*carol, id)) << "not among the open games";
  EXPECT_FALSE(listed_open(*bob, id));
  EXPECT_FALSE(in_my_games(*carol, id));
  EXPECT_EQ(carol->watch(id).error().code(), wire::NOT_FOUND);
  const auto refused = carol->join(id);
  EXPECT_EQ(refused.error().code(), wire::NOT_FOUND) << refused.DebugString();
  EXPECT_EQ(refused.error().message(), "There is no game '" + id + "'.") << "to her, as any game that is not there";
  EXPECT_EQ(decline(*carol, id).error().code(), wire::NOT_FOUND) << "not hers to decline";
  EXPECT_EQ(decline(*alice, id).error().code(), wire::CONFLICT) << "her own is withdrawn, not declined";

  // Kept over a restart; bob accepts by joining, without any code.
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  carol = login_as("carol");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  EXPECT_EQ(carol->join(id).error().code(), wire::NOT_FOUND) << "still kept for bob";
  const auto joined = bob->join(id);
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  const auto& started = joined.game();
  EXPECT_EQ(started.status(), "playing");
  EXPECT_EQ(started.soviet(), "bob");
  EXPECT_EQ(started.german(), "alice");
  EXPECT_EQ(started.clock_seconds(), 900);
  EXPECT_EQ(started.increment_seconds(), 10);
  EXPECT_FALSE(started.rated()) << "casual, as asked";
  ASSERT_EQ(started.options_size(), 1);
  EXPECT_EQ(started.options(0), "limited_bonus");
  EXPECT_EQ(started.reserved_for(), "") << "no longer open";
  auto start = alice->wait_for([&](const wire::ServerMessage& x) { return x.has_game_started() && x.game_started().game_id() == id; });
  EXPECT_TRUE(start) << "its maker is told it started";
  // Under way, it is a game like any other: a spectator may watch it.
  EXPECT_TRUE(carol->watch(id).has_game());
}

TEST_F(ServerChallenge, ADeclinedChallengeIsFinalAndItsMakerIsToldWhy) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  const std::string id = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());

  EXPECT_EQ(decline(*bob, "nosuchgame").error().code(), wire::NOT_FOUND);
  const auto declined = decline(*bob, id);
  ASSERT_TRUE(declined.has_ok()) << declined.DebugString();
  auto told = alice->wait_for([&](const wire::ServerMessage& x) { return x.has_game_ended() && x.game_ended().game_id() == id; });
  ASSERT_TRUE(told) << "the challenger is told at once";
  EXPECT_EQ(told->game_ended().result(), "Declined");
  EXPECT_EQ(told->game_ended().reason(), "bob declined the challenge.");
  const auto hers = summary_in_my_games(*alice, id);
  EXPECT_EQ(hers.status(), "finished");
  EXPECT_EQ(hers.result(), "Declined");
  EXPECT_EQ(hers.result_reason(), "bob declined the challenge.") << "and reads why in her games";
  EXPECT_FALSE(in_my_games(*bob, id)) << "gone from bob's games";

  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  EXPECT_EQ(bob->join(id).error().code(), wire::CONFLICT) << "declined for good";
  EXPECT_EQ(decline(*bob, id).error().code(), wire::CONFLICT) << "declined once";
  auto carol = user("carol");
  EXPECT_EQ(carol->watch(id).error().code(), wire::NOT_FOUND) << "a challenge that never started stays the two players' business";
  EXPECT_EQ(carol->join(id).error().code(), wire::NOT_FOUND);
  EXPECT_EQ(summary_in_my_games(*alice, id).result(), "Declined");
}

bool is_withdrawal(const wire::ServerMessage& m) { return m.has_challenge_withdrawn(); }

TEST_F(ServerChallenge, TheChallengerWithdrawsAChallengeByResigningItAndTheChallengedPlayerIsTold) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(carol->follow_turns().has_ok());
  const std::string id = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(in_my_games(*bob, id));
  ASSERT_TRUE(resign(*alice, id).has_ok());
  EXPECT_EQ(summary_in_my_games(*alice, id).result(), "Cancelled");
  EXPECT_FALSE(in_my_games(*bob, id)) << "no longer waits for bob";
  EXPECT_EQ(bob->join(id).error().code(), wire::CONFLICT);
  EXPECT_EQ(decline(*bob, id).error().code(), wire::CONFLICT);

  auto told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told) << "the challenged player is told it no longer waits";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), id);
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "withdrawn by its maker");
  EXPECT_EQ(told->challenge_withdrawn().of_game_id(), "") << "a challenge, not a rematch";
  ASSERT_TRUE(carol->ping().has_pong());
  EXPECT_TRUE(carol->take_all(is_withdrawal).empty()) << "nobody else hears of it";

  // Declined, it is over for bob: nothing more comes of it.
  const std::string next = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(decline(*bob, next).has_ok());
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all(is_withdrawal).empty()) << "his own decline is not told back to him";
}

// The challenged player with the challenge open reads its withdrawal before its
// end, as protocol/README.md promises, so that a client can tell the two as one.
TEST_F(ServerChallenge, AChallengesPlayerWatchingItIsToldItIsWithdrawnBeforeItEnds) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(carol->follow_turns().has_ok());
  const std::string withdrawn = challenge(*alice, "bob"), cancelled = challenge(*alice, "carol");
  ASSERT_FALSE(HasFailure());

  // By its maker, and by the operator.
  struct Case {
    Client& player;
    std::string id;
    std::function<void()> end;
  };
  for (const auto& [player, id, end] : std::vector<Case>{
           {*bob, withdrawn, [&] { ASSERT_TRUE(resign(*alice, withdrawn).has_ok()); }},
           {*carol, cancelled,
            [&] { ASSERT_EQ(operator_command("--end-game " + cancelled + " --reason 'Test game.'").status, 0); }},
       }) {
    SCOPED_TRACE(id);
    ASSERT_FALSE(player.watch(id).has_error()) << "the player it waits for may watch it";
    ASSERT_NO_FATAL_FAILURE(end());
    const auto either = [&](const wire::ServerMessage& m) {
      return (m.has_challenge_withdrawn() && m.challenge_withdrawn().game_id() == id) ||
             (m.has_game_ended() && m.game_ended().game_id() == id);
    };
    const auto first = player.wait_for(either);
    ASSERT_TRUE(first) << "told at all";
    EXPECT_TRUE(first->has_challenge_withdrawn()) << "the withdrawal first: " << first->DebugString();
    const auto second = player.wait_for(either);
    ASSERT_TRUE(second) << "and its end, which the watch gets";
    EXPECT_TRUE(second->has_game_ended()) << second->DebugString();
  }
}

TEST_F(ServerChallenge, AChallengeFromAMutedPlayerIsWithdrawnAsQuietlyAsItCame) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  wire::ClientMessage mute;
  mute.mutable_mute()->set_name("alice");
  ASSERT_TRUE(bob->request(mute).has_muted_players());
  const std::string quiet = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(resign(*alice, quiet).has_ok());
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all([](const wire::ServerMessage& x) { return x.has_challenge_offered() || x.has_challenge_withdrawn(); })
                  .empty())
      << "told neither of the challenge nor of its end";

  // Nor after a restart, which reads the challenge back from the database, even once he
  // has unmuted her: it was made quietly, and that is stored with it.
  const std::string again = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  wire::ClientMessage unmute;
  unmute.mutable_unmute()->set_name("alice");
  ASSERT_TRUE(bob->request(unmute).has_muted_players());
  ASSERT_TRUE(resign(*alice, again).has_ok());
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all(is_withdrawal).empty());

  // One he was told of is withdrawn aloud after a restart too.
  auto carol = user("carol");
  ASSERT_TRUE(carol->follow_turns().has_ok());
  const std::string told_of = challenge(*alice, "carol");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(carol->wait_for([](const wire::ServerMessage& x) { return x.has_challenge_offered(); }));
  restart();
  alice = login_as("alice");
  carol = login_as("carol");
  ASSERT_TRUE(carol->follow_turns().has_ok());
  ASSERT_TRUE(resign(*alice, told_of).has_ok());
  auto told = carol->wait_for(is_withdrawal);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->challenge_withdrawn().game_id(), told_of);
}

TEST_F(ServerChallenge, AnUnansweredChallengeLapsesLikeAnyOpenGame) {
  restart({}, "open_game_expiry_seconds = 2\n");
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  const std::string id = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());
  EXPECT_GT(summary_in_my_games(*bob, id).expires_unix(), 0) << "he sees until when it waits";
  wire::GameSummary s;
  for (int i = 0; i < 100; ++i) {
    s = summary_in_my_games(*alice, id);
    if (s.status() == "finished") break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(s.result(), "Cancelled");
  EXPECT_EQ(s.result_reason(), "bob did not answer the challenge within 2 seconds: the server withdrew it.");
  // Told once the end is stored, which his games then show.
  auto told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told) << "the challenged player is told it lapsed";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), id);
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "lapsed unanswered");
  EXPECT_FALSE(in_my_games(*bob, id));
  EXPECT_EQ(bob->join(id).error().code(), wire::CONFLICT);
}

// Whether `id` leaves `c`'s games within about ten seconds: the server reads the
// operator's requests and the suspensions every two seconds.
bool leaves_my_games(Client& c, const std::string& id) {
  for (int i = 0; i < 200; ++i) {
    if (!in_my_games(c, id)) return true;
    std::this_thread::sleep_for(50ms);
  }
  return !in_my_games(c, id);
}

// A challenge that ends because its maker is suspended, or because the operator
// ends it, no longer waits either: its player is told why, unless it came quietly.
TEST_F(ServerChallenge, AChallengeEndedByItsMakersSuspensionOrTheOperatorIsToldUnlessItCameQuietly) {
  auto alice = user("alice"), bob = user("bob"), dave = user("dave"), erin = user("erin"), frank = user("frank");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(dave->follow_turns().has_ok());
  for (const char* muted : {"erin", "frank"}) {
    wire::ClientMessage mute;
    mute.mutable_mute()->set_name(muted);
    ASSERT_TRUE(bob->request(mute).has_muted_players());
  }
  const std::string quiet_suspended = challenge(*erin, "bob"), quiet_ended = challenge(*frank, "bob");
  const std::string suspended = challenge(*alice, "bob"), ended = challenge(*dave, "bob");
  ASSERT_FALSE(HasFailure());

  // The quiet ones end first: anything said of them would come before what follows.
  ASSERT_EQ(operator_command("--suspend erin --days 3 --reason 'Several accounts.'").status, 0);
  ASSERT_EQ(operator_command("--end-game " + quiet_ended + " --reason 'Test game.'").status, 0);
  ASSERT_TRUE(leaves_my_games(*bob, quiet_suspended));
  ASSERT_TRUE(leaves_my_games(*bob, quiet_ended));

  ASSERT_EQ(operator_command("--suspend alice --days 3 --reason 'Several accounts.'").status, 0);
  auto told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told) << "the challenged player is told it no longer waits";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), suspended) << "nothing of the quiet ones";
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "its maker's account is suspended");

  ASSERT_EQ(operator_command("--end-game " + ended + " --reason 'Test game.'").status, 0);
  told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->challenge_withdrawn().game_id(), ended);
  EXPECT_EQ(told->challenge_withdrawn().by(), "dave");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "cancelled by the server's operator: Test game.") << "in the operator's words";
  EXPECT_EQ(summary_in_my_games(*dave, ended).result_reason(), "Cancelled by the server's operator: Test game.");
  const auto maker_told = dave->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == ended; });
  ASSERT_TRUE(maker_told) << "its maker, following turns, is told it is over";
  EXPECT_EQ(maker_told->game_ended().reason(), "Cancelled by the server's operator: Test game.");
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all(is_withdrawal).empty()) << "each told once";
}

// A challenge whose stored log cannot be read, ended by the operator in its row
// alone, is told to its player as any other, unless it came quietly, and to its
// maker as the end of any game of theirs.
TEST_F(ServerChallenge, AChallengeThatCannotBeLoadedEndedByTheOperatorIsToldToItsMakerAndUnlessItCameQuietlyToItsPlayer) {
  auto alice = user("alice"), bob = user("bob"), frank = user("frank");
  wire::ClientMessage mute;
  mute.mutable_mute()->set_name("frank");
  ASSERT_TRUE(bob->request(mute).has_muted_players());
  const std::string quiet = challenge(*frank, "bob"), told_of = challenge(*alice, "bob");
  ASSERT_FALSE(HasFailure());
  alice.reset();
  bob.reset();
  frank.reset();
  ASSERT_NO_FATAL_FAILURE(make_unloadable({quiet, told_of}));
  bob = login_as("bob");
  ASSERT_TRUE(bob);
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(in_my_games(*bob, quiet));
  alice = login_as("alice");
  frank = login_as("frank");
  ASSERT_TRUE(alice && frank);
  ASSERT_TRUE(alice->follow_turns().has_ok());
  ASSERT_TRUE(frank->follow_turns().has_ok());
  const auto end_of = [](const std::string& id) {
    return [id](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == id; };
  };

  // The quiet one ends first: anything said of it would come before what follows.
  ASSERT_EQ(operator_command("--end-game " + quiet + " --reason 'Abandoned.'").status, 0);
  ASSERT_TRUE(leaves_my_games(*bob, quiet));
  const auto quiet_end = frank->wait_for(end_of(quiet));
  ASSERT_TRUE(quiet_end) << "its maker is told, quiet or not";
  EXPECT_EQ(quiet_end->game_ended().reason(), "Cancelled by the server's operator: Abandoned.");
  ASSERT_EQ(operator_command("--end-game " + told_of + " --reason 'Abandoned.'").status, 0);
  const auto maker_told = alice->wait_for(end_of(told_of));
  ASSERT_TRUE(maker_told) << "its maker is told it is over";
  EXPECT_EQ(maker_told->game_ended().result(), "Cancelled");
  EXPECT_EQ(maker_told->game_ended().reason(), "Cancelled by the server's operator: Abandoned.") << "in the operator's words";
  EXPECT_TRUE(maker_told->game_ended().seed_hex().empty());
  const auto told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told) << "the challenged player is told it no longer waits";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), told_of) << "nothing of the quiet one";
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "cancelled by the server's operator: Abandoned.");
  EXPECT_TRUE(told->challenge_withdrawn().of_game_id().empty());
  EXPECT_FALSE(in_my_games(*bob, told_of));
  std::this_thread::sleep_for(4500ms);  // two more polls
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all(is_withdrawal).empty()) << "told once";
  EXPECT_TRUE(bob->take_all([](const wire::ServerMessage& m) { return m.has_game_ended(); }).empty())
      << "the challenged player is told by the withdrawal alone";
  for (auto* maker : {alice.get(), frank.get()}) {
    ASSERT_TRUE(maker->ping().has_pong());
    EXPECT_TRUE(maker->take_all(end_of(told_of)).empty() && maker->take_all(end_of(quiet)).empty()) << "told once";
    EXPECT_TRUE(maker->take_all(is_withdrawal).empty()) << "a maker is not told its own offer no longer waits";
  }
}

TEST_F(ServerChallenge, ChallengesThatCannotBeMadeAreRefusedWithASentenceAndStoreNothing) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave"), erin = user("erin");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  wire::ClientMessage close;
  close.mutable_close_account()->set_password("correct horse");
  ASSERT_TRUE(dave->request(close).has_ok());
  ASSERT_EQ(operator_command("--suspend erin --days 7 --reason 'Several accounts.'").status, 0);
  wire::ClientMessage mute;
  mute.mutable_mute()->set_name("alice");
  ASSERT_TRUE(bob->request(mute).has_muted_players());

  struct Refusal {
    std::string name;
    wire::ErrorCode code;
    std::string said;
  };
  for (const auto& r : std::vector<Refusal>{
           {"alice", wire::BAD_REQUEST, "You cannot challenge yourself."},
           {"nobody", wire::NOT_FOUND, "There is no player 'nobody'."},
           {"dave", wire::CONFLICT, "dave has closed their account: they cannot be challenged."},
           {"erin", wire::CONFLICT, "erin's account is suspended: they cannot be challenged."},
       }) {
    const auto refused = alice->request(challenge_to(r.name));
    EXPECT_EQ(refused.error().code(), r.code) << r.name << ": " << refused.DebugString();
    EXPECT_EQ(refused.error().message(), r.said) << r.name;
  }
  EXPECT_TRUE(my_games(*alice).game_list().games().empty()) << "nothing stored";

  // A player who muted the challenger: the challenge is made as any other, so that
  // the challenger cannot tell, but its player is neither pushed it nor mailed.
  const auto quiet = challenge(*alice, "bob");
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all([](const wire::ServerMessage& x) { return x.has_challenge_offered(); }).empty())
      << "a player who muted the challenger is not told";
  EXPECT_TRUE(in_my_games(*bob, quiet)) << "yet finds it in his games, to join or decline";

  // One challenge at a time to a player, and after a decline none for a day.
  const auto again = alice->request(challenge_to("bob"));
  EXPECT_EQ(again.error().code(), wire::CONFLICT) << again.DebugString();
  EXPECT_EQ(again.error().message(), "Your challenge to bob (" + quiet + ") is still waiting for an answer.");
  ASSERT_TRUE(decline(*bob, quiet).has_ok());
  const auto after_decline = alice->request(challenge_to("bob"));
  EXPECT_EQ(after_decline.error().code(), wire::CONFLICT) << after_decline.DebugString();
  EXPECT_EQ(after_decline.error().message().rfind("bob declined your challenge less than a day ago: you may challenge them again from ", 0), 0u)
      << after_decline.error().message();

  // At most 10 challenges wait for an answer; one withdrawn makes room.
  std::vector<std::string> made;
  for (int i = 0; i < 10; ++i) {
    const auto name = "player" + std::to_string(i);
    user(name);
    made.push_back(challenge(*alice, name));
  }
  ASSERT_FALSE(HasFailure());
  const auto eleventh = alice->request(challenge_to("carol"));
  EXPECT_EQ(eleventh.error().code(), wire::CONFLICT) << eleventh.DebugString();
  EXPECT_EQ(eleventh.error().message(), "You have 10 challenges waiting for an answer: withdraw one (Resign) first.");
  EXPECT_TRUE(my_games(*carol).game_list().games().empty());
  EXPECT_TRUE(alice->create_game(wire::CHOOSE_SOVIET).has_game_created()) << "an open game is not a challenge";
  ASSERT_TRUE(resign(*alice, made.front()).has_ok());
  EXPECT_TRUE(alice->request(challenge_to("carol")).has_game_created());
}

TEST_F(ServerChallenge, OnlyChallengesMadeCountAgainstTheHourlyLimitOf30) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave"), erin = user("erin");
  ASSERT_FALSE(challenge(*alice, "bob").empty());  // made: 1
  const std::string declined = challenge(*alice, "carol");  // made: 2
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(decline(*carol, declined).has_ok());
  // 30 refused: to a player her challenge waits for, to one who declined hers today, on
  // terms the server refuses, to herself, to nobody.
  for (int i = 0; i < 30; ++i) {
    wire::ClientMessage m = challenge_to(i % 5 == 0 ? "bob" : i % 5 == 1 ? "carol" : i % 5 == 2 ? "dave" : i % 5 == 3 ? "alice" : "nobody");
    if (i % 5 == 2) m.mutable_create_game()->add_options("no_such_rule");
    const auto refused = alice->request(m);
    ASSERT_TRUE(refused.has_error()) << i << ": " << refused.DebugString();
    EXPECT_NE(refused.error().code(), wire::RATE_LIMITED) << i << ": " << refused.error().message();
  }
  const auto made = alice->request(challenge_to("dave"));  // made: 3
  ASSERT_TRUE(made.has_game_created()) << "30 refused attempts use up nothing: " << made.DebugString();

  // Those made count: 27 more, each withdrawn to make room, reach the limit.
  for (int i = 0; i < 27; ++i) {
    const auto another = alice->request(challenge_to("erin"));
    ASSERT_TRUE(another.has_game_created()) << i << ": " << another.DebugString();
    ASSERT_TRUE(resign(*alice, another.game_created().game().game_id()).has_ok());
  }
  const auto limited = alice->request(challenge_to("erin"));
  EXPECT_EQ(limited.error().code(), wire::RATE_LIMITED) << limited.DebugString();
  EXPECT_EQ(limited.error().message(), "You have challenged players too often; wait an hour.");
}

}  // namespace
}  // namespace counterattack::server::testing
