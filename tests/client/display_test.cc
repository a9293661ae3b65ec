// What the client shows of a game, as a player reads it: a finished game's
// replay, a player's units after the end, the end of a watched game, and what
// a one-shot order did. Skipped when the server has not been built.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "harness.h"

namespace counterattack::cli {
namespace {

using namespace cli::testing;
namespace fs = std::filesystem;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The lines under a replay's "The events of this order:" (or the setup's) heading.
std::string events_part(const std::string& screen) {
  auto at = screen.find("The events of this order:");
  if (at == std::string::npos) at = screen.find("The setup's events:");
  return at == std::string::npos ? "" : screen.substr(at);
}

// Each event of a finished game's replay is listed once, in the wording that
// hides nothing: not again as the other side or a spectator read it. An order
// taken back and the undo that took it are said; the last version names how
// the game ended, here a resignation, which added no order.
TEST_F(TwoPlayers, AReplayListsEachEventOnceInTheFullWordingAndSaysHowTheGameEnded) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  for (const std::vector<std::string>& o : {std::vector<std::string>{"corps", "3TC"}, {"undo"}, {"corps", "3TC"}, {"done"}}) {
    std::vector<std::string> args{"order", game};
    args.insert(args.end(), o.begin(), o.end());
    auto r = cli(alice_, args);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
  }
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  auto exported = cli(alice_, {"export", game});
  ASSERT_EQ(exported.code, 0) << exported.err;
  const json log = json::parse(exported.out);
  EXPECT_EQ(log.value("result", ""), "Soviet victory") << "the log says how it ended";
  EXPECT_EQ(log.value("result_reason", ""), "The German player resigned.");
  const auto& orders = log.at("orders");
  ASSERT_EQ(orders.size(), 4u) << exported.out;

  Player carol{"carol", temp_dir("carol"), ""};  // a third party: a public game's replay needs no account
  // The setup: each side's draws once, named for the side, never as "You draw" nor as the other side saw them.
  auto setup = cli(carol, {"replay", game, "--at", "0"});
  ASSERT_EQ(setup.code, 0) << setup.err;
  const std::string drawn = events_part(setup.out);
  EXPECT_EQ(drawn.find("You draw"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find("draws an event chit."), std::string::npos) << "the hidden form as well: " << drawn;
  EXPECT_GT(count_of(drawn, "Soviet draws the event "), 0u) << drawn;
  EXPECT_GT(count_of(drawn, "German draws the event "), 0u) << drawn;

  for (std::size_t v = 1; v <= orders.size(); ++v) {
    auto at = cli(carol, {"replay", game, "--at", std::to_string(v)});
    ASSERT_EQ(at.code, 0) << at.err;
    const std::string events = events_part(at.out);
    for (const auto& e : orders[v - 1].at("events")) {
      const std::string audience = e.value("audience", "AUDIENCE_ALL");
      const std::size_t times = count_of(events, e.value("text", "?"));
      if (audience.rfind("AUDIENCE_ALL_BUT_", 0) == 0)
        EXPECT_EQ(times, 0u) << "the others' form of an event listed in full: " << e.dump() << "\n" << events;
      else
        EXPECT_EQ(times, 1u) << e.dump() << "\n" << events;
    }
  }
  auto first = cli(carol, {"replay", game, "--at", "1"});
  EXPECT_NE(first.out.find("The Soviet player took this order back at version 2."), std::string::npos) << first.out;
  auto undo = cli(carol, {"replay", game, "--at", "2"});
  EXPECT_NE(undo.out.find("This undo takes back the order of version 1 (corps 3TC)"), std::string::npos) << undo.out;
  auto again = cli(carol, {"replay", game, "--at", "3"});
  EXPECT_EQ(again.out.find("took this order back"), std::string::npos) << "kept: " << again.out;
  auto undo_json = json::parse(cli(carol, {"--json", "replay", game, "--at", "2"}).out);
  EXPECT_EQ(undo_json.value("takes_back_version", 0), 1) << undo_json.dump();

  auto last = cli(carol, {"replay", game, "--at", "4"});
  ASSERT_EQ(last.code, 0) << last.err;
  EXPECT_NE(last.out.find("the game ended without another order. Soviet victory: The German player resigned."), std::string::npos)
      << last.out;
  EXPECT_EQ(last.out.find("(a resignation, a draw agreed, the time or the operator)"), std::string::npos) << last.out;
  auto last_json = json::parse(cli(carol, {"--json", "replay", game, "--at", "4"}).out);
  EXPECT_EQ(last_json.value("result", ""), "Soviet victory") << last_json.dump();
  std::error_code ec;
  fs::remove_all(carol.config, ec);
}

// A finished public game's log is open to anyone: `export` needs no login,
// as `verify` and `replay` need none.
TEST_F(TwoPlayers, AFinishedPublicGameIsExportedWithoutLoggingIn) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  Player carol{"carol", temp_dir("carol-export"), ""};  // no session on this server
  auto exported = cli(carol, {"export", game});
  ASSERT_EQ(exported.code, 0) << exported.out << exported.err;
  EXPECT_EQ(exported.err.find("not logged in"), std::string::npos) << exported.err;
  const json log = json::parse(exported.out);
  EXPECT_EQ(log.value("result", ""), "Soviet victory") << exported.out;
  std::error_code ec;
  fs::remove_all(carol.config, ec);
}

// A finished game's log holds both sides' own lines: the opponent's are named for their side, the
// reader's own are as they were ("You draw the event ..." is alice's alone).
TEST_F(TwoPlayers, AFinishedGamesLogNamesTheSideOfTheOpponentsOwnLines) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  for (const auto& [p, mine, theirs] : {std::tuple{&alice_, "Soviet: ", "German: "}, std::tuple{&bob_, "German: ", "Soviet: "}}) {
    const Result shown = cli(*p, {"show", game, "--log", "0"});
    ASSERT_EQ(shown.code, 0) << shown.out << shown.err;
    EXPECT_GT(count_of(shown.out, std::string(theirs) + "You draw the event "), 0u) << p->name << ":\n" << shown.out;
    EXPECT_EQ(count_of(shown.out, std::string(mine) + "You draw the event "), 0u) << p->name << ":\n" << shown.out;
    EXPECT_GT(count_of(shown.out, "You draw the event "), count_of(shown.out, std::string(theirs) + "You draw the event "))
        << p->name << "'s own:\n" << shown.out;
  }
}

TEST_F(TwoPlayers, AFinishedGameInTheGamesListSaysWhyItEnded) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  const Result listed = cli(alice_, {"games"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("Soviet victory (The German player resigned.)"), std::string::npos) << listed.out;
}

// The log of a game in play is not open: one not logged in is told to log in before
// `show GAME --log 0`, which needs a session; a player is sent to it straight away.
TEST_F(TwoPlayers, AGameInPlayExportedWithoutALoginSendsToShowOnceLoggedIn) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  Player carol{"carol", temp_dir("carol-export-in-play"), ""};  // no session on this server
  const std::string show = "`counterattack show " + game + " --log 0`";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"export", game}, {"replay", game}}) {
    auto r = cli(carol, args);
    EXPECT_NE(r.code, 0) << r.out;
    EXPECT_NE(r.err.find("Once logged in (`counterattack login NAME`), " + show), std::string::npos) << r.err;
  }
  auto player = cli(alice_, {"export", game});
  EXPECT_NE(player.code, 0) << player.out;
  EXPECT_NE(player.err.find(show + " shows the log as you may read it now."), std::string::npos) << player.err;
  EXPECT_EQ(player.err.find("logged in"), std::string::npos) << player.err;
  std::error_code ec;
  fs::remove_all(carol.config, ec);
}

// `logout` where nobody is logged in says so instead of claiming a logout.
TEST_F(TwoPlayers, ALogoutWithNoOneLoggedInSaysNoOneWas) {
  Player dave{"dave", temp_dir("dave-logout"), ""};
  auto r = cli(dave, {"logout"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("Logged out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No one was logged in to "), std::string::npos) << r.out;
  auto j = cli(dave, {"--json", "logout"});
  EXPECT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(j.out, "{\"logged_out\":false}\n") << "no one was: " << j.out;
  std::error_code ec;
  fs::remove_all(dave.config, ec);
}

// A count of log events out of range is refused in whole numbers, not as 1.79e308.
TEST_F(TwoPlayers, ALogCountBelowZeroIsRefusedWithItsRangeInWholeNumbers) {
  auto r = cli(alice_, {"show", "g1", "--log", "-1"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("not in range 0 to 1000000000"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("17976931348623157"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(".000000"), std::string::npos) << r.err;
}

// Once a game is over its view is the full one, both sides' units: `units`
// lists the player's own, as in play, not "none".
TEST_F(TwoPlayers, UnitsOfAFinishedGameAreThePlayersOwn) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  auto in_play = cli(bob_, {"units", game});
  ASSERT_EQ(in_play.code, 0) << in_play.err;
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);

  auto units = cli(bob_, {"units", game});
  ASSERT_EQ(units.code, 0) << units.err;
  EXPECT_EQ(units.out.find("None of your units"), std::string::npos) << units.out;
  EXPECT_EQ(units.out, in_play.out) << "the same German units, none moved";
  auto as_json = cli(bob_, {"--json", "units", game});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  const json stacks = json::parse(as_json.out);
  ASSERT_FALSE(stacks.empty()) << as_json.out;
  for (const auto& st : stacks) EXPECT_EQ(st.value("side", ""), "GERMAN") << st.dump();
  auto shell = cli(alice_, {"play", game}, "units\nquit\n");
  EXPECT_EQ(shell.out.find("None of your units"), std::string::npos) << shell.out;
  EXPECT_NE(shell.out.find("  3TC/50 at S3: "), std::string::npos) << "alice's Soviet units, at their entry point: " << shell.out;
}

// `units` gives each unit its strength as its counter reads (combat-movement, steps left) and, to
// the unit in motion, the MP it has left this phase; the shell's `units` says the same.
TEST_F(TwoPlayers, UnitsGiveEachUnitsStrengthAndTheMovementPointsLeftToTheUnitInMotion) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(alice_, {"order", game, "corps", "8GTC"}).code, 0);
  ASSERT_EQ(cli(alice_, {"order", game, "move", "8GTC/58G", "4153", "4152"}).code, 0);

  auto units = cli(alice_, {"units", game});
  ASSERT_EQ(units.code, 0) << units.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(units.out, m, std::regex("  8GTC/58G at 4152: (\\d+)-(\\d+), (\\d+) of (\\d+) steps, "
                                                          "(\\d+(\\.5)?) MP left\n")))
      << units.out;
  EXPECT_EQ(m[3], m[4]) << "at full strength: " << units.out;
  EXPECT_LT(std::stod(m[5]), std::stod(m[2])) << "two hexes entered: " << units.out;
  // The others have not moved: their strength, no MP.
  EXPECT_TRUE(std::regex_search(units.out, std::regex("  3TC/50 at S3: \\d+-\\d+, \\d+ (of \\d+ steps|step)\n"))) << units.out;
  EXPECT_EQ(count_of(units.out, "MP left"), 1u) << units.out;

  auto shell = cli(alice_, {"play", game}, "units\nquit\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  EXPECT_NE(shell.out.find(units.out), std::string::npos) << units.out << "\nnot in the shell's\n" << shell.out;
  // bob's list is of his own units, none of them in motion.
  auto german = cli(bob_, {"units", game});
  ASSERT_EQ(german.code, 0) << german.err;
  EXPECT_EQ(german.out.find("8GTC"), std::string::npos) << german.out;
  EXPECT_EQ(german.out.find("MP left"), std::string::npos) << german.out;
}

// A game clock that runs out ends the game with no order: `watch` shows the
// end once, the board drawn once more and the dice seed once.
TEST_F(TwoPlayers, AWatcherOfAGameThatRunsOutOfTimeSeesItsEndOnce) {
  server_.stop();
  const std::string conf = data_ + "/short-clocks.conf";
  std::ofstream(conf) << "min_clock_seconds = 1\n";
  ASSERT_EQ(start_server(server_, data_, addr_, {"--config", conf}), addr_) << server_.output();
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--clock", "3s"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  Background watcher;
  watcher.start({CA_CLIENT_BIN, "--server", url(), "--insecure", "watch", game}, env(alice_), alice_.config + "/watch.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(cli(bob_, {"join", game}).code, 0);
  // The Soviet player never moves: the game is aborted when their clock runs out.
  ASSERT_EQ(watcher.wait(60), 0) << watcher.output();
  const std::string out = watcher.output();
  const auto end = out.find("The game is over. ");
  ASSERT_NE(end, std::string::npos) << out;
  EXPECT_EQ(count_of(out, "The game is over. "), 1u) << out;
  EXPECT_EQ(count_of(out, "Dice seed: "), 1u) << out;
  EXPECT_EQ(count_of(out.substr(end), "Turn 1/10"), 0u) << "the board is not drawn again after the end: " << out;
  EXPECT_NE(out.find("Aborted", end), std::string::npos) << out;
}

// A one-shot order prints what it did as the player's view reads it, as the
// shell does: the events after "accepted", and in --json an `events` array,
// the same as that version's in the player's log; never the other side's hidden forms.
TEST_F(TwoPlayers, AnOrderFromTheCommandLinePrintsWhatItDid) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  auto corps = cli(alice_, {"order", game, "corps", "3TC"});
  ASSERT_EQ(corps.code, 0) << corps.err;
  EXPECT_NE(corps.out.find("accepted (version 1)\n  3TC activates.\n"), std::string::npos) << corps.out;
  auto done = cli(alice_, {"--json", "order", game, "done"});
  ASSERT_EQ(done.code, 0) << done.err;
  const json j = json::parse(done.out);
  ASSERT_TRUE(j.contains("events")) << done.out;
  auto logged = cli(alice_, {"--json", "show", game, "--log", "0"});
  ASSERT_EQ(logged.code, 0) << logged.err;
  json mine = json::array();
  const json whole = json::parse(logged.out);
  for (const auto& e : whole.at("log")) {
    if (e.value("version", 0) == 2) mine.push_back(e.at("event"));
  }
  EXPECT_EQ(j.at("events"), mine) << "as alice's log reads version 2: " << logged.out;
  EXPECT_EQ(j.at("then"), json::array()) << "no version came after hers: " << done.out;
  for (const auto& e : j.at("events")) {
    const std::string audience = e.value("audience", "AUDIENCE_ALL");
    EXPECT_NE(audience, "AUDIENCE_GERMAN") << e.dump();
    EXPECT_NE(audience, "AUDIENCE_ALL_BUT_SOVIET") << e.dump();
  }
  auto refused = cli(bob_, {"--json", "order", game, "corps", "3TC"});
  EXPECT_EQ(refused.code, 3) << refused.out;
  EXPECT_FALSE(json::parse(refused.out).contains("events")) << refused.out;
}

// `text` ends with `end` (not empty).
::testing::AssertionResult ends_with(const std::string& text, const std::string& end) {
  if (!end.empty() && text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n" << text << "\ndoes not end with\n" << end;
}

// After an accepted order the player is told what the game now waits for and from whom, as
// `decision` (and the shell) says it: their own next decision with the notation that answers it,
// or the opponent's. Every order word answers so; --json stays the order's outcome alone.
TEST_F(TwoPlayers, AnAcceptedOrderFromTheCommandLineSaysWhatTheGameNowWaitsForAndFromWhom) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  bring_8gtc_to_attack_3546(game);  // two `done`s at its end: alice is to attack
  auto mine = cli(alice_, {"decision", game});
  ASSERT_EQ(mine.code, 0) << mine.err;
  EXPECT_NE(mine.out.find("Your decision (Soviet)"), std::string::npos) << mine.out;
  ASSERT_EQ(cli(bob_, {"standing", game, "none"}).code, 0);

  auto attacked = cli(alice_, {"order", game, "attack", "8GTC/58G", "8GTC/59G", "8GTC/60G", "8GTC/1817", "3546"});
  ASSERT_EQ(attacked.code, 0) << attacked.out << attacked.err;
  auto waits = cli(alice_, {"decision", game});
  EXPECT_NE(waits.out.find("Waiting for the German player"), std::string::npos) << waits.out;
  EXPECT_TRUE(ends_with(attacked.out, waits.out));

  auto answered = cli(bob_, {"order", game, "nosupport"});
  ASSERT_EQ(answered.code, 0) << answered.out << answered.err;
  EXPECT_TRUE(ends_with(answered.out, cli(bob_, {"decision", game}).out));

  // A `done` ends alice's step in another game: her next one is told.
  auto made = cli(alice_, {"--json", "new", "--side", "soviet"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string other = json::parse(made.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", other}).code, 0);
  ASSERT_EQ(cli(alice_, {"order", other, "corps", "3TC"}).code, 0);
  auto done = cli(alice_, {"order", other, "done"});
  ASSERT_EQ(done.code, 0) << done.out << done.err;
  const auto next = cli(alice_, {"decision", other}).out;
  EXPECT_TRUE(ends_with(done.out, next));
  EXPECT_NE(next.find("Answer: "), std::string::npos) << "alice's own, with its notation: " << next;
  auto as_json = cli(alice_, {"--json", "order", other, "done"});
  ASSERT_EQ(as_json.code, 0) << as_json.out << as_json.err;
  EXPECT_FALSE(json::parse(as_json.out).contains("decision")) << as_json.out;
}

// bob's standing answers to alice's attack on 3546, which follow her order at
// once: whatever the die his units there lose a step and retreat, which the log
// tells him by their names and everyone else as "A German unit".
class TwoPlayersWithStandingAnswers : public TwoPlayers {
 protected:
  // A new game of alice's (Soviet) that bob joined.
  std::string joined_game() {
    auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--time", "3d"});
    EXPECT_EQ(created.code, 0) << created.err;
    const std::string game = created.code == 0 ? json::parse(created.out).value("game_id", "") : "";
    EXPECT_EQ(cli(bob_, {"join", game}).code, 0);
    return game;
  }
  // bob answers support, losses and retreats in advance; alice brings four units
  // of 8GTC next to 3546, where two German battalions stand, and attacks it: 17
  // against 5, +6 on the die, D1r1 at the least. What her attack printed.
  Result attack(const std::string& game, bool as_json) {
    bring_8gtc_to_attack_3546(game);
    std::vector<std::string> args{"order", game, "attack", "8GTC/58G", "8GTC/59G", "8GTC/60G", "8GTC/1817", "3546"};
    if (as_json) args.insert(args.begin(), "--json");
    return cli(alice_, args);
  }
  // A player's log of the game: each entry's version and event.
  json log_of(const Player& p, const std::string& game) {
    auto logged = cli(p, {"--json", "show", game, "--log", "0"});
    EXPECT_EQ(logged.code, 0) << logged.err;
    return logged.code == 0 ? json::parse(logged.out).at("log") : json::array();
  }
  // The texts only bob may read (his units named) of the versions after `version`.
  std::vector<std::string> bobs_own_texts(const std::string& game, int version) {
    std::vector<std::string> texts;
    for (const auto& e : log_of(bob_, game)) {
      if (e.value("version", 0) > version && e.at("event").value("audience", "") == "AUDIENCE_GERMAN") {
        texts.push_back(e.at("event").value("text", ""));
      }
    }
    return texts;
  }
};

// What follows an order at once is printed with it: the opponent's standing
// answers under "then version N:", and in --json `then`, as the player's log
// reads those versions; never the other side's hidden forms: alice reads that
// a German unit lost a step and retreated, never which.
TEST_F(TwoPlayersWithStandingAnswers, AnOrderFromTheCommandLinePrintsTheStandingAnswersThatFollowItInThePlayersOwnForms) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  const std::string game = joined_game();
  ASSERT_FALSE(game.empty());
  const auto first = attack(game, false);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  ASSERT_EQ(first.out.rfind("accepted (version ", 0), 0u) << first.out;
  const int version = std::stoi(first.out.substr(std::string("accepted (version ").size()));
  const auto then = first.out.find("\nthen version " + std::to_string(version + 1) + ":\n  ");
  ASSERT_NE(then, std::string::npos) << "bob's standing answers follow her attack: " << first.out;
  std::string said;  // the versions after hers, as alice's log reads them
  int last = 0;
  for (const auto& e : log_of(alice_, game)) {
    const int v = e.value("version", 0);
    if (v <= version) continue;
    if (v != last) said += "then version " + std::to_string(v) + ":\n";
    last = v;
    said += "  " + e.at("event").value("text", "") + "\n";
  }
  // Then what the game waits for, as `decision` says it.
  const std::string waits = cli(alice_, {"decision", game}).out;
  ASSERT_FALSE(waits.empty());
  EXPECT_EQ(first.out.substr(then + 1), said + waits) << first.out;
  EXPECT_NE(first.out.find("\n  A German unit at 3546 loses a step (combat).\n"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("\n  A German unit retreats "), std::string::npos) << first.out;
  const auto hidden = bobs_own_texts(game, version);
  EXPECT_FALSE(hidden.empty()) << "bob's answers name his units to him";
  for (const auto& text : hidden) EXPECT_EQ(first.out.find(text), std::string::npos) << "bob's own form: " << text << "\n" << first.out;

  const std::string second = joined_game();
  ASSERT_FALSE(second.empty());
  const auto attacked = attack(second, true);
  ASSERT_EQ(attacked.code, 0) << attacked.out << attacked.err;
  const json j = json::parse(attacked.out);
  ASSERT_TRUE(j.value("accepted", false)) << attacked.out;
  ASSERT_FALSE(j.at("then").empty()) << attacked.out;
  EXPECT_EQ(j.at("then")[0].value("version", 0), j.value("version", 0) + 1) << attacked.out;
  const json alices = log_of(alice_, second);
  bool lost = false, retreated = false;
  for (const auto& answer : j.at("then")) {
    const int v = answer.value("version", 0);
    json logged = json::array();
    for (const auto& e : alices) {
      if (e.value("version", 0) == v) logged.push_back(e.at("event"));
    }
    EXPECT_FALSE(logged.empty()) << v;
    EXPECT_EQ(answer.at("events"), logged) << "as alice's log reads version " << v;
    for (const auto& e : answer.at("events")) {
      const std::string audience = e.value("audience", "AUDIENCE_ALL"), text = e.value("text", "");
      EXPECT_NE(audience, "AUDIENCE_GERMAN") << e.dump();
      EXPECT_NE(audience, "AUDIENCE_ALL_BUT_SOVIET") << e.dump();
      lost |= audience == "AUDIENCE_ALL_BUT_GERMAN" && text == "A German unit at 3546 loses a step (combat).";
      retreated |= audience == "AUDIENCE_ALL_BUT_GERMAN" && text.rfind("A German unit retreats ", 0) == 0;
    }
  }
  EXPECT_TRUE(lost) << attacked.out;
  EXPECT_TRUE(retreated) << attacked.out;
  const auto hidden_too = bobs_own_texts(second, j.value("version", 0));
  EXPECT_FALSE(hidden_too.empty());
  for (const auto& text : hidden_too) {
    for (const auto& answer : j.at("then")) {
      for (const auto& e : answer.at("events")) EXPECT_NE(e.value("text", ""), text) << "bob's own form";
    }
    EXPECT_EQ(attacked.out.find(text), std::string::npos) << "bob's own form: " << text;
  }
}

}  // namespace
}  // namespace counterattack::cli
