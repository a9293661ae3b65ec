// Ratings through the real server: a rated game's end moves both players'
// Glicko-2 ratings, in whatever way it ends, once each side has moved; a casual
// or withdrawn game moves none; the rating list ranks established ratings; all
// of it survives a restart.
#include <google/protobuf/util/message_differencer.h>

#include "fixture.h"

namespace counterattack::server::testing {
namespace {

class ServerRating : public ServerTest {};

wire::PlayerRating rating_of(Client& c, const std::string& name = "") {
  wire::ClientMessage m;
  m.mutable_get_rating()->set_name(name);
  auto r = c.request(m);
  EXPECT_TRUE(r.has_player_rating()) << r.DebugString();
  return r.player_rating();
}

wire::RatingList rating_list(Client& c) {
  wire::ClientMessage m;
  m.mutable_list_ratings();
  auto r = c.request(m);
  EXPECT_TRUE(r.has_rating_list()) << r.DebugString();
  return r.rating_list();
}

void resign(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_resign()->set_game_id(game_id);
  auto r = c.request(m);
  EXPECT_TRUE(r.has_ok()) << r.DebugString();
}

wire::GameSummary summary_in(Client& c, const std::string& game_id) {
  wire::ClientMessage m;
  m.mutable_my_games();
  auto r = c.request(m);
  for (const auto& g : r.game_list().games()) {
    if (g.game_id() == game_id) return g;
  }
  ADD_FAILURE() << "no game " << game_id << " in " << r.DebugString();
  return {};
}

// A casual game when `casual`: created by `soviet`, joined by `german`.
std::string new_game(Client& soviet, Client& german, bool casual) {
  wire::ClientMessage m;
  m.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  m.mutable_create_game()->set_casual(casual);
  auto created = soviet.request(m);
  EXPECT_TRUE(created.has_game_created()) << created.DebugString();
  EXPECT_EQ(created.game_created().game().rated(), !casual);
  const std::string id = created.game_created().game().game_id();
  EXPECT_TRUE(german.join(id).has_game());
  play_an_order_each(soviet, german, id);  // a game ended before each side moved is not rated
  return id;
}

TEST_F(ServerRating, ANewPlayerHasTheStartingRatingAndIsProvisional) {
  auto alice = user("alice");
  const auto r = rating_of(*alice);
  EXPECT_EQ(r.name(), "alice");
  EXPECT_EQ(r.scenario(), "counterattack");
  EXPECT_EQ(r.rating().rating(), 1500);
  EXPECT_EQ(r.rating().deviation(), 350);
  EXPECT_TRUE(r.rating().provisional());
  EXPECT_EQ(r.games(), 0);
  EXPECT_EQ(r.rank(), 0);
  EXPECT_EQ(r.last_game_unix(), 0);
  EXPECT_EQ(rating_list(*alice).players_size(), 0) << "only players with rated games are listed";

  // An open game in the lobby shows its creator's rating, for choosing an opponent.
  ASSERT_TRUE(alice->create_game(wire::CHOOSE_SOVIET).has_game_created());
  auto bob = user("bob");
  wire::ClientMessage list;
  list.mutable_list_games();
  auto open = bob->request(list);
  ASSERT_EQ(open.game_list().games_size(), 1);
  EXPECT_TRUE(open.game_list().games(0).rated());
  EXPECT_EQ(open.game_list().games(0).soviet_rating().rating(), 1500);
  EXPECT_TRUE(open.game_list().games(0).soviet_rating().provisional());
  EXPECT_FALSE(open.game_list().games(0).has_german_rating()) << "the seat is open";
}

TEST_F(ServerRating, AResignationMovesTheWinnerUpAndTheLoserDownByTheSameAmount) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = new_game(*alice, *bob, false);
  ASSERT_TRUE(bob->watch(id).has_game());
  resign(*bob, id);

  const auto a = rating_of(*bob, "alice"), b = rating_of(*bob);
  EXPECT_GT(a.rating().rating(), 1500);
  EXPECT_LT(b.rating().rating(), 1500);
  EXPECT_EQ(a.rating().rating() - 1500, 1500 - b.rating().rating()) << "equal players, equal stakes";
  EXPECT_LT(a.rating().deviation(), 350) << "a result makes the rating surer";
  EXPECT_TRUE(a.rating().provisional());
  EXPECT_EQ(a.games(), 1);
  EXPECT_EQ(a.wins(), 1);
  EXPECT_EQ(b.losses(), 1);
  EXPECT_GT(a.last_game_unix(), 0);

  // The game shows what it changed, in the lists and in its end.
  const auto g = summary_in(*alice, id);
  EXPECT_TRUE(g.rated());
  EXPECT_TRUE(g.rating_counted());
  EXPECT_EQ(g.soviet_rating_change(), a.rating().rating() - 1500);
  EXPECT_EQ(g.german_rating_change(), b.rating().rating() - 1500);
  EXPECT_EQ(g.soviet_rating().rating(), a.rating().rating());
  auto ended = bob->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); });
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->game_ended().rated());
  EXPECT_TRUE(ended->game_ended().rating_counted());
  EXPECT_EQ(ended->game_ended().soviet_rating_change(), g.soviet_rating_change());
  EXPECT_EQ(ended->game_ended().german_rating_change(), g.german_rating_change());

  // Both are listed, provisional, so unranked; the winner first.
  const auto list = rating_list(*alice);
  ASSERT_EQ(list.players_size(), 2);
  EXPECT_EQ(list.players(0).name(), "alice");
  EXPECT_EQ(list.players(1).name(), "bob");
  for (const auto& p : list.players()) EXPECT_EQ(p.rank(), 0);
}

// Nothing played, nothing rated: else two accounts could pass points to each other
// by resigning at once. The result stands.
TEST_F(ServerRating, AGameEndedBeforeAnyOrderMovesNoRating) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  ASSERT_TRUE(bob->watch(id).has_game());
  resign(*bob, id);
  EXPECT_EQ(summary_in(*alice, id).result(), "Soviet victory");
  EXPECT_EQ(summary_in(*alice, id).soviet_rating_change(), 0);
  // Rated, yet it moved nothing: clients show no "+0", an even draw's change.
  EXPECT_TRUE(summary_in(*alice, id).rated());
  EXPECT_FALSE(summary_in(*alice, id).rating_counted());
  auto ended = bob->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); });
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->game_ended().rated());
  EXPECT_FALSE(ended->game_ended().rating_counted());
  EXPECT_EQ(ended->game_ended().unrated_reason(), "not rated: neither side ever moved");
  EXPECT_EQ(rating_of(*alice).games(), 0);
  EXPECT_EQ(rating_of(*alice).rating().rating(), 1500);
  EXPECT_EQ(rating_list(*alice).players_size(), 0);
  const std::string played = new_game(*alice, *bob, false);  // an order from each side: rated
  resign(*bob, played);
  EXPECT_EQ(rating_of(*alice).games(), 1);
  EXPECT_GT(rating_of(*alice).rating().rating(), 1500);
  EXPECT_TRUE(summary_in(*alice, played).rating_counted());

  // Read back from the database, each says the same.
  restart();
  auto again = login_as("alice");
  EXPECT_FALSE(summary_in(*again, id).rating_counted());
  EXPECT_EQ(summary_in(*again, id).unrated_reason(), "not rated: neither side ever moved");
  EXPECT_TRUE(summary_in(*again, played).rating_counted());
  EXPECT_EQ(summary_in(*again, played).unrated_reason(), "");
  // Why it ended, for a player who was away: read back with the game.
  EXPECT_NE(summary_in(*again, id).result_reason().find("resign"), std::string::npos) << summary_in(*again, id).DebugString();
}

// As on Lichess, a game is rated once both players have moved: one order and a
// resignation pass no points between two accounts. The result stands, and the
// game says why it moved nothing; an order from each side makes it count.
TEST_F(ServerRating, ARatingCountsOnlyOnceEachSideHasGivenAnOrder) {
  auto alice = user("alice"), bob = user("bob");
  const std::string once = start_game(*alice, *bob);
  const std::string idle = summary_in(*alice, once).to_decide() == game::SOVIET ? "German" : "Soviet";
  play_opening(*alice, *bob, once);  // the side that decides first moves; the other never does
  EXPECT_EQ(summary_in(*alice, once).unrated_reason(), "") << "nothing is said while it is played";
  ASSERT_TRUE(bob->watch(once).has_game());
  resign(*bob, once);
  auto ended = bob->wait_for([&](const wire::ServerMessage& m) { return m.has_game_ended(); });
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->game_ended().result(), "Soviet victory") << "the result stands";
  EXPECT_TRUE(ended->game_ended().rated());
  EXPECT_FALSE(ended->game_ended().rating_counted());
  EXPECT_EQ(ended->game_ended().soviet_rating_change(), 0);
  const std::string why = "not rated: the " + idle + " side never moved";
  EXPECT_EQ(ended->game_ended().unrated_reason(), why);
  for (Client* c : {alice.get(), bob.get()}) {
    const auto g = summary_in(*c, once);
    EXPECT_EQ(g.result(), "Soviet victory");
    EXPECT_FALSE(g.rating_counted());
    EXPECT_EQ(g.unrated_reason(), why);
    EXPECT_EQ(rating_of(*c).games(), 0);
    EXPECT_EQ(rating_of(*c).rating().rating(), 1500);
  }
  EXPECT_EQ(rating_list(*alice).players_size(), 0) << "nobody has a rated game";

  // An order from each side, then the same resignation: rated.
  const std::string both = start_game(*alice, *bob);
  play_an_order_each(*alice, *bob, both);
  resign(*bob, both);
  const auto g = summary_in(*alice, both);
  EXPECT_TRUE(g.rating_counted());
  EXPECT_EQ(g.unrated_reason(), "");
  EXPECT_GT(g.soviet_rating_change(), 0);
  EXPECT_EQ(rating_of(*alice).games(), 1);
  EXPECT_GT(rating_of(*alice).rating().rating(), 1500);
  EXPECT_LT(rating_of(*bob).rating().rating(), 1500);

  // Read back from the database, each says the same.
  restart();
  auto again = login_as("bob");
  EXPECT_EQ(summary_in(*again, once).unrated_reason(), why);
  EXPECT_FALSE(summary_in(*again, once).rating_counted());
  EXPECT_TRUE(summary_in(*again, both).rating_counted());
}

TEST_F(ServerRating, ADrawBetweenUnequalPlayersMovesThemTowardsEachOther) {
  auto alice = user("alice"), bob = user("bob");
  resign(*bob, new_game(*alice, *bob, false));
  const int a0 = rating_of(*alice).rating().rating(), b0 = rating_of(*bob).rating().rating();
  wire::ClientMessage offer;
  const std::string id = new_game(*alice, *bob, false);
  offer.mutable_offer_draw()->set_game_id(id);
  ASSERT_TRUE(alice->request(offer).has_ok());
  wire::ClientMessage answer;
  answer.mutable_answer_draw()->set_game_id(id);
  answer.mutable_answer_draw()->set_accept(true);
  ASSERT_TRUE(bob->request(answer).has_ok());
  const auto a = rating_of(*alice), b = rating_of(*bob);
  EXPECT_LT(a.rating().rating(), a0);
  EXPECT_GT(b.rating().rating(), b0);
  EXPECT_EQ(a.draws(), 1);
  EXPECT_EQ(b.draws(), 1);
  EXPECT_EQ(a.games(), 2);
}

// The sides are unequal: once the German side has won four rated games, a win
// with the Soviet side is worth more than the same win with the German side
// between two newcomers, and the rating list says what the German side is worth.
TEST_F(ServerRating, AWinWithTheSideThatWinsLessOftenCountsForMore) {
  auto carol = user("carol"), dave = user("dave");
  for (int i = 0; i < 4; ++i) resign(*carol, new_game(*carol, *dave, false));  // the Soviet resigns: German victories
  const auto list = rating_list(*carol);
  EXPECT_EQ(list.edge_games(), 4);
  // Four German points of four, over ten even games before them: a share of 5/14 for the Soviet.
  EXPECT_EQ(list.german_edge(), 102);

  auto alice = user("alice"), bob = user("bob"), erin = user("erin"), frank = user("frank");
  resign(*bob, new_game(*alice, *bob, false));     // alice wins with the Soviet side
  resign(*erin, new_game(*erin, *frank, false));   // frank wins with the German side
  const int soviet_win = rating_of(*alice).rating().rating() - 1500;
  const int german_win = rating_of(*frank).rating().rating() - 1500;
  EXPECT_GT(german_win, 0);
  EXPECT_GT(soviet_win, german_win + 20) << soviet_win << " against " << german_win;
  EXPECT_EQ(rating_of(*bob).rating().rating() - 1500, -soviet_win) << "newcomers: equal stakes";
}

TEST_F(ServerRating, CasualAndWithdrawnGamesLeaveRatingsAsTheyAre) {
  auto alice = user("alice"), bob = user("bob");
  const std::string casual = new_game(*alice, *bob, true);
  resign(*bob, casual);
  EXPECT_FALSE(summary_in(*alice, casual).rated());
  EXPECT_EQ(summary_in(*alice, casual).soviet_rating_change(), 0);

  auto open = alice->create_game(wire::CHOOSE_GERMAN);
  ASSERT_TRUE(open.has_game_created());
  resign(*alice, open.game_created().game().game_id());

  for (auto* c : {alice.get(), bob.get()}) {
    const auto r = rating_of(*c);
    EXPECT_EQ(r.rating().rating(), 1500);
    EXPECT_EQ(r.rating().deviation(), 350);
    EXPECT_EQ(r.games(), 0);
  }
  EXPECT_EQ(rating_list(*alice).players_size(), 0);
}

TEST_F(ServerRating, AGamePlayedToItsEndByOrdersRatesItsResult) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = start_game(*alice, *bob);
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  const auto st = play(soviet, german, nullptr, 100000);
  ASSERT_TRUE(st.over);
  const auto g = summary_in(*alice, id);
  ASSERT_EQ(g.status(), "finished");
  const auto a = rating_of(*alice), b = rating_of(*bob);
  EXPECT_EQ(a.games(), 1);
  EXPECT_EQ(b.games(), 1);
  if (g.result() == "Soviet victory") {
    EXPECT_GT(a.rating().rating(), b.rating().rating());
    EXPECT_EQ(a.wins(), 1);
  } else if (g.result() == "German victory") {
    EXPECT_LT(a.rating().rating(), b.rating().rating());
    EXPECT_EQ(b.wins(), 1);
  } else {
    EXPECT_EQ(a.rating().rating(), 1500);
    EXPECT_EQ(a.draws(), 1);
  }
  EXPECT_EQ(g.soviet_rating_change(), a.rating().rating() - 1500);
}

TEST_F(ServerRating, ManyGamesMakeARatingEstablishedAndRankedAndItSurvivesARestart) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  const std::string first = new_game(*alice, *carol, false);
  resign(*carol, first);
  const auto first_summary = summary_in(*carol, first);
  // alice and bob play until alice's rating is established; she wins two in three.
  int games = 0;
  while (rating_of(*alice).rating().provisional() && games < 60) {
    const std::string id = games % 2 ? new_game(*alice, *bob, false) : new_game(*bob, *alice, false);
    resign(games % 3 == 2 ? *alice : *bob, id);
    ++games;
    ASSERT_FALSE(HasFailure());
  }
  ASSERT_FALSE(rating_of(*alice).rating().provisional()) << "still provisional after " << games << " games";
  const auto a = rating_of(*carol, "alice");
  EXPECT_EQ(a.rank(), 1) << "ranked among established ratings";
  EXPECT_LE(a.rating().deviation(), 110);

  const auto list = rating_list(*carol);
  ASSERT_EQ(list.players_size(), 3);
  EXPECT_EQ(list.players(0).name(), "alice");
  EXPECT_EQ(list.players(0).rank(), 1);
  // carol played one game: provisional, listed after the established, unranked.
  EXPECT_EQ(list.players(2).name(), "carol");
  EXPECT_EQ(list.players(2).rank(), 0);
  EXPECT_TRUE(list.players(2).rating().provisional());

  restart();
  auto again = login_as("carol");
  // The game's changes are read back with it, and the players' ratings now.
  const auto reread = summary_in(*again, first);
  EXPECT_EQ(reread.soviet_rating_change(), first_summary.soviet_rating_change());
  EXPECT_EQ(reread.german_rating_change(), first_summary.german_rating_change());
  EXPECT_EQ(reread.soviet_rating().rating(), a.rating().rating());
  EXPECT_FALSE(reread.soviet_rating().provisional());
  const auto b = rating_of(*again, "alice");
  EXPECT_EQ(b.rating().rating(), a.rating().rating());
  EXPECT_EQ(b.rating().deviation(), a.rating().deviation());
  EXPECT_EQ(b.games(), a.games());
  EXPECT_EQ(rating_list(*again).players(0).name(), "alice");
}

TEST_F(ServerRating, RefusedRequestsSayWhy) {
  auto alice = user("alice");
  wire::ClientMessage nobody;
  nobody.mutable_get_rating()->set_name("nobody");
  auto r = alice->request(nobody);
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::NOT_FOUND);
  wire::ClientMessage get, list_chess;
  get.mutable_get_rating()->set_scenario("chess");
  list_chess.mutable_list_ratings()->set_scenario("chess");
  for (const auto& m : {get, list_chess}) {
    r = alice->request(m);
    ASSERT_TRUE(r.has_error());
    EXPECT_EQ(r.error().code(), wire::BAD_REQUEST);
    EXPECT_NE(r.error().message().find("Unknown scenario 'chess'"), std::string::npos) << r.error().message();
  }

  // Without logging in there is no "yourself" to look up.
  auto anonymous = connect();
  wire::ClientMessage mine;
  mine.mutable_get_rating();
  r = anonymous->request(mine);
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), wire::UNAUTHENTICATED);
}

TEST_F(ServerRating, ARatingShowsTheLastRatedGamesNewestFirstAndAnyoneMayReadIt) {
  auto alice = user("alice"), bob = user("bob");
  const std::string won = new_game(*alice, *bob, false);  // alice Soviet: bob resigns
  resign(*bob, won);
  const std::string lost = new_game(*bob, *alice, false);  // alice German: she resigns
  resign(*alice, lost);
  resign(*bob, new_game(*alice, *bob, true));  // casual: not in the history

  const auto a = rating_of(*alice);
  ASSERT_EQ(a.recent_size(), 2);
  const auto& last = a.recent(0);
  EXPECT_EQ(last.game_id(), lost);
  EXPECT_EQ(last.side(), game::GERMAN);
  EXPECT_EQ(last.opponent(), "bob");
  EXPECT_EQ(last.result(), "loss");
  EXPECT_LT(last.change(), 0);
  EXPECT_EQ(last.rating_after(), a.rating().rating());
  EXPECT_GT(last.ended_unix(), 0);
  const auto& first = a.recent(1);
  EXPECT_EQ(first.game_id(), won);
  EXPECT_EQ(first.side(), game::SOVIET);
  EXPECT_EQ(first.result(), "win");
  EXPECT_EQ(first.change(), first.rating_after() - 1500);
  EXPECT_EQ(last.rating_after(), first.rating_after() + last.change());
  EXPECT_EQ(rating_of(*alice, "bob").recent(0).result(), "win");
  EXPECT_EQ(rating_list(*alice).players(0).recent_size(), 0) << "the list leaves the histories out";

  // Ratings are public: a visitor who has not logged in reads the same.
  auto visitor = connect();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(rating_of(*visitor, "alice"), a));
  EXPECT_EQ(rating_list(*visitor).players_size(), 2);

  // At most the last ten.
  for (int i = 0; i < 10; ++i) resign(*bob, new_game(*alice, *bob, false));
  const auto many = rating_of(*visitor, "alice");
  EXPECT_EQ(many.games(), 12);
  ASSERT_EQ(many.recent_size(), 10);
  for (const auto& g : many.recent()) EXPECT_EQ(g.result(), "win");
  EXPECT_EQ(many.recent(0).rating_after(), many.rating().rating());

  // More when asked: a whole history, and no more than it holds.
  wire::ClientMessage longer;
  longer.mutable_get_rating()->set_name("alice");
  longer.mutable_get_rating()->set_recent_games(500);
  const auto all = visitor->request(longer);
  ASSERT_EQ(all.player_rating().recent_size(), 12) << all.DebugString();
  EXPECT_EQ(all.player_rating().recent(11).game_id(), a.recent(1).game_id()) << "the first rated game, last";
  longer.mutable_get_rating()->set_recent_games(501);
  EXPECT_EQ(visitor->request(longer).error().code(), wire::BAD_REQUEST);
  longer.mutable_get_rating()->set_recent_games(-1);
  EXPECT_EQ(visitor->request(longer).error().code(), wire::BAD_REQUEST);
}

TEST_F(ServerRating, APrivateGameIsInTheRatingHistoryOfItsPlayersOnly) {
  auto alice = user("alice"), bob = user("bob"), carol = user("carol");
  auto created = alice->create_game(wire::CHOOSE_SOVIET, true);
  ASSERT_TRUE(created.has_game_created()) << created.DebugString();
  const std::string hidden = created.game_created().game().game_id();
  ASSERT_TRUE(bob->join(hidden, created.game_created().invite_code()).has_game());
  play_an_order_each(*alice, *bob, hidden);
  resign(*bob, hidden);
  const std::string open = new_game(*alice, *bob, false);
  resign(*bob, open);

  // Its players see it in either history.
  const auto mine = rating_of(*alice);
  ASSERT_EQ(mine.recent_size(), 2);
  EXPECT_EQ(mine.recent(1).game_id(), hidden);
  EXPECT_EQ(rating_of(*bob, "alice").recent_size(), 2);

  // Anyone else reads the rating, which the game moved, but not the game, its id or its opponent.
  auto visitor = connect();
  for (Client* stranger : {carol.get(), visitor.get()}) {
    const auto seen = rating_of(*stranger, "alice");
    EXPECT_EQ(seen.games(), 2);
    EXPECT_EQ(seen.rating().rating(), mine.rating().rating());
    ASSERT_EQ(seen.recent_size(), 1);
    EXPECT_EQ(seen.recent(0).game_id(), open);
    EXPECT_EQ(rating_of(*stranger, "bob").recent_size(), 1);
  }
}

}  // namespace
}  // namespace counterattack::server::testing
