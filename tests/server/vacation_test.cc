// Vacation, for games played over days: while a player is on vacation their
// clocks stand still in every game with a time per move, within an allowance of days per 365.
#include <ctime>
#include <thread>

#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerVacation : public ServerTest {};

constexpr std::int64_t kDay = 86400;

wire::ServerMessage start_vacation(Client& c, int days) {
  wire::ClientMessage m;
  m.mutable_start_vacation()->set_days(days);
  return c.request(m);
}

wire::ServerMessage end_vacation(Client& c) {
  wire::ClientMessage m;
  m.mutable_end_vacation();
  return c.request(m);
}

wire::Vacation vacation_of(Client& c) {
  wire::ClientMessage m;
  m.mutable_get_account();
  const auto reply = c.request(m);
  EXPECT_TRUE(reply.has_account()) << reply.DebugString();
  return reply.account().vacation();
}

std::string create_timed(Client& c, std::int64_t move_seconds) {
  wire::ClientMessage m;
  m.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
  m.mutable_create_game()->set_move_seconds(move_seconds);
  const auto reply = c.request(m);
  EXPECT_TRUE(reply.has_game_created()) << reply.DebugString();
  return reply.game_created().game().game_id();
}

std::int64_t vacation_until(const wire::GameSummary& s, game::Side side) {
  return side == game::SOVIET ? s.soviet_vacation_until() : s.german_vacation_until();
}

TEST_F(ServerVacation, AVacationHoldsTheClockThatWaitsForThePlayerAndEndingItEarlyGivesBackTheDaysNotUsed) {
  auto alice = user("alice"), bob = user("bob");
  const std::string id = create_timed(*alice, 3600);
  ASSERT_TRUE(bob->join(id).has_game());
  const auto before = summary_in_my_games(*alice, id);
  const game::Side first = before.to_decide();
  ASSERT_TRUE(first == game::SOVIET || first == game::GERMAN);
  Client& decider = first == game::SOVIET ? *alice : *bob;
  Client& other = first == game::SOVIET ? *bob : *alice;
  ASSERT_TRUE(other.watch(id).has_game());

  // The opponent's vacation leaves a clock that waits for the player as it is.
  ASSERT_TRUE(start_vacation(other, 2).has_account());
  EXPECT_EQ(summary_in_my_games(decider, id).deadline_unix(), before.deadline_unix());
  ASSERT_TRUE(end_vacation(other).has_account());
  EXPECT_EQ(summary_in_my_games(decider, id).deadline_unix(), before.deadline_unix());

  const auto fresh = vacation_of(decider);
  EXPECT_EQ(fresh.days_per_year(), 30);
  EXPECT_EQ(fresh.days_left(), 30);
  EXPECT_EQ(fresh.until_unix(), 0);

  const auto asked = now_unix();
  const auto started = start_vacation(decider, 3);
  ASSERT_TRUE(started.has_account()) << started.DebugString();
  const auto& v = started.account().vacation();
  EXPECT_GE(v.started_unix(), asked);
  EXPECT_EQ(v.until_unix(), v.started_unix() + 3 * kDay);
  EXPECT_EQ(v.days_left(), 27) << "charged in full when it starts";

  // The clock that waits for the player stands still for the whole vacation.
  const auto held = summary_in_my_games(decider, id);
  EXPECT_EQ(held.deadline_unix(), before.deadline_unix() + 3 * kDay);
  EXPECT_EQ(vacation_until(held, first), v.until_unix());
  EXPECT_EQ(vacation_until(held, first == game::SOVIET ? game::GERMAN : game::SOVIET), 0);
  // The opponent watching the game is told.
  auto pushed = other.wait_for([&](const wire::ServerMessage& m) {
    return m.has_game() && m.game().game_id() == id && m.game().deadline_unix() == held.deadline_unix();
  });
  ASSERT_TRUE(pushed) << "the opponent is not told that the clock stands still";
  EXPECT_EQ(vacation_until(pushed->game(), first), v.until_unix());

  // A restart keeps the vacation and the clock it holds.
  restart();
  auto again = login_as(first == game::SOVIET ? "alice" : "bob");
  EXPECT_EQ(vacation_of(*again).until_unix(), v.until_unix());
  EXPECT_EQ(summary_in_my_games(*again, id).deadline_unix(), held.deadline_unix());

  // Back early: the clock runs on from where it stood, and the days not used go back.
  std::this_thread::sleep_for(1100ms);
  const auto ended = end_vacation(*again);
  const auto back = now_unix();
  ASSERT_TRUE(ended.has_account()) << ended.DebugString();
  EXPECT_EQ(ended.account().vacation().until_unix(), 0);
  EXPECT_EQ(ended.account().vacation().days_left(), 29) << "a day begun is a day used";
  const auto resumed = summary_in_my_games(*again, id);
  EXPECT_GE(resumed.deadline_unix(), before.deadline_unix() + 1) << "the time away is not the player's";
  EXPECT_LE(resumed.deadline_unix(), before.deadline_unix() + (back - asked) + 1);
  EXPECT_EQ(vacation_until(resumed, first), 0);
  EXPECT_EQ(end_vacation(*again).error().code(), wire::CONFLICT) << "not on vacation any more";
}

TEST_F(ServerVacation, ADecisionThatPassesToAPlayerOnVacationGetsItsWholeTimeFromTheVacationsEnd) {
  auto alice = user("alice"), bob = user("bob");
  // Both away before the game starts: the first clock starts at its player's return.
  auto a = start_vacation(*alice, 2), b = start_vacation(*bob, 4);
  ASSERT_TRUE(a.has_account() && b.has_account()) << a.DebugString() << b.DebugString();
  const std::string id = create_timed(*alice, 3600);
  ASSERT_TRUE(bob->join(id).has_game());
  const auto start = summary_in_my_games(*alice, id);
  const game::Side first = start.to_decide();
  const auto& first_vacation = (first == game::SOVIET ? a : b).account().vacation();
  const auto& second_vacation = (first == game::SOVIET ? b : a).account().vacation();
  EXPECT_EQ(start.deadline_unix(), first_vacation.until_unix() + 3600);

  // The first player comes back and plays until the decision passes: the other,
  // still away, has the whole time per move from the end of their vacation.
  ASSERT_TRUE(end_vacation(first == game::SOVIET ? *alice : *bob).has_account());
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  ASSERT_FALSE(HasFailure());
  int serial = 0;
  while (soviet.view.decision().side() == first && serial < 300) {
    play(soviet, german, nullptr, 1, "o" + std::to_string(serial++) + "-");
    ASSERT_FALSE(HasFailure());
  }
  const auto passed = summary_in_my_games(*alice, id);
  ASSERT_NE(passed.to_decide(), first);
  EXPECT_EQ(passed.deadline_unix(), second_vacation.until_unix() + 3600);

  // Its player comes back at once: the whole time per move from now.
  const auto asked = now_unix();
  ASSERT_TRUE(end_vacation(first == game::SOVIET ? *bob : *alice).has_account());
  const auto back = summary_in_my_games(*alice, id);
  EXPECT_GE(back.deadline_unix(), asked + 3600);
  EXPECT_LE(back.deadline_unix(), now_unix() + 3600);
}

TEST_F(ServerVacation, ATournamentStartedWhileAnEntrantIsAwayStartsTheirClocksAtTheirReturn) {
  auto alice = user("alice"), bob = user("bob");
  const auto away = start_vacation(*alice, 3);
  ASSERT_TRUE(away.has_account()) << away.DebugString();
  const auto until = away.account().vacation().until_unix();
  wire::ClientMessage create;
  auto* t = create.mutable_create_tournament();
  t->set_name("Autumn Cup");
  t->set_move_seconds(3600);
  t->set_max_players(2);
  t->set_enter(true);
  const auto made = alice->request(create);
  ASSERT_TRUE(made.has_tournament()) << made.DebugString();
  const auto asked = now_unix();
  wire::ClientMessage join;
  join.mutable_join_tournament()->set_tournament_id(made.tournament().tournament_id());
  ASSERT_TRUE(bob->request(join).has_tournament());  // full: it starts

  // One game waits for alice, the other for bob.
  wire::ClientMessage mine;
  mine.mutable_my_games();
  int waiting_for_alice = 0, waiting_for_bob = 0;
  const auto list = alice->request(mine);
  for (const auto& g : list.game_list().games()) {
    const bool alices = (g.to_decide() == game::SOVIET ? g.soviet() : g.german()) == "alice";
    if (alices) {
      ++waiting_for_alice;
      EXPECT_EQ(g.deadline_unix(), until + 3600) << "her clock starts when she is back";
    } else {
      ++waiting_for_bob;
      EXPECT_GE(g.deadline_unix(), asked + 3600);
      EXPECT_LE(g.deadline_unix(), now_unix() + 3600);
    }
  }
  EXPECT_EQ(waiting_for_alice, 1);
  EXPECT_EQ(waiting_for_bob, 1);
}

TEST_F(ServerVacation, AClockHeldByAVacationDoesNotRunOutAndRunsAgainWhenItEnds) {
  restart({}, "min_move_seconds = 1\n");
  auto alice = user("alice"), bob = user("bob");
  // Both away when the game starts: whoever decides first, their clock waits.
  ASSERT_TRUE(start_vacation(*alice, 1).has_account());
  ASSERT_TRUE(start_vacation(*bob, 1).has_account());
  const std::string id = create_timed(*alice, 3);
  ASSERT_TRUE(bob->join(id).has_game());
  const game::Side first = summary_in_my_games(*alice, id).to_decide();
  Client& decider = first == game::SOVIET ? *alice : *bob;
  Client& other = first == game::SOVIET ? *bob : *alice;
  ASSERT_TRUE(other.watch(id).has_game());

  // Well past the time per move: nothing ends while the player is away.
  std::this_thread::sleep_for(4500ms);
  EXPECT_FALSE(other.wait_for([](const wire::ServerMessage& m) { return m.has_game_ended(); }, 10ms));
  EXPECT_EQ(summary_in_my_games(other, id).status(), "playing");

  // Back: the clock runs, and runs out; the player never made a first move, so the game is aborted.
  ASSERT_TRUE(end_vacation(decider).has_account());
  auto ended = other.wait_for([](const wire::ServerMessage& m) { return m.has_game_ended(); }, 15s);
  ASSERT_TRUE(ended) << "the clock did not run again";
  EXPECT_EQ(ended->game_ended().result(), "Aborted");
  EXPECT_EQ(ended->game_ended().reason(), std::string(first == game::SOVIET ? "The Soviet" : "The German") +
                                              " player made no first move before their time ran out: the game is"
                                              " aborted, and no rating changes.");
}

TEST_F(ServerVacation, AClockLeftRunningForAPlayerOnVacationIsHeldWhenItsGameLoads) {
  auto alice = user("alice"), bob = user("bob");
  ASSERT_TRUE(start_vacation(*alice, 3).has_account());
  const auto away = start_vacation(*bob, 3);
  ASSERT_TRUE(away.has_account());
  const std::string id = create_timed(*alice, 3600);
  ASSERT_TRUE(bob->join(id).has_game());
  const auto held = summary_in_my_games(*alice, id);
  const auto first_until = vacation_until(held, held.to_decide());
  EXPECT_EQ(held.deadline_unix(), first_until + 3600);

  // A kill that left the clock as it was before the hold (as when a tournament's
  // games were stored and the server died before holding them).
  server_.reset();
  {
    std::string err;
    Db db(dir_ + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.prepare("UPDATE games SET deadline_unix = ?, held_until = 0 WHERE id = ?").run(now_unix() + 3600, id);
  }
  restart();
  auto again = login_as("alice");
  EXPECT_EQ(summary_in_my_games(*again, id).deadline_unix(), first_until + 3600);
  // Held once: a second restart leaves it.
  restart();
  again = login_as("alice");
  EXPECT_EQ(summary_in_my_games(*again, id).deadline_unix(), first_until + 3600);
}

TEST_F(ServerVacation, RefusalsSayWhyAndChangeNothing) {
  auto alice = user("alice");
  for (int bad : {0, -1, 31}) {
    const auto r = start_vacation(*alice, bad);
    EXPECT_EQ(r.error().code(), wire::BAD_REQUEST) << bad;
    EXPECT_EQ(r.error().message(), "A vacation is 1 to 30 days.");
  }
  EXPECT_EQ(end_vacation(*alice).error().code(), wire::CONFLICT);

  ASSERT_TRUE(start_vacation(*alice, 20).has_account());
  const auto twice = start_vacation(*alice, 1);
  EXPECT_EQ(twice.error().code(), wire::CONFLICT);
  EXPECT_NE(twice.error().message().find("already; end it first"), std::string::npos) << twice.DebugString();
  EXPECT_EQ(end_vacation(*alice).account().vacation().days_left(), 29);
  ASSERT_TRUE(start_vacation(*alice, 29).has_account());
  EXPECT_EQ(vacation_of(*alice).days_left(), 0);
  EXPECT_EQ(end_vacation(*alice).account().vacation().days_left(), 28);
  const auto over = start_vacation(*alice, 29);
  EXPECT_EQ(over.error().code(), wire::CONFLICT);
  EXPECT_EQ(over.error().message(), "You have 28 vacation days left (30 in any 365 days).");
  EXPECT_EQ(vacation_of(*alice).until_unix(), 0) << "a refusal starts nothing";

  auto stranger = connect();
  wire::ClientMessage m;
  m.mutable_start_vacation()->set_days(1);
  EXPECT_EQ(stranger->request(m).error().code(), wire::UNAUTHENTICATED);

  restart({}, "vacation_days_per_year = 0\n");
  auto again = login_as("alice");
  const auto none = start_vacation(*again, 1);
  EXPECT_EQ(none.error().code(), wire::UNAVAILABLE);
  EXPECT_EQ(none.error().message(), "This server gives no vacation time.");
  EXPECT_EQ(vacation_of(*again).days_per_year(), 0);
}

}  // namespace
}  // namespace counterattack::server::testing
