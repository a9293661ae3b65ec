// Tournaments through the real server: entry, the start that makes every game
// of the round robin at once, standings that follow the games' results, and
// refusals that change nothing.
#include <algorithm>
#include <cctype>
#include <ctime>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerTournament : public ServerTest {
 protected:
  // Gives each player a rating in the scenario: it seeds a Swiss or a knock-out.
  void rate(const std::vector<std::pair<std::string, int>>& ratings) {
    server_->kill9();
    {
      std::string err;
      Db db(server_->data_dir() + "/counterattack.db", false, err);
      ASSERT_TRUE(db.ok()) << err;
      for (const auto& [name, rating] : ratings) {
        db.exec("INSERT INTO ratings (user_id, scenario, rating, deviation, volatility, games, wins, draws, losses,"
                " updated_unix) SELECT id, 'counterattack', " + std::to_string(rating) +
                ", 60, 0.06, 10, 5, 0, 5, 1 FROM users WHERE name = '" + name + "'");
      }
    }
    restart();
  }
};

constexpr std::int64_t kDay = 86400;

wire::ClientMessage create(const std::string& name, int max_players, bool enter = true, bool is_private = false,
                           std::int64_t move_seconds = kDay) {
  wire::ClientMessage m;
  auto* c = m.mutable_create_tournament();
  c->set_name(name);
  c->set_max_players(max_players);
  c->set_enter(enter);
  c->set_private_(is_private);
  c->set_move_seconds(move_seconds);
  return m;
}

wire::ClientMessage join(const std::string& id, const std::string& invite = "") {
  wire::ClientMessage m;
  m.mutable_join_tournament()->set_tournament_id(id);
  m.mutable_join_tournament()->set_invite_code(invite);
  return m;
}

wire::ClientMessage get(const std::string& id) {
  wire::ClientMessage m;
  m.mutable_get_tournament()->set_tournament_id(id);
  return m;
}

wire::ClientMessage start(const std::string& id) {
  wire::ClientMessage m;
  m.mutable_start_tournament()->set_tournament_id(id);
  return m;
}

wire::ClientMessage leave(const std::string& id) {
  wire::ClientMessage m;
  m.mutable_leave_tournament()->set_tournament_id(id);
  return m;
}

wire::ClientMessage cancel(const std::string& id) {
  wire::ClientMessage m;
  m.mutable_cancel_tournament()->set_tournament_id(id);
  return m;
}

wire::ClientMessage list() {
  wire::ClientMessage m;
  m.mutable_list_tournaments();
  return m;
}

wire::ErrorCode code_of(const wire::ServerMessage& m) { return m.has_error() ? m.error().code() : wire::ERROR_UNSPECIFIED; }

// The game of the tournament in which `soviet` plays the Soviet side against `german`.
std::string game_of(const wire::Tournament& t, const std::string& soviet, const std::string& german) {
  for (const auto& g : t.games()) {
    if (g.soviet() == soviet && g.german() == german) return g.game_id();
  }
  ADD_FAILURE() << "no game " << soviet << " against " << german;
  return "";
}

const wire::Standing* standing_of(const wire::Tournament& t, const std::string& player) {
  for (const auto& s : t.standings()) {
    if (s.player() == player) return &s;
  }
  ADD_FAILURE() << player << " is not in the standings";
  return nullptr;
}

// A knock-out of two that `organiser` makes and enters and `entrant` fills, which starts it: its id.
std::string knockout_of_two(Client& organiser, Client& entrant, const std::string& name) {
  auto m = create(name, 2);
  m.mutable_create_tournament()->set_knockout(true);
  auto created = organiser.request(m);
  EXPECT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  EXPECT_TRUE(entrant.request(join(id)).has_tournament());
  return id;
}

void resign(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_resign()->set_game_id(game_id);
  auto r = c.request(m);
  EXPECT_TRUE(r.has_ok()) << r.DebugString();
}

void agree_draw(Client& offers, Client& accepts, const std::string& game_id) {
  wire::ClientMessage offer;
  offer.mutable_offer_draw()->set_game_id(game_id);
  EXPECT_TRUE(offers.request(offer).has_ok());
  wire::ClientMessage answer;
  answer.mutable_answer_draw()->set_game_id(game_id);
  answer.mutable_answer_draw()->set_accept(true);
  auto r = accepts.request(answer);
  EXPECT_TRUE(r.has_ok()) << r.DebugString();
}

TEST_F(ServerTournament, ThreeEntrantsPlayEachOtherWithBothSidesAndTheStandingsFollowTheResults) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  ASSERT_TRUE(carol->follow_turns().has_ok());

  auto created = alice->request(create("Warsaw Cup", 3));
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const auto& t0 = created.tournament();
  const std::string id = t0.tournament_id();
  EXPECT_EQ(t0.name(), "Warsaw Cup");
  EXPECT_EQ(t0.organiser(), "alice");
  EXPECT_EQ(t0.status(), "open");
  EXPECT_EQ(t0.entrants(), 1);
  EXPECT_TRUE(t0.entered());
  EXPECT_EQ(t0.move_seconds(), kDay);

  auto joined = bob->request(join(id));
  ASSERT_TRUE(joined.has_tournament()) << joined.DebugString();
  EXPECT_EQ(joined.tournament().status(), "open");
  EXPECT_EQ(joined.tournament().entrants(), 2);

  // Open and public: carol finds it in the list.
  auto listed = carol->request(list());
  ASSERT_TRUE(listed.has_tournament_list());
  ASSERT_EQ(listed.tournament_list().tournaments_size(), 1);
  EXPECT_EQ(listed.tournament_list().tournaments(0).tournament_id(), id);
  EXPECT_FALSE(listed.tournament_list().tournaments(0).entered());

  // The third entrant fills it: it starts at once, with every pair playing both sides.
  auto full = carol->request(join(id));
  ASSERT_TRUE(full.has_tournament()) << full.DebugString();
  const wire::Tournament t = full.tournament();
  EXPECT_EQ(t.status(), "playing");
  EXPECT_GT(t.started_unix(), 0);
  ASSERT_EQ(t.games_size(), 6);
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& g : t.games()) {
    pairs.emplace(g.soviet(), g.german());
    EXPECT_EQ(g.status(), "playing");
    EXPECT_EQ(g.tournament_id(), id);
    EXPECT_EQ(g.move_seconds(), kDay);
    EXPECT_GT(g.deadline_unix(), 0);
  }
  EXPECT_EQ(pairs.size(), 6u) << "each ordered pair once";
  ASSERT_EQ(t.standings_size(), 3);
  for (const auto& s : t.standings()) {
    EXPECT_EQ(s.rank(), 1);
    EXPECT_EQ(s.to_play(), 4);
    EXPECT_EQ(s.points(), 0);
  }

  // carol follows her turns: told of the start, then of each game that waits for her.
  EXPECT_TRUE(carol->wait_for([&](const wire::ServerMessage& m) {
    return m.has_tournament_started() && m.tournament_started().tournament_id() == id;
  }));
  ASSERT_TRUE(carol->ping().has_pong());
  auto turns = carol->take_all([](const wire::ServerMessage& m) { return m.has_your_turn(); });
  EXPECT_EQ(turns.size(), 2u) << "she moves first in the two games where she plays the side that opens";
  for (const auto& m : turns) EXPECT_EQ(m.your_turn().tournament_id(), id);

  // The games are ordinary games: a player's list names their tournament.
  wire::ClientMessage mine;
  mine.mutable_my_games();
  auto my = bob->request(mine);
  ASSERT_EQ(my.game_list().games_size(), 4);
  for (const auto& g : my.game_list().games()) {
    EXPECT_EQ(g.tournament_id(), id);
    EXPECT_TRUE(g.rated()) << "a tournament's games count for the ratings";
  }

  // alice beats bob twice and carol once, and draws with her once; bob and carol draw twice.
  // Each game is played a little first: one ended before each side moved would not be rated.
  std::map<std::string, Client*> by_name{{"alice", alice.get()}, {"bob", bob.get()}, {"carol", carol.get()}};
  for (const auto& g : t.games()) play_an_order_each(*by_name[g.soviet()], *by_name[g.german()], g.game_id());
  ASSERT_FALSE(HasFailure());
  resign(*bob, game_of(t, "alice", "bob"));
  resign(*bob, game_of(t, "bob", "alice"));
  resign(*carol, game_of(t, "carol", "alice"));
  agree_draw(*alice, *carol, game_of(t, "alice", "carol"));
  agree_draw(*bob, *carol, game_of(t, "bob", "carol"));
  ASSERT_FALSE(HasFailure());
  auto during = alice->request(get(id));
  ASSERT_TRUE(during.has_tournament());
  EXPECT_EQ(during.tournament().status(), "playing");
  EXPECT_EQ(during.tournament().standings(0).player(), "alice");
  EXPECT_EQ(during.tournament().standings(0).to_play(), 0);
  agree_draw(*carol, *bob, game_of(t, "carol", "bob"));
  ASSERT_FALSE(HasFailure());

  // The last game's end ends the tournament: carol, following her turns, is told once, with the final standings.
  auto over = carol->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_finished(); });
  ASSERT_TRUE(over);
  EXPECT_EQ(over->tournament_finished().tournament_id(), id);
  EXPECT_EQ(over->tournament_finished().status(), "finished");
  ASSERT_EQ(over->tournament_finished().standings_size(), 3);
  EXPECT_EQ(over->tournament_finished().standings(0).player(), "alice");
  EXPECT_TRUE(over->tournament_finished().entered());
  ASSERT_TRUE(carol->ping().has_pong());
  EXPECT_TRUE(carol->take_all([](const wire::ServerMessage& m) { return m.has_tournament_finished(); }).empty());

  auto after = bob->request(get(id));
  ASSERT_TRUE(after.has_tournament());
  const auto& done = after.tournament();
  EXPECT_EQ(done.status(), "finished");
  EXPECT_EQ(bob->request(join(id)).error().message(), "The tournament is over.");
  ASSERT_EQ(done.standings_size(), 3);
  EXPECT_EQ(done.standings(0).player(), "alice");
  EXPECT_EQ(done.standings(1).player(), "carol");
  EXPECT_EQ(done.standings(2).player(), "bob");
  const auto* a = standing_of(done, "alice");
  const auto* b = standing_of(done, "bob");
  const auto* c = standing_of(done, "carol");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->points(), 3.5);
  EXPECT_EQ(a->won(), 3);
  EXPECT_EQ(a->drawn(), 1);
  EXPECT_EQ(a->lost(), 0);
  EXPECT_EQ(c->points(), 1.5);
  EXPECT_EQ(b->points(), 1.0);
  EXPECT_EQ(b->lost(), 2);
  EXPECT_EQ(a->rank(), 1);
  EXPECT_EQ(c->rank(), 2);
  EXPECT_EQ(b->rank(), 3);
  // Sonneborn-Berger: bob's 1 twice, carol's 1.5 once and half of it once.
  EXPECT_EQ(a->tiebreak(), 2 * 1.0 + 1.5 + 0.75);
  for (const auto& s : done.standings()) EXPECT_EQ(s.to_play(), 0);
  // Its games say what they are as the players' lists do: rated, what each moved, and why it ended.
  ASSERT_EQ(done.games_size(), 6);
  for (const auto& g : done.games()) {
    EXPECT_TRUE(g.rated()) << g.game_id();
    EXPECT_TRUE(g.rating_counted()) << g.game_id();
    EXPECT_FALSE(g.result_reason().empty()) << g.game_id();
  }
  const std::string beaten = game_of(t, "alice", "bob");
  const auto bobs_list = bob->request(mine);
  const auto in_list = std::find_if(bobs_list.game_list().games().begin(), bobs_list.game_list().games().end(),
                                    [&](const auto& g) { return g.game_id() == beaten; });
  ASSERT_NE(in_list, bobs_list.game_list().games().end());
  for (const auto& g : done.games()) {
    if (g.game_id() != beaten) continue;
    EXPECT_GT(g.soviet_rating_change(), 0) << "alice won it";
    EXPECT_EQ(g.soviet_rating_change(), in_list->soviet_rating_change());
    EXPECT_EQ(g.german_rating_change(), in_list->german_rating_change());
    EXPECT_EQ(g.result_reason(), in_list->result_reason());
    EXPECT_NE(g.result_reason().find("resign"), std::string::npos) << g.result_reason();
  }

  // The ratings list follows the tournament's order.
  wire::ClientMessage ratings;
  ratings.mutable_list_ratings();
  auto rated = carol->request(ratings);
  ASSERT_EQ(rated.rating_list().players_size(), 3) << rated.DebugString();
  EXPECT_EQ(rated.rating_list().players(0).name(), "alice");
  EXPECT_EQ(rated.rating_list().players(0).games(), 4);
  EXPECT_EQ(rated.rating_list().players(2).name(), "bob");
}

TEST_F(ServerTournament, RefusedRequestsSayWhyAndChangeNothing) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  for (const auto& bad : {create("W", 4), create("Warsaw\nCup", 4), create(" Warsaw", 4), create("Warsaw Cup", 1),
                          create("Warsaw Cup", 9), create("Warsaw Cup", 4, true, false, 0)}) {
    auto r = alice->request(bad);
    EXPECT_EQ(code_of(r), wire::BAD_REQUEST) << r.DebugString();
    EXPECT_FALSE(r.error().message().empty());
  }
  EXPECT_EQ(alice->request(list()).tournament_list().tournaments_size(), 0);
  EXPECT_EQ(code_of(bob->request(join("nosuchthing"))), wire::NOT_FOUND);
  EXPECT_EQ(code_of(bob->request(get(std::string(65, 'x')))), wire::NOT_FOUND);

  // An organiser who does not play: not among the entrants.
  auto open = alice->request(create("Club night", 4, false));
  ASSERT_TRUE(open.has_tournament());
  const std::string id = open.tournament().tournament_id();
  EXPECT_EQ(open.tournament().entrants(), 0);
  EXPECT_FALSE(open.tournament().entered());
  EXPECT_EQ(code_of(alice->request(start(id))), wire::CONFLICT) << "no one has entered";
  ASSERT_TRUE(bob->request(join(id)).has_tournament());
  EXPECT_EQ(code_of(bob->request(join(id))), wire::CONFLICT) << "twice";
  EXPECT_EQ(code_of(bob->request(start(id))), wire::FORBIDDEN) << "only the organiser starts it";
  EXPECT_EQ(code_of(bob->request(cancel(id))), wire::FORBIDDEN);
  EXPECT_EQ(code_of(alice->request(start(id))), wire::CONFLICT) << "one entrant is not a tournament";
  EXPECT_EQ(alice->request(get(id)).tournament().status(), "open");
  EXPECT_EQ(code_of(eve->request(leave(id))), wire::NOT_FOUND) << "eve has not entered";
  EXPECT_TRUE(bob->request(leave(id)).has_ok());
  EXPECT_EQ(alice->request(get(id)).tournament().entrants(), 0);
  ASSERT_TRUE(bob->request(join(id)).has_tournament()) << "back in";
  ASSERT_TRUE(eve->request(join(id)).has_tournament());
  auto started = alice->request(start(id));
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  EXPECT_EQ(started.tournament().status(), "playing");
  EXPECT_EQ(started.tournament().games_size(), 2);
  for (const auto& g : started.tournament().games()) EXPECT_NE(g.soviet(), "alice");
  EXPECT_EQ(code_of(alice->request(leave(id))), wire::NOT_FOUND) << "an organiser who does not play has not entered";
  EXPECT_EQ(code_of(alice->request(join(id))), wire::CONFLICT) << "started";
  const auto late_cancel = alice->request(cancel(id));
  EXPECT_EQ(code_of(late_cancel), wire::CONFLICT);
  EXPECT_EQ(late_cancel.error().message(), "The tournament has already started: now only the server's operator can cancel it.");
  EXPECT_EQ(code_of(alice->request(start(id))), wire::CONFLICT);

  // Private: entered only with the code, and unseen by others; cancelled: closed.
  auto secret = alice->request(create("Invitational", 3, true, true));
  ASSERT_TRUE(secret.has_tournament());
  const std::string sid = secret.tournament().tournament_id();
  const std::string code = secret.tournament().invite_code();
  EXPECT_EQ(code.size(), 10u);
  EXPECT_EQ(code_of(bob->request(get(sid))), wire::NOT_FOUND);
  EXPECT_EQ(code_of(bob->request(join(sid))), wire::FORBIDDEN);
  const auto wrong = bob->request(join(sid, "wrongcode2"));
  EXPECT_EQ(code_of(wrong), wire::FORBIDDEN);
  EXPECT_EQ(wrong.error().message(), "That is not this private tournament's invite code.");
  auto in = bob->request(join(sid, code));
  ASSERT_TRUE(in.has_tournament()) << in.DebugString();
  EXPECT_EQ(in.tournament().invite_code(), "") << "the code is the organiser's to give";
  EXPECT_EQ(code_of(bob->request(join(sid))), wire::CONFLICT) << "in already: the code is not asked again";
  const auto eves = eve->request(list());
  for (const auto& t : eves.tournament_list().tournaments()) EXPECT_NE(t.tournament_id(), sid);
  EXPECT_TRUE(alice->request(cancel(sid)).has_ok());
  EXPECT_EQ(code_of(eve->request(join(sid, code))), wire::CONFLICT);
  EXPECT_EQ(bob->request(join(sid)).error().message(), "The tournament was cancelled.") << "not that bob entered it";
  EXPECT_EQ(bob->request(get(sid)).tournament().status(), "cancelled");
  const auto left = bob->request(leave(sid));
  EXPECT_EQ(code_of(left), wire::CONFLICT);
  EXPECT_EQ(left.error().message(), "The tournament was cancelled.");

  // An organiser's tournaments that have not started are bounded.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(eve->request(create("Eve's " + std::to_string(i), 4)).has_tournament());
  EXPECT_EQ(code_of(eve->request(create("One too many", 4))), wire::CONFLICT);
}

// Codes are made lower-case; one typed in capitals is the same code, as for a private game.
TEST_F(ServerTournament, APrivateTournamentsInviteCodeIsTakenInAnyCase) {
  auto alice = user("alice"), bob = user("bob");
  auto made = alice->request(create("Invitational", 3, true, true));
  ASSERT_TRUE(made.has_tournament()) << made.DebugString();
  const std::string id = made.tournament().tournament_id();
  std::string shouted = made.tournament().invite_code();
  for (auto& ch : shouted) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  ASSERT_NE(shouted, made.tournament().invite_code());
  const auto in = bob->request(join(id, shouted));
  ASSERT_TRUE(in.has_tournament()) << in.DebugString();
  EXPECT_TRUE(in.tournament().entered());
  EXPECT_EQ(in.tournament().entrants(), 2);
}

// A private tournament's games are private games: someone who learns a game's
// id is refused as for any private game without its code, not told it started.
TEST_F(ServerTournament, AnOutsiderCannotJoinAGameOfAPrivateTournament) {
  auto alice = user("alice"), bob = user("bob"), eve = user("eve");
  auto made = alice->request(create("Invitational", 2, true, true));
  ASSERT_TRUE(made.has_tournament());
  const std::string id = made.tournament().tournament_id();
  ASSERT_TRUE(bob->request(join(id, made.tournament().invite_code())).has_tournament());
  const auto started = alice->request(get(id));  // full: it started by itself
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  ASSERT_GT(started.tournament().games_size(), 0);
  wire::ClientMessage m;
  m.mutable_join_game()->set_game_id(started.tournament().games(0).game_id());
  for (const std::string code : {"", "wrongcode2"}) {
    m.mutable_join_game()->set_invite_code(code);
    const auto r = eve->request(m);
    EXPECT_EQ(code_of(r), wire::FORBIDDEN) << r.DebugString();
  }
}

// A private tournament's games are open to its own: the organiser and every entrant
// watch the other pairs' games as spectators (the public view), and outsiders
// still cannot tell they exist.
TEST_F(ServerTournament, APrivateTournamentsEntrantsWatchEachOthersGamesAndOutsidersDoNot) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol"), eve = user("eve");
  auto made = alice->request(create("Club Invitational", 3, false, true));
  ASSERT_TRUE(made.has_tournament());
  const std::string id = made.tournament().tournament_id(), code = made.tournament().invite_code();
  for (auto* c : {bob.get(), carol.get()}) ASSERT_TRUE(c->request(join(id, code)).has_tournament());
  ASSERT_TRUE(alice->request(start(id)).has_tournament());
  const auto t = alice->request(get(id)).tournament();
  ASSERT_EQ(t.games_size(), 2);
  const std::string game = t.games(0).game_id();  // bob and carol's
  const auto organiser = alice->watch(game);
  EXPECT_TRUE(organiser.has_game()) << organiser.DebugString();
  EXPECT_EQ(organiser.game().your_side(), "") << "a spectator";
  EXPECT_EQ(code_of(eve->watch(game)), wire::NOT_FOUND) << "an outsider is not told it exists";
  wire::ClientMessage resign_it;
  resign_it.mutable_resign()->set_game_id(game);
  EXPECT_EQ(code_of(alice->request(resign_it)), wire::FORBIDDEN) << "watching is not playing";
}

// A tournament for a club night: every game with a game clock instead of a
// time per move. In a tournament a player who never moves loses on time: the
// game is not aborted, as the standings need its result.
TEST_F(ServerTournament, ATournamentsGamesMayHaveAGameClockAndANoShowLosesOnIt) {
  restart({}, "min_clock_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  auto neither = create("Club Night", 2, true, false, 0);
  EXPECT_EQ(code_of(alice->request(neither)), wire::BAD_REQUEST) << "neither a time per move nor a clock";
  auto both = create("Club Night", 2);
  both.mutable_create_tournament()->set_clock_seconds(600);
  EXPECT_EQ(code_of(alice->request(both)), wire::BAD_REQUEST) << "both";
  auto m = create("Club Night", 2, true, false, 0);
  m.mutable_create_tournament()->set_clock_seconds(3);
  m.mutable_create_tournament()->set_increment_seconds(1);
  auto created = alice->request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  EXPECT_EQ(created.tournament().clock_seconds(), 3);
  EXPECT_EQ(created.tournament().increment_seconds(), 1);
  const std::string id = created.tournament().tournament_id();
  auto started = bob->request(join(id));
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  ASSERT_EQ(started.tournament().games_size(), 2);
  for (const auto& g : started.tournament().games()) {
    EXPECT_EQ(g.clock_seconds(), 3);
    EXPECT_EQ(g.move_seconds(), 0);
    const auto mine = summary_in_my_games(*alice, g.game_id());
    EXPECT_EQ(mine.soviet_clock_left(), 3);
    EXPECT_EQ(mine.german_clock_left(), 3);
    EXPECT_GT(mine.deadline_unix(), 0) << "the first player's clock runs";
  }
  // Nobody moves: both games are lost on time, and the tournament ends.
  auto t = alice->request(get(id)).tournament();
  for (int i = 0; i < 300 && t.status() != "finished"; ++i) {
    std::this_thread::sleep_for(50ms);
    t = alice->request(get(id)).tournament();
  }
  ASSERT_EQ(t.status(), "finished");
  double points = 0;
  for (const auto& g : t.games()) {
    EXPECT_TRUE(g.result() == "Soviet victory" || g.result() == "German victory") << g.result();
  }
  for (const auto& s : t.standings()) points += s.points();
  EXPECT_EQ(points, 2.0) << "each game's result counts";
}

// A Swiss's first round is seeded by rating in the tournament's scenario (1500
// for a player without one): the top half meets the bottom half, and with an
// odd number the lowest seed sits out.
TEST_F(ServerTournament, ASwissFirstRoundSeedsTheEntrantsByRatingTopHalfAgainstBottomHalf) {
  for (const char* name : {"alice", "bob", "carol", "dave", "erin"}) user(name);
  rate({{"erin", 1900}, {"dave", 1750}, {"bob", 1450}, {"alice", 1300}});
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave", "erin"}) players[name] = login_as(name);
  auto m = create("Seeded Open", 5);
  m.mutable_create_tournament()->set_rounds(2);
  auto created = players["alice"]->request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"bob", "carol", "dave", "erin"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  const auto t = players["alice"]->request(get(id)).tournament();
  ASSERT_EQ(t.round(), 1);
  EXPECT_EQ(t.sits_out(), "alice") << "the lowest seed";
  std::set<std::set<std::string>> pairs;
  for (const auto& g : t.games()) pairs.insert({g.soviet(), g.german()});
  // Seeds: erin, dave, carol (no rating: 1500), bob, alice.
  EXPECT_EQ(pairs, (std::set<std::set<std::string>>{{"erin", "carol"}, {"dave", "bob"}}));
}

// Level on rating, four entrants are seeded in an order drawn at the start; the
// standings list them in that order, and round 1 pairs 1 with 3 and 2 with 4.
TEST_F(ServerTournament, ASwissOfEquallyRatedEntrantsListsTheirSeedsAndPairsTheTopHalfWithTheBottomHalf) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"cat", "ann", "ben", "dan"}) players[name] = user(name);
  auto m = create("Level Open", 4);
  m.mutable_create_tournament()->set_rounds(2);
  auto created = players["cat"]->request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"ann", "ben", "dan"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  const auto t = players["cat"]->request(get(id)).tournament();
  ASSERT_EQ(t.round(), 1);
  ASSERT_EQ(t.standings_size(), 4);
  std::vector<std::string> seeds;
  for (const auto& s : t.standings()) seeds.push_back(s.player());
  std::set<std::set<std::string>> pairs;
  for (const auto& g : t.games()) pairs.insert({g.soviet(), g.german()});
  EXPECT_EQ(pairs, (std::set<std::set<std::string>>{{seeds[0], seeds[2]}, {seeds[1], seeds[3]}}))
      << "seeds: " << seeds[0] << ", " << seeds[1] << ", " << seeds[2] << ", " << seeds[3];
}

// The tournament once `done` holds of it, asked for until then.
wire::Tournament wait_for(Client& c, const std::string& id, const std::function<bool(const wire::Tournament&)>& done) {
  auto t = c.request(get(id)).tournament();
  for (int i = 0; i < 100 && !done(t); ++i) {
    std::this_thread::sleep_for(50ms);
    t = c.request(get(id)).tournament();
  }
  EXPECT_TRUE(done(t)) << t.DebugString();
  return t;
}

// Every game of bob's in the tournament is over.
bool bobs_over(const wire::Tournament& x) {
  return std::none_of(x.games().begin(), x.games().end(), [](const wire::GameSummary& g) {
    return (g.soviet() == "bob" || g.german() == "bob") && g.status() != "finished";
  });
}

std::vector<wire::GameSummary> games_of_round(const wire::Tournament& t, int round) {
  std::vector<wire::GameSummary> out;
  for (const auto& g : t.games()) {
    if (g.tournament_round() == round) out.push_back(g);
  }
  return out;
}

// A knock-out of three: the top seed sits out the first round; the other two's
// match, level after its two games, goes to a deciding game, whose winner meets
// the top seed in the final. The standings rank by the round each went out in.
TEST_F(ServerTournament, AKnockOutSeedsByRatingDecidesALevelMatchWithAThirdGameAndRanksByTheRoundLost) {
  for (const char* name : {"alice", "bob", "carol"}) user(name);
  rate({{"carol", 1900}, {"bob", 1600}});  // alice: 1500
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol"}) players[name] = login_as(name);
  auto& alice = *players["alice"];
  ASSERT_TRUE(players["carol"]->follow_turns().has_ok());

  auto m = create("Knock-out Cup", 3);
  m.mutable_create_tournament()->set_knockout(true);
  auto created = alice.request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  EXPECT_TRUE(created.tournament().knockout());
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"bob", "carol"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());

  auto t = alice.request(get(id)).tournament();
  EXPECT_EQ(t.status(), "playing");
  EXPECT_EQ(t.rounds(), 2) << "three fit a bracket of four: two rounds";
  EXPECT_EQ(t.round(), 1);
  EXPECT_EQ(t.sits_out(), "carol") << "the top seed has the bye";
  ASSERT_EQ(t.games_size(), 2);
  // Level: each wins with one side.
  resign(alice, game_of(t, "alice", "bob"));
  resign(*players["bob"], game_of(t, "bob", "alice"));
  t = wait_for(alice, id, [](const auto& x) { return games_of_round(x, 1).size() == 3; });
  EXPECT_EQ(t.round(), 1) << "a deciding game, not the next round";
  EXPECT_EQ(t.status(), "playing");
  const auto decider = games_of_round(t, 1).back();
  EXPECT_EQ(decider.status(), "playing");
  EXPECT_EQ(std::set<std::string>({decider.soviet(), decider.german()}), (std::set<std::string>{"alice", "bob"}));
  resign(*players["bob"], decider.game_id());  // the lower seed goes through

  t = wait_for(alice, id, [](const auto& x) { return x.round() == 2; });
  const auto final_games = games_of_round(t, 2);
  ASSERT_EQ(final_games.size(), 2u);
  for (const auto& g : final_games) {
    EXPECT_EQ(std::set<std::string>({g.soviet(), g.german()}), (std::set<std::string>{"alice", "carol"}));
  }
  EXPECT_EQ(t.sits_out(), "");
  EXPECT_EQ(t.your_opponent(), "carol") << "whom alice plays in the round under way";
  EXPECT_EQ(standing_of(t, "bob")->knocked_out(), 1);
  EXPECT_EQ(standing_of(t, "alice")->knocked_out(), 0);
  // carol follows her turns: told of the final.
  auto& carol = *players["carol"];
  const auto final_notice = carol.wait_for([&](const wire::ServerMessage& x) {
    return x.has_tournament_started() && x.tournament_started().tournament_id() == id && x.tournament_started().round() == 2;
  });
  ASSERT_TRUE(final_notice);
  EXPECT_EQ(final_notice->tournament_started().your_opponent(), "alice");
  for (const auto& g : final_games) resign(carol, g.game_id());

  t = wait_for(alice, id, [](const auto& x) { return x.status() == "finished"; });
  ASSERT_EQ(t.standings_size(), 3);
  EXPECT_EQ(t.standings(0).player(), "alice");
  EXPECT_EQ(t.standings(0).rank(), 1);
  EXPECT_EQ(t.standings(0).knocked_out(), 0);
  EXPECT_EQ(t.standings(1).player(), "carol");
  EXPECT_EQ(t.standings(1).rank(), 2);
  EXPECT_EQ(t.standings(1).knocked_out(), 2);
  EXPECT_EQ(t.standings(2).player(), "bob");
  EXPECT_EQ(t.standings(2).rank(), 3);
  EXPECT_EQ(t.standings(2).points(), 1) << "a knock-out's standings still count the games";
  EXPECT_EQ(t.standings(1).points(), 0) << "a bye is worth no points in a knock-out";

  // Told of the end too, and earlier of the start with her bye, but not of the
  // deciding game, in which she had no part.
  EXPECT_TRUE(carol.wait_for([&](const wire::ServerMessage& x) {
    return x.has_tournament_finished() && x.tournament_finished().tournament_id() == id;
  }));
  ASSERT_TRUE(carol.ping().has_pong());
  const auto told = carol.take_all([&](const wire::ServerMessage& x) {
    return x.has_tournament_started() && x.tournament_started().tournament_id() == id;
  });
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told.front().tournament_started().sits_out(), "carol");
  EXPECT_EQ(told.front().tournament_started().your_opponent(), "") << "nobody to play in a round sat out";

  // A knock-out's rounds follow from its entrants.
  auto bad = create("Bad Cup", 4);
  bad.mutable_create_tournament()->set_knockout(true);
  bad.mutable_create_tournament()->set_rounds(2);
  EXPECT_EQ(code_of(alice.request(bad)), wire::BAD_REQUEST);
}

// Five in a bracket of eight: three sit out the first round; the bracket is
// played to its end, the standings ranked by the round each went out in.
TEST_F(ServerTournament, AKnockOutOfFiveGivesThreeByesAndPlaysItsBracketToTheEnd) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave", "erin"}) players[name] = user(name);
  auto m = create("Five Cup", 5);
  m.mutable_create_tournament()->set_knockout(true);
  auto created = players["alice"]->request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"bob", "carol", "dave", "erin"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  for (int round = 1; round <= 3; ++round) {
    const auto t = wait_for(*players["alice"], id, [&](const auto& x) { return x.round() == round; });
    EXPECT_EQ(t.rounds(), 3);
    const auto games = games_of_round(t, round);
    ASSERT_EQ(games.size(), round == 1 ? 2u : round == 2 ? 4u : 2u) << t.DebugString();
    if (round == 1) {
      std::set<std::string> sitting;
      for (std::size_t at = 0, comma; at < t.sits_out().size(); at = comma + 2) {
        comma = std::min(t.sits_out().find(", ", at), t.sits_out().size());
        sitting.insert(t.sits_out().substr(at, comma - at));
      }
      EXPECT_EQ(sitting.size(), 3u) << t.sits_out();
      for (const auto& g : games) EXPECT_FALSE(sitting.count(g.soviet()) || sitting.count(g.german()));
    }
    // The player first in the alphabet wins both games of each match.
    for (const auto& g : games) resign(*players[std::max(g.soviet(), g.german())], g.game_id());
  }
  const auto t = wait_for(*players["alice"], id, [](const auto& x) { return x.status() == "finished"; });
  EXPECT_EQ(t.games_size(), 8);
  std::vector<int> ranks;
  for (const auto& s : t.standings()) ranks.push_back(s.rank());
  EXPECT_EQ(ranks, (std::vector<int>{1, 2, 3, 3, 5}));
  EXPECT_EQ(t.standings(0).player(), "alice");
  EXPECT_EQ(t.standings(4).knocked_out(), 1);
}

// Level after the deciding game too (every game drawn): the higher seed goes through.
TEST_F(ServerTournament, AKnockOutMatchLevelAfterItsDecidingGameGoesToTheHigherSeed) {
  for (const char* name : {"alice", "bob"}) user(name);
  rate({{"bob", 1700}});
  auto alice = login_as("alice"), bob = login_as("bob");
  const std::string id = knockout_of_two(*alice, *bob, "Drawn Cup");
  ASSERT_FALSE(HasFailure());
  auto t = alice->request(get(id)).tournament();
  EXPECT_EQ(t.rounds(), 1);
  ASSERT_EQ(t.games_size(), 2);
  for (const auto& g : t.games()) agree_draw(*alice, *bob, g.game_id());
  t = wait_for(*alice, id, [](const auto& x) { return x.games_size() == 3; });
  EXPECT_EQ(t.status(), "playing");
  agree_draw(*bob, *alice, t.games(2).game_id());
  t = wait_for(*alice, id, [](const auto& x) { return x.status() == "finished"; });
  EXPECT_EQ(t.games_size(), 3) << "no fourth game";
  EXPECT_EQ(t.standings(0).player(), "bob");
  EXPECT_EQ(t.standings(0).rank(), 1);
  EXPECT_EQ(t.standings(1).player(), "alice");
  EXPECT_EQ(t.standings(1).knocked_out(), 1);
}

// The games of `round` between `a` and `b`, with either side, in the order they were made.
std::vector<wire::GameSummary> match_games(const wire::Tournament& t, int round, const std::string& a, const std::string& b) {
  std::vector<wire::GameSummary> out;
  for (const auto& g : games_of_round(t, round)) {
    if ((g.soviet() == a && g.german() == b) || (g.soviet() == b && g.german() == a)) out.push_back(g);
  }
  return out;
}

// A match level after its two games gets its deciding game at once, while the
// round's other match is still played; both its players are told. Neither a restart
// nor the other match's end makes a second one. The next round waits for every
// match, the deciding game included, whose winner goes through.
TEST_F(ServerTournament, AKnockOutLevelMatchGetsItsDecidingGameWithoutWaitingForTheRound) {
  const std::vector<std::string> names{"alice", "bob", "carol", "dave"};
  for (const auto& name : names) user(name);
  rate({{"alice", 1900}, {"bob", 1800}, {"carol", 1700}, {"dave", 1600}});
  std::map<std::string, std::unique_ptr<Client>> players;
  auto log_in = [&] {
    for (const auto& name : names) {
      players[name] = login_as(name);
      ASSERT_TRUE(players[name]->follow_turns().has_ok());
    }
  };
  log_in();
  auto m = create("Quick Cup", 4);
  m.mutable_create_tournament()->set_knockout(true);
  auto created = players["alice"]->request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"bob", "carol", "dave"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  auto t = players["alice"]->request(get(id)).tournament();
  ASSERT_EQ(t.games_size(), 4);
  ASSERT_EQ(match_games(t, 1, "alice", "dave").size(), 2u) << "seeded by rating: 1 meets 4, 2 meets 3";
  ASSERT_EQ(match_games(t, 1, "bob", "carol").size(), 2u);

  // alice and dave win one each, before bob and carol have played a move.
  resign(*players["alice"], game_of(t, "alice", "dave"));
  resign(*players["dave"], game_of(t, "dave", "alice"));
  t = wait_for(*players["alice"], id, [](const auto& x) { return match_games(x, 1, "alice", "dave").size() == 3; });
  const auto decider = match_games(t, 1, "alice", "dave").back();
  EXPECT_EQ(decider.status(), "playing");
  EXPECT_EQ(t.round(), 1);
  EXPECT_EQ(t.games_size(), 5);
  for (const auto& g : match_games(t, 1, "bob", "carol")) EXPECT_EQ(g.status(), "playing") << "the other match is still played";
  // Both its players are told it has started, each with their own side; whoever
  // moves first in it is told it is their turn, as of any game that waits for them.
  for (const char* name : {"alice", "dave"}) {
    const auto started = players[name]->wait_for(
        [&](const wire::ServerMessage& x) { return x.has_game_started() && x.game_started().game_id() == decider.game_id(); });
    ASSERT_TRUE(started) << name << " was not told of the deciding game";
    EXPECT_EQ(started->game_started().tournament_id(), id);
    EXPECT_EQ(started->game_started().your_side(), decider.soviet() == name ? "soviet" : "german");
  }
  const auto told = [&](const wire::ServerMessage& x) { return x.has_your_turn() && x.your_turn().game_id() == decider.game_id(); };
  int turns_told = 0;
  for (const char* name : {"alice", "dave"}) turns_told += players[name]->wait_for(told, 2s) ? 1 : 0;
  EXPECT_EQ(turns_told, 1) << "the player who moves first, and only they, is told it is their turn";

  // A restart looks at the knock-out again and finds nothing missing.
  server_->kill9();
  restart();
  log_in();
  t = players["alice"]->request(get(id)).tournament();
  EXPECT_EQ(match_games(t, 1, "alice", "dave").size(), 3u) << "a second deciding game after the restart";
  EXPECT_EQ(t.games_size(), 5);

  // bob wins both games of the other match: it is decided, but the round waits for the deciding game.
  resign(*players["carol"], game_of(t, "bob", "carol"));
  resign(*players["carol"], game_of(t, "carol", "bob"));
  // An order in the deciding game: a write that follows the one that looked at the round.
  play_opening(*players[decider.soviet()], *players[decider.german()], decider.game_id());
  t = players["alice"]->request(get(id)).tournament();
  EXPECT_EQ(t.round(), 1) << "the next round while a deciding game is played";
  EXPECT_EQ(t.games_size(), 5) << "a deciding game for a match that was not level";
  EXPECT_EQ(standing_of(t, "carol")->knocked_out(), 1) << "out once her match is decided";
  EXPECT_EQ(standing_of(t, "alice")->knocked_out(), 0);
  EXPECT_EQ(standing_of(t, "dave")->knocked_out(), 0);

  // dave wins the deciding game: he, not the higher seed, meets bob in the final.
  resign(*players["alice"], decider.game_id());
  t = wait_for(*players["alice"], id, [](const auto& x) { return x.round() == 2; });
  const auto final_games = games_of_round(t, 2);
  ASSERT_EQ(final_games.size(), 2u);
  for (const auto& g : final_games) {
    EXPECT_EQ(std::set<std::string>({g.soviet(), g.german()}), (std::set<std::string>{"bob", "dave"}));
  }
  EXPECT_EQ(t.games_size(), 7);
  EXPECT_EQ(standing_of(t, "alice")->knocked_out(), 1);
  EXPECT_EQ(standing_of(t, "carol")->knocked_out(), 1);
  EXPECT_EQ(standing_of(t, "dave")->knocked_out(), 0);
}

// An entrant suspended until reinstated resigns the games they are in, and the
// next round is made without them: nobody is paired against a player who cannot
// come back, and they take no bye's points.
TEST_F(ServerTournament, ASwissMakesItsNextRoundWithoutAnEntrantSuspendedUntilReinstated) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol"}) players[name] = user(name);
  auto& alice = *players["alice"];
  auto m = create("Swiss Club", 3);
  m.mutable_create_tournament()->set_rounds(2);
  auto created = alice.request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"bob", "carol"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  auto t = alice.request(get(id)).tournament();
  ASSERT_EQ(t.round(), 1);

  ASSERT_EQ(operator_command("--suspend bob --reason 'Several accounts.'").status, 0);
  players["bob"].reset();
  t = wait_for(alice, id, bobs_over);
  for (const auto& g : games_of_round(t, 1)) {
    if (g.status() == "finished") continue;
    resign(*players[std::max(g.soviet(), g.german())], g.game_id());
  }
  t = wait_for(alice, id, [](const auto& x) { return x.round() == 2; });
  const auto second = games_of_round(t, 2);
  ASSERT_EQ(second.size(), 2u) << t.DebugString();
  for (const auto& g : second) {
    EXPECT_EQ(std::set<std::string>({g.soviet(), g.german()}), (std::set<std::string>{"alice", "carol"}));
  }
  EXPECT_EQ(t.sits_out(), "") << "bob is not given a bye";
}

// An entrant may withdraw from a Swiss under way: their games in play are resigned
// (their opponents win them), their results stand, and the next round is made
// without them. A second withdrawal, or one after the end, is refused.
TEST_F(ServerTournament, AnEntrantWhoWithdrawsFromASwissResignsTheirGamesAndIsPairedNoMore) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave"}) players[name] = user(name);
  auto& alice = *players["alice"];
  auto m = create("Swiss Club", 4);
  m.mutable_create_tournament()->set_rounds(3);
  auto created = alice.request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  for (const char* name : {"bob", "carol", "dave"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  auto t = alice.request(get(id)).tournament();
  ASSERT_EQ(t.round(), 1);
  std::vector<std::string> bobs;  // four entrants: nobody sits out, so bob plays two games
  for (const auto& g : t.games()) {
    if (g.soviet() == "bob" || g.german() == "bob") bobs.push_back(g.game_id());
  }
  ASSERT_EQ(bobs.size(), 2u);

  const auto withdrew = players["bob"]->request(leave(id));
  ASSERT_TRUE(withdrew.has_tournament()) << withdrew.DebugString();
  EXPECT_TRUE(standing_of(withdrew.tournament(), "bob")->withdrawn());
  EXPECT_TRUE(bobs_over(withdrew.tournament())) << "answered once his games are resigned: " << withdrew.DebugString();
  EXPECT_EQ(code_of(players["bob"]->request(leave(id))), wire::CONFLICT) << "withdrawn once";
  t = wait_for(alice, id, bobs_over);
  for (const auto& g : t.games()) {
    if (std::find(bobs.begin(), bobs.end(), g.game_id()) == bobs.end()) continue;
    EXPECT_EQ(g.result(), g.soviet() == "bob" ? "German victory" : "Soviet victory") << "bob's opponent wins it";
    EXPECT_NE(g.result_reason().find("bob withdrew from the tournament \"Swiss Club\""), std::string::npos) << g.result_reason();
  }
  for (const auto& g : games_of_round(t, 1)) {
    if (g.status() == "finished") continue;
    resign(*players[std::max(g.soviet(), g.german())], g.game_id());
  }
  t = wait_for(alice, id, [](const auto& x) { return x.round() == 2; });
  const auto second = games_of_round(t, 2);
  ASSERT_EQ(second.size(), 2u) << "three left: one pair, one sits out: " << t.DebugString();
  for (const auto& g : second) EXPECT_TRUE(g.soviet() != "bob" && g.german() != "bob") << "bob is paired no more";
  EXPECT_FALSE(t.sits_out().empty());
  EXPECT_NE(t.sits_out(), "bob") << "nor given a bye";
  const auto* b = standing_of(t, "bob");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->withdrawn());
  EXPECT_EQ(b->lost(), 2) << "his results stand";
  EXPECT_FALSE(standing_of(t, "alice")->withdrawn());

  // Two more withdraw, the one sitting out first, then one of the pair (whose game ends with the
  // answer, and the round with it): with one left to pair, the Swiss ends after this round, its rounds unplayed.
  std::vector<std::string> leaving{t.sits_out()};
  std::string staying;
  for (const char* name : {"alice", "carol", "dave"}) {
    if (t.sits_out() == name) continue;
    if (staying.empty()) {
      staying = name;
    } else {
      leaving.push_back(name);
    }
  }
  auto& stays = *players[staying];
  ASSERT_TRUE(stays.follow_turns().has_ok());
  for (const auto& name : leaving) ASSERT_TRUE(players[name]->request(leave(id)).has_tournament()) << name;
  t = wait_for(stays, id, [](const auto& x) { return x.status() == "finished"; });
  EXPECT_EQ(t.round(), 2) << "no third round for one entrant";
  // Cut short, it says so: in the tournament, and in the end told to the one left.
  const std::string why = "It ended after round 2 of 3: no further round could be paired";
  EXPECT_NE(t.end_reason().find(why), std::string::npos) << t.DebugString();
  const auto told = stays.wait_for([&](const wire::ServerMessage& x) {
    return x.has_tournament_finished() && x.tournament_finished().tournament_id() == id;
  });
  ASSERT_TRUE(told) << "the end is told";
  EXPECT_NE(told->tournament_finished().end_reason().find(why), std::string::npos) << told->DebugString();
}

// The organiser may withdraw an entrant, saying why: struck off before the start;
// under way, their games in play resigned with the organiser's reason. Nobody else may.
TEST_F(ServerTournament, TheOrganiserWithdrawsAnEntrantWithAReasonTheirOpponentsAreTold) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave", "erin"}) players[name] = user(name);
  auto& alice = *players["alice"];
  auto m = create("Club Swiss", 4);
  m.mutable_create_tournament()->set_rounds(2);
  auto created = alice.request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  auto remove = [&](const std::string& who, const std::string& why) {
    wire::ClientMessage r;
    r.mutable_withdraw_entrant()->set_tournament_id(id);
    r.mutable_withdraw_entrant()->set_player(who);
    r.mutable_withdraw_entrant()->set_reason(why);
    return r;
  };
  ASSERT_TRUE(players["erin"]->request(join(id)).has_tournament());
  // Before the start: struck off the entrants, and not let in again.
  const auto struck = alice.request(remove("erin", "Entered by mistake."));
  ASSERT_TRUE(struck.has_tournament()) << struck.DebugString();
  EXPECT_EQ(struck.tournament().entrants(), 1);
  const auto again = players["erin"]->request(join(id));
  EXPECT_EQ(code_of(again), wire::FORBIDDEN);
  EXPECT_NE(again.error().message().find("struck you off this tournament: Entered by mistake."), std::string::npos) << again.DebugString();
  EXPECT_EQ(code_of(players["erin"]->request(remove("bob", "Not mine to say."))), wire::FORBIDDEN) << "an outsider may not";
  for (const char* name : {"bob", "carol", "dave"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  auto t = alice.request(get(id)).tournament();
  ASSERT_EQ(t.round(), 1);

  EXPECT_EQ(code_of(players["carol"]->request(remove("bob", "I would rather not play him."))), wire::FORBIDDEN) << "an entrant may not";
  EXPECT_EQ(code_of(alice.request(remove("bob", " "))), wire::BAD_REQUEST) << "a reason is needed";
  EXPECT_EQ(code_of(alice.request(remove("bob", "line one\nline two"))), wire::BAD_REQUEST) << "in one line";
  EXPECT_EQ(code_of(alice.request(remove("bob", "a bell\a"))), wire::BAD_REQUEST) << "no control characters";
  EXPECT_EQ(code_of(alice.request(remove("erin", "Gone."))), wire::NOT_FOUND) << "no longer an entrant";
  EXPECT_EQ(code_of(alice.request(remove("nobody", "Gone."))), wire::NOT_FOUND);

  const auto withdrawn = alice.request(remove("bob", "Has not moved in a week."));
  ASSERT_TRUE(withdrawn.has_tournament()) << withdrawn.DebugString();
  EXPECT_TRUE(standing_of(withdrawn.tournament(), "bob")->withdrawn());
  // Answered once his games are resigned: the answer and a listing read at once show them over.
  EXPECT_TRUE(bobs_over(withdrawn.tournament())) << withdrawn.DebugString();
  EXPECT_TRUE(bobs_over(alice.request(get(id)).tournament())) << "read right after the answer";
  wire::ClientMessage bobs_games;
  bobs_games.mutable_list_games()->set_kind(wire::GAMES_IN_PLAY);
  const auto in_play = alice.request(bobs_games);
  ASSERT_TRUE(in_play.has_game_list()) << in_play.DebugString();
  for (const auto& g : in_play.game_list().games()) {
    EXPECT_TRUE(g.soviet() != "bob" && g.german() != "bob") << "still listed in play: " << g.game_id();
  }
  EXPECT_EQ(code_of(alice.request(remove("bob", "Again."))), wire::CONFLICT) << "withdrawn once";
  t = alice.request(get(id)).tournament();
  int resigned = 0;
  for (const auto& g : t.games()) {
    if (g.soviet() != "bob" && g.german() != "bob") continue;
    ++resigned;
    EXPECT_EQ(g.result(), g.soviet() == "bob" ? "German victory" : "Soviet victory");
    EXPECT_NE(g.result_reason().find("bob was withdrawn from the tournament \"Club Swiss\" by its organiser: Has not moved in a week."),
              std::string::npos)
        << g.result_reason();
  }
  EXPECT_EQ(resigned, 2);
}

// A knock-out entrant who withdraws mid-match loses it as by a walk-over: no deciding
// game, even after a win each, and the opponent goes through.
TEST_F(ServerTournament, AKnockOutEntrantWhoWithdrawsLetsTheOpponentThroughWithoutADecidingGame) {
  for (const char* name : {"alice", "bob"}) user(name);
  auto alice = login_as("alice"), bob = login_as("bob");
  const std::string id = knockout_of_two(*alice, *bob, "Walk-over Cup");
  ASSERT_FALSE(HasFailure());
  auto t = alice->request(get(id)).tournament();
  ASSERT_EQ(t.games_size(), 2);
  resign(*alice, game_of(t, "bob", "alice"));  // bob wins one
  ASSERT_TRUE(bob->request(leave(id)).has_tournament());
  t = wait_for(*alice, id, [](const auto& x) { return x.status() == "finished"; });
  EXPECT_EQ(t.games_size(), 2) << "no deciding game with an entrant who withdrew";
  EXPECT_EQ(t.standings(0).player(), "alice");
  EXPECT_EQ(t.standings(1).player(), "bob");
  EXPECT_TRUE(t.standings(1).withdrawn());
  EXPECT_EQ(t.standings(1).knocked_out(), 1);
  EXPECT_EQ(code_of(alice->request(leave(id))), wire::CONFLICT) << "over";
}

// A Swiss of three rounds among five: each round pairs everyone but one, who
// sits out for two points, with someone not met before; the next round is made
// when the last game of the one before ends, and the tournament ends after the third.
TEST_F(ServerTournament, ASwissPairsEachRoundAfreshWithoutRematchesAndEndsAfterItsLastRound) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave", "erin"}) players[name] = user(name);
  auto& alice = *players["alice"];
  auto m = create("Swiss Open", 5);
  m.mutable_create_tournament()->set_rounds(3);
  auto created = alice.request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  EXPECT_EQ(created.tournament().rounds(), 3);
  EXPECT_EQ(created.tournament().round(), 0);
  const std::string id = created.tournament().tournament_id();
  ASSERT_TRUE(players["bob"]->follow_turns().has_ok());
  for (const char* name : {"bob", "carol", "dave", "erin"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());

  std::set<std::set<std::string>> met;
  std::set<std::string> sat_out;
  for (int round = 1; round <= 3; ++round) {
    auto t = alice.request(get(id)).tournament();
    for (int i = 0; i < 100 && t.round() < round; ++i) {  // made when the last game of the round before ended
      std::this_thread::sleep_for(50ms);
      t = alice.request(get(id)).tournament();
    }
    ASSERT_EQ(t.round(), round);
    EXPECT_EQ(t.status(), "playing");
    std::set<std::string> playing;
    std::vector<wire::GameSummary> games;
    for (const auto& g : t.games()) {
      if (g.tournament_round() != round) continue;
      games.push_back(g);
      playing.insert(g.soviet());
      playing.insert(g.german());
      if (g.soviet() < g.german()) {
        EXPECT_TRUE(met.insert({g.soviet(), g.german()}).second) << g.soviet() << " and " << g.german() << " met again";
      }
    }
    ASSERT_EQ(games.size(), 4u) << "two pairs, two games each";
    ASSERT_EQ(playing.size(), 4u);
    for (const auto& [name, client] : players) {
      if (!playing.count(name)) {
        EXPECT_TRUE(sat_out.insert(name).second) << name << " sat out twice";
        EXPECT_EQ(t.sits_out(), name);
      }
    }
    // Each game's round is in the players' own lists too.
    wire::ClientMessage mine;
    mine.mutable_my_games();
    const auto listed = players[games.front().soviet()]->request(mine);
    for (const auto& g : listed.game_list().games()) {
      if (g.game_id() == games.front().game_id()) {
        EXPECT_EQ(g.tournament_round(), round);
      }
    }
    // The player first in the alphabet wins both games of each pair.
    for (const auto& g : games) {
      const std::string& loser = std::max(g.soviet(), g.german());
      resign(*players[loser], g.game_id());
    }
  }
  EXPECT_EQ(sat_out.size(), 3u);
  auto t = alice.request(get(id)).tournament();
  for (int i = 0; i < 100 && t.status() != "finished"; ++i) {
    std::this_thread::sleep_for(50ms);
    t = alice.request(get(id)).tournament();
  }
  EXPECT_EQ(t.status(), "finished");
  EXPECT_EQ(t.round(), 3);
  EXPECT_EQ(t.end_reason(), "") << "it ran its course";
  EXPECT_EQ(t.rounds_reason(), "") << "it played the rounds set";
  EXPECT_EQ(t.games_size(), 12);
  int byes = 0;
  double points = 0;
  std::set<int> bye_rounds;
  for (const auto& s : t.standings()) {
    byes += s.byes();
    points += s.points();
    EXPECT_EQ(s.to_play(), 0);
    EXPECT_EQ(s.bye_rounds_size(), s.byes()) << "each bye's round, for the cross-table";
    for (const int r : s.bye_rounds()) EXPECT_TRUE(bye_rounds.insert(r).second) << "one sits out round " << r;
  }
  EXPECT_EQ(bye_rounds, (std::set<int>{1, 2, 3}));
  EXPECT_EQ(byes, 3);
  EXPECT_EQ(points, 12 + 3 * 2) << "a point a game, two a bye";
  // bob follows his turns: told of each round.
  ASSERT_TRUE(players["bob"]->ping().has_pong());
  const auto rounds = players["bob"]->take_all([&](const wire::ServerMessage& x) {
    return x.has_tournament_started() && x.tournament_started().tournament_id() == id;
  });
  EXPECT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds.back().tournament_started().round(), 3);
  EXPECT_FALSE(rounds.back().tournament_started().sits_out().empty()) << "five: someone sits out each round";

  // Rounds: at least one, and no more than can be played without rematches.
  for (const auto& [most, bad] : std::vector<std::pair<int, int>>{{5, -1}, {5, 6}, {6, 6}}) {
    auto r = create("Bad Swiss", most);
    r.mutable_create_tournament()->set_rounds(bad);
    EXPECT_EQ(code_of(alice.request(r)), wire::BAD_REQUEST) << bad << " rounds for " << most;
  }
  auto whole = create("Five rounds", 5);
  whole.mutable_create_tournament()->set_rounds(5);
  EXPECT_TRUE(alice.request(whole).has_tournament()) << "five, with a bye each round, meet everyone in five";
}

// A Swiss started with fewer entrants than its set rounds need plays only the
// rounds they can without meeting twice, and says so: to its organiser, who
// starts it, to its entrants with its start, and with the tournament after.
TEST_F(ServerTournament, ASwissStartedWithTooFewEntrantsForItsRoundsSaysItPlaysFewer) {
  auto olga = user("olga");
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"alice", "bob", "carol", "dave"}) players[name] = user(name);
  auto m = create("Short Swiss", 6, false);
  m.mutable_create_tournament()->set_rounds(5);
  auto created = olga->request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  EXPECT_EQ(created.tournament().rounds(), 5);
  EXPECT_EQ(created.tournament().rounds_reason(), "") << "nothing to say before the start";
  const std::string id = created.tournament().tournament_id();
  ASSERT_TRUE(players["alice"]->follow_turns().has_ok());
  for (auto& [name, c] : players) ASSERT_TRUE(c->request(join(id)).has_tournament()) << name;
  EXPECT_EQ(olga->request(get(id)).tournament().rounds_reason(), "") << "four may yet become six";

  const std::string why = "It plays 3 rounds, not the 5 set: 4 entrants cannot play more without meeting twice.";
  const auto started = olga->request(start(id));
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  EXPECT_EQ(started.tournament().rounds(), 3);
  EXPECT_EQ(started.tournament().rounds_reason(), why);
  auto told = players["alice"]->wait_for([&](const wire::ServerMessage& x) {
    return x.has_tournament_started() && x.tournament_started().tournament_id() == id;
  });
  ASSERT_TRUE(told) << "the entrant was not told of the start";
  EXPECT_EQ(told->tournament_started().rounds(), 3);
  EXPECT_EQ(told->tournament_started().rounds_reason(), why);
  restart();
  auto again = login_as("bob");
  const auto shown = again->request(get(id)).tournament();
  EXPECT_EQ(shown.rounds(), 3);
  EXPECT_EQ(shown.rounds_reason(), why) << "stored with it";
}

wire::ClientMessage adjudicate(const std::string& game, const std::string& result, const std::string& reason) {
  wire::ClientMessage m;
  m.mutable_adjudicate_game()->set_game_id(game);
  m.mutable_adjudicate_game()->set_result(result);
  m.mutable_adjudicate_game()->set_reason(reason);
  return m;
}

// The organiser of a tournament may end one of its games in play with the result
// they decide and why: both players are told, the standings count it, no rating
// moves, and the next round follows. Nobody else may, nor on a game not in play.
TEST_F(ServerTournament, TheOrganiserAdjudicatesAGameInPlayAndTheStandingsAndNextRoundFollow) {
  std::map<std::string, std::unique_ptr<Client>> players;
  for (const char* name : {"olga", "oscar", "alice", "bob", "carol", "dave"}) players[name] = user(name);
  auto& olga = *players["olga"];
  auto m = create("Adjudicated Swiss", 4, false);
  m.mutable_create_tournament()->set_rounds(2);
  auto created = olga.request(m);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  const std::string id = created.tournament().tournament_id();
  // oscar organises a tournament of his own.
  ASSERT_TRUE(players["oscar"]->request(create("Oscar's Cup", 4, false)).has_tournament());
  for (const char* name : {"alice", "bob", "carol", "dave"}) ASSERT_TRUE(players[name]->request(join(id)).has_tournament());
  auto t = olga.request(get(id)).tournament();
  ASSERT_EQ(t.round(), 1);
  const auto first = games_of_round(t, 1);
  ASSERT_EQ(first.size(), 4u);
  const auto& g = first.front();
  auto& soviet = *players[g.soviet()];
  auto& german = *players[g.german()];
  play_an_order_each(soviet, german, g.game_id());  // played a little: it would be rated if played out
  ASSERT_TRUE(soviet.follow_turns().has_ok());
  ASSERT_TRUE(german.follow_turns().has_ok());
  std::string entrant;  // one who does not play this game
  for (const char* name : {"alice", "bob", "carol", "dave"}) {
    if (name != g.soviet() && name != g.german()) entrant = name;
  }

  const std::string reason = "The German player has not answered in a week.";
  EXPECT_EQ(code_of(soviet.request(adjudicate(g.game_id(), "soviet", reason))), wire::FORBIDDEN) << "a player may not";
  EXPECT_EQ(code_of(players[entrant]->request(adjudicate(g.game_id(), "draw", reason))), wire::FORBIDDEN) << "nor an entrant";
  const auto other = players["oscar"]->request(adjudicate(g.game_id(), "soviet", reason));
  EXPECT_EQ(code_of(other), wire::FORBIDDEN) << "nor another tournament's organiser";
  EXPECT_NE(other.error().message().find("Only the organiser of a game's tournament may decide it."), std::string::npos)
      << other.DebugString();
  EXPECT_EQ(code_of(olga.request(adjudicate(g.game_id(), "white", reason))), wire::BAD_REQUEST) << "no such result";
  EXPECT_EQ(code_of(olga.request(adjudicate(g.game_id(), "soviet", " "))), wire::BAD_REQUEST) << "a reason is needed";
  EXPECT_EQ(code_of(olga.request(adjudicate(g.game_id(), "soviet", "one\ntwo"))), wire::BAD_REQUEST) << "in one line";
  EXPECT_EQ(code_of(olga.request(adjudicate("no-such-game", "soviet", reason))), wire::NOT_FOUND);
  // A game of no tournament is no organiser's to decide.
  auto casual = players["alice"]->create_game(wire::CHOOSE_SOVIET);
  ASSERT_TRUE(casual.has_game_created());
  const std::string casual_id = casual.game_created().game().game_id();
  ASSERT_TRUE(players["bob"]->join(casual_id).has_game());
  EXPECT_EQ(code_of(olga.request(adjudicate(casual_id, "draw", reason))), wire::FORBIDDEN);
  t = olga.request(get(id)).tournament();
  for (const auto& x : games_of_round(t, 1)) EXPECT_EQ(x.status(), "playing") << "nothing changed";

  const auto decided = olga.request(adjudicate(g.game_id(), "soviet", reason));
  ASSERT_TRUE(decided.has_ok()) << decided.DebugString();
  const std::string said = "Decided by olga, the organiser of the tournament \"Adjudicated Swiss\": Soviet victory";
  for (Client* player : {&soviet, &german}) {
    const auto ended = player->wait_for([&](const wire::ServerMessage& x) {
      return x.has_game_ended() && x.game_ended().game_id() == g.game_id();
    });
    ASSERT_TRUE(ended) << "both players are told";
    EXPECT_EQ(ended->game_ended().result(), "Soviet victory");
    EXPECT_NE(ended->game_ended().reason().find(said), std::string::npos) << ended->DebugString();
    EXPECT_NE(ended->game_ended().reason().find(reason), std::string::npos) << ended->DebugString();
    EXPECT_FALSE(ended->game_ended().rating_counted()) << "not played out: no rating moves";
    EXPECT_EQ(ended->game_ended().unrated_reason(), "not rated: decided by the organiser without being played out");
  }
  const auto again = olga.request(adjudicate(g.game_id(), "german", reason));
  EXPECT_EQ(code_of(again), wire::CONFLICT) << "a finished game is not decided again";
  EXPECT_NE(again.error().message().find("is not in play"), std::string::npos) << again.DebugString();
  t = olga.request(get(id)).tournament();
  for (const auto& x : t.games()) {
    if (x.game_id() != g.game_id()) continue;
    EXPECT_EQ(x.result(), "Soviet victory");
    EXPECT_NE(x.result_reason().find(said), std::string::npos) << x.result_reason();
    EXPECT_FALSE(x.rated());
    EXPECT_FALSE(x.rating_counted());
    EXPECT_EQ(x.unrated_reason(), "not rated: decided by the organiser without being played out") << "why, in its summary";
  }
  // Its player's games list says why it is not rated, as stored.
  {
    wire::ClientMessage mine;
    mine.mutable_my_games();
    const auto listed_mine = soviet.request(mine);
    ASSERT_TRUE(listed_mine.has_game_list()) << listed_mine.DebugString();
    bool seen = false;
    for (const auto& x : listed_mine.game_list().games()) {
      if (x.game_id() != g.game_id()) continue;
      seen = true;
      EXPECT_EQ(x.unrated_reason(), "not rated: decided by the organiser without being played out") << x.DebugString();
    }
    EXPECT_TRUE(seen);
  }
  EXPECT_EQ(standing_of(t, g.soviet())->won(), 1) << "the standings count it";
  EXPECT_EQ(standing_of(t, g.german())->lost(), 1);
  EXPECT_EQ(standing_of(t, g.soviet())->points(), 1.0);
  wire::ClientMessage ratings;
  ratings.mutable_list_ratings();
  const auto listed = olga.request(ratings);
  ASSERT_TRUE(listed.has_rating_list()) << listed.DebugString();
  EXPECT_EQ(listed.rating_list().players_size(), 0) << "nobody has a rated game";

  // The round's other games decided too (a draw among them): the next round follows.
  for (std::size_t i = 1; i < first.size(); ++i) {
    const auto r = olga.request(adjudicate(first[i].game_id(), i == 1 ? "draw" : "german", "Adjourned for the club's closing."));
    ASSERT_TRUE(r.has_ok()) << r.DebugString();
  }
  t = wait_for(olga, id, [](const auto& x) { return x.round() == 2; });
  EXPECT_EQ(games_of_round(t, 2).size(), 4u);
  double points = 0;
  for (const auto& x : t.standings()) points += x.points();
  EXPECT_EQ(points, 4.0) << "a point a decided game";
}

// An organiser who plays in their tournament does not decide their own games; a
// decided game of a knock-out settles its match like any end.
TEST_F(ServerTournament, AnOrganiserDoesNotDecideTheirOwnGameAndADecidedKnockOutMatchGoesThrough) {
  for (const char* name : {"alice", "bob"}) user(name);
  auto alice = login_as("alice"), bob = login_as("bob");
  const std::string id = knockout_of_two(*alice, *bob, "Decided Cup");
  ASSERT_FALSE(HasFailure());
  auto t = alice->request(get(id)).tournament();
  ASSERT_EQ(t.games_size(), 2);
  const std::string mine = game_of(t, "alice", "bob");
  const auto own = alice->request(adjudicate(mine, "soviet", "I was winning."));
  EXPECT_EQ(code_of(own), wire::FORBIDDEN);
  EXPECT_NE(own.error().message().find("an organiser does not decide their own games"), std::string::npos) << own.DebugString();
  t = alice->request(get(id)).tournament();
  for (const auto& g : t.games()) EXPECT_EQ(g.status(), "playing") << "nothing changed";

  // An organiser who does not play decides both games of a final: the winner is through.
  auto olga = user("olga");
  auto carol = user("carol");
  auto cup = create("Organised Cup", 2, false);
  cup.mutable_create_tournament()->set_knockout(true);
  const auto made = olga->request(cup);
  ASSERT_TRUE(made.has_tournament()) << made.DebugString();
  const std::string final_id = made.tournament().tournament_id();
  ASSERT_TRUE(bob->request(join(final_id)).has_tournament());
  ASSERT_TRUE(carol->request(join(final_id)).has_tournament());
  t = olga->request(get(final_id)).tournament();
  ASSERT_EQ(t.games_size(), 2);
  for (const auto& g : t.games()) {
    const auto r = olga->request(adjudicate(g.game_id(), g.soviet() == "carol" ? "soviet" : "german", "Bob forfeits."));
    ASSERT_TRUE(r.has_ok()) << r.DebugString();
  }
  t = wait_for(*olga, final_id, [](const auto& x) { return x.status() == "finished"; });
  EXPECT_EQ(t.games_size(), 2) << "no deciding game: carol won both";
  EXPECT_EQ(t.standings(0).player(), "carol");
  EXPECT_EQ(t.standings(1).knocked_out(), 1);
}

// Entrants who follow their turns hear of a cancellation, with who made it;
// the organiser who made it is not told of their own act.
TEST_F(ServerTournament, ACancellationIsToldToTheEntrantsButNotToTheOrganiserWhoMadeIt) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(alice->follow_turns().has_ok());
  ASSERT_TRUE(bob->follow_turns().has_ok());
  auto open = alice->request(create("Autumn Cup", 4));
  ASSERT_TRUE(open.has_tournament());
  const std::string id = open.tournament().tournament_id();
  ASSERT_TRUE(bob->request(join(id)).has_tournament());
  EXPECT_TRUE(alice->request(cancel(id)).has_ok());

  auto told = bob->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); });
  ASSERT_TRUE(told) << "bob was not told";
  EXPECT_EQ(told->tournament_cancelled().tournament().tournament_id(), id);
  EXPECT_EQ(told->tournament_cancelled().tournament().status(), "cancelled");
  EXPECT_TRUE(told->tournament_cancelled().tournament().entered());
  EXPECT_EQ(told->tournament_cancelled().reason(), "Its organiser alice cancelled it.");
  ASSERT_TRUE(alice->ping().has_pong());
  EXPECT_TRUE(alice->take_all([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); }).empty());
  // A refused cancellation tells nobody.
  EXPECT_EQ(code_of(alice->request(cancel(id))), wire::CONFLICT);
  ASSERT_TRUE(bob->ping().has_pong());
  EXPECT_TRUE(bob->take_all([](const wire::ServerMessage& m) { return m.has_tournament_cancelled(); }).empty());
}

// The organiser follows the tournament they run, whether or not they play in it.
TEST_F(ServerTournament, AnOrganiserWhoDoesNotPlayIsToldWhenTheTournamentStarts) {
  auto carol = user("carol"), alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(carol->follow_turns().has_ok());
  auto open = carol->request(create("Club Cup", 2, false));
  ASSERT_TRUE(open.has_tournament()) << open.DebugString();
  const std::string id = open.tournament().tournament_id();
  ASSERT_TRUE(alice->request(join(id)).has_tournament());
  ASSERT_TRUE(bob->request(join(id)).has_tournament());
  if (carol->request(get(id)).tournament().status() != "playing") {  // a full tournament starts by itself
    ASSERT_TRUE(carol->request(start(id)).has_tournament());
  }
  auto told = carol->wait_for([](const wire::ServerMessage& m) { return m.has_tournament_started(); });
  ASSERT_TRUE(told) << "the organiser was not told";
  EXPECT_EQ(told->tournament_started().tournament_id(), id);
  EXPECT_FALSE(told->tournament_started().entered());
}

// An organiser who does not play is held by the tournament, not by its games.
TEST_F(ServerTournament, AnOrganiserClosingTheirAccountIsToldOfTheTournamentNotOfGamesTheyDoNotPlay) {
  auto carol = user("carol"), alice = user("alice"), bob = user("bob");
  auto open = carol->request(create("Club Cup", 2, false));
  ASSERT_TRUE(open.has_tournament()) << open.DebugString();
  const std::string id = open.tournament().tournament_id();
  ASSERT_TRUE(alice->request(join(id)).has_tournament());
  ASSERT_TRUE(bob->request(join(id)).has_tournament());
  auto started = carol->request(get(id));
  if (started.tournament().status() != "playing") started = carol->request(start(id));
  ASSERT_EQ(started.tournament().status(), "playing") << started.DebugString();
  ASSERT_FALSE(started.tournament().games().empty());

  wire::ClientMessage close;
  close.mutable_close_account()->set_password("correct horse");
  const auto refused = carol->request(close);
  ASSERT_EQ(code_of(refused), wire::CONFLICT) << refused.DebugString();
  const std::string& why = refused.error().message();
  EXPECT_NE(why.find(id), std::string::npos) << why;
  for (const auto& g : started.tournament().games()) EXPECT_EQ(why.find(g.game_id()), std::string::npos) << why;
  EXPECT_EQ(why.find("you play in"), std::string::npos) << why;
}

// The start is one transaction: after a crash, the tournament and all its games
// are there, and the games are played like any other.
TEST_F(ServerTournament, AStartedTournamentAndItsGamesSurviveACrash) {
  auto alice = user("alice"), bob = user("bob");
  auto created = alice->request(create("Crash Cup", 2));
  ASSERT_TRUE(created.has_tournament());
  const std::string id = created.tournament().tournament_id();
  auto started = bob->request(join(id));
  ASSERT_TRUE(started.has_tournament()) << started.DebugString();
  ASSERT_EQ(started.tournament().games_size(), 2);
  const std::string game = game_of(started.tournament(), "alice", "bob");

  server_->kill9();
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  auto again = alice->request(get(id));
  ASSERT_TRUE(again.has_tournament()) << again.DebugString();
  EXPECT_EQ(again.tournament().status(), "playing");
  ASSERT_EQ(again.tournament().games_size(), 2);
  EXPECT_EQ(game_of(again.tournament(), "alice", "bob"), game);
  auto [soviet, german] = watch_as_players(*alice, *bob, game);
  ASSERT_FALSE(HasFailure());
  const auto stats = play(soviet, german, nullptr, 5);
  EXPECT_EQ(stats.accepted, 5);
  EXPECT_TRUE(soviet.problems.empty() && german.problems.empty());
}

// A set start: the tournament starts by itself at that time, even across a
// restart, and its entrants following their turns are told; one with a single
// entrant then is cancelled instead.
TEST_F(ServerTournament, ASetStartStartsTheTournamentByItselfOrCancelsItWhenTooFewEntered) {
  auto alice = user("alice"), bob = user("bob");
  const auto now = now_unix();
  auto at = [&](const std::string& name, std::int64_t starts) {
    auto m = create(name, 4);
    m.mutable_create_tournament()->set_starts_unix(starts);
    return alice->request(m);
  };
  // Not in the past, nor more than a year ahead.
  for (const std::int64_t bad : {now - 60, now + 400 * kDay}) {
    auto r = at("Bad Cup", bad);
    EXPECT_EQ(code_of(r), wire::BAD_REQUEST) << r.DebugString();
    EXPECT_NE(r.error().message().find("in the future, within a year"), std::string::npos);
  }

  auto created = at("Evening Cup", now + 3);
  ASSERT_TRUE(created.has_tournament()) << created.DebugString();
  EXPECT_EQ(created.tournament().starts_unix(), now + 3);
  const std::string id = created.tournament().tournament_id();
  ASSERT_TRUE(bob->request(join(id)).has_tournament());
  auto lonely = at("Lonely Cup", now + 3);
  ASSERT_TRUE(lonely.has_tournament());
  const std::string lonely_id = lonely.tournament().tournament_id();
  // A restart before the time: the set starts are read back from the database.
  restart();
  alice = login_as("alice");
  bob = login_as("bob");
  ASSERT_TRUE(bob->follow_turns().has_ok());
  ASSERT_TRUE(alice->follow_turns().has_ok());
  EXPECT_EQ(alice->request(get(id)).tournament().status(), "open");

  auto told = bob->wait_for(
      [&](const wire::ServerMessage& m) {
        return m.has_tournament_started() && m.tournament_started().tournament_id() == id;
      },
      20s);
  ASSERT_TRUE(told) << "bob was not told of the start";
  auto t = alice->request(get(id)).tournament();
  EXPECT_EQ(t.status(), "playing");
  EXPECT_GE(t.started_unix(), now + 3);
  EXPECT_EQ(t.games_size(), 2);
  auto l = alice->request(get(lonely_id)).tournament();
  for (int i = 0; i < 50 && l.status() == "open"; ++i) {
    std::this_thread::sleep_for(100ms);
    l = alice->request(get(lonely_id)).tournament();
  }
  EXPECT_EQ(l.status(), "cancelled");
  EXPECT_EQ(l.games_size(), 0);
  // Its organiser and only entrant is told why.
  auto cancelled = alice->wait_for([&](const wire::ServerMessage& m) {
    return m.has_tournament_cancelled() && m.tournament_cancelled().tournament().tournament_id() == lonely_id;
  });
  ASSERT_TRUE(cancelled) << "alice was not told of the cancellation";
  EXPECT_EQ(cancelled->tournament_cancelled().reason(), "Fewer than two players had entered it by its set start.");
}

// The list holds at most 100 tournaments: those over, which it does not show,
// take none of those places, however many ended since an open one was made.
TEST_F(ServerTournament, AnOpenTournamentIsListedHoweverManyHaveFinishedSince) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  auto open = alice->request(create("Long Open", 4));
  ASSERT_TRUE(open.has_tournament()) << open.DebugString();
  const std::string id = open.tournament().tournament_id();
  // carol's 120 public knock-outs, made after it and played to the end.
  server_->kill9();
  {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    const auto now = now_unix();
    for (int i = 0; i < 120; ++i) {
      const auto t = std::to_string(now + 1 + i);
      db.exec("INSERT INTO tournaments (id, name, organiser_id, scenario, options, move_seconds, max_players, private,"
              " invite_code, status, created_unix, started_unix, rounds, round, knockout, finished_unix)"
              " SELECT 'done" + std::to_string(i) + "', 'Done Cup', id, 'counterattack', '', 86400, 2, 0, '', 'playing', " +
              t + ", " + t + ", 1, 1, 1, " + t + " FROM users WHERE name = 'carol'");
    }
  }
  restart();
  bob = login_as("bob");
  carol = login_as("carol");
  auto finished = carol->request(get("done0"));
  ASSERT_TRUE(finished.has_tournament()) << finished.DebugString();
  ASSERT_EQ(finished.tournament().status(), "finished");

  const auto listed = bob->request(list());
  ASSERT_TRUE(listed.has_tournament_list()) << listed.DebugString();
  ASSERT_EQ(listed.tournament_list().tournaments_size(), 1) << listed.DebugString();
  EXPECT_EQ(listed.tournament_list().tournaments(0).tournament_id(), id);
  // Their organiser still finds her own: the newest 100.
  EXPECT_EQ(carol->request(list()).tournament_list().tournaments_size(), 100);
}

}  // namespace
}  // namespace counterattack::server::testing
