// Rematches: after a game, either player offers another on the same terms with
// the sides swapped. It is kept for the opponent alone, who is told at once and
// accepts by asking for the rematch too, or declines it. One rematch per game;
// one withdrawn may be offered again, one declined may not.
#include <thread>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerRematch : public ServerTest {};

wire::ServerMessage ask_rematch(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_rematch()->set_game_id(game_id);
  return c.request(m);
}

// A game of alice's (Soviet) against bob, with a game clock, ended by bob's resignation.
std::string finished_game(Client& alice, Client& bob) {
  wire::ClientMessage create;
  create.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  create.mutable_create_game()->set_clock_seconds(900);
  create.mutable_create_game()->set_increment_seconds(10);
  create.mutable_create_game()->add_options("limited_bonus");
  create.mutable_create_game()->set_casual(true);
  const auto made = alice.request(create);
  EXPECT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  EXPECT_TRUE(bob.join(id).has_game());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  EXPECT_FALSE(bob.request(resign).has_error());
  return id;
}

TEST_F(ServerRematch, ARematchSwapsTheSidesKeepsTheTermsAndWaitsForTheOpponentAlone) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());

  EXPECT_EQ(ask_rematch(*carol, old).error().code(), wire::FORBIDDEN) << "not a player of it";
  EXPECT_EQ(ask_rematch(*alice, "nosuchgame").error().code(), wire::NOT_FOUND);
  auto offered = ask_rematch(*alice, old);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const auto& g = offered.game_created().game();
  const std::string id = g.game_id();
  EXPECT_NE(id, old);
  EXPECT_EQ(g.status(), "open");
  EXPECT_EQ(g.your_side(), "german") << "the sides swapped";
  EXPECT_EQ(g.german(), "alice");
  EXPECT_EQ(g.clock_seconds(), 900);
  EXPECT_EQ(g.increment_seconds(), 10);
  ASSERT_EQ(g.options_size(), 1);
  EXPECT_EQ(g.options(0), "limited_bonus");
  EXPECT_FALSE(g.rated()) << "casual, as the game it follows";
  EXPECT_EQ(g.rematch_of(), old);
  EXPECT_EQ(g.reserved_for(), "bob");

  auto told = bob->wait_for([](const wire::ServerMessage& m) { return m.has_rematch_offered(); });
  ASSERT_TRUE(told) << "the opponent is told";
  EXPECT_EQ(told->rematch_offered().by(), "alice");
  EXPECT_EQ(told->rematch_offered().of_game_id(), old);
  EXPECT_EQ(told->rematch_offered().game().game_id(), id);
  EXPECT_EQ(told->rematch_offered().game().your_side(), "soviet");
  const auto mine = summary_in_my_games(*bob, id);
  EXPECT_EQ(mine.your_side(), "soviet") << "among bob's games, with the side he would play";
  EXPECT_EQ(mine.reserved_for(), "bob");

  wire::ClientMessage list;
  list.mutable_list_games();
  const auto listed = carol->request(list);
  for (const auto& open : listed.game_list().games()) EXPECT_NE(open.game_id(), id) << "not listed as open";
  EXPECT_EQ(carol->join(id).error().code(), wire::FORBIDDEN) << "kept for bob";
  EXPECT_EQ(ask_rematch(*alice, old).error().code(), wire::CONFLICT) << "offered already";

  // Bob accepts by asking for the rematch himself, after a restart: it is found again.
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  auto accepted = ask_rematch(*bob, old);
  ASSERT_TRUE(accepted.has_game()) << accepted.DebugString();
  EXPECT_EQ(accepted.game().game_id(), id);
  EXPECT_EQ(accepted.game().status(), "playing");
  EXPECT_EQ(accepted.game().soviet(), "bob");
  EXPECT_EQ(accepted.game().reserved_for(), "") << "no longer open";
  EXPECT_GT(accepted.game().deadline_unix(), 0) << "the clock runs";
  EXPECT_EQ(ask_rematch(*alice, old).error().code(), wire::CONFLICT) << "one rematch per game";
  EXPECT_EQ(ask_rematch(*alice, id).error().code(), wire::CONFLICT) << "the rematch itself is not over";
}

// Once accepted, a rematch is a game under way like any other: joining it says so, not
// that it is kept for a player who has it already.
TEST_F(ServerRematch, JoiningAnAcceptedRematchSaysItHasStarted) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  auto offered = ask_rematch(*alice, old);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string id = offered.game_created().game().game_id();
  const auto kept = carol->join(id);
  EXPECT_EQ(kept.error().code(), wire::FORBIDDEN) << "while open, it is kept for bob";
  EXPECT_EQ(kept.error().message(), "This game is a rematch kept for bob.");
  ASSERT_TRUE(ask_rematch(*bob, old).has_game()) << "accepted";
  const auto started = carol->join(id);
  EXPECT_EQ(started.error().code(), wire::CONFLICT) << started.DebugString();
  EXPECT_EQ(started.error().message(), "The game has already started: it can be watched, not joined.");
  EXPECT_EQ(alice->join(id).error().message(), "You are already in this game.");
  const auto watched = carol->watch(id);
  EXPECT_TRUE(watched.has_game()) << "it can be watched: " << watched.DebugString();
}

TEST_F(ServerRematch, AWithdrawnRematchIsToldToTheOpponentAndMayBeOfferedAgainByEitherPlayer) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  auto first = ask_rematch(*alice, old);
  ASSERT_TRUE(first.has_game_created()) << first.DebugString();
  ASSERT_TRUE(bob->wait_for([](const wire::ServerMessage& m) { return m.has_rematch_offered(); }));
  wire::ClientMessage withdraw;
  withdraw.mutable_resign()->set_game_id(first.game_created().game().game_id());
  ASSERT_FALSE(alice->request(withdraw).has_error());
  auto told = bob->wait_for([](const wire::ServerMessage& m) { return m.has_challenge_withdrawn(); });
  ASSERT_TRUE(told) << "told as the offer was";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), first.game_created().game().game_id());
  EXPECT_EQ(told->challenge_withdrawn().of_game_id(), old);
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "withdrawn by its maker");
  auto second = ask_rematch(*bob, old);
  ASSERT_TRUE(second.has_game_created()) << second.DebugString();
  EXPECT_NE(second.game_created().game().game_id(), first.game_created().game().game_id());
  EXPECT_EQ(second.game_created().game().your_side(), "soviet") << "bob was German";
  EXPECT_EQ(second.game_created().game().reserved_for(), "alice");
  auto accepted = ask_rematch(*alice, old);
  ASSERT_TRUE(accepted.has_game()) << accepted.DebugString();
  EXPECT_EQ(accepted.game().status(), "playing");
}

// A rematch that ends because its maker is suspended, or because the operator
// ends it, is told to the player it waited for as a challenge is, naming the game it follows.
TEST_F(ServerRematch, ARematchEndedByItsMakersSuspensionOrTheOperatorIsToldWithTheGameItFollows) {
  auto alice = user("alice"), bob = user("bob"), dave = user("dave");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  const std::string first = finished_game(*alice, *bob), second = finished_game(*dave, *bob);
  ASSERT_FALSE(HasFailure());
  const auto by_alice = ask_rematch(*alice, first), by_dave = ask_rematch(*dave, second);
  ASSERT_TRUE(by_alice.has_game_created()) << by_alice.DebugString();
  ASSERT_TRUE(by_dave.has_game_created()) << by_dave.DebugString();
  const auto is_withdrawal = [](const wire::ServerMessage& m) { return m.has_challenge_withdrawn(); };

  ASSERT_EQ(operator_command("--suspend alice --days 3 --reason 'Several accounts.'").status, 0);
  auto told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told) << "the player it waited for is told it no longer waits";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), by_alice.game_created().game().game_id());
  EXPECT_EQ(told->challenge_withdrawn().of_game_id(), first);
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "its maker's account is suspended");

  const std::string ended = by_dave.game_created().game().game_id();
  ASSERT_EQ(operator_command("--end-game " + ended + " --reason 'Test game.'").status, 0);
  told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->challenge_withdrawn().game_id(), ended);
  EXPECT_EQ(told->challenge_withdrawn().of_game_id(), second);
  EXPECT_EQ(told->challenge_withdrawn().by(), "dave");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "cancelled by the server's operator: Test game.") << "in the operator's words";
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all(is_withdrawal).empty()) << "each told once";
}

// A rematch whose stored log cannot be read, ended by the operator in its row
// alone, is told to the player it waited for, and to its maker, as one that can be.
TEST_F(ServerRematch, ARematchThatCannotBeLoadedEndedByTheOperatorIsToldWithTheGameItFollowsAndToItsMaker) {
  auto alice = user("alice"), bob = user("bob");
  const std::string first = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  const auto offered = ask_rematch(*alice, first);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string broken = offered.game_created().game().game_id();
  alice.reset();
  bob.reset();
  ASSERT_NO_FATAL_FAILURE(make_unloadable({broken}));
  bob = login_as("bob");
  ASSERT_TRUE(bob);
  ASSERT_TRUE(bob->follow_turns().has_ok());
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  ASSERT_TRUE(alice->follow_turns().has_ok());
  ASSERT_EQ(operator_command("--end-game " + broken + " --reason 'Abandoned.'").status, 0);
  const auto maker_told =
      alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == broken; });
  ASSERT_TRUE(maker_told) << "its maker is told it is over";
  EXPECT_EQ(maker_told->game_ended().result(), "Cancelled");
  EXPECT_EQ(maker_told->game_ended().reason(), "Cancelled by the server's operator: Abandoned.");
  const auto is_withdrawal = [](const wire::ServerMessage& m) { return m.has_challenge_withdrawn(); };
  const auto told = bob->wait_for(is_withdrawal);
  ASSERT_TRUE(told) << "the player it waited for is told it no longer waits";
  EXPECT_EQ(told->challenge_withdrawn().game_id(), broken);
  EXPECT_EQ(told->challenge_withdrawn().of_game_id(), first);
  EXPECT_EQ(told->challenge_withdrawn().by(), "alice");
  EXPECT_EQ(told->challenge_withdrawn().reason(), "cancelled by the server's operator: Abandoned.");
  std::this_thread::sleep_for(4500ms);  // two more polls
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all(is_withdrawal).empty()) << "told once";
  EXPECT_TRUE(bob->take_all([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == broken; })
                  .empty())
      << "the player it waited for never sat in it: told its withdrawal alone";
}

TEST_F(ServerRematch, OfferingAndWithdrawingOverAndOverCannotFloodTheOpponent) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  int offers = 0;
  wire::ServerMessage refused;
  for (int i = 0; i < 100; ++i) {
    auto offered = ask_rematch(*alice, old);
    if (!offered.has_game_created()) {
      refused = offered;
      break;
    }
    ++offers;
    wire::ClientMessage withdraw;
    withdraw.mutable_resign()->set_game_id(offered.game_created().game().game_id());
    ASSERT_FALSE(alice->request(withdraw).has_error());
  }
  EXPECT_EQ(offers, 10);
  EXPECT_EQ(refused.error().code(), wire::RATE_LIMITED) << refused.DebugString();
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_EQ(bob->take_all([](const wire::ServerMessage& m) { return m.has_rematch_offered(); }).size(), 10u);

  // The opponent may still offer one, and it may be accepted.
  auto theirs = ask_rematch(*bob, old);
  ASSERT_TRUE(theirs.has_game_created()) << theirs.DebugString();
  auto accepted = ask_rematch(*alice, old);
  ASSERT_TRUE(accepted.has_game()) << accepted.DebugString();
  EXPECT_EQ(accepted.game().status(), "playing");
}

// A private game of alice's (Soviet) that bob joined with its code and resigned.
std::string finished_private_game(Client& alice, Client& bob) {
  auto made = alice.create_game(wire::CHOOSE_SOVIET, true);
  EXPECT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  EXPECT_TRUE(bob.join(id, made.game_created().invite_code()).has_game());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  EXPECT_FALSE(bob.request(resign).has_error());
  return id;
}

wire::ServerMessage decline_rematch(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_rematch()->set_game_id(game_id);
  m.mutable_rematch()->set_decline(true);
  return c.request(m);
}

TEST_F(ServerRematch, TheOpponentMayDeclineARematchItsMakerIsToldAndItIsNotOfferedAgain) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(decline_rematch(*bob, old).error().code(), wire::CONFLICT) << "nothing offered yet";
  auto offered = ask_rematch(*alice, old);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string id = offered.game_created().game().game_id();
  EXPECT_EQ(decline_rematch(*carol, old).error().code(), wire::FORBIDDEN) << "not a player of it";
  EXPECT_EQ(decline_rematch(*alice, old).error().code(), wire::CONFLICT) << "her own offer is withdrawn, not declined";

  auto declined = decline_rematch(*bob, old);
  ASSERT_TRUE(declined.has_ok()) << declined.DebugString();
  auto told = alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == id; });
  ASSERT_TRUE(told) << "the one who offered it is told";
  EXPECT_EQ(told->game_ended().result(), "Declined");
  EXPECT_EQ(told->game_ended().reason(), "bob declined the rematch.");
  EXPECT_EQ(summary_in_my_games(*alice, id).status(), "finished");
  wire::ClientMessage mine;
  mine.mutable_my_games();
  const auto bobs = bob->request(mine);
  for (const auto& g : bobs.game_list().games()) EXPECT_NE(g.game_id(), id) << "gone from bob's games";
  EXPECT_EQ(bob->join(id).error().code(), wire::CONFLICT) << "over";

  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  for (Client* asker : {alice.get(), bob.get()}) {
    const auto again = ask_rematch(*asker, old);
    EXPECT_EQ(again.error().code(), wire::CONFLICT) << "a declined rematch is final";
    EXPECT_NE(again.error().message().find("declined"), std::string::npos) << again.DebugString();
  }
  EXPECT_EQ(decline_rematch(*bob, old).error().code(), wire::CONFLICT) << "declined once";
}

wire::ServerMessage close_account(Client& c) {
  wire::ClientMessage m;
  m.mutable_close_account()->set_password("correct horse");
  return c.request(m);
}

// An offer kept for a player who leaves for good would wait for nobody, and count
// against its maker's open games: it ends as declined, and its maker is told.
TEST_F(ServerRematch, ARematchOfferedToAPlayerWhoThenClosesTheirAccountIsDeclined) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  auto offered = ask_rematch(*alice, old);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string id = offered.game_created().game().game_id();

  ASSERT_TRUE(close_account(*bob).has_ok()) << "an offer kept for him is not his to finish";
  auto told = alice->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == id; });
  ASSERT_TRUE(told) << "the one who offered it is told";
  EXPECT_EQ(told->game_ended().result(), "Declined");
  EXPECT_EQ(told->game_ended().reason(), "bob closed their account.");
  EXPECT_EQ(summary_in_my_games(*alice, id).status(), "finished");
  const auto again = ask_rematch(*alice, old);
  EXPECT_EQ(again.error().code(), wire::CONFLICT) << again.DebugString();
}

TEST_F(ServerRematch, NoRematchIsOfferedToAPlayerWhoHasClosedTheirAccount) {
  auto alice = user("alice"), bob = user("bob");
  const std::string old = finished_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(close_account(*bob).has_ok());
  for (int i = 0; i < 2; ++i) {  // refused before anything is kept: the second answer is the same
    const auto refused = ask_rematch(*alice, old);
    ASSERT_EQ(refused.error().code(), wire::CONFLICT) << refused.DebugString();
    EXPECT_NE(refused.error().message().find("bob has closed their account"), std::string::npos) << refused.DebugString();
  }
  wire::ClientMessage mine;
  mine.mutable_my_games();
  const auto hers = alice->request(mine);
  for (const auto& g : hers.game_list().games()) EXPECT_NE(g.status(), "open") << g.DebugString();
}

TEST_F(ServerRematch, APrivateGamesRematchIsJoinedWithoutItsCodeAndOneRefusedLeavesNothingBehind) {
  auto alice = user("alice"), bob = user("bob");
  const std::string old = finished_private_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  auto offered = ask_rematch(*bob, old);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  EXPECT_TRUE(offered.game_created().game().private_());
  auto joined = alice->join(offered.game_created().game().game_id());  // no invite code: it is kept for her
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_EQ(joined.game().status(), "playing");

  // A game whose terms the server no longer allows gets no rematch, and asking
  // again is refused for the same reason, not as one being made.
  wire::ClientMessage timed;
  timed.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  timed.mutable_create_game()->set_move_seconds(3600);
  auto second = alice->request(timed);
  ASSERT_TRUE(second.has_game_created()) << second.DebugString();
  const std::string strict = second.game_created().game().game_id();
  ASSERT_TRUE(bob->join(strict).has_game());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(strict);
  ASSERT_FALSE(bob->request(resign).has_error());
  restart({}, "min_move_seconds = 7200\n");
  alice = login_as("alice");
  for (int i = 0; i < 2; ++i) EXPECT_EQ(ask_rematch(*alice, strict).error().code(), wire::BAD_REQUEST) << i;
}

TEST_F(ServerRematch, AStrangerWithAPrivateRematchsIdLearnsNotWhomItIsKeptFor) {
  auto alice = user("alice"), bob = user("bob"), mallory = user("mallory");
  const std::string old = finished_private_game(*alice, *bob);
  ASSERT_FALSE(HasFailure());
  auto offered = ask_rematch(*alice, old);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string id = offered.game_created().game().game_id();

  // Refused as any private game is without its code, naming nobody.
  const auto refused = mallory->join(id);
  EXPECT_EQ(refused.error().code(), wire::FORBIDDEN) << refused.DebugString();
  EXPECT_EQ(refused.error().message().find("bob"), std::string::npos) << refused.error().message();
  EXPECT_EQ(mallory->join(id, offered.game_created().invite_code()).error().code(), wire::FORBIDDEN)
      << "kept for bob, code or not";
  EXPECT_TRUE(bob->join(id).has_game());
}

}  // namespace
}  // namespace counterattack::server::testing
