// Chat moderation: a player mutes another (their chat is no longer delivered to
// the muter, who alone knows), reports a player's chat in a game to the
// operator (stored with the lines the reporter could read), and the operator
// bars a player from chat with `counterattackd --chat-ban`, run beside the server.
#include <functional>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerChatModeration : public ServerTest {
 protected:
  static wire::ClientMessage chat(const std::string& id, wire::Channel ch, const std::string& text) {
    wire::ClientMessage m;
    m.mutable_send_chat()->set_game_id(id);
    m.mutable_send_chat()->set_channel(ch);
    m.mutable_send_chat()->set_text(text);
    return m;
  }
  static wire::ClientMessage mute(const std::string& name, bool on = true) {
    wire::ClientMessage m;
    if (on) {
      m.mutable_mute()->set_name(name);
    } else {
      m.mutable_unmute()->set_name(name);
    }
    return m;
  }
  static std::vector<std::string> muted(Client& c) {
    wire::ClientMessage m;
    m.mutable_list_muted();
    const auto r = c.request(m);
    EXPECT_TRUE(r.has_muted_players()) << r.DebugString();
    return {r.muted_players().names().begin(), r.muted_players().names().end()};
  }
  static wire::ClientMessage report(const std::string& name, const std::string& game_id, const std::string& reason) {
    wire::ClientMessage m;
    m.mutable_report_chat()->set_name(name);
    m.mutable_report_chat()->set_game_id(game_id);
    m.mutable_report_chat()->set_reason(reason);
    return m;
  }
  // Whether `c` has received the chat line `text` (everything sent to it before now).
  static bool has_chat(Client& c, const std::string& text) {
    EXPECT_TRUE(c.ping().has_pong());
    return !c.take_all([&](const wire::ServerMessage& m) { return m.has_chat() && m.chat().text() == text; }).empty();
  }
};

TEST_F(ServerChatModeration, AMutedPlayersChatNeverReachesTheMuterLiveOrInHistoryButReachesOthers) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve"), carol = user("carol"), dave = user("dave");
  const std::string id = start_game(*alice, *bob);
  for (auto* c : {alice.get(), bob.get(), eve.get(), carol.get(), dave.get()}) ASSERT_TRUE(c->watch(id).has_game());

  // Any case names the player; the list gives the name as registered.
  const auto muting = alice->request(mute("BOB"));
  ASSERT_TRUE(muting.has_muted_players()) << muting.DebugString();
  EXPECT_EQ(muting.muted_players().name(), "bob");
  EXPECT_EQ(muted(*alice), std::vector<std::string>{"bob"});
  ASSERT_TRUE(carol->request(mute("eve")).has_muted_players());

  // The writers are answered as ever: nothing tells them.
  EXPECT_TRUE(bob->request(chat(id, wire::PLAYERS, "you will lose")).has_ok());
  EXPECT_TRUE(eve->request(chat(id, wire::SPECTATORS, "spectating eve")).has_ok());
  EXPECT_TRUE(alice->request(chat(id, wire::PLAYERS, "from alice")).has_ok());
  EXPECT_FALSE(has_chat(*alice, "you will lose"));
  EXPECT_TRUE(has_chat(*bob, "you will lose")) << "the writer's own connection";
  EXPECT_TRUE(has_chat(*bob, "from alice")) << "the muter's chat still reaches the one she muted";
  EXPECT_FALSE(has_chat(*carol, "spectating eve"));
  EXPECT_TRUE(has_chat(*dave, "spectating eve")) << "others read the muted player";

  // The chat sent with the game: on another connection, and after a restart.
  auto alice_again = login_as("alice");
  ASSERT_TRUE(alice_again->watch(id).has_game());
  EXPECT_TRUE(has_chat(*alice_again, "from alice"));
  EXPECT_FALSE(has_chat(*alice_again, "you will lose"));
  alice.reset();
  alice_again.reset();
  bob.reset();
  eve.reset();
  carol.reset();
  dave.reset();
  restart();
  alice = login_as("alice");
  carol = login_as("carol");
  dave = login_as("dave");
  EXPECT_EQ(muted(*alice), std::vector<std::string>{"bob"}) << "stored with the account";
  ASSERT_TRUE(alice->watch(id).has_game());
  ASSERT_TRUE(carol->watch(id).has_game());
  ASSERT_TRUE(dave->watch(id).has_game());
  EXPECT_TRUE(has_chat(*alice, "from alice"));
  EXPECT_FALSE(has_chat(*alice, "you will lose"));
  EXPECT_FALSE(has_chat(*carol, "spectating eve"));
  EXPECT_TRUE(has_chat(*dave, "spectating eve"));

  // Unmuted, bob's lines come again, those kept with the game among them.
  const auto unmuting = alice->request(mute("bob", false));
  ASSERT_TRUE(unmuting.has_muted_players()) << unmuting.DebugString();
  EXPECT_TRUE(unmuting.muted_players().names().empty());
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  ASSERT_TRUE(alice->request(unwatch).has_ok());
  ASSERT_TRUE(alice->watch(id).has_game());
  EXPECT_TRUE(has_chat(*alice, "you will lose"));
  bob = login_as("bob");
  ASSERT_TRUE(bob->watch(id).has_game());
  EXPECT_TRUE(bob->request(chat(id, wire::PLAYERS, "heard again")).has_ok());
  EXPECT_TRUE(has_chat(*alice, "heard again"));
}

TEST_F(ServerChatModeration, MutingYourselfAnUnknownNameOrTooManyIsRefusedAndChangesNothing) {
  auto alice = user("alice"), bob = user("bob");
  const auto self = alice->request(mute("Alice"));
  EXPECT_EQ(self.error().code(), wire::BAD_REQUEST) << self.DebugString();
  EXPECT_NE(self.error().message().find("yourself"), std::string::npos) << self.error().message();
  const auto unknown = alice->request(mute("nobody"));
  EXPECT_EQ(unknown.error().code(), wire::NOT_FOUND) << unknown.DebugString();
  EXPECT_NE(unknown.error().message().find("There is no player 'nobody'"), std::string::npos) << unknown.error().message();
  EXPECT_EQ(alice->request(mute("")).error().code(), wire::BAD_REQUEST);
  const auto not_muted = alice->request(mute("bob", false));
  EXPECT_EQ(not_muted.error().code(), wire::NOT_FOUND) << not_muted.DebugString();
  EXPECT_NE(not_muted.error().message().find("You have not muted 'bob'"), std::string::npos) << not_muted.error().message();
  EXPECT_TRUE(muted(*alice).empty());
  // Muting twice is muting once.
  ASSERT_TRUE(alice->request(mute("bob")).has_muted_players());
  EXPECT_EQ(alice->request(mute("bob")).muted_players().names_size(), 1);

  // 200 players muted, as a player who muted them over time would have them.
  alice.reset();
  bob.reset();
  ASSERT_EQ(server_->terminate(), 0);
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec("BEGIN");
    for (int i = 0; i < 200; ++i) {
      db.exec("INSERT INTO users (name, password_hash, created_unix) VALUES ('quiet" + std::to_string(i) + "', 'x', 0)");
    }
    db.exec("DELETE FROM mutes");
    db.exec(
        "INSERT INTO mutes (user_id, muted_id, created_unix) SELECT (SELECT id FROM users WHERE name = 'alice'), id, 0"
        " FROM users WHERE name LIKE 'quiet%'");
    db.exec("COMMIT");
  }
  restart();
  alice = login_as("alice");
  EXPECT_EQ(muted(*alice).size(), 200u);
  const auto too_many = alice->request(mute("bob"));
  EXPECT_EQ(too_many.error().code(), wire::BAD_REQUEST) << too_many.DebugString();
  EXPECT_NE(too_many.error().message().find("200"), std::string::npos) << too_many.error().message();
  EXPECT_EQ(muted(*alice).size(), 200u);
  ASSERT_TRUE(alice->request(mute("quiet7", false)).has_muted_players());
  EXPECT_TRUE(alice->request(mute("bob")).has_muted_players()) << "room again";
}

TEST_F(ServerChatModeration, AReportIsStoredWithTheLinesTheReporterCouldReadAndListedForTheOperator) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(bob->request(chat(id, wire::PLAYERS, "first rude line")).has_ok());
  ASSERT_TRUE(bob->request(chat(id, wire::PLAYERS, "second rude line")).has_ok());
  ASSERT_TRUE(eve->request(chat(id, wire::SPECTATORS, "what the spectators say")).has_ok());

  // The spectators' channel is hidden from the players while the game is played:
  // a report cannot reach it, nor its answer tell whether eve wrote there.
  const auto hidden = alice->request(report("eve", id, "Spam."));
  EXPECT_EQ(hidden.error().code(), wire::BAD_REQUEST) << hidden.DebugString();
  EXPECT_NE(hidden.error().message().find("eve has written nothing you can read in game " + id), std::string::npos)
      << hidden.error().message();
  const auto silent = alice->request(report("bob", id, "Insults."));
  const auto quiet_player = eve->request(report("alice", id, "Nothing."));
  EXPECT_EQ(quiet_player.error().code(), wire::BAD_REQUEST) << "alice wrote nothing: " << quiet_player.DebugString();
  ASSERT_TRUE(silent.has_chat_reported()) << silent.DebugString();
  EXPECT_EQ(silent.chat_reported().name(), "bob");
  // The evidence was copied: what bob writes after is not in it.
  ASSERT_TRUE(bob->request(chat(id, wire::PLAYERS, "written after the report")).has_ok());

  const auto listed = operator_command("--reports");
  ASSERT_EQ(listed.status, 0) << listed.said;
  EXPECT_NE(listed.said.find("1 report not yet handled"), std::string::npos) << listed.said;
  EXPECT_NE(listed.said.find("report 1\t"), std::string::npos) << listed.said;
  EXPECT_NE(listed.said.find("game " + id + "\talice reports bob"), std::string::npos) << listed.said;
  EXPECT_NE(listed.said.find("  reason: Insults.\n"), std::string::npos) << listed.said;
  EXPECT_NE(listed.said.find(" players: first rude line\n"), std::string::npos) << listed.said;
  EXPECT_NE(listed.said.find(" players: second rude line\n"), std::string::npos) << listed.said;
  EXPECT_LT(listed.said.find("first rude line"), listed.said.find("second rude line")) << "in the order written";
  EXPECT_EQ(listed.said.find("written after the report"), std::string::npos) << listed.said;
  EXPECT_EQ(listed.said.find("what the spectators say"), std::string::npos) << listed.said;

  const auto again = alice->request(report("bob", id, "Still insulting."));
  EXPECT_EQ(again.error().code(), wire::CONFLICT) << again.DebugString();

  // Handled, it leaves the list of those waiting; all of them still show it.
  const auto handled = operator_command("--handle-report 1");
  ASSERT_EQ(handled.status, 0) << handled.said;
  EXPECT_NE(handled.said.find("Report 1 is marked handled."), std::string::npos) << handled.said;
  EXPECT_NE(operator_command("--reports").said.find("No report of chat waits to be handled."), std::string::npos);
  const auto all = operator_command("--reports all");
  EXPECT_NE(all.said.find("alice reports bob\thandled "), std::string::npos) << all.said;
  const auto twice = operator_command("--handle-report 1");
  EXPECT_EQ(twice.status, 1);
  EXPECT_NE(twice.said.find("was handled already"), std::string::npos) << twice.said;
  EXPECT_EQ(operator_command("--handle-report 7").status, 1);
  EXPECT_EQ(operator_command("--handle-report seven").status, 1);
  EXPECT_EQ(operator_command("--reports some").status, 2);
  // After the game both channels are everyone's: now eve's line is readable to alice.
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob->request(resign).has_ok());
  EXPECT_TRUE(alice->request(report("eve", id, "Spam.")).has_chat_reported());
  EXPECT_TRUE(alice->request(report("bob", id, "Insults again.")).has_chat_reported()) << "the first was handled";
  const auto after = operator_command("--reports");
  EXPECT_NE(after.said.find(" spectators: what the spectators say\n"), std::string::npos) << after.said;
  EXPECT_NE(after.said.find(" players: written after the report\n"), std::string::npos) << after.said;
}

TEST_F(ServerChatModeration, ReportsOfBadInputAreRefusedAndStoreNothingAndAreRateLimited) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(bob->request(chat(id, wire::PLAYERS, "a line")).has_ok());
  auto hidden = eve->create_game(wire::CHOOSE_SOVIET, true);
  ASSERT_TRUE(hidden.has_game_created());
  const std::string private_id = hidden.game_created().game().game_id();

  for (const std::string& reason : {std::string(), std::string("   "), std::string(201, 'a'), std::string("two\tparts"),
                                   std::string("two\nlines")}) {
    const auto refused = alice->request(report("bob", id, reason));
    EXPECT_EQ(refused.error().code(), wire::BAD_REQUEST) << "'" << reason << "': " << refused.DebugString();
  }
  EXPECT_TRUE(alice->request(report("bob", id, std::string(200, 'a'))).has_chat_reported()) << "200 characters are enough";
  ASSERT_EQ(operator_command("--handle-report 1").status, 0);
  EXPECT_EQ(alice->request(report("nobody", id, "Rude.")).error().code(), wire::NOT_FOUND);
  EXPECT_EQ(alice->request(report("bob", "nosuchgame", "Rude.")).error().code(), wire::NOT_FOUND);
  EXPECT_EQ(alice->request(report("eve", private_id, "Rude.")).error().code(), wire::NOT_FOUND) << "a private game not hers";
  EXPECT_EQ(alice->request(report("ALICE", id, "Rude.")).error().code(), wire::BAD_REQUEST);
  EXPECT_NE(operator_command("--reports").said.find("No report of chat waits to be handled."), std::string::npos);

  // Ten an hour: the operator handles each, so that the next is no repeat.
  for (int i = 1; i < 10; ++i) {
    ASSERT_TRUE(alice->request(report("bob", id, "Rude " + std::to_string(i) + ".")).has_chat_reported()) << i;
    ASSERT_EQ(operator_command("--handle-report " + std::to_string(i + 1)).status, 0) << i;
  }
  const auto eleventh = alice->request(report("bob", id, "Rude again."));
  EXPECT_EQ(eleventh.error().code(), wire::RATE_LIMITED) << eleventh.DebugString();
  EXPECT_NE(operator_command("--reports").said.find("No report of chat waits to be handled."), std::string::npos);
  EXPECT_NE(operator_command("--reports all").said.find("10 reports;"), std::string::npos);
  EXPECT_TRUE(bob->request(report("alice", id, "Unfair.")).error().code() == wire::BAD_REQUEST) << "alice wrote nothing";
}

// The limits on reports (ten an hour) and on mutes and unmutes (thirty a minute) are
// stored with what they count: a restart of the server gives nobody them afresh.
TEST_F(ServerChatModeration, TheLimitsOnReportsAndMuteChangesHoldOverARestart) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(bob->request(chat(id, wire::PLAYERS, "a line")).has_ok());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(alice->request(report("bob", id, "Rude " + std::to_string(i) + ".")).has_chat_reported()) << i;
    ASSERT_EQ(operator_command("--handle-report " + std::to_string(i + 1)).status, 0) << i;
  }
  EXPECT_EQ(alice->request(report("bob", id, "Rude again.")).error().code(), wire::RATE_LIMITED);
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(alice->request(mute("bob", i % 2 == 0)).has_muted_players()) << i;
  }
  EXPECT_EQ(alice->request(mute("bob")).error().code(), wire::RATE_LIMITED);

  alice.reset();
  bob.reset();
  ASSERT_EQ(server_->terminate(), 0);
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(alice && bob);
  const auto report_after = alice->request(report("bob", id, "Rude after the restart."));
  EXPECT_EQ(report_after.error().code(), wire::RATE_LIMITED) << report_after.DebugString();
  EXPECT_NE(report_after.error().message().find("10 reports in the last hour"), std::string::npos) << report_after.error().message();
  const auto mute_after = alice->request(mute("bob"));
  EXPECT_EQ(mute_after.error().code(), wire::RATE_LIMITED) << mute_after.DebugString();
  EXPECT_TRUE(muted(*alice).empty()) << "refused, it changed nothing";
  EXPECT_NE(operator_command("--reports").said.find("No report of chat waits to be handled."), std::string::npos);
  // The limits are alice's alone.
  EXPECT_TRUE(bob->request(mute("alice")).has_muted_players());
}

// A closed account writes no more chat: muting, reporting or barring it from chat would do
// nothing, and is refused, changing nothing; a mute made before it closed is still undone.
TEST_F(ServerChatModeration, AClosedAccountIsNotMutedReportedOrBarredFromChatButIsUnmuted) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(bob->request(chat(id, wire::PLAYERS, "a rude line")).has_ok());
  ASSERT_TRUE(carol->request(mute("bob")).has_muted_players());
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob->request(resign).has_ok());
  wire::ClientMessage close;
  close.mutable_close_account()->set_password("correct horse");
  ASSERT_TRUE(bob->request(close).has_ok());

  const auto muting = alice->request(mute("BOB"));
  EXPECT_EQ(muting.error().code(), wire::CONFLICT) << muting.DebugString();
  EXPECT_EQ(muting.error().message(), "bob closed their account: they write no more chat.");
  EXPECT_TRUE(muted(*alice).empty());
  const auto reporting = alice->request(report("bob", id, "Insults."));
  EXPECT_EQ(reporting.error().code(), wire::CONFLICT) << reporting.DebugString();
  EXPECT_EQ(reporting.error().message(), "bob closed their account: they write no more chat.");
  EXPECT_NE(operator_command("--reports all").said.find("No report of chat has been made."), std::string::npos);
  const auto banning = operator_command("--chat-ban bob --reason 'Insults in game chat.'");
  EXPECT_EQ(banning.status, 1);
  EXPECT_NE(banning.said.find("bob has closed their account"), std::string::npos) << banning.said;
  EXPECT_EQ(operator_command("--players").said.find("barred from chat"), std::string::npos);

  const auto unmuting = carol->request(mute("Bob", false));
  ASSERT_TRUE(unmuting.has_muted_players()) << unmuting.DebugString();
  EXPECT_EQ(unmuting.muted_players().name(), "bob");
  EXPECT_TRUE(muted(*carol).empty());
}

TEST_F(ServerChatModeration, AChatBannedPlayersChatIsRefusedWithTheReasonAndOthersChatFlows) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(alice->watch(id).has_game());
  ASSERT_TRUE(bob->watch(id).has_game());

  const auto banned = operator_command("--chat-ban BOB --days 3 --reason 'Insults in game chat.'");
  ASSERT_EQ(banned.status, 0) << banned.said;
  EXPECT_NE(banned.said.find("Barred bob from chat until "), std::string::npos) << banned.said;
  // Waited for in the server's log, not by chatting: each line sent before the ban holds
  // would spend bob's share of chat, which he needs again once it is lifted.
  ASSERT_TRUE(eventually([&] { return server_->log().find("msg=\"chat ban in force\" user=bob until=") != std::string::npos; }))
      << "within seconds: " << server_->log();
  const auto refused = bob->request(chat(id, wire::PLAYERS, "still here"));
  EXPECT_EQ(refused.error().code(), wire::FORBIDDEN) << refused.DebugString();
  EXPECT_NE(refused.error().message().find("barred you from chat until "), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find("Insults in game chat."), std::string::npos) << refused.error().message();
  EXPECT_FALSE(has_chat(*alice, "still here"));
  EXPECT_TRUE(alice->request(chat(id, wire::PLAYERS, "alice goes on")).has_ok());
  EXPECT_TRUE(has_chat(*bob, "alice goes on"));
  EXPECT_TRUE(summary_in_my_games(*bob, id).status() == "playing") << "his account is otherwise as it was";
  const auto players = operator_command("--players");
  EXPECT_NE(players.said.find("active, barred from chat until "), std::string::npos) << players.said;

  const auto lifted = operator_command("--lift-chat-ban bob");
  ASSERT_EQ(lifted.status, 0) << lifted.said;
  EXPECT_TRUE(eventually([&] { return bob->request(chat(id, wire::PLAYERS, "back")).has_ok(); }));
  EXPECT_TRUE(has_chat(*alice, "back"));
  const auto twice = operator_command("--lift-chat-ban bob");
  EXPECT_EQ(twice.status, 1);
  EXPECT_NE(twice.said.find("bob is not barred from chat"), std::string::npos) << twice.said;

  // Until lifted; and after a restart, at once.
  ASSERT_EQ(operator_command("--chat-ban bob --reason 'Repeated insults.'").status, 0);
  bob.reset();
  restart();
  bob = login_as("bob");
  const auto indefinite = bob->request(chat(id, wire::PLAYERS, "after the restart"));
  EXPECT_EQ(indefinite.error().code(), wire::FORBIDDEN) << indefinite.DebugString();
  EXPECT_NE(indefinite.error().message().find("until they lift it: Repeated insults."), std::string::npos)
      << indefinite.error().message();
}

TEST_F(ServerChatModeration, AChatBanOfBadInputIsRefusedAndChangesNothing) {
  auto bob = user("bob");
  const auto unknown = operator_command("--chat-ban nobody --reason 'Rude.'");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.said.find("there is no player 'nobody'"), std::string::npos) << unknown.said;
  const auto no_reason = operator_command("--chat-ban bob");
  EXPECT_EQ(no_reason.status, 1);
  EXPECT_NE(no_reason.said.find("say why with --reason"), std::string::npos) << no_reason.said;
  EXPECT_EQ(operator_command("--chat-ban bob --days 0 --reason 'Rude.'").status, 2);
  EXPECT_EQ(operator_command("--days 3 --reinstate bob").status, 2);
  EXPECT_EQ(operator_command("--chat-ban bob --suspend bob --reason 'Rude.'").status, 2);
  EXPECT_EQ(operator_command("--lift-chat-ban nobody").status, 1);
  EXPECT_EQ(operator_command("--lift-chat-ban bob").status, 1);
  EXPECT_EQ(operator_command("--players").said.find("barred from chat"), std::string::npos);
}

}  // namespace
}  // namespace counterattack::server::testing
