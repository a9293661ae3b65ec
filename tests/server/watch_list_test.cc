// Finding games to watch: the public games in play and the finished ones, a page
// at a time, newest first, filtered by player; never a private game, nor a
// private tournament's, and nothing a spectator's Watch does not show.
#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerWatchList : public ServerTest {};

wire::ServerMessage list(Client& c, const wire::ListGames& req) {
  wire::ClientMessage m;
  *m.mutable_list_games() = req;
  return c.request(m);
}

wire::ListGames of_kind(wire::GameListKind kind, const std::string& player = "") {
  wire::ListGames req;
  req.set_kind(kind);
  req.set_player(player);
  return req;
}

std::vector<std::string> ids_of(const wire::ServerMessage& reply) {
  std::vector<std::string> out;
  for (const auto& g : reply.game_list().games()) out.push_back(g.game_id());
  return out;
}

std::set<std::string> listed(Client& c, const wire::ListGames& req) {
  const auto reply = list(c, req);
  EXPECT_TRUE(reply.has_game_list()) << reply.DebugString();
  const auto ids = ids_of(reply);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size()) << "a game listed twice";
  return {ids.begin(), ids.end()};
}

wire::ServerMessage resign(Client& c, const std::string& id) {
  wire::ClientMessage m;
  m.mutable_resign()->set_game_id(id);
  return c.request(m);
}

// A private game of `maker`'s, Soviet, joined by `other` with its code; its id.
std::string private_game(Client& maker, Client& other) {
  const auto made = maker.create_game(wire::CHOOSE_SOVIET, true);
  EXPECT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string id = made.game_created().game().game_id();
  EXPECT_TRUE(other.join(id, made.game_created().invite_code()).has_game());
  return id;
}

// Each field the list's summary sets holds what the stranger's Watch shows:
// the list tells nothing more.
void expect_no_more_than_watch(const wire::GameSummary& listed, const wire::GameSummary& watched) {
  const auto* r = listed.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> set_in_list, set_in_watch;
  r->ListFields(listed, &set_in_list);
  wire::GameSummary shown = watched;
  r->ListFields(shown, &set_in_watch);
  for (const auto* f : set_in_watch) {
    if (std::find(set_in_list.begin(), set_in_list.end(), f) == set_in_list.end()) r->ClearField(&shown, f);
  }
  EXPECT_EQ(listed.DebugString(), shown.DebugString()) << "the list against the Watch of " << listed.game_id();
}

TEST_F(ServerWatchList, AStrangerListsPublicGamesInPlayAndFinishedButNoPrivateOneAndNoMoreThanWatchingShows) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave");
  const std::string alice_bob = start_game(*alice, *bob);
  const std::string carol_dave = start_game(*carol, *dave);
  // Alice's standing orders in her game are hers alone.
  wire::ClientMessage standing;
  standing.mutable_set_standing_orders()->set_game_id(alice_bob);
  standing.mutable_set_standing_orders()->mutable_orders()->set_stand_fast(true);
  ASSERT_TRUE(alice->request(standing).has_ok());
  const std::string over = start_game(*alice, *carol);
  play_an_order_each(*alice, *carol, over);
  ASSERT_TRUE(resign(*carol, over).has_ok());
  ASSERT_TRUE(summary_in_my_games(*alice, over).rating_counted());
  // Never on either list: private games in play and over, an open game and one
  // withdrawn before anyone joined, a private tournament's games in play and over.
  const std::string hidden_playing = private_game(*alice, *bob);
  const std::string hidden_over = private_game(*bob, *dave);
  ASSERT_TRUE(resign(*dave, hidden_over).has_ok());
  const auto open = alice->create_game(wire::CHOOSE_GERMAN).game_created().game().game_id();
  const auto withdrawn = bob->create_game(wire::CHOOSE_GERMAN).game_created().game().game_id();
  ASSERT_TRUE(resign(*bob, withdrawn).has_ok());
  wire::ClientMessage cup;
  auto* t = cup.mutable_create_tournament();
  t->set_name("Club night");
  t->set_max_players(2);
  t->set_enter(true);
  t->set_private_(true);
  t->set_move_seconds(86400);
  const auto made = carol->request(cup);
  ASSERT_TRUE(made.has_tournament()) << made.DebugString();
  wire::ClientMessage enter;
  enter.mutable_join_tournament()->set_tournament_id(made.tournament().tournament_id());
  enter.mutable_join_tournament()->set_invite_code(made.tournament().invite_code());
  ASSERT_TRUE(dave->request(enter).has_tournament());
  wire::ClientMessage get;
  get.mutable_get_tournament()->set_tournament_id(made.tournament().tournament_id());
  const auto started = carol->request(get);  // full: it started by itself
  ASSERT_EQ(started.tournament().games_size(), 2) << started.DebugString();
  const std::string club_playing = started.tournament().games(0).game_id();
  const std::string club_over = started.tournament().games(1).game_id();
  ASSERT_TRUE(resign(*carol, club_over).has_ok());

  using Ids = std::set<std::string>;
  auto stranger = connect();  // not even logged in
  EXPECT_EQ(listed(*stranger, of_kind(wire::GAMES_IN_PLAY)), (Ids{alice_bob, carol_dave}));
  EXPECT_EQ(listed(*stranger, of_kind(wire::FINISHED_GAMES)), Ids{over});
  EXPECT_EQ(listed(*stranger, of_kind(wire::OPEN_GAMES)), Ids{open}) << "the open list as before";
  // Nor to the private games' own players: their games are in MyGames.
  for (Client* own : {alice.get(), bob.get(), carol.get(), dave.get()}) {
    EXPECT_EQ(listed(*own, of_kind(wire::GAMES_IN_PLAY)), (Ids{alice_bob, carol_dave}));
    EXPECT_EQ(listed(*own, of_kind(wire::FINISHED_GAMES)), Ids{over});
  }
  for (const auto& id : {hidden_playing, hidden_over, club_playing, club_over, withdrawn}) {
    for (auto kind : {wire::GAMES_IN_PLAY, wire::FINISHED_GAMES}) {
      EXPECT_EQ(listed(*alice, of_kind(kind)).count(id), 0u) << id;
    }
  }

  // What each listed game says, to a stranger and to its own player alike, a
  // stranger's Watch shows too: no side, standing orders or version seen.
  auto zed = user("zed");
  for (Client* reader : {stranger.get(), alice.get()}) {
    for (auto kind : {wire::GAMES_IN_PLAY, wire::FINISHED_GAMES}) {
      const auto reply = list(*reader, of_kind(kind));
      ASSERT_GT(reply.game_list().games_size(), 0);
      for (const auto& g : reply.game_list().games()) {
        EXPECT_EQ(g.your_side(), "");
        EXPECT_FALSE(g.has_standing_orders()) << g.game_id();
        EXPECT_EQ(g.your_seen_version(), 0);
        EXPECT_EQ(g.invite_code(), "");
        EXPECT_FALSE(g.private_());
        EXPECT_EQ(g.status(), kind == wire::GAMES_IN_PLAY ? "playing" : "finished");
        const auto watched = zed->watch(g.game_id());
        ASSERT_TRUE(watched.has_game()) << watched.DebugString();
        expect_no_more_than_watch(g, watched.game());
        wire::ClientMessage unwatch;
        unwatch.mutable_unwatch()->set_game_id(g.game_id());
        zed->request(unwatch);
      }
    }
  }
  // A finished game shows its result and what it changed in the ratings.
  const auto finished = list(*stranger, of_kind(wire::FINISHED_GAMES)).game_list().games(0);
  EXPECT_EQ(finished.result(), "Soviet victory");
  EXPECT_TRUE(finished.rating_counted());
  EXPECT_GT(finished.soviet_rating_change(), 0);
  EXPECT_GT(finished.version(), 0);

  // Only one player's games, as either side, by their name in any case.
  EXPECT_EQ(listed(*stranger, of_kind(wire::GAMES_IN_PLAY, "BOB")), Ids{alice_bob});
  EXPECT_EQ(listed(*stranger, of_kind(wire::GAMES_IN_PLAY, "dave")), Ids{carol_dave});
  EXPECT_EQ(listed(*stranger, of_kind(wire::FINISHED_GAMES, "carol")), Ids{over});
  EXPECT_EQ(listed(*stranger, of_kind(wire::FINISHED_GAMES, "dave")), Ids{}) << "his are private";
  EXPECT_EQ(listed(*stranger, of_kind(wire::OPEN_GAMES, "alice")), Ids{open});
  EXPECT_EQ(listed(*stranger, of_kind(wire::OPEN_GAMES, "bob")), Ids{});
  // Filters that apply to any game.
  auto casual = of_kind(wire::FINISHED_GAMES);
  casual.set_rated(wire::ONLY_CASUAL);
  EXPECT_EQ(listed(*stranger, casual), Ids{});
  auto timed = of_kind(wire::GAMES_IN_PLAY);
  timed.set_timing(wire::ONLY_UNTIMED);
  timed.set_scenario("counterattack");
  EXPECT_EQ(listed(*stranger, timed), (Ids{alice_bob, carol_dave}));
}

// Pages walked one after another while games start and end: each game in play
// throughout is listed once, and each finished game too, newest ended first.
TEST_F(ServerWatchList, PagesListEachGameOnceWithoutGapsWhileGamesStartAndEnd) {
  auto alice = user("alice"), bob = user("bob");
  std::vector<std::string> games;
  for (int i = 0; i < 8; ++i) games.push_back(start_game(*alice, *bob));
  auto reader = connect();

  auto walk = [&](wire::ListGames req, const std::function<void(int page)>& between) {
    req.set_page_size(3);
    std::vector<std::string> seen;
    for (int page = 1;; ++page) {
      const auto reply = list(*reader, req);
      EXPECT_TRUE(reply.has_game_list()) << reply.DebugString();
      EXPECT_LE(reply.game_list().games_size(), 3);
      for (const auto& id : ids_of(reply)) seen.push_back(id);
      between(page);
      if (reply.game_list().next_after().empty() || page > 10) break;
      req.set_after(reply.game_list().next_after());
    }
    return seen;
  };

  // In play, newest made first; a game started meanwhile heads a fresh first page.
  const auto whole = ids_of(list(*reader, of_kind(wire::GAMES_IN_PLAY)));
  EXPECT_EQ(whole, std::vector<std::string>(games.rbegin(), games.rend()));
  std::vector<std::string> started;
  const auto in_play = walk(of_kind(wire::GAMES_IN_PLAY), [&](int) { started.push_back(start_game(*alice, *bob)); });
  EXPECT_EQ(in_play, whole) << "each once, none twice, in order";
  EXPECT_EQ(ids_of(list(*reader, of_kind(wire::GAMES_IN_PLAY))).front(), started.back());

  // A game that ends after its page was read keeps its place for the cursor: the walk goes on past it.
  auto req = of_kind(wire::GAMES_IN_PLAY);
  req.set_page_size(2);
  const auto first = list(*reader, req);
  ASSERT_EQ(first.game_list().games_size(), 2);
  ASSERT_TRUE(resign(*bob, first.game_list().next_after()).has_ok());
  req.set_after(first.game_list().next_after());
  const auto second = list(*reader, req);
  ASSERT_TRUE(second.has_game_list()) << second.DebugString();
  EXPECT_EQ(second.game_list().games_size(), 2);

  // Finished: every game ended, newest ended first, one page or three a page alike.
  for (const auto& id : games) ASSERT_TRUE(resign(*alice, id).has_ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a later second: a later end
  const std::string last = started.front();
  ASSERT_TRUE(resign(*alice, last).has_ok());
  const auto all_over = ids_of(list(*reader, of_kind(wire::FINISHED_GAMES)));
  ASSERT_EQ(all_over.size(), games.size() + 2) << "the first eight, and two of those started since";
  EXPECT_EQ(all_over.front(), last) << "the newest ended first";
  std::vector<std::string> to_end;
  for (int i = 0; i < 4; ++i) to_end.push_back(start_game(*alice, *bob));
  std::vector<std::string> ended_meanwhile;
  const auto over = walk(of_kind(wire::FINISHED_GAMES), [&](int page) {
    const std::string id = to_end[static_cast<std::size_t>(page - 1)];
    ASSERT_TRUE(resign(*alice, id).has_ok());
    ended_meanwhile.push_back(id);
  });
  EXPECT_EQ(ended_meanwhile.size(), 4u) << "ten games, three a page";
  EXPECT_EQ(over, all_over) << "games that end meanwhile go before the first page, not into the walk";
  const auto fresh = listed(*reader, of_kind(wire::FINISHED_GAMES));
  for (const auto& id : ended_meanwhile) EXPECT_EQ(fresh.count(id), 1u) << id;
}

// Looking a player up: their games in the three lists (open, in play, finished),
// as a stranger, the player or their opponent asks. Never a private game, open, in
// play or over, nor a challenge nobody accepted, waiting or declined.
TEST_F(ServerWatchList, APlayersGamesOfEveryKindHoldNoPrivateGameNorAChallengeNobodyAccepted) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave");
  const std::string open = alice->create_game(wire::CHOOSE_SOVIET).game_created().game().game_id();
  const std::string playing = start_game(*alice, *bob);
  const std::string over = start_game(*bob, *alice);
  ASSERT_TRUE(resign(*bob, over).has_ok());
  const std::string hidden_open = alice->create_game(wire::CHOOSE_SOVIET, true).game_created().game().game_id();
  const std::string hidden_playing = private_game(*alice, *bob);
  const std::string hidden_over = private_game(*carol, *alice);
  ASSERT_TRUE(resign(*alice, hidden_over).has_ok());
  wire::ClientMessage challenge;
  challenge.mutable_create_game()->set_opponent("bob");
  const auto waiting = alice->request(challenge);
  ASSERT_TRUE(waiting.has_game_created()) << waiting.DebugString();
  challenge.mutable_create_game()->set_opponent("carol");
  const auto declined = alice->request(challenge);
  ASSERT_TRUE(declined.has_game_created()) << declined.DebugString();
  wire::ClientMessage decline;
  decline.mutable_decline_challenge()->set_game_id(declined.game_created().game().game_id());
  ASSERT_TRUE(carol->request(decline).has_ok());
  challenge.mutable_create_game()->set_opponent("dave");
  const auto accepted = alice->request(challenge);
  ASSERT_TRUE(accepted.has_game_created()) << accepted.DebugString();
  const std::string started = accepted.game_created().game().game_id();
  ASSERT_TRUE(dave->join(started).has_game()) << "a challenge accepted is a game like any other";
  const std::string withdrawn = alice->create_game(wire::CHOOSE_GERMAN).game_created().game().game_id();
  ASSERT_TRUE(resign(*alice, withdrawn).has_ok());

  using Ids = std::set<std::string>;
  auto stranger = connect();
  for (Client* reader : {stranger.get(), alice.get(), bob.get(), carol.get(), dave.get()}) {
    EXPECT_EQ(listed(*reader, of_kind(wire::OPEN_GAMES, "alice")), Ids{open});
    EXPECT_EQ(listed(*reader, of_kind(wire::GAMES_IN_PLAY, "alice")), (Ids{playing, started}));
    EXPECT_EQ(listed(*reader, of_kind(wire::FINISHED_GAMES, "alice")), Ids{over});
  }
  EXPECT_EQ(listed(*stranger, of_kind(wire::OPEN_GAMES, "bob")), Ids{}) << "the challenge kept for him is not his to list";
  EXPECT_EQ(listed(*stranger, of_kind(wire::FINISHED_GAMES, "carol")), Ids{}) << "her declined challenge and private game";
  for (const auto& id : {hidden_open, hidden_playing, hidden_over, waiting.game_created().game().game_id(),
                         declined.game_created().game().game_id(), withdrawn}) {
    for (auto kind : {wire::OPEN_GAMES, wire::GAMES_IN_PLAY, wire::FINISHED_GAMES}) {
      for (const char* name : {"alice", "bob", "carol"}) EXPECT_EQ(listed(*alice, of_kind(kind, name)).count(id), 0u) << id;
    }
  }
}

// A finished game read from its row (after a restart nothing is held in memory)
// shows the turn it ended on, as the game itself did, whether it ended by an
// order or by a resignation; one that ended before the server stored that shows none.
TEST_F(ServerWatchList, AFinishedGameListedAfterARestartShowsTheTurnItEndedOn) {
  auto alice = user("alice"), bob = user("bob");
  const std::string played_out = start_game(*alice, *bob);
  const std::string resigned = start_game(*alice, *bob);
  {
    auto [soviet, german] = watch_as_players(*alice, *bob, played_out);
    ASSERT_TRUE(play(soviet, german, nullptr, 20000, "out-").over);
  }
  {
    auto [soviet, german] = watch_as_players(*alice, *bob, resigned);
    EXPECT_EQ(play(soviet, german, nullptr, 80, "r-").accepted, 80);
  }
  ASSERT_TRUE(resign(*bob, resigned).has_ok());
  std::map<std::string, int> ended_on;
  auto watcher = user("zed");
  for (const auto& id : {played_out, resigned}) {
    const auto watched = watcher->watch(id);
    ASSERT_TRUE(watched.has_game()) << watched.DebugString();
    ASSERT_EQ(watched.game().status(), "finished");
    ended_on[id] = watched.game().turn();
    EXPECT_GT(ended_on[id], 1) << id;
  }

  restart();
  alice = login_as("alice");
  auto stranger = connect();
  const auto over = list(*stranger, of_kind(wire::FINISHED_GAMES));
  ASSERT_EQ(over.game_list().games_size(), 2) << over.DebugString();
  for (const auto& g : over.game_list().games()) EXPECT_EQ(g.turn(), ended_on[g.game_id()]) << g.DebugString();
  for (const auto& id : {played_out, resigned}) {
    EXPECT_EQ(summary_in_my_games(*alice, id).turn(), ended_on[id]) << "her own list, read from the row too";
  }

  // A game that ended before the turn was stored: none, not a turn made up.
  server_->terminate();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.prepare("UPDATE games SET end_turn = 0 WHERE id = ?").run(resigned);
  }
  restart();
  stranger = connect();
  const auto read_again = list(*stranger, of_kind(wire::FINISHED_GAMES));
  ASSERT_EQ(read_again.game_list().games_size(), 2) << read_again.DebugString();
  for (const auto& g : read_again.game_list().games()) {
    EXPECT_EQ(g.turn(), g.game_id() == resigned ? 0 : ended_on[played_out]) << g.DebugString();
  }
}

TEST_F(ServerWatchList, BadListRequestsAreRefusedWithASentenceAndChangeNothing) {
  auto alice = user("alice"), bob = user("bob");
  const std::string playing = start_game(*alice, *bob);
  const std::string ended = start_game(*alice, *bob);
  ASSERT_TRUE(resign(*bob, ended).has_ok());
  const std::string hidden = private_game(*alice, *bob);
  const std::string open = alice->create_game(wire::CHOOSE_SOVIET).game_created().game().game_id();
  auto reader = connect();
  auto lists = [&] {
    std::string all;
    for (auto kind : {wire::OPEN_GAMES, wire::GAMES_IN_PLAY, wire::FINISHED_GAMES}) {
      all += list(*reader, of_kind(kind)).game_list().SerializeAsString();
    }
    return all;
  };
  const auto before = lists();
  auto refused = [&](const wire::ListGames& req, wire::ErrorCode code, const std::string& words) {
    const auto reply = list(*reader, req);
    EXPECT_EQ(reply.error().code(), code) << reply.DebugString();
    EXPECT_NE(reply.error().message().find(words), std::string::npos) << reply.error().message();
  };
  refused(of_kind(static_cast<wire::GameListKind>(7)), wire::BAD_REQUEST,
          "Unknown kind of list: open games, games in play or finished games.");
  refused(of_kind(wire::GAMES_IN_PLAY, "no one!"), wire::BAD_REQUEST,
          "'no one!' is not a player's name: a name has 3 to 24 letters, digits, '_' or '-'.");
  refused(of_kind(wire::FINISHED_GAMES, "al"), wire::BAD_REQUEST, "'al' is not a player's name");
  refused(of_kind(wire::FINISHED_GAMES, "nobody"), wire::NOT_FOUND, "There is no player 'nobody'.");
  auto bounded = of_kind(wire::GAMES_IN_PLAY);
  bounded.set_min_rating(1400);
  refused(bounded, wire::BAD_REQUEST, "Rating bounds choose among open games by their maker's rating");
  auto cursor = of_kind(wire::GAMES_IN_PLAY);
  cursor.set_after("yesterday");
  refused(cursor, wire::BAD_REQUEST,
          "'yesterday' is not a game of the list of games in play: give the next_after of the page before.");
  // A private game was never on a list: its place in one is not told either.
  cursor.set_after(hidden);
  refused(cursor, wire::BAD_REQUEST, "'" + hidden + "' is not a game of the list of games in play");
  cursor.set_after(open);
  refused(cursor, wire::BAD_REQUEST, "is not a game of the list of games in play");
  cursor.set_kind(wire::FINISHED_GAMES);
  cursor.set_after(playing);
  refused(cursor, wire::BAD_REQUEST, "'" + playing + "' is not a game of the finished games' list");
  cursor.set_after(hidden);
  refused(cursor, wire::BAD_REQUEST, "is not a game of the finished games' list");
  cursor.set_after(std::string("x") + "\x1b[2J");
  refused(cursor, wire::BAD_REQUEST, "is not a game of the finished games' list");
  auto page = of_kind(wire::FINISHED_GAMES);
  page.set_page_size(201);
  refused(page, wire::BAD_REQUEST, "A page lists 1 to 200 games");
  auto scenario = of_kind(wire::GAMES_IN_PLAY);
  scenario.set_scenario("kursk");
  refused(scenario, wire::BAD_REQUEST, "Unknown scenario 'kursk'");

  EXPECT_EQ(lists(), before);
  EXPECT_EQ(summary_in_my_games(*alice, playing).status(), "playing");
}

}  // namespace
}  // namespace counterattack::server::testing
