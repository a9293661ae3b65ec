// The lobby of open games as players look for one: a page at a time, newest
// first, filtered by scenario, rated or casual, timing and the maker's rating;
// and open games nobody joins withdrawn by the server after a while.
#include <ctime>
#include <set>
#include <thread>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerOpenGames : public ServerTest {};

wire::ServerMessage list(Client& c, const wire::ListGames& req = {}) {
  wire::ClientMessage m;
  *m.mutable_list_games() = req;
  return c.request(m);
}

std::vector<std::string> ids_of(const wire::ServerMessage& reply) {
  std::vector<std::string> out;
  for (const auto& g : reply.game_list().games()) out.push_back(g.game_id());
  return out;
}

// A public game of `c`'s making, Soviet, on these terms; its id.
std::string create(Client& c, std::int64_t move_seconds = 0, std::int64_t clock = 0, bool casual = false) {
  wire::ClientMessage m;
  auto* g = m.mutable_create_game();
  g->set_side(wire::CHOOSE_SOVIET);
  g->set_move_seconds(move_seconds);
  g->set_clock_seconds(clock);
  g->set_casual(casual);
  const auto reply = c.request(m);
  EXPECT_TRUE(reply.has_game_created()) << reply.DebugString();
  return reply.game_created().game().game_id();
}

// The finished game as its player's MyGames shows it, once it is over (up to 15 seconds).
wire::GameSummary when_finished(Client& c, const std::string& id) {
  wire::GameSummary s;
  for (int i = 0; i < 150; ++i) {
    s = summary_in_my_games(c, id);
    if (s.status() == "finished") break;
    std::this_thread::sleep_for(100ms);
  }
  return s;
}

wire::ServerMessage resign(Client& c, const std::string& id) {
  wire::ClientMessage m;
  m.mutable_resign()->set_game_id(id);
  return c.request(m);
}

wire::ServerMessage ask_rematch(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_rematch()->set_game_id(game_id);
  return c.request(m);
}

TEST_F(ServerOpenGames, AnOpenGameNobodyJoinsIsWithdrawnAfterTheServersTimeAndItsMakerReadsWhy) {
  restart({}, "open_game_expiry_seconds = 5\n");
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  // A rematch offered and left unanswered lapses the same way.
  const std::string played = start_game(*alice, *bob);
  ASSERT_TRUE(resign(*bob, played).has_ok());
  const auto offered = ask_rematch(*alice, played);
  ASSERT_TRUE(offered.has_game_created()) << offered.DebugString();
  const std::string rematch = offered.game_created().game().game_id();

  const auto asked = now_unix();
  const std::string waiting = create(*alice);
  const std::string joined = create(*carol);
  ASSERT_TRUE(bob->join(joined).has_game());
  const auto before = summary_in_my_games(*alice, waiting);
  EXPECT_EQ(before.status(), "open");
  EXPECT_GE(before.expires_unix(), asked + 5);
  EXPECT_LE(before.expires_unix(), now_unix() + 5);
  EXPECT_EQ(ids_of(list(*carol)), std::vector<std::string>{waiting});

  const auto gone = when_finished(*alice, waiting);
  EXPECT_EQ(gone.status(), "finished");
  EXPECT_EQ(gone.result(), "Cancelled");
  EXPECT_EQ(gone.result_reason(), "Nobody joined within 5 seconds: the server withdrew the game.");
  EXPECT_EQ(gone.expires_unix(), 0) << "no longer open";
  EXPECT_TRUE(list(*carol).game_list().games().empty());
  EXPECT_EQ(carol->join(waiting).error().code(), wire::CONFLICT);

  const auto lapsed = when_finished(*alice, rematch);
  EXPECT_EQ(lapsed.result(), "Cancelled");
  EXPECT_EQ(lapsed.result_reason(), "bob did not take up the rematch within 5 seconds: the server withdrew it.");
  // Either player may offer it again, and the other accept it.
  const auto again = ask_rematch(*bob, played);
  ASSERT_TRUE(again.has_game_created()) << again.DebugString();
  EXPECT_TRUE(ask_rematch(*alice, played).has_game()) << "accepted before it lapses";

  // A game joined in time is played on.
  EXPECT_EQ(summary_in_my_games(*carol, joined).status(), "playing");
  // Withdrawn games no longer count against the maker's open games.
  EXPECT_FALSE(create(*alice).empty());
}

TEST_F(ServerOpenGames, OpenGamesWaitFourteenDaysUnlessTheOperatorSaysOtherwise) {
  auto alice = user("alice");
  const auto asked = now_unix();
  const std::string id = create(*alice);
  const auto waiting = list(*alice).game_list().games(0);
  EXPECT_GE(waiting.expires_unix(), asked + 14 * 86400);
  EXPECT_LE(waiting.expires_unix(), now_unix() + 14 * 86400);

  // The command line's setting overrides the file's; 0 keeps open games for ever.
  restart({"--open-game-expiry-seconds", "0"}, "open_game_expiry_seconds = 1\n");
  alice = login_as("alice");
  std::this_thread::sleep_for(2500ms);
  const auto kept = summary_in_my_games(*alice, id);
  EXPECT_EQ(kept.status(), "open");
  EXPECT_EQ(kept.expires_unix(), 0);

  // A value it cannot take stops the start, and says why.
  server_.reset();
  ServerProcess refused(dir_, {"--open-game-expiry-seconds", "soon"});
  EXPECT_FALSE(refused.started());
  EXPECT_NE(refused.log().find("--open-game-expiry-seconds: bad value 'soon'"), std::string::npos) << refused.log();
  restart();
  alice = login_as("alice");
  EXPECT_EQ(summary_in_my_games(*alice, id).status(), "open") << "nothing changed";
}

// Pages walked one after another while more games are made: every game open
// throughout is listed once, and none twice.
TEST_F(ServerOpenGames, PagesListEveryOpenGameOnceWhileGamesAreBeingCreated) {
  std::vector<std::unique_ptr<Client>> makers;
  for (const char* name : {"alice", "bob", "carol"}) makers.push_back(user(name));
  std::set<std::string> before;
  for (int i = 0; i < 25; ++i) before.insert(create(*makers[static_cast<std::size_t>(i % 3)]));
  auto reader = connect();

  // The old request: one page of all of them, newest first, and no more.
  const auto whole = list(*reader);
  ASSERT_TRUE(whole.has_game_list()) << whole.DebugString();
  EXPECT_EQ(whole.game_list().games_size(), 25);
  EXPECT_TRUE(whole.game_list().next_after().empty());

  wire::ListGames req;
  req.set_page_size(4);
  std::vector<std::string> seen;
  int pages = 0, made = 0;
  for (;;) {
    const auto page = list(*reader, req);
    ASSERT_TRUE(page.has_game_list()) << page.DebugString();
    ASSERT_LE(page.game_list().games_size(), 4);
    for (const auto& id : ids_of(page)) seen.push_back(id);
    ++pages;
    // Made between pages: it goes before the first page, not into the walk.
    if (made < 6) create(*makers[static_cast<std::size_t>(made++ % 3)]);
    if (page.game_list().next_after().empty()) break;
    req.set_after(page.game_list().next_after());
    ASSERT_LT(pages, 20);
  }
  EXPECT_EQ(pages, 7) << "25 games, 4 a page";
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), before);
  EXPECT_EQ(seen.size(), before.size()) << "none twice";
  // The same order as the one page: newest first.
  EXPECT_EQ(seen, ids_of(whole));
  // The games made meanwhile head the list now.
  req.clear_after();
  req.set_page_size(6);
  for (const auto& id : ids_of(list(*reader, req))) EXPECT_EQ(before.count(id), 0u) << id;
}

TEST_F(ServerOpenGames, EachFilterListsOnlyTheGamesItDescribes) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), dave = user("dave");
  // Alice beats bob in a rated game: her rating rises above 1500, his falls below.
  const std::string played = start_game(*alice, *bob);
  play_an_order_each(*alice, *bob, played);
  ASSERT_TRUE(resign(*bob, played).has_ok());
  ASSERT_TRUE(summary_in_my_games(*alice, played).rating_counted());

  const std::string untimed_casual = create(*alice, 0, 0, true);
  const std::string per_move = create(*bob, 3600);
  const std::string clock = create(*carol, 0, 900);
  const std::string untimed_rated = create(*dave);
  auto reader = connect();
  auto listed = [&](const wire::ListGames& req) {
    const auto reply = list(*reader, req);
    EXPECT_TRUE(reply.has_game_list()) << reply.DebugString();
    const auto ids = ids_of(reply);
    return std::set<std::string>(ids.begin(), ids.end());
  };
  using Ids = std::set<std::string>;
  wire::ListGames req;
  EXPECT_EQ(listed(req), (Ids{untimed_casual, per_move, clock, untimed_rated}));
  req.set_scenario("counterattack");
  EXPECT_EQ(listed(req).size(), 4u);

  req = {};
  req.set_rated(wire::ONLY_CASUAL);
  EXPECT_EQ(listed(req), Ids{untimed_casual});
  req.set_rated(wire::ONLY_RATED);
  EXPECT_EQ(listed(req), (Ids{per_move, clock, untimed_rated}));

  req = {};
  req.set_timing(wire::ONLY_UNTIMED);
  EXPECT_EQ(listed(req), (Ids{untimed_casual, untimed_rated}));
  req.set_timing(wire::ONLY_TIME_PER_MOVE);
  EXPECT_EQ(listed(req), Ids{per_move});
  req.set_timing(wire::ONLY_GAME_CLOCK);
  EXPECT_EQ(listed(req), Ids{clock});
  req.set_rated(wire::ONLY_RATED);
  req.set_timing(wire::ONLY_UNTIMED);
  EXPECT_EQ(listed(req), Ids{untimed_rated}) << "filters together";

  // The maker's rating as the list shows it: alice above 1500, bob below, the others at it.
  int alice_rating = 0, bob_rating = 0;
  const auto all = list(*reader);
  for (const auto& g : all.game_list().games()) {
    if (g.game_id() == untimed_casual) alice_rating = g.soviet_rating().rating();
    if (g.game_id() == per_move) bob_rating = g.soviet_rating().rating();
  }
  ASSERT_GT(alice_rating, 1500);
  ASSERT_LT(bob_rating, 1500);
  req = {};
  req.set_min_rating(1501);
  EXPECT_EQ(listed(req), Ids{untimed_casual});
  req.set_min_rating(alice_rating);
  req.set_max_rating(alice_rating);
  EXPECT_EQ(listed(req), Ids{untimed_casual}) << "bounds included";
  req = {};
  req.set_max_rating(1499);
  EXPECT_EQ(listed(req), Ids{per_move});
  req.set_min_rating(1500);
  req.set_max_rating(1500);
  EXPECT_EQ(listed(req), (Ids{clock, untimed_rated})) << "no rated games yet: 1500";

  // Paging keeps the filter: two rated games a page.
  req = {};
  req.set_rated(wire::ONLY_RATED);
  req.set_page_size(2);
  const auto first = list(*reader, req);
  ASSERT_EQ(first.game_list().games_size(), 2);
  ASSERT_FALSE(first.game_list().next_after().empty());
  req.set_after(first.game_list().next_after());
  const auto second = list(*reader, req);
  EXPECT_EQ(ids_of(second).size(), 1u);
  EXPECT_TRUE(second.game_list().next_after().empty());
}

TEST_F(ServerOpenGames, BadPagesAndFiltersAreRefusedWithAReasonAndChangeNothing) {
  auto alice = user("alice");
  const std::string id = create(*alice);
  const auto before = list(*alice);
  auto refused = [&](const wire::ListGames& req, const std::string& words) {
    const auto reply = list(*alice, req);
    EXPECT_EQ(reply.error().code(), wire::BAD_REQUEST) << reply.DebugString();
    EXPECT_NE(reply.error().message().find(words), std::string::npos) << reply.error().message();
  };
  wire::ListGames req;
  req.set_page_size(201);
  refused(req, "A page lists 1 to 200 games");
  req.set_page_size(-1);
  refused(req, "A page lists 1 to 200 games");
  req = {};
  req.set_after("yesterday");
  refused(req, "'yesterday' is not a game of the open games' list: give the next_after of the page before.");
  req.set_after(id + "\x1b[2J");
  refused(req, "' is not a game of the open games' list");
  // A private game was never on the list: its place in it is not told either.
  const auto hidden = alice->create_game(wire::CHOOSE_SOVIET, true).game_created().game().game_id();
  ASSERT_FALSE(hidden.empty());
  req.set_after(hidden);
  refused(req, "'" + hidden + "' is not a game of the open games' list");
  // Nor a public tournament's game, which starts in play and was never open.
  auto bob = user("bob");
  wire::ClientMessage made;
  made.mutable_create_tournament()->set_name("Cursor cup");
  made.mutable_create_tournament()->set_max_players(2);
  made.mutable_create_tournament()->set_enter(true);
  made.mutable_create_tournament()->set_move_seconds(86400);
  const auto cup = bob->request(made);
  ASSERT_TRUE(cup.has_tournament()) << cup.DebugString();
  wire::ClientMessage enter;
  enter.mutable_join_tournament()->set_tournament_id(cup.tournament().tournament_id());
  ASSERT_TRUE(user("carol")->request(enter).has_tournament());
  wire::ClientMessage get;
  get.mutable_get_tournament()->set_tournament_id(cup.tournament().tournament_id());
  const auto started = bob->request(get);  // full: it started by itself
  ASSERT_GT(started.tournament().games_size(), 0) << started.DebugString();
  const std::string cup_game = started.tournament().games(0).game_id();
  req.set_after(cup_game);
  refused(req, "'" + cup_game + "' is not a game of the open games' list");
  req = {};
  req.set_scenario("kursk");
  refused(req, "Unknown scenario 'kursk' (known: counterattack)");
  req = {};
  req.set_rated(static_cast<wire::RatedChoice>(7));
  refused(req, "rated or casual");
  req = {};
  req.set_timing(static_cast<wire::TimingChoice>(9));
  refused(req, "timing");
  req = {};
  req.set_min_rating(-1);
  refused(req, "A rating bound is from 1 to 9999 (0: none), not -1.");
  req = {};
  req.set_max_rating(10000);
  refused(req, "not 10000");
  req = {};
  req.set_min_rating(1600);
  req.set_max_rating(1400);
  refused(req, "The least rating asked for (1600) is above the most (1400).");

  const auto after = list(*alice);
  EXPECT_EQ(after.game_list().SerializeAsString(), before.game_list().SerializeAsString());
  EXPECT_EQ(summary_in_my_games(*alice, id).status(), "open");
}

}  // namespace
}  // namespace counterattack::server::testing
