// The lobby and the rest of a game's life: chat channels, draws, resignation,
// my games, and a graceful shutdown.
#include <fstream>

#include "fixture.h"
#include "scenario.h"

namespace counterattack::server::testing {
namespace {

class ServerLobby : public ServerTest {};
class ServerShutdown : public ServerTest {};

wire::ClientMessage chat(const std::string& id, wire::Channel ch, const std::string& text) {
  wire::ClientMessage m;
  m.mutable_send_chat()->set_game_id(id);
  m.mutable_send_chat()->set_channel(ch);
  m.mutable_send_chat()->set_text(text);
  return m;
}

bool has_chat(Client& c, const std::string& text) {
  return !c.take_all([&](const wire::ServerMessage& m) { return m.has_chat() && m.chat().text() == text; }).empty();
}

// The map, the counters and the charts come from the server, to anyone, so a
// client needs nothing else to draw the game and reckon with its rules: the
// entry hexes of each arrow (rule 17) among them.
TEST_F(ServerLobby, AnyoneGetsTheScenarioTheServerPlays) {
  auto anonymous = connect();
  wire::ClientMessage get;
  get.mutable_get_scenario();
  const auto r = anonymous->request(get);
  ASSERT_TRUE(r.has_scenario_data()) << r.DebugString().substr(0, 500);
  const auto& d = r.scenario_data();
  const auto sc = default_scenario();
  EXPECT_EQ(d.scenario().id(), "counterattack");
  EXPECT_EQ(d.map().columns(), sc->columns);
  EXPECT_EQ(d.counters().unit_size(), static_cast<int>(sc->units.size()));
  EXPECT_GT(d.charts().crt().row_size(), 0);
  bool s3 = false;
  for (const auto& e : d.map().entry_point()) s3 |= e.id() == "S3" && e.hexes_size() > 0;
  EXPECT_TRUE(s3) << "the Soviet arrow S3 and its hexes";

  get.mutable_get_scenario()->set_name("counterattack");
  EXPECT_TRUE(anonymous->request(get).has_scenario_data());
  get.mutable_get_scenario()->set_name("kursk");
  const auto missing = anonymous->request(get);
  EXPECT_EQ(missing.error().code(), wire::NOT_FOUND) << missing.DebugString();
  EXPECT_NE(missing.error().message().find("known: counterattack"), std::string::npos) << missing.error().message();
}

TEST_F(ServerLobby, ChatChannelsKeepPlayersAndSpectatorsApart) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  const std::string id = start_game(*alice, *bob);
  for (auto* c : {alice.get(), bob.get(), eve.get()}) ASSERT_TRUE(c->watch(id).has_game());

  EXPECT_TRUE(alice->request(chat(id, wire::PLAYERS, "good luck")).has_ok());
  EXPECT_TRUE(eve->request(chat(id, wire::SPECTATORS, "the German is doomed")).has_ok());
  EXPECT_EQ(eve->request(chat(id, wire::PLAYERS, "psst")).error().code(), wire::FORBIDDEN);
  EXPECT_EQ(alice->request(chat(id, wire::SPECTATORS, "hi all")).error().code(), wire::FORBIDDEN);
  EXPECT_EQ(alice->request(chat(id, wire::PLAYERS, "")).error().code(), wire::BAD_REQUEST);
  std::string five_hundred;
  for (int i = 0; i < 500; ++i) five_hundred += "\xc3\xa9";  // 500 characters, 1000 bytes
  EXPECT_TRUE(bob->request(chat(id, wire::PLAYERS, five_hundred)).has_ok());
  EXPECT_EQ(bob->request(chat(id, wire::PLAYERS, five_hundred + "!")).error().code(), wire::BAD_REQUEST);

  for (auto* c : {alice.get(), bob.get(), eve.get()}) ASSERT_TRUE(c->ping().has_pong());  // everything delivered
  EXPECT_TRUE(has_chat(*bob, "good luck"));
  EXPECT_FALSE(has_chat(*eve, "good luck"));
  EXPECT_TRUE(has_chat(*alice, five_hundred));
  EXPECT_FALSE(has_chat(*alice, "the German is doomed"));
  EXPECT_FALSE(has_chat(*bob, "the German is doomed"));

  // A new spectator gets the spectators' history with the snapshot.
  auto late = connect();
  ASSERT_TRUE(late->watch(id).has_game());
  EXPECT_TRUE(has_chat(*late, "the German is doomed"));
  EXPECT_FALSE(has_chat(*late, "good luck"));
}

// Games played over days: a player's connection that follows its turns and
// does not watch the game (the lobby, the shell with another game open) is told
// when the decision passes to that player, from the start of the game on; the
// connections that watch it get the delta instead, those that do not follow
// get nothing, and nothing more is said while the decision stays with the same
// player.
TEST_F(ServerLobby, APlayerNotWatchingIsToldWhenTheDecisionPassesToThemAndWhenTheGameEnds) {
  auto alice = user("alice"), bob = user("bob");  // in the lobby: they watch nothing
  ASSERT_TRUE(alice->follow_turns().has_ok());
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(bob->follow_turns().has_ok()) << "twice is once";
  auto alice_quiet = connect(), bob_quiet = connect();  // logged in, not following
  ASSERT_TRUE(alice_quiet->login("alice").has_session());
  ASSERT_TRUE(bob_quiet->login("bob").has_session());
  const std::string id = start_game(*alice, *bob);
  auto alice_board = login_as("alice"), bob_board = login_as("bob");
  auto [soviet, german] = watch_as_players(*alice_board, *bob_board, id);
  ASSERT_FALSE(HasFailure());
  const game::Side first = soviet.view.decision().side();
  ASSERT_TRUE(first == game::SOVIET || first == game::GERMAN);
  Client& lobby_first = first == game::SOVIET ? *alice : *bob;
  Client& lobby_other = first == game::SOVIET ? *bob : *alice;
  auto notices = [&](Client& c) {
    EXPECT_TRUE(c.ping().has_pong());
    return c.take_all([&](const wire::ServerMessage& m) { return m.has_your_turn(); });
  };
  // A notice is sent after the acknowledgement and the deltas that tell of the
  // change, from another thread than the one answering pings: wait for one.
  auto awaited = [&](Client& c) {
    std::vector<wire::ServerMessage> out;
    if (auto m = c.wait_for([](const wire::ServerMessage& x) { return x.has_your_turn(); })) out.push_back(*m);
    for (auto& m : notices(c)) out.push_back(std::move(m));
    return out;
  };
  auto started = awaited(lobby_first);
  ASSERT_EQ(started.size(), 1u) << "told when the game starts";
  EXPECT_EQ(started[0].your_turn().game_id(), id);
  EXPECT_EQ(started[0].your_turn().to_decide(), first);
  EXPECT_EQ(started[0].your_turn().your_side(), first == game::SOVIET ? "soviet" : "german");
  EXPECT_TRUE(notices(lobby_other).empty());

  // Play on until the decision passes to the other player.
  int orders = 0;
  while (soviet.view.decision().side() == first && orders < 300) {
    play(soviet, german, nullptr, 1, "o" + std::to_string(orders++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  ASSERT_NE(soviet.view.decision().side(), first) << "the decision never passed in " << orders << " orders";
  EXPECT_TRUE(notices(lobby_first).empty()) << "nothing while the decision stays with the same player";
  auto passed = awaited(lobby_other);
  ASSERT_EQ(passed.size(), 1u);
  EXPECT_EQ(passed[0].your_turn().to_decide(), soviet.view.decision().side());
  EXPECT_EQ(passed[0].your_turn().version(), soviet.version);
  for (Client* board : {alice_board.get(), bob_board.get()}) EXPECT_TRUE(notices(*board).empty()) << "they watch it";
  for (Client* quiet : {alice_quiet.get(), bob_quiet.get()}) EXPECT_TRUE(notices(*quiet).empty()) << "they do not follow";

  // The end reaches a follower who does not watch the game, but not the player who made it.
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob_quiet->request(resign).has_ok());
  auto ended = [&](Client& c) {
    EXPECT_TRUE(c.ping().has_pong());
    return c.take_all([&](const wire::ServerMessage& m) { return m.has_game_ended() && m.game_ended().game_id() == id; });
  };
  auto told = ended(*alice);
  if (told.empty()) {  // sent after the resignation's answer: wait for it
    if (auto m = alice->wait_for([&](const wire::ServerMessage& x) { return x.has_game_ended(); })) told.push_back(*m);
  }
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].game_ended().reason(), "The German player resigned.");
  EXPECT_TRUE(ended(*bob).empty()) << "bob resigned himself";
  EXPECT_TRUE(ended(*alice_quiet).empty()) << "it does not follow";
  const bool board_told = alice_board->wait_for([&](const wire::ServerMessage& x) { return x.has_game_ended(); }).has_value();
  EXPECT_EQ(board_told + ended(*alice_board).size(), 1u) << "it watches the game";
}

// The maker of a game who waits elsewhere, in the lobby or another game, is
// told when someone joins it, even when the first decision is the opponent's;
// a connection that watches the game gets its summary instead, and one that
// does not follow turns nothing.
TEST_F(ServerLobby, TheMakerOfAGameIsToldWhenSomeoneJoinsIt) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  auto quiet = login_as("alice");
  auto made = alice->create_game(wire::CHOOSE_GERMAN, false, {});  // the Soviet decides first
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  auto board = login_as("alice");
  wire::ClientMessage watch;
  watch.mutable_watch()->set_game_id(id);
  ASSERT_TRUE(board->request(watch).has_snapshot());
  ASSERT_TRUE(board->follow_turns().has_ok());

  ASSERT_TRUE(bob->join(id).has_game());
  const auto told = alice->wait_for([](const wire::ServerMessage& m) { return m.has_game_started(); });
  ASSERT_TRUE(told);
  EXPECT_EQ(told->game_started().game_id(), id);
  EXPECT_EQ(told->game_started().status(), "playing");
  EXPECT_EQ(told->game_started().your_side(), "german");
  EXPECT_EQ(told->game_started().soviet(), "bob");
  EXPECT_TRUE(alice->take_all([](const wire::ServerMessage& m) { return m.has_your_turn(); }).empty())
      << "the first decision is bob's";
  const auto summary =
      board->wait_for([](const wire::ServerMessage& m) { return m.has_game() && m.game().status() == "playing"; });
  EXPECT_TRUE(summary) << "it watches the game";
  for (Client* c : {board.get(), quiet.get()}) {
    EXPECT_TRUE(c->ping().has_pong());
    EXPECT_TRUE(c->take_all([](const wire::ServerMessage& m) { return m.has_game_started(); }).empty());
  }
}

// A connection's seat is its user's. Games watched before logging in were
// watched as a spectator: that stream ends at the login, so a player never
// reads the spectators' chat, and a Watch then gives the player's view. A
// spectator who joins a game is a player from then on in the same way.
TEST_F(ServerLobby, LoggingInOrJoiningEndsASpectatorsStream) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve"), carol = user("carol");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(eve->watch(id).has_game());
  auto anonymous = connect();
  ASSERT_TRUE(anonymous->watch(id).has_game());
  ASSERT_TRUE(anonymous->login("bob").has_session());
  EXPECT_TRUE(eve->request(chat(id, wire::SPECTATORS, "the German is doomed")).has_ok());
  ASSERT_TRUE(anonymous->ping().has_pong());
  EXPECT_FALSE(has_chat(*anonymous, "the German is doomed"));
  anonymous->take_all([](const wire::ServerMessage&) { return true; });
  ASSERT_TRUE(anonymous->watch(id).has_game());
  auto snapshots = anonymous->take_all([](const wire::ServerMessage& m) { return m.has_snapshot(); });
  ASSERT_EQ(snapshots.size(), 1u);
  EXPECT_EQ(snapshots[0].snapshot().view().viewer(), game::VIEWER_GERMAN);

  auto created = carol->create_game(wire::CHOOSE_SOVIET);
  ASSERT_TRUE(created.has_game_created());
  const std::string open = created.game_created().game().game_id();
  ASSERT_TRUE(eve->watch(open).has_game());
  auto dave = user("dave");
  ASSERT_TRUE(dave->watch(open).has_game());
  ASSERT_EQ(dave->join(open).game().your_side(), "german");
  EXPECT_TRUE(eve->request(chat(open, wire::SPECTATORS, "who is dave?")).has_ok());
  ASSERT_TRUE(dave->ping().has_pong());
  EXPECT_FALSE(has_chat(*dave, "who is dave?"));
}

TEST_F(ServerLobby, APlayerWhoJoinsReadsNoSpectatorsChatOnTheirOtherConnections) {
  auto carol = user("carol"), eve = user("eve"), dave = user("dave");
  auto dave_elsewhere = login_as("dave");
  auto created = carol->create_game(wire::CHOOSE_SOVIET);
  ASSERT_TRUE(created.has_game_created());
  const std::string open = created.game_created().game().game_id();
  ASSERT_TRUE(eve->watch(open).has_game());
  ASSERT_TRUE(dave_elsewhere->watch(open).has_game());  // a spectator, until dave joins
  ASSERT_EQ(dave->join(open).game().your_side(), "german");
  EXPECT_TRUE(eve->request(chat(open, wire::SPECTATORS, "dave will blunder")).has_ok());
  ASSERT_TRUE(eve->ping().has_pong());
  ASSERT_TRUE(dave_elsewhere->ping().has_pong());
  EXPECT_FALSE(has_chat(*dave_elsewhere, "dave will blunder"));
}

TEST_F(ServerLobby, OnePlayersOpenGamesCannotCrowdEveryoneElseOutOfTheLobby) {
  auto mallory = user("mallory"), alice = user("alice");
  std::string first;
  int made = 0;
  wire::ServerMessage refused;
  for (int i = 0; i < 200; ++i) {
    auto r = mallory->create_game(wire::CHOOSE_SOVIET, i % 2 == 1);
    if (!r.has_game_created()) {
      refused = r;
      break;
    }
    if (first.empty()) first = r.game_created().game().game_id();
    ++made;
  }
  EXPECT_EQ(made, 20);
  EXPECT_EQ(refused.error().code(), wire::CONFLICT) << refused.DebugString();
  EXPECT_FALSE(refused.error().message().empty());

  // Everyone else still gets a game into the lobby, and it is listed.
  auto mine = alice->create_game(wire::CHOOSE_GERMAN);
  ASSERT_TRUE(mine.has_game_created()) << mine.DebugString();
  wire::ClientMessage list;
  list.mutable_list_games();
  const auto listed = alice->request(list);
  EXPECT_EQ(listed.game_list().games_size(), 11) << "mallory's ten public games and alice's";

  // A game withdrawn, or joined, makes room for another.
  wire::ClientMessage withdraw;
  withdraw.mutable_resign()->set_game_id(first);
  ASSERT_TRUE(mallory->request(withdraw).has_ok());
  EXPECT_TRUE(mallory->create_game(wire::CHOOSE_SOVIET).has_game_created());
  EXPECT_EQ(mallory->create_game(wire::CHOOSE_SOVIET).error().code(), wire::CONFLICT);
}

// A finished game nobody watches rests in memory with the last few others:
// watching it again, or reading its log, does not replay it from the database
// each time, and a restart replays it once.
TEST_F(ServerLobby, AFinishedGameIsReplayedFromTheDatabaseOnlyOnceItHasRested) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  wire::ClientMessage resign, unwatch, get_log;
  resign.mutable_resign()->set_game_id(id);
  unwatch.mutable_unwatch()->set_game_id(id);
  get_log.mutable_get_log()->set_game_id(id);
  ASSERT_TRUE(alice->request(resign).has_ok());
  auto reader = connect();
  auto loads = [&] {
    const std::string log = server_->log(), line = "msg=\"game loaded\" game=" + id;
    int n = 0;
    for (auto at = log.find(line); at != std::string::npos; at = log.find(line, at + 1)) ++n;
    return n;
  };
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reader->watch(id).has_game());
    ASSERT_TRUE(reader->request(unwatch).has_ok());
    ASSERT_TRUE(reader->request(get_log).has_game_log());
  }
  EXPECT_EQ(loads(), 0);
  restart();
  reader = connect();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reader->request(get_log).has_game_log());
    ASSERT_TRUE(reader->watch(id).has_game());
    ASSERT_TRUE(reader->request(unwatch).has_ok());
  }
  EXPECT_EQ(loads(), 1);
}

TEST_F(ServerLobby, DrawsResignationsAndMyGames) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string first = start_game(*alice, *bob);
  for (auto* c : {alice.get(), bob.get()}) ASSERT_TRUE(c->watch(first).has_game());
  wire::ClientMessage offer, accept, decline;
  offer.mutable_offer_draw()->set_game_id(first);
  accept.mutable_answer_draw()->set_game_id(first);
  accept.mutable_answer_draw()->set_accept(true);
  decline.mutable_answer_draw()->set_game_id(first);
  decline.mutable_answer_draw()->set_accept(false);

  EXPECT_EQ(alice->request(accept).error().code(), wire::CONFLICT);  // nothing offered
  ASSERT_TRUE(bob->request(offer).has_ok());
  auto offered = alice->wait_for([](const wire::ServerMessage& m) { return m.has_draw_offered(); });
  ASSERT_TRUE(offered);
  EXPECT_EQ(offered->draw_offered().by(), "bob");
  EXPECT_EQ(bob->request(accept).error().code(), wire::CONFLICT);  // not to oneself
  ASSERT_TRUE(alice->request(decline).has_ok());
  EXPECT_TRUE(bob->wait_for([](const wire::ServerMessage& m) { return m.has_draw_declined(); }));
  // One offer a turn: declined, it is not made again at once.
  const auto again = bob->request(offer);
  EXPECT_EQ(again.error().code(), wire::CONFLICT);
  EXPECT_NE(again.error().message().find("this turn already"), std::string::npos) << again.DebugString();
  ASSERT_TRUE(alice->request(offer).has_ok());
  ASSERT_TRUE(bob->request(accept).has_ok());
  for (auto* c : {alice.get(), bob.get()}) {
    auto ended = c->wait_for([](const wire::ServerMessage& m) { return m.has_game_ended(); });
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->game_ended().result(), "Draw");
    EXPECT_EQ(ended->game_ended().seed_hex().size(), 64u);
  }
  EXPECT_EQ(alice->submit(first, "late", done_order()).error().code(), wire::CONFLICT);

  const std::string second = start_game(*alice, *carol);
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(second);
  ASSERT_TRUE(carol->request(resign).has_ok());
  EXPECT_EQ(carol->request(resign).error().code(), wire::CONFLICT);
  wire::ClientMessage get;
  get.mutable_get_log()->set_game_id(second);
  auto log = bob->request(get);  // open to all after the end
  ASSERT_TRUE(log.has_game_log()) << log.DebugString();
  EXPECT_EQ(log.game_log().orders_size(), 0);
  EXPECT_EQ(log.game_log().omniscient().viewer(), game::VIEWER_OMNISCIENT);

  // An open game withdrawn by its creator.
  auto open = carol->create_game(wire::CHOOSE_GERMAN);
  ASSERT_TRUE(open.has_game_created());
  resign.mutable_resign()->set_game_id(open.game_created().game().game_id());
  ASSERT_TRUE(carol->request(resign).has_ok());

  wire::ClientMessage mine;
  mine.mutable_my_games();
  auto my = alice->request(mine);
  ASSERT_EQ(my.game_list().games_size(), 2);
  for (const auto& g : my.game_list().games()) {
    EXPECT_EQ(g.status(), "finished");
    EXPECT_EQ(g.your_side(), "soviet");
    EXPECT_EQ(g.result(), g.game_id() == first ? "Draw" : "Soviet victory");
  }
  auto carols = carol->request(mine);
  ASSERT_EQ(carols.game_list().games_size(), 2);
}

// Plays with two bots until the game turn moves on.
void play_into_the_next_turn(Player& soviet, Player& german, const std::string& key_prefix) {
  const int turn = soviet.view.header().turn();
  for (int i = 0; soviet.view.header().turn() == turn; ++i) {
    ASSERT_LT(i, 20) << "the game turn never moved on";
    // A bot keeps its plan for a phase only within one play(): a few orders at a time would not finish one.
    const auto played = play(soviet, german, nullptr, 100, key_prefix + std::to_string(i) + "-");
    ASSERT_FALSE(played.over);
  }
}

// A play-by-server opponent may be away for days: the offer waits for them,
// in their list of games, across a restart, until answered or played past.
TEST_F(ServerLobby, ADrawOfferWaitsForAnOpponentWhoWasAwayAndLapsesWhenTheyPlayOn) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  wire::ClientMessage offer, accept;
  offer.mutable_offer_draw()->set_game_id(id);
  accept.mutable_answer_draw()->set_game_id(id);
  accept.mutable_answer_draw()->set_accept(true);
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::SIDE_UNSPECIFIED);
  ASSERT_TRUE(bob->request(offer).has_ok());
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::GERMAN);
  EXPECT_EQ(summary_in_my_games(*bob, id).draw_offered_by(), game::GERMAN);

  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(alice && bob);
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::GERMAN) << "kept across a restart";
  auto watched = alice->watch(id);
  ASSERT_TRUE(watched.has_game()) << watched.DebugString();
  EXPECT_EQ(watched.game().draw_offered_by(), game::GERMAN) << "and told to whoever opens the game";

  // The side to decide plays an order instead of answering: the offer lapses, for good.
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(id);
  ASSERT_TRUE(alice->request(unwatch).has_ok());
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  const bool soviet_decides = soviet.view.decision().side() == game::SOVIET;
  if (!soviet_decides) {  // the offer must come from the side that waits
    wire::ClientMessage decline;
    decline.mutable_answer_draw()->set_game_id(id);
    ASSERT_TRUE(alice->request(decline).has_ok());
    ASSERT_TRUE(alice->request(offer).has_ok());
  }
  const auto offered_by = soviet_decides ? game::GERMAN : game::SOVIET;
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), offered_by);
  const auto played = play(soviet, german, nullptr, 1);
  ASSERT_EQ(played.accepted, 1);
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::SIDE_UNSPECIFIED);
  Client& offerer = soviet_decides ? *bob : *alice;
  auto lapsed = offerer.wait_for([](const wire::ServerMessage& m) { return m.has_draw_declined(); });
  ASSERT_TRUE(lapsed) << "the offerer is told that the offer lapsed";
  EXPECT_TRUE(lapsed->draw_declined().played_on());
  EXPECT_EQ(lapsed->draw_declined().by(), soviet_decides ? "alice" : "bob");
  Client& other = soviet_decides ? *alice : *bob;
  EXPECT_EQ(other.request(accept).error().code(), wire::CONFLICT) << "nothing is offered any more";
  restart();
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::SIDE_UNSPECIFIED) << "lapsed for good";

  // Offered again in a later turn (one a turn, both sides may have offered in this one)
  // and answered after a restart, the game is drawn.
  bob = login_as("bob");
  ASSERT_TRUE(bob);
  {
    auto [soviet_again, german_again] = watch_as_players(*alice, *bob, id);
    play_into_the_next_turn(soviet_again, german_again, "later");
    if (HasFatalFailure()) return;
  }
  ASSERT_TRUE(bob->request(offer).has_ok());
  restart();
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  const auto drawn = alice->request(accept);
  ASSERT_TRUE(drawn.has_ok()) << drawn.DebugString();
  EXPECT_EQ(summary_in_my_games(*alice, id).result(), "Draw");
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::SIDE_UNSPECIFIED);
}

// One draw offer a turn per side holds across a restart: the limit is stored with
// the offer, and it lifts once the game turn moves on.
TEST_F(ServerLobby, ADeclinedDrawIsNotOfferedAgainInTheSameTurnAfterARestart) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  wire::ClientMessage offer, decline;
  offer.mutable_offer_draw()->set_game_id(id);
  decline.mutable_answer_draw()->set_game_id(id);
  decline.mutable_answer_draw()->set_accept(false);
  ASSERT_TRUE(bob->request(offer).has_ok());
  ASSERT_TRUE(alice->request(decline).has_ok());
  const auto before = bob->request(offer);
  ASSERT_EQ(before.error().code(), wire::CONFLICT) << before.DebugString();
  EXPECT_NE(before.error().message().find("this turn already"), std::string::npos) << before.DebugString();

  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(alice && bob);
  const auto after = bob->request(offer);
  EXPECT_EQ(after.error().code(), wire::CONFLICT) << "still refused after a restart: " << after.DebugString();
  EXPECT_EQ(after.error().message(), before.error().message());
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::SIDE_UNSPECIFIED) << "nothing offered";

  // Once the game turn moves on, the offer may be made again.
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  play_into_the_next_turn(soviet, german, "o");
  if (HasFatalFailure()) return;
  const auto next = bob->request(offer);
  ASSERT_TRUE(next.has_ok()) << "turn " << soviet.view.header().turn() << ": " << next.DebugString();
  EXPECT_EQ(summary_in_my_games(*alice, id).draw_offered_by(), game::GERMAN);
}

// An operator finds the server by its name (pidof, pkill, top): only its
// threads have names of their own.
TEST_F(ServerShutdown, TheProcessKeepsItsNameForTheOperatorsTools) {
  std::ifstream comm("/proc/" + std::to_string(server_->pid()) + "/comm");
  std::string name;
  std::getline(comm, name);
  EXPECT_EQ(name, "counterattackd");
}

TEST_F(ServerShutdown, SigtermSaysGoodbyeAndExitsCleanly) {
  auto alice = user("alice");
  ASSERT_TRUE(alice->create_game(wire::CHOOSE_SOVIET).has_game_created());
  EXPECT_EQ(server_->terminate(), 0);
  auto bye = alice->wait_for([](const wire::ServerMessage& m) { return m.has_error(); }, 5s);
  ASSERT_TRUE(bye);
  EXPECT_EQ(bye->error().code(), wire::SHUTTING_DOWN);
  const std::string log = server_->log();
  EXPECT_NE(log.find("msg=\"shutting down\""), std::string::npos);
  EXPECT_NE(log.find("msg=stopped"), std::string::npos);
  // The data is there on the next start.
  restart();
  auto again = connect();
  ASSERT_TRUE(again->login("alice").has_session());
  wire::ClientMessage list;
  list.mutable_list_games();
  EXPECT_EQ(again->request(list).game_list().games_size(), 1);
}

}  // namespace
}  // namespace counterattack::server::testing
