// Ratings as the player reads them: after the names in game lists, from
// `rating [NAME]` and `ratings`, and the words that ask for them or for a
// casual game.
#include <gtest/gtest.h>

#include "client.h"
#include "render.h"

namespace counterattack::cli {
namespace {

wire::Rating rating(int value, int deviation, bool provisional) {
  wire::Rating r;
  r.set_rating(value);
  r.set_deviation(deviation);
  r.set_provisional(provisional);
  return r;
}

// alice (Soviet, established 1523) against bob (German, provisional 1500), rated, playing.
wire::GameSummary rated_game() {
  wire::GameSummary g;
  g.set_game_id("g7k2");
  g.set_status("playing");
  g.set_soviet("alice");
  g.set_german("bob");
  g.set_turn(3);
  g.set_rated(true);
  *g.mutable_soviet_rating() = rating(1523, 80, false);
  *g.mutable_german_rating() = rating(1500, 350, true);
  return g;
}

TEST(GameList, ShowsEachSeatedPlayersRatingAfterTheNameWithAQuestionMarkWhileProvisional) {
  const std::string line = game_line(rated_game());
  EXPECT_EQ(line, "g7k2  playing  Soviet: alice (1523)  German: bob (1500?)  turn 3") << line;
}

// Your game in play says whether it waits for you and how far it has moved since you
// last looked; another's game, a spectator's, says neither.
TEST(GameList, MarksYourGameThatWaitsForYouAndWhatIsNewSinceYouLooked) {
  auto g = rated_game();
  g.set_your_side("soviet");
  g.set_to_decide(game::SOVIET);
  g.set_version(7);
  g.set_your_seen_version(4);
  EXPECT_EQ(game_line(g).rfind("g7k2  playing  YOUR MOVE  3 new orders  Soviet: alice", 0), 0u) << game_line(g);
  EXPECT_TRUE(waits_for_you(g));
  g.set_your_seen_version(7);
  g.set_to_decide(game::GERMAN);
  EXPECT_EQ(game_line(g).find("YOUR MOVE"), std::string::npos) << game_line(g);
  EXPECT_EQ(game_line(g).find(" new order"), std::string::npos) << game_line(g);
  EXPECT_FALSE(waits_for_you(g));
  g.set_your_seen_version(6);
  EXPECT_NE(game_line(g).find("  1 new order  "), std::string::npos) << game_line(g);
  g.set_your_side("");
  g.set_to_decide(game::SOVIET);
  EXPECT_EQ(game_line(g).rfind("g7k2  playing  Soviet: alice", 0), 0u) << game_line(g);
  EXPECT_FALSE(waits_for_you(g));
}

TEST(GameList, ShowsWhatAFinishedRatedGameChangedForEachPlayer) {
  auto g = rated_game();
  g.set_status("finished");
  g.set_your_side("soviet");
  g.set_result("Soviet victory");
  *g.mutable_soviet_rating() = rating(1535, 78, false);
  *g.mutable_german_rating() = rating(1338, 290, true);
  g.set_soviet_rating_change(12);
  g.set_german_rating_change(-162);
  g.set_rating_counted(true);
  EXPECT_EQ(game_line(g),
            "g7k2  finished  Soviet: alice (+12)  German: bob (-162)  turn 3  you: soviet  Soviet victory")
      << "today's ratings are not the game's: only what it changed";
}

// A finished game shows the turn it ended on; one that ended before the server
// stored it has none (turn 0), and shows no turn rather than "turn 0".
TEST(GameList, AFinishedGameShowsTheTurnItEndedOnAndNoTurnWhenTheServerHasNone) {
  auto g = rated_game();
  g.set_status("finished");
  g.set_result("Soviet victory");
  g.set_result_reason("The German player resigned.");
  g.set_version(41);
  const std::string listed = listed_game_line(g, "counterattack ");
  EXPECT_NE(listed.find("  Soviet victory (The German player resigned.), turn 3, version 41"), std::string::npos) << listed;
  EXPECT_NE(game_line(g).find("  turn 3  "), std::string::npos) << game_line(g);
  g.set_turn(0);
  for (const auto& line : {listed_game_line(g, "counterattack "), game_line(g)}) {
    EXPECT_EQ(line.find("turn"), std::string::npos) << line;
  }
  EXPECT_NE(listed_game_line(g, "").find("  Soviet victory (The German player resigned.), version 41"), std::string::npos)
      << listed_game_line(g, "");
}

TEST(GameList, ShowsAChangeOfNothingAfterAnEvenDraw) {
  auto g = rated_game();
  g.set_status("finished");
  g.set_result("Draw");
  g.set_rating_counted(true);
  EXPECT_NE(game_line(g).find("Soviet: alice (+0)  German: bob (+0)"), std::string::npos) << game_line(g);
}

// A rated game resigned or drawn before any order moved no rating: "(+0)" would
// read as an even draw's change.
TEST(GameList, ShowsNoChangeForARatedGameThatEndedBeforeAnyOrder) {
  auto g = rated_game();
  g.set_status("finished");
  g.set_result("Soviet victory");
  EXPECT_NE(game_line(g).find("Soviet: alice  German: bob  "), std::string::npos) << game_line(g);
  EXPECT_EQ(game_line(g).find("(+0)"), std::string::npos) << game_line(g);
}

// Rated, yet one side never moved: the line says why no rating moved.
TEST(GameList, SaysWhyARatedGameASideNeverMovedInMovedNoRating) {
  auto g = rated_game();
  g.set_status("finished");
  g.set_result("Soviet victory");
  g.set_unrated_reason("not rated: the German side never moved");
  EXPECT_NE(game_line(g).find("Soviet: alice  German: bob  "), std::string::npos) << game_line(g);
  EXPECT_NE(game_line(g).find("  Soviet victory  not rated: the German side never moved"), std::string::npos)
      << game_line(g);
}

TEST(GameList, MarksACasualGameAndShowsNoChangeForIt) {
  auto g = rated_game();
  g.set_rated(false);
  g.set_status("finished");
  g.set_result("German victory");
  const std::string line = game_line(g);
  EXPECT_NE(line.find("Soviet: alice  German: bob"), std::string::npos) << line;
  EXPECT_NE(line.find("  casual"), std::string::npos) << line;
  EXPECT_EQ(game_line(rated_game()).find("casual"), std::string::npos) << "a rated game is not marked";
}

TEST(GameList, MarksATournamentsGameWithItsRound) {
  auto g = rated_game();
  g.set_tournament_id("kn9qwt9by4");
  g.set_tournament_round(2);
  EXPECT_EQ(game_line(g), "g7k2  playing  Soviet: alice (1523)  German: bob (1500?)  turn 3  tournament kn9qwt9by4, round 2")
      << game_line(g);
}

TEST(GameList, ShowsAnOpenSeatWithoutARating) {
  wire::GameSummary g;
  g.set_game_id("q1");
  g.set_status("open");
  g.set_soviet("alice");
  g.set_rated(true);
  *g.mutable_soviet_rating() = rating(1500, 350, true);
  EXPECT_EQ(game_line(g), "q1  open  Soviet: alice (1500?)  German: (open)");
}

TEST(GameList, ShowsNoChangeForAGameWithdrawnBeforeAnyoneJoined) {
  wire::GameSummary g;
  g.set_game_id("q1");
  g.set_status("finished");
  g.set_soviet("alice");
  g.set_rated(true);
  g.set_result("Cancelled");
  *g.mutable_soviet_rating() = rating(1500, 350, true);
  EXPECT_EQ(game_line(g), "q1  finished  Soviet: alice  German: (nobody)  Cancelled");
}

TEST(GameList, AGameTheServerWithdrewSaysWhyAndAnOpenOneUntilWhenItWaits) {
  wire::GameSummary g;
  g.set_game_id("q1");
  g.set_status("open");
  g.set_soviet("alice");
  g.set_expires_unix(1796083200);  // 2026-12-01 00:00 UTC
  EXPECT_EQ(game_line(g), "q1  open  Soviet: alice  German: (open)  open until 2026-12-01 00:00 UTC");
  g.set_status("finished");
  g.set_expires_unix(0);
  g.set_result("Cancelled");
  g.set_result_reason("Nobody joined within 14 days: the server withdrew the game.");
  EXPECT_EQ(game_line(g),
            "q1  finished  Soviet: alice  German: (nobody)  Cancelled (Nobody joined within 14 days: the server withdrew the game.)");
  g.set_result("Soviet victory");
  g.set_result_reason("The German player resigned.");
  EXPECT_NE(game_line(g).find("  Soviet victory (The German player resigned.)"), std::string::npos)
      << "an end by the rules or a resignation says why too: " << game_line(g);
}

TEST(GameList, AGameTheOperatorCancelledSaysItsResultOnceWithTheOperatorsWords) {
  wire::GameSummary g;
  g.set_game_id("q1");
  g.set_status("finished");
  g.set_soviet("alice");
  g.set_result("Cancelled");
  g.set_result_reason("Cancelled by the server's operator: Test game.");
  EXPECT_EQ(game_line(g), "q1  finished  Soviet: alice  German: (nobody)  Cancelled by the server's operator: Test game.");
  g.set_scenario("counterattack");
  EXPECT_EQ(listed_game_line(g, "").find("Cancelled (Cancelled"), std::string::npos) << listed_game_line(g, "");
  EXPECT_NE(listed_game_line(g, "").find("  Cancelled by the server's operator: Test game."), std::string::npos)
      << listed_game_line(g, "");
}

TEST(OpenGames, TheShellsWordsAndTheFlagsAskForTheSameGames) {
  std::string why;
  const auto q = open_games_query({"scenario", "counterattack", "casual", "per-move", "min-rating", "1400", "--max-rating",
                                   "1700", "page", "3"},
                                  &why);
  ASSERT_TRUE(q) << why;
  EXPECT_EQ(q->filter.scenario(), "counterattack");
  EXPECT_EQ(q->filter.rated(), wire::ONLY_CASUAL);
  EXPECT_EQ(q->filter.timing(), wire::ONLY_TIME_PER_MOVE);
  EXPECT_EQ(q->filter.min_rating(), 1400);
  EXPECT_EQ(q->filter.max_rating(), 1700);
  EXPECT_EQ(q->page, 3);
  EXPECT_EQ(open_games_flags(q->filter),
            " --scenario counterattack --casual --timing per-move --min-rating 1400 --max-rating 1700");
  const auto flags = open_games_query({"--timing", "clock", "--rated"}, &why);
  ASSERT_TRUE(flags) << why;
  EXPECT_EQ(flags->filter.timing(), wire::ONLY_GAME_CLOCK);
  EXPECT_EQ(flags->filter.rated(), wire::ONLY_RATED);
  EXPECT_EQ(flags->page, 1);
  ASSERT_TRUE(open_games_query({}, &why));
  EXPECT_EQ(open_games_flags(wire::ListGames{}), "");

  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"rated", "casual"}, {"untimed", "clock"}, {"timing", "soon"}, {"page", "0"}, {"min-rating", "many"},
           {"scenario"}, {"blitz"}}) {
    why.clear();
    EXPECT_FALSE(open_games_query(bad, &why)) << bad[0];
    EXPECT_NE(why.find("games open ["), std::string::npos) << why;
  }
}

// A game in the lists of games to watch: who plays, the scenario, how far it is
// or how it ended, and the command that watches or replays it.
TEST(GameList, AGameToWatchShowsItsPlayersScenarioProgressAndTheCommandThatWatchesOrReplaysIt) {
  auto g = rated_game();
  g.set_scenario("counterattack");
  g.set_version(17);
  g.set_to_decide(game::GERMAN);
  EXPECT_EQ(listed_game_line(g, "counterattack "),
            "g7k2  Soviet: alice (1523)  German: bob (1500?)  counterattack  turn 3, version 17  to decide: german"
            "  watch: counterattack watch g7k2");
  g.set_status("finished");
  g.clear_to_decide();
  g.set_result("Soviet victory");
  g.set_result_reason("The German player resigned.");
  g.set_rating_counted(true);
  g.set_soviet_rating_change(9);
  g.set_german_rating_change(-14);
  EXPECT_EQ(listed_game_line(g, ""),
            "g7k2  Soviet: alice (+9)  German: bob (-14)  counterattack  Soviet victory (The German player resigned.), turn 3,"
            " version 17"
            "  replay: replay g7k2");
  // The shell's words for the lists, with a player; a maker's rating bounds open games alone.
  std::string why;
  const auto q = open_games_query({"player", "alice", "casual", "page", "2"}, &why, wire::FINISHED_GAMES);
  ASSERT_TRUE(q) << why;
  EXPECT_EQ(q->filter.kind(), wire::FINISHED_GAMES);
  EXPECT_EQ(q->filter.player(), "alice");
  EXPECT_EQ(q->page, 2);
  EXPECT_EQ(open_games_flags(q->filter), " --player alice --casual");
  EXPECT_FALSE(open_games_query({"min-rating", "1400"}, &why, wire::GAMES_IN_PLAY));
  EXPECT_NE(why.find("Rating bounds choose among open games by their maker's rating. games playing ["), std::string::npos) << why;
  EXPECT_FALSE(open_games_query({"player"}, &why, wire::GAMES_IN_PLAY));
  EXPECT_NE(why.find("A player needs their name."), std::string::npos) << why;
}

TEST(GameList, FromAServerWithoutRatingsShowsTheNamesAloneAndNothingCasual) {
  wire::GameSummary g;
  g.set_game_id("old");
  g.set_status("playing");
  g.set_soviet("alice");
  g.set_german("bob");
  g.set_turn(1);
  EXPECT_EQ(game_line(g), "old  playing  Soviet: alice  German: bob  turn 1");
}

wire::PlayerRating player(const std::string& name, wire::Rating r, int wins, int draws, int losses, int rank) {
  wire::PlayerRating p;
  p.set_name(name);
  p.set_scenario("counterattack");
  *p.mutable_rating() = r;
  p.set_wins(wins);
  p.set_draws(draws);
  p.set_losses(losses);
  p.set_games(wins + draws + losses);
  p.set_rank(rank);
  return p;
}

TEST(GameOver, TellsWhatARatedGameChangedAndNothingForACasualOne) {
  wire::GameEnded e;
  e.set_rated(true);
  e.set_soviet_rating_change(162);
  e.set_german_rating_change(-162);
  e.set_rating_counted(true);
  EXPECT_EQ(rating_changes_text(e), "Ratings: Soviet +162, German -162");
  e.set_soviet_rating_change(0);
  e.set_german_rating_change(0);
  EXPECT_EQ(rating_changes_text(e), "Ratings: Soviet +0, German +0") << "an even draw between equals";
  e.set_rated(false);
  e.set_rating_counted(false);
  EXPECT_EQ(rating_changes_text(e), "");
}

TEST(GameOver, TellsNothingOfRatingsForARatedGameThatEndedBeforeAnyOrder) {
  wire::GameEnded e;
  e.set_rated(true);
  EXPECT_EQ(rating_changes_text(e), "");
}

TEST(GameOver, TellsWhyARatedGameMovedNoRatingWhenTheServerSays) {
  wire::GameEnded e;
  e.set_rated(true);
  e.set_unrated_reason("not rated: the Soviet side never moved");
  EXPECT_EQ(rating_changes_text(e), "Not rated: the Soviet side never moved");
}

TEST(GameOver, AnotherGamesEndTellsItsRatingChangesOrWhyItMovedNone) {
  wire::GameEnded e;
  e.set_game_id("d7tpu99ynv");
  e.set_result("Soviet victory");
  e.set_rated(true);
  e.set_rating_counted(true);
  e.set_soviet_rating_change(12);
  e.set_german_rating_change(-12);
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: Soviet victory. Ratings: Soviet +12, German -12.");
  e.set_rating_counted(false);
  e.set_soviet_rating_change(0);
  e.set_german_rating_change(0);
  e.set_unrated_reason("not rated: the German side never moved");
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: Soviet victory. Not rated: the German side never moved.");
  e.set_rated(false);
  e.clear_unrated_reason();
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: Soviet victory.");
}

// The operator's end names its result in its reason: the line says it once.
TEST(GameOver, AnotherGamesEndByTheOperatorSaysItsResultOnceWithTheOperatorsWords) {
  wire::GameEnded e;
  e.set_game_id("d7tpu99ynv");
  e.set_result("Aborted");
  e.set_reason("Aborted by the server's operator, and no rating changes: Abandoned.");
  e.set_rated(true);
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: Aborted by the server's operator, and no rating changes: Abandoned.");
  e.set_result("Cancelled");
  e.set_reason("Cancelled by the server's operator: Gone for now...");
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: Cancelled by the server's operator: Gone for now...");
  e.set_result("Soviet victory");
  e.set_reason("The German player resigned.");
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: Soviet victory: The German player resigned.");
}

// The end's line in every place it is shown (another game's notice, the board's header, a
// replay's end) keeps the reason's own ending, and says a result its reason names once.
TEST(GameOver, AResultsReasonKeepsItsOwnEndingAndANamedResultIsSaidOnce) {
  EXPECT_EQ(result_with_reason("Soviet victory", "The German player resigned."), "Soviet victory: The German player resigned");
  EXPECT_EQ(result_with_reason("Draw", ""), "Draw");
  EXPECT_EQ(result_with_reason("Aborted", "Aborted by the server's operator: Gone for now..."),
            "Aborted by the server's operator: Gone for now...");
  EXPECT_EQ(result_with_reason("German victory", "Out of time!"), "German victory: Out of time!");
  EXPECT_EQ(end_sentence("Soviet victory: The German player resigned"), "Soviet victory: The German player resigned.");
  EXPECT_EQ(end_sentence("Gone for now..."), "Gone for now...");
  EXPECT_EQ(end_sentence("Out of time!"), "Out of time!");
  wire::GameEnded e;
  e.set_game_id("d7tpu99ynv");
  e.set_result("German victory");
  e.set_reason("Out of time!");
  EXPECT_EQ(other_game_ended_notice(e), "Game d7tpu99ynv is over: German victory: Out of time!");
}

TEST(TournamentNotice, NamesTheWinnerOrThoseWhoShareTheFirstPlace) {
  wire::Tournament t;
  t.set_tournament_id("kn9qwt9by4");
  t.set_name("Warsaw Cup");
  for (const auto& [player, rank] : std::vector<std::pair<std::string, int>>{{"alice", 1}, {"carol", 2}, {"bob", 3}}) {
    auto* s = t.add_standings();
    s->set_player(player);
    s->set_rank(rank);
  }
  EXPECT_EQ(tournament_end_notice(t),
            "The tournament \"Warsaw Cup\" is over: alice won. The final standings: `tournament show kn9qwt9by4`.");
  t.mutable_standings(1)->set_rank(1);
  t.mutable_standings(2)->set_rank(1);
  EXPECT_EQ(tournament_end_notice(t), "The tournament \"Warsaw Cup\" is over: alice, carol and bob share the first place. "
                                      "The final standings: `tournament show kn9qwt9by4`.");
}

TEST(TournamentNotice, ACancellationSaysNoGameWillBePlayedAndWhy) {
  wire::TournamentCancelled c;
  c.mutable_tournament()->set_tournament_id("kn9qwt9by4");
  c.mutable_tournament()->set_name("Warsaw Cup");
  c.set_reason("Its organiser alice cancelled it.");
  EXPECT_EQ(tournament_cancelled_notice(c), "The tournament \"Warsaw Cup\" (kn9qwt9by4) was cancelled before it started: "
                                            "none of its games will be played. Its organiser alice cancelled it.");
  c.mutable_tournament()->set_started_unix(1764000000);
  c.set_reason("The server's operator cancelled it: Two entrants share an account.");
  EXPECT_EQ(tournament_cancelled_notice(c), "The tournament \"Warsaw Cup\" (kn9qwt9by4) was cancelled under way: its games "
                                            "still in play are aborted, with no rating change. The server's operator "
                                            "cancelled it: Two entrants share an account.");
}

TEST(PlayerRating, ShowsAProvisionalRatingWithItsDeviationRecordAndLastGameButNoRank) {
  auto p = player("alice", rating(1523, 88, true), 2, 0, 1, 0);
  p.set_last_game_unix(1795435200);  // 2026-11-23 12:00 UTC
  EXPECT_EQ(describe_rating(p),
            "alice: 1523 ±88 (provisional)\n"
            "Rated games: 3 (2 won, 0 drawn, 1 lost)\n"
            "Rank: none while provisional\n"
            "Last rated game: 2026-11-23\n");
}

TEST(PlayerRating, ShowsAnEstablishedRatingWithItsRank) {
  auto p = player("bob", rating(1611, 74, false), 20, 3, 8, 4);
  p.set_last_game_unix(1795435200);
  EXPECT_EQ(describe_rating(p),
            "bob: 1611 ±74\n"
            "Rated games: 31 (20 won, 3 drawn, 8 lost)\n"
            "Rank: 4\n"
            "Last rated game: 2026-11-23\n");
}

TEST(PlayerRating, ListsTheRecentRatedGamesNewestFirst) {
  auto p = player("bob", rating(1611, 74, false), 20, 3, 8, 4);
  p.set_last_game_unix(1795435200);
  auto* lost = p.add_recent();
  lost->set_game_id("k2m9x4q7ab");
  lost->set_side(game::GERMAN);
  lost->set_opponent("alice");
  lost->set_result("loss");
  lost->set_rating_after(1611);
  lost->set_change(-14);
  lost->set_ended_unix(1795435200);
  auto* drawn = p.add_recent();
  drawn->set_game_id("p8c3v6n1zd");
  drawn->set_side(game::SOVIET);
  drawn->set_opponent("carol");
  drawn->set_result("draw");
  drawn->set_rating_after(1625);
  drawn->set_change(0);
  drawn->set_ended_unix(1795348800);
  EXPECT_EQ(describe_rating(p),
            "bob: 1611 ±74\n"
            "Rated games: 31 (20 won, 3 drawn, 8 lost)\n"
            "Rank: 4\n"
            "Last rated game: 2026-11-23\n"
            "Recent rated games, newest first:\n"
            "  2026-11-23  lost as German against alice: 1611 (-14), game k2m9x4q7ab\n"
            "  2026-11-22  drew as Soviet against carol: 1625 (+0), game p8c3v6n1zd\n");
}

TEST(PlayerRating, SaysANewcomerHasNoRatedGamesYet) {
  EXPECT_EQ(describe_rating(player("carol", rating(1500, 350, true), 0, 0, 0, 0)),
            "carol: 1500 ±350 (provisional)\n"
            "No rated games yet.\n");
}

TEST(RatingList, IsATableWithRankedPlayersFirstAndProvisionalOnesUnranked) {
  wire::RatingList l;
  l.set_scenario("counterattack");
  *l.add_players() = player("bob", rating(1611, 74, false), 20, 3, 8, 1);
  *l.add_players() = player("a_very_long_name_of_24ch", rating(1580, 101, false), 9, 1, 2, 2);
  *l.add_players() = player("alice", rating(1662, 290, true), 1, 0, 0, 0);
  *l.add_players() = player("dan", rating(1338, 290, true), 0, 0, 1, 0);
  // The "±" heads the deviations' column: it is one column wide, two bytes long.
  EXPECT_EQ(ratings_table(l),
            "   #  player                   rating      ±  games  W/D/L\n"
            "   1  bob                        1611     74     31  20/3/8\n"
            "   2  a_very_long_name_of_24ch   1580    101     12  9/1/2\n"
            "   -  alice                      1662?   290      1  1/0/0\n"
            "   -  dan                        1338?   290      1  0/0/1\n"
            "Sides: neither is worth more than the other (from 0 rated games).\n");
}

TEST(RatingList, SaysWhichSideIsWorthMoreAndThatAWinWithTheOtherCountsForMore) {
  wire::RatingList l;
  l.set_german_edge(63);
  l.set_edge_games(12);
  EXPECT_EQ(side_edge_text(l),
            "Sides: the German side is worth 63 rating points over the Soviet (from 12 rated games); a win with the "
            "Soviet side counts for more.\n");
  l.set_german_edge(-8);
  l.set_edge_games(1);
  EXPECT_EQ(side_edge_text(l),
            "Sides: the Soviet side is worth 8 rating points over the German (from 1 rated game); a win with the "
            "German side counts for more.\n");
}

TEST(RatingList, SaysSoWhenNobodyHasARatingYet) {
  EXPECT_EQ(ratings_table(wire::RatingList()),
            "Nobody has a rating yet: players are listed once a rated game of theirs has ended.\n");
}

TEST(RatingWords, RatingAloneAsksForYourOwnAndANameForThatPlayers) {
  std::string why;
  auto own = rating_request({}, &why);
  ASSERT_TRUE(own && own->has_get_rating());
  EXPECT_EQ(own->get_rating().name(), "");
  auto bob = rating_request({"bob"}, &why);
  ASSERT_TRUE(bob && bob->has_get_rating());
  EXPECT_EQ(bob->get_rating().name(), "bob");
  EXPECT_FALSE(rating_request({"bob", "carol"}, &why));
  EXPECT_NE(why.find("rating [NAME]"), std::string::npos) << why;
  EXPECT_EQ(bob->get_rating().recent_games(), 0) << "the server's ten";
}

TEST(RatingWords, GamesAsksForALongerHistory) {
  std::string why;
  auto longer = rating_request({"bob", "--games", "40"}, &why);
  ASSERT_TRUE(longer) << why;
  EXPECT_EQ(longer->get_rating().name(), "bob");
  EXPECT_EQ(longer->get_rating().recent_games(), 40);
  auto own = rating_request({"games", "25"}, &why);
  ASSERT_TRUE(own) << why;
  EXPECT_EQ(own->get_rating().name(), "") << "in the shell, the word alone";
  EXPECT_EQ(own->get_rating().recent_games(), 25);
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--games"}, {"--games", "0"}, {"--games", "501"},
                                             {"--games", "12x"}, {"bob", "--games", "-3"}}) {
    EXPECT_FALSE(rating_request(bad, &why)) << bad.back();
    EXPECT_NE(why.find("[games N]"), std::string::npos) << why;
  }
}

TEST(RatingWords, RatingsAsksForTheListAndTakesNoMoreWords) {
  std::string why;
  auto list = ratings_request({}, &why);
  ASSERT_TRUE(list && list->has_list_ratings());
  EXPECT_FALSE(ratings_request({"top"}, &why));
  EXPECT_NE(why.find("ratings"), std::string::npos) << why;
}

TEST(NewGameWords, AGameIsRatedUnlessCasualIsAskedFor) {
  std::string why;
  auto rated = new_game_request({"soviet"}, &why);
  ASSERT_TRUE(rated) << why;
  EXPECT_FALSE(rated->create_game().casual());
  EXPECT_EQ(rated->create_game().side(), wire::CHOOSE_SOVIET);
  auto casual = new_game_request({"german", "casual", "3d", "private"}, &why);  // as the shell takes them
  ASSERT_TRUE(casual) << why;
  EXPECT_TRUE(casual->create_game().casual());
  EXPECT_TRUE(casual->create_game().private_());
  EXPECT_EQ(casual->create_game().side(), wire::CHOOSE_GERMAN);
  EXPECT_EQ(casual->create_game().move_seconds(), 3 * 86400);
  EXPECT_EQ(casual->create_game().options_size(), 0) << "casual is no optional rule";
}

TEST(NewGameWords, TheSubcommandsFlagsGiveTheSameGame) {
  std::string why;
  auto m = new_game_request({"--side", "random", "--casual", "--time", "12h", "--option", "limited_bonus"}, &why);
  ASSERT_TRUE(m) << why;
  const auto& c = m->create_game();
  EXPECT_TRUE(c.casual());
  EXPECT_FALSE(c.private_());
  EXPECT_EQ(c.side(), wire::CHOOSE_RANDOM);
  EXPECT_EQ(c.move_seconds(), 12 * 3600);
  ASSERT_EQ(c.options_size(), 1);
  EXPECT_EQ(c.options(0), "limited_bonus");
  EXPECT_FALSE(new_game_request({"--time", "soon"}, &why));
  EXPECT_EQ(why, "--time takes a number and a unit: 3d, 12h, 90m or 45s.");
  EXPECT_FALSE(new_game_request({"--side", "polish"}, &why));
  EXPECT_FALSE(new_game_request({"--casaul"}, &why));
  EXPECT_NE(why.find("--casaul"), std::string::npos) << why;
}

// The shell types the time control as it types the rest: `clock 15m+10s`, `time 3d`, or the
// value alone; none of them goes to the server as an optional rule.
TEST(NewGameWords, TheShellTakesTheTimeControlAsWords) {
  std::string why;
  for (const auto& words : {std::vector<std::string>{"soviet", "clock", "15m+10s"}, {"soviet", "15m+10s"}, {"15+10", "soviet"}}) {
    auto m = new_game_request(words, &why);
    ASSERT_TRUE(m) << why;
    EXPECT_EQ(m->create_game().clock_seconds(), 900) << words[1];
    EXPECT_EQ(m->create_game().increment_seconds(), 10) << words[1];
    EXPECT_EQ(m->create_game().options_size(), 0) << words[1];
    EXPECT_EQ(m->create_game().side(), wire::CHOOSE_SOVIET);
  }
  auto per_move = new_game_request({"german", "time", "3d", "casual"}, &why);
  ASSERT_TRUE(per_move) << why;
  EXPECT_EQ(per_move->create_game().move_seconds(), 3 * 86400);
  EXPECT_EQ(per_move->create_game().options_size(), 0);
  EXPECT_TRUE(per_move->create_game().casual());
  EXPECT_FALSE(new_game_request({"soviet", "clock"}, &why));
  EXPECT_EQ(why, "clock takes the time for each player and the increment: 15m+10s, 1h or 15+10.");
  EXPECT_FALSE(new_game_request({"time", "soon"}, &why));
  EXPECT_EQ(why, "time takes a number and a unit: 3d, 12h, 90m or 45s.");
}

}  // namespace
}  // namespace counterattack::cli
