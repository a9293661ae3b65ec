// Where the client keeps sessions and settings, and how it reads server URLs and pins.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "client.h"
#include "config.h"
#include "live.h"
#include "connection.h"

namespace counterattack::cli {
namespace {

class ConfigDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("ca-config-" + std::to_string(::getpid())))
               .string();
    const char* old = std::getenv("XDG_CONFIG_HOME");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_)
      ::setenv("XDG_CONFIG_HOME", old_.c_str(), 1);
    else
      ::unsetenv("XDG_CONFIG_HOME");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir_, old_;
  bool had_ = false;
};

TEST_F(ConfigDir, SessionsAndPinsSurviveAndOnlyTheOwnerReadsThem) {
  EXPECT_EQ(Config::path(), dir_ + "/counterattack/config.json");
  Config c;
  std::string err;
  ASSERT_TRUE(c.load(&err)) << err;  // no file yet: an empty config
  EXPECT_TRUE(c.sessions.empty());
  c.server = "wss://example.org:8443";
  c.pins["wss://example.org:8443"] = std::string(64, 'a');
  c.sessions["wss://example.org:8443"] = {"alice", "token-1", 1234};
  ASSERT_TRUE(c.save(&err)) << err;

  struct stat st {};
  ASSERT_EQ(::stat(Config::path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  Config d;
  ASSERT_TRUE(d.load(&err)) << err;
  EXPECT_EQ(d.server, "wss://example.org:8443");
  EXPECT_EQ(d.pins.at("wss://example.org:8443"), std::string(64, 'a'));
  EXPECT_EQ(d.sessions.at("wss://example.org:8443").name, "alice");
  EXPECT_EQ(d.sessions.at("wss://example.org:8443").token, "token-1");
  EXPECT_EQ(d.sessions.at("wss://example.org:8443").expires_unix, 1234);
}

TEST_F(ConfigDir, ABrokenFileIsReportedNotOverwritten) {
  std::filesystem::create_directories(dir_ + "/counterattack");
  { std::ofstream(Config::path()) << "{ not json"; }
  Config c;
  std::string err;
  EXPECT_FALSE(c.load(&err));
  EXPECT_NE(err.find("is not valid JSON"), std::string::npos) << err;
}

// Two clients of one player (a shell, a one-shot command), each loaded before the
// other saved: a save writes its own changes onto the file as it is, losing none of
// the other's, and a removal removes only what it names.
TEST_F(ConfigDir, TwoClientsSavingInTurnKeepEachOthersChanges) {
  std::string err;
  Config shell, once;
  ASSERT_TRUE(shell.load(&err)) << err;
  ASSERT_TRUE(once.load(&err)) << err;
  shell.server = "wss://a.example.org";
  shell.sessions["wss://a.example.org"] = {"alice", "token-a", 1};
  ASSERT_TRUE(shell.save(&err)) << err;
  once.pins["wss://b.example.org"] = std::string(64, 'b');
  once.sessions["wss://b.example.org"] = {"alice", "token-b", 2};
  ASSERT_TRUE(once.save(&err)) << err;
  EXPECT_EQ(once.sessions.at("wss://a.example.org").token, "token-a") << "after a save, the file as it is";
  shell.pins["wss://a.example.org"] = std::string(64, 'a');
  shell.sessions.erase("wss://a.example.org");  // logged out there
  ASSERT_TRUE(shell.save(&err)) << err;

  Config after;
  ASSERT_TRUE(after.load(&err)) << err;
  EXPECT_EQ(after.server, "wss://a.example.org");
  EXPECT_EQ(after.pins, (std::map<std::string, std::string>{{"wss://a.example.org", std::string(64, 'a')},
                                                             {"wss://b.example.org", std::string(64, 'b')}}));
  ASSERT_EQ(after.sessions.size(), 1u);
  EXPECT_EQ(after.sessions.at("wss://b.example.org").token, "token-b");

  // A certificate forgotten in another terminal is not written back by a shell opened before.
  Config forget;
  ASSERT_TRUE(forget.load(&err)) << err;
  forget.pins.erase("wss://b.example.org");
  ASSERT_TRUE(forget.save(&err)) << err;
  after.sessions["wss://c.example.org"] = {"alice", "token-c", 3};
  ASSERT_TRUE(after.save(&err)) << err;
  Config last;
  ASSERT_TRUE(last.load(&err)) << err;
  EXPECT_EQ(last.pins.count("wss://b.example.org"), 0u);
  EXPECT_EQ(last.sessions.size(), 2u);
  struct stat st {};
  ASSERT_EQ(::stat(Config::path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// Processes that save at the same moment take turns: every one's change is kept.
TEST_F(ConfigDir, ProcessesSavingAtOnceLoseNothing) {
  constexpr int kProcesses = 4, kSaves = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int i = 0; i < kSaves; ++i) {
        Config c;
        std::string why;
        if (!c.load(&why)) ::_exit(1);
        c.pins["wss://p" + std::to_string(p) + "-" + std::to_string(i)] = std::string(64, 'c');
        if (!c.save(&why)) ::_exit(2);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  Config after;
  std::string err;
  ASSERT_TRUE(after.load(&err)) << err;
  EXPECT_EQ(after.pins.size(), std::size_t{kProcesses * kSaves});
}

TEST(Fingerprint, ColonsAndCaseDoNotMatter) {
  const std::string hex = "1c9c0a440b67154e9f8eb9e15c7f5de66d0b532276658ff81000395f5f6eccbd";
  EXPECT_EQ(normalize_fingerprint(display_fingerprint(hex)), hex);
  std::string upper = display_fingerprint(hex);
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(normalize_fingerprint(upper), hex);
  EXPECT_EQ(normalize_fingerprint("abcd"), "");
  EXPECT_EQ(normalize_fingerprint(std::string(64, 'g')), "");
}

TEST(ServerUrl, HostPortAndPath) {
  std::string err;
  auto a = parse_url("wss://127.0.0.1:8443", &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, "8443");
  EXPECT_EQ(a->path, "/");
  EXPECT_EQ(a->url(), "wss://127.0.0.1:8443");
  auto b = parse_url("wss://play.example.org/ws", &err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(b->port, "443");
  EXPECT_EQ(b->path, "/ws");
  auto c = parse_url("wss://[::1]:9000", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->port, "9000");
  EXPECT_EQ(c->url(), "wss://[::1]:9000");
  EXPECT_FALSE(parse_url("http://127.0.0.1:8443", &err));
  EXPECT_NE(err.find("must start with wss://"), std::string::npos);
  // Plain WebSocket, as a server started with --plain serves it: on loopback alone.
  for (const char* local : {"ws://127.0.0.1:8080", "ws://localhost:8080", "ws://[::1]:8080"}) {
    auto p = parse_url(local, &err);
    ASSERT_TRUE(p) << local << ": " << err;
    EXPECT_FALSE(p->tls);
    EXPECT_EQ(p->url(), local);
  }
  EXPECT_EQ(parse_url("ws://127.0.0.1", &err)->port, "80");
  EXPECT_FALSE(parse_url("ws://play.example.org:8080", &err));
  EXPECT_NE(err.find("for play.example.org use wss://"), std::string::npos) << err;
  EXPECT_FALSE(parse_url("wss://host:port", &err));
}

TEST(TimePerMove, TypedAndShownAsPeopleWriteIt) {
  EXPECT_EQ(parse_duration("3d"), 3 * 86400);
  EXPECT_EQ(parse_duration("12h"), 12 * 3600);
  EXPECT_EQ(parse_duration("90M"), 90 * 60);
  EXPECT_EQ(parse_duration("45s"), 45);
  for (const char* bad : {"", "d", "3", "3w", "-3d", "3.5d", "soviet", "private"}) EXPECT_FALSE(parse_duration(bad)) << bad;
  EXPECT_EQ(format_duration(3 * 86400), "3d");
  EXPECT_EQ(format_duration(2 * 86400 + 4 * 3600 + 59), "2d 4h");
  EXPECT_EQ(format_duration(5 * 3600 + 10 * 60), "5h 10m");
  EXPECT_EQ(format_duration(40 * 60), "40m");
  EXPECT_EQ(format_duration(-5), "0s");
  wire::GameSummary g;
  EXPECT_EQ(describe_clock(g), "") << "untimed";
  g.set_move_seconds(3 * 86400);
  EXPECT_EQ(describe_clock(g), "3d per move");
  g.set_deadline_unix(1000000 + 26 * 3600);
  EXPECT_EQ(describe_clock(g, 1000000), "3d per move, 1d 2h left");
}

TEST(GameClock, TypedAndShownAsPeopleWriteIt) {
  using P = std::pair<std::int64_t, std::int64_t>;
  EXPECT_EQ(parse_game_clock("15m+10s"), P(900, 10));
  EXPECT_EQ(parse_game_clock("1h"), P(3600, 0));
  EXPECT_EQ(parse_game_clock("15+10"), P(900, 10)) << "minutes and seconds, as chess players write it";
  EXPECT_EQ(parse_game_clock("2d+1h"), P(2 * 86400, 3600));
  EXPECT_EQ(parse_game_clock("1m+0"), P(60, 0)) << "a bare increment counts seconds, as in 15+10";
  EXPECT_EQ(parse_game_clock("15m+10"), P(900, 10));
  for (const char* bad : {"", "+", "15m+", "+10s", "0m+10s", "0+10", "15", "15m+10x", "fast", "15m10s"}) {
    EXPECT_FALSE(parse_game_clock(bad)) << bad;
  }
  EXPECT_EQ(clock_face(0), "0:00");
  EXPECT_EQ(clock_face(245), "4:05");
  EXPECT_EQ(clock_face(3723), "1:02:03");
  EXPECT_EQ(clock_face(2 * 86400 + 3 * 3600), "2d 3h");

  wire::GameSummary g;
  g.set_clock_seconds(900);
  g.set_increment_seconds(10);
  g.set_soviet_clock_left(700);
  g.set_german_clock_left(905);
  g.set_status("open");
  EXPECT_EQ(describe_clock(g), "clock 15m+10s");
  wire::GameSummary odd;
  odd.set_clock_seconds(90);
  odd.set_increment_seconds(5);
  EXPECT_EQ(describe_clock(odd), "clock 90s+5s") << "the terms to the second";
  g.set_status("playing");
  g.set_to_decide(game::GERMAN);
  g.set_deadline_unix(1000000 + 600);
  EXPECT_EQ(describe_clock(g, 1000000), "clock 15m+10s: Soviet 11:40, German 10:00 (running)")
      << "the running clock is read from its deadline";
  // A vacation does not hold a game clock: the list says that the away player's runs on.
  g.set_soviet("alice");
  g.set_german("bob");
  g.set_german_vacation_until(1000000 + 86400);
  EXPECT_EQ(describe_clock(g, 1000000),
            "clock 15m+10s: Soviet 11:40, German 10:00 (running: a game clock is not held while bob is on vacation)");
  g.set_german_vacation_until(0);
  g.set_soviet_vacation_until(1000000 + 86400);
  EXPECT_EQ(describe_clock(g, 1000000), "clock 15m+10s: Soviet 11:40, German 10:00 (running)") << "a clock that stands is not said";
  g.set_soviet_vacation_until(0);
  const auto late = clock_left(g, 1000000 + 900);
  EXPECT_EQ(late.soviet, 700);
  EXPECT_EQ(late.german, 0) << "never below zero";
  EXPECT_TRUE(late.german_runs);
  EXPECT_FALSE(late.soviet_runs);
  std::string why;
  auto m = new_game_request({"--clock", "5m+3s", "--side", "german"}, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->create_game().clock_seconds(), 300);
  EXPECT_EQ(m->create_game().increment_seconds(), 3);
  EXPECT_EQ(m->create_game().move_seconds(), 0);
  EXPECT_FALSE(new_game_request({"--clock", "soon"}, &why));
  EXPECT_EQ(why, "--clock takes the time for each player and the increment: 15m+10s, 1h or 15+10.");
}

TEST(Rematch, OfferedAndAcceptedInWordsThatSayWhatToTypeNext) {
  wire::RematchOffered o;
  o.set_by("alice");
  o.set_of_game_id("old1234567");
  o.mutable_game()->set_game_id("new7654321");
  o.mutable_game()->set_your_side("soviet");
  o.mutable_game()->set_status("open");
  o.mutable_game()->set_clock_seconds(900);
  o.mutable_game()->set_increment_seconds(10);
  EXPECT_EQ(rematch_offer_notice(o),
            "alice offers a rematch of game old1234567: game new7654321, casual, you would play soviet, clock 15m+10s. "
            "`rematch old1234567` accepts it, `rematch old1234567 decline` declines it (`counterattack rematch old1234567 [--decline]`).");
  o.mutable_game()->set_rated(true);
  o.mutable_game()->set_private_(true);
  o.mutable_game()->set_clock_seconds(0);
  o.mutable_game()->set_increment_seconds(0);
  o.mutable_game()->add_options("limited_bonus");
  EXPECT_EQ(rematch_offer_notice(o),
            "alice offers a rematch of game old1234567: game new7654321, rated, private, you would play soviet, untimed, "
            "options: limited_bonus. `rematch old1234567` accepts it, `rematch old1234567 decline` declines it "
            "(`counterattack rematch old1234567 [--decline]`).")
      << "the same terms as a challenge's notice names";
  wire::ServerMessage made;
  auto* g = made.mutable_game_created()->mutable_game();
  g->set_game_id("new7654321");
  g->set_your_side("german");
  g->set_rematch_of("old1234567");
  g->set_reserved_for("bob");
  EXPECT_EQ(rematch_answer(made),
            "Offered a rematch: game new7654321, you play german. It waits for bob, who accepts with "
            "`counterattack rematch old1234567` (or `rematch` in the shell); `counterattack resign new7654321` withdraws it.");
  wire::ServerMessage started;
  started.mutable_game()->set_game_id("new7654321");
  started.mutable_game()->set_your_side("soviet");
  EXPECT_EQ(rematch_answer(started),
            "Rematch accepted: game new7654321 has started, you play soviet. `counterattack play new7654321` (or `open "
            "new7654321` in the shell).");
}

TEST(Challenge, TheShellAndTheCommandLineTakeAnOpponentAndTheGamesListSaysWhoseChallengeItIs) {
  std::string why;
  auto m = new_game_request({"german", "3d", "opponent", "bob"}, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->create_game().opponent(), "bob");
  EXPECT_EQ(m->create_game().side(), wire::CHOOSE_GERMAN);
  m = new_game_request({"--opponent", "bob", "--casual"}, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->create_game().opponent(), "bob");
  EXPECT_TRUE(m->create_game().casual());
  EXPECT_FALSE(new_game_request({"german", "opponent"}, &why));
  EXPECT_EQ(why, "opponent takes the name of the player you challenge.");

  wire::ChallengeOffered o;
  o.set_by("alice");
  auto* g = o.mutable_game();
  g->set_game_id("new7654321");
  g->set_your_side("soviet");
  g->set_german("alice");
  g->set_status("open");
  g->set_reserved_for("bob");
  g->set_rated(true);
  g->set_clock_seconds(900);
  g->set_increment_seconds(10);
  EXPECT_EQ(challenge_offer_notice(o),
            "alice challenges you: game new7654321, rated, you would play soviet, clock 15m+10s. `join new7654321` accepts "
            "it, `decline new7654321` declines it (`counterattack join|decline new7654321`).");
  EXPECT_NE(game_line(*g).find("  challenge from alice: join new7654321 to accept it, or decline it with decline new7654321"),
            std::string::npos)
      << game_line(*g);
  // The command line's `games` names the commands as typed there.
  EXPECT_NE(game_line(*g, "counterattack ")
                .find("  challenge from alice: counterattack join new7654321 to accept it, or decline it with counterattack "
                      "decline new7654321"),
            std::string::npos)
      << game_line(*g, "counterattack ");
  g->set_your_side("german");  // the maker's own line
  EXPECT_NE(game_line(*g).find("  challenge to bob"), std::string::npos) << game_line(*g);
  EXPECT_EQ(game_line(*g).find("challenge from"), std::string::npos) << game_line(*g);

  // The maker's confirmation names each term bob is offered.
  EXPECT_EQ(challenge_made_text(*g, false),
            "Challenged bob: game new7654321, you play german, rated, clock 15m+10s. It waits for bob, who accepts with "
            "`join new7654321` or declines with `decline new7654321`; `resign new7654321` withdraws it.");
  g->set_rated(false);
  g->mutable_german_rating()->set_rating(1500);  // a server that rates games
  g->set_clock_seconds(0);
  g->set_increment_seconds(0);
  g->set_private_(true);
  g->add_options("limited_bonus");
  g->add_options("red_army_flexibility");
  EXPECT_EQ(challenge_made_text(*g, true).rfind("Challenged bob: game new7654321, you play german, untimed, private, casual, "
                                                "options: limited_bonus red_army_flexibility. It waits for bob",
                                                0),
            0u)
      << challenge_made_text(*g, true);
  // The challenged player's notice names the same terms, as his games does.
  g->set_your_side("soviet");
  EXPECT_EQ(challenge_offer_notice(o).rfind("alice challenges you: game new7654321, casual, private, you would play soviet, "
                                            "untimed, options: limited_bonus red_army_flexibility. `join new7654321` accepts it",
                                            0),
            0u)
      << challenge_offer_notice(o);
  EXPECT_NE(game_line(*g).find("  private  challenge from alice"), std::string::npos) << game_line(*g);
  EXPECT_NE(game_line(*g).find("  options: limited_bonus red_army_flexibility"), std::string::npos) << game_line(*g);

  wire::ChallengeWithdrawn w;
  w.set_game_id("new7654321");
  w.set_by("alice");
  w.set_reason("lapsed unanswered");
  EXPECT_EQ(challenge_withdrawn_notice(w), "The challenge from alice (game new7654321) no longer waits for you: lapsed unanswered.");
  w.set_of_game_id("old1234567");
  w.set_reason("withdrawn by its maker");
  EXPECT_EQ(challenge_withdrawn_notice(w),
            "The rematch of game old1234567 offered by alice (game new7654321) no longer waits for you: withdrawn by its maker.");
  w.set_reason("cancelled by the server's operator: Test game.");
  EXPECT_EQ(challenge_withdrawn_notice(w),
            "The rematch of game old1234567 offered by alice (game new7654321) no longer waits for you: cancelled by the "
            "server's operator: Test game.")
      << "the operator's sentence ends once";
  w.set_reason("cancelled by the server's operator: Gone for now...");
  EXPECT_EQ(challenge_withdrawn_notice(w),
            "The rematch of game old1234567 offered by alice (game new7654321) no longer waits for you: cancelled by the "
            "server's operator: Gone for now...")
      << "an ellipsis stays one";
}

// `watch` on a terminal rewrites the time line in place as a running game clock's seconds pass.
TEST(GameClock, AWatchedRunningClocksLineIsRewrittenInPlaceAsItsSecondsPass) {
  wire::GameSummary g;
  g.set_clock_seconds(900);
  g.set_soviet_clock_left(700);
  g.set_german_clock_left(900);
  g.set_status("playing");
  g.set_to_decide(game::GERMAN);
  g.set_deadline_unix(1000000 + 600);
  const std::string shown = "Time: " + describe_clock(g, 1000000) + "\n";
  const std::string later = "Time: " + describe_clock(g, 1000001) + "\n";
  EXPECT_EQ(later, "Time: clock 15m: Soviet 11:40, German 9:59 (running)\n");
  EXPECT_EQ(retime(shown, later), "\033[1A\r\033[2K" + later) << "up a line, cleared, written again";
  EXPECT_EQ(retime(shown, shown), "") << "the same second: nothing written";
  EXPECT_EQ(retime("", later), "") << "something else was printed after it: left alone";
  EXPECT_EQ(retime(shown, ""), "") << "the game is over: the next draw shows it";
}

TEST(TournamentStart, TypedAndShownAsPeopleWriteIt) {
  EXPECT_EQ(parse_utc("2026-12-01T18:00"), 1796148000);
  EXPECT_EQ(parse_utc("2026-12-01 18:00"), 1796148000);
  EXPECT_EQ(parse_utc("2026-12-01"), 1796083200);
  EXPECT_EQ(parse_utc("2026-12-01T18:00Z"), 1796148000) << "ISO 8601 as pasted, Z and all";
  EXPECT_EQ(parse_utc("2026-12-01T18:00:00"), 1796148000);
  EXPECT_EQ(parse_utc("2026-12-01T18:00:30Z"), 1796148030);
  for (const char* bad : {"", "2026-12-01T18", "tomorrow", "2026-12-01T18:00+02:00", "18:00", "Z"}) {
    EXPECT_FALSE(parse_utc(bad)) << bad;
  }
  std::string why;
  auto with = [&](std::vector<std::string> words) {
    words.insert(words.begin(), {"new", "Winter", "Cup"});
    return tournament_request(words, &why);
  };
  EXPECT_EQ(with({"--starts", "2026-12-01T18:00"})->create_tournament().starts_unix(), 1796148000);
  auto spaced = with({"--starts", "2026-12-01", "18:00", "--players", "6"});
  ASSERT_TRUE(spaced) << why;
  EXPECT_EQ(spaced->create_tournament().starts_unix(), 1796148000);
  EXPECT_EQ(spaced->create_tournament().name(), "Winter Cup");
  EXPECT_EQ(spaced->create_tournament().max_players(), 6);
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  const auto later = with({"--starts", "2h"})->create_tournament().starts_unix();
  EXPECT_GE(later, now + 7200);
  EXPECT_LE(later, now + 7200 + 60);
  EXPECT_EQ(with({})->create_tournament().starts_unix(), 0);
  EXPECT_FALSE(with({"--starts", "soon"}));
  EXPECT_NE(why.find("--starts takes a time from now"), std::string::npos) << why;
  // The organiser withdraws an entrant, in words the opponents are told.
  auto removal = tournament_request({"remove", "t1", "bob", "Has", "not", "moved", "in", "a", "week."}, &why);
  ASSERT_TRUE(removal) << why;
  EXPECT_EQ(removal->withdraw_entrant().tournament_id(), "t1");
  EXPECT_EQ(removal->withdraw_entrant().player(), "bob");
  EXPECT_EQ(removal->withdraw_entrant().reason(), "Has not moved in a week.");
  EXPECT_FALSE(tournament_request({"remove", "t1", "bob"}, &why)) << "no reason";
  EXPECT_NE(why.find("the entrant, and why"), std::string::npos) << why;
  EXPECT_FALSE(tournament_request({"remove", "t1", "bob", "gone", "--private"}, &why)) << "a flag is no part of a reason";
  wire::ServerMessage removed;
  removed.mutable_tournament()->set_tournament_id("t1");
  EXPECT_EQ(removed_from_tournament_text("bob", removed).rfind("bob is struck off the tournament's entrants.\n", 0), 0u);
  removed.mutable_tournament()->set_started_unix(1);
  EXPECT_EQ(removed_from_tournament_text("bob", removed).rfind(
                "bob is withdrawn from the tournament: their games in it under way are resigned, and no later round pairs them.\n", 0),
            0u);

  wire::Tournament t;
  t.set_tournament_id("t1");
  t.set_name("Winter Cup");
  t.set_organiser("alice");
  t.set_status("open");
  t.set_max_players(6);
  t.set_entrants(1);
  t.set_move_seconds(86400);
  t.set_starts_unix(1796148000);
  EXPECT_EQ(tournament_line(t), "t1  open  \"Winter Cup\"  organiser: alice  1/6 players  1d per move  starts 2026-12-01 18:00 UTC");
  EXPECT_NE(describe_tournament(t).find("or at 2026-12-01 18:00 UTC, when it is cancelled if fewer than two have entered."),
            std::string::npos)
      << describe_tournament(t);
  t.set_status("playing");
  EXPECT_EQ(tournament_line(t).find("starts"), std::string::npos);

  // A game clock for every game instead of a time per move.
  auto clocked = with({"--clock", "15m+10s"});
  ASSERT_TRUE(clocked) << why;
  EXPECT_EQ(clocked->create_tournament().clock_seconds(), 900);
  EXPECT_EQ(clocked->create_tournament().increment_seconds(), 10);
  EXPECT_EQ(clocked->create_tournament().move_seconds(), 0);
  EXPECT_FALSE(with({"--clock", "soon"}));
  EXPECT_NE(why.find("--clock takes the time for each player"), std::string::npos) << why;
  for (const auto& both : {std::vector<std::string>{"--time", "1d", "--clock", "15m"}, {"--clock", "15m", "--time", "1d"}}) {
    EXPECT_FALSE(with(both)) << "neither dropped quietly";
    EXPECT_NE(why.find("a time per move or a game clock, not both"), std::string::npos) << why;
  }
  t.set_move_seconds(0);
  t.set_clock_seconds(900);
  t.set_increment_seconds(10);
  EXPECT_EQ(tournament_line(t), "t1  playing  \"Winter Cup\"  organiser: alice  1/6 players  clock 15m+10s");
}

TEST(TournamentSwiss, TypedAndShownWithItsRoundsAndByes) {
  std::string why;
  auto swiss = tournament_request({"new", "Swiss", "Open", "--players", "8", "--swiss", "3"}, &why);
  ASSERT_TRUE(swiss) << why;
  EXPECT_EQ(swiss->create_tournament().rounds(), 3);
  EXPECT_EQ(tournament_request({"new", "Club", "Cup"}, &why)->create_tournament().rounds(), 0) << "a round robin";
  for (const char* bad : {"0", "three", ""}) {
    EXPECT_FALSE(tournament_request({"new", "Swiss", "Open", "--swiss", bad}, &why)) << bad;
  }

  wire::Tournament t;
  t.set_tournament_id("t2");
  t.set_name("Swiss Open");
  t.set_organiser("alice");
  t.set_status("open");
  t.set_max_players(8);
  t.set_entrants(3);
  t.set_move_seconds(86400);
  t.set_rounds(3);
  EXPECT_EQ(tournament_line(t), "t2  open  \"Swiss Open\"  organiser: alice  3/8 players  1d per move  Swiss, 3 rounds");
  EXPECT_NE(describe_tournament(t).find("In each round every entrant plays two games"), std::string::npos);
  t.set_status("playing");
  t.set_round(2);
  EXPECT_NE(tournament_line(t).find("Swiss, round 2 of 3 rounds"), std::string::npos) << tournament_line(t);
  auto* s = t.add_standings();
  s->set_rank(1);
  s->set_player("carol");
  s->set_points(4);
  s->set_byes(1);
  auto* g = t.add_games();
  g->set_game_id("g7");
  g->set_tournament_round(2);
  g->set_soviet("alice");
  g->set_german("bob");
  g->set_status("playing");
  const std::string shown = describe_tournament(t);
  EXPECT_NE(shown.find("tie-break  byes"), std::string::npos) << shown;
  EXPECT_NE(shown.find("0.00     1"), std::string::npos) << shown;
  EXPECT_NE(shown.find("g7  round 2  alice (Soviet) against bob (German)"), std::string::npos) << shown;
  EXPECT_EQ(tournament_start_notice(t), "Round 2 of 3 of the tournament \"Swiss Open\" has begun: `tournament show t2`.");
  // Started with fewer entrants than its set rounds need: said at the start and in `tournament show`.
  t.set_rounds_reason("It plays 3 rounds, not the 5 set: 4 entrants cannot play more without meeting twice.");
  EXPECT_NE(describe_tournament(t).find("\nIt plays 3 rounds, not the 5 set: 4 entrants cannot play more without meeting twice.\n"),
            std::string::npos)
      << describe_tournament(t);
  t.set_round(1);
  EXPECT_EQ(tournament_start_notice(t),
            "The tournament \"Swiss Open\" has started: `tournament show t2`. It plays 3 rounds, not the 5 set: 4 entrants "
            "cannot play more without meeting twice.");
  t.set_round(2);
  t.clear_rounds_reason();
  t.set_sits_out("carol");
  EXPECT_EQ(tournament_start_notice(t),
            "Round 2 of 3 of the tournament \"Swiss Open\" has begun (carol sits out this round): `tournament show t2`.");
  EXPECT_NE(describe_tournament(t).find("carol sits out round 2.\n"), std::string::npos) << describe_tournament(t);
  // carol herself reads that she sits out, not her name.
  EXPECT_EQ(tournament_start_notice(t, "carol"),
            "Round 2 of 3 of the tournament \"Swiss Open\" has begun: `tournament show t2`. You sit out this round, for 2 points.");
  EXPECT_EQ(tournament_start_notice(t, "bob"),
            "Round 2 of 3 of the tournament \"Swiss Open\" has begun (carol sits out this round): `tournament show t2`.");
  // An entrant is told whom they play in the round.
  t.set_your_opponent("bob");
  EXPECT_EQ(tournament_start_notice(t),
            "Round 2 of 3 of the tournament \"Swiss Open\" has begun (carol sits out this round): `tournament show t2`. "
            "You play bob, a game with each side.");
  EXPECT_NE(describe_tournament(t).find("In round 2 you play bob.\n"), std::string::npos) << describe_tournament(t);
  t.clear_your_opponent();
  // An entrant who withdrew is marked in the standings, and told what their withdrawal did.
  s->set_withdrawn(true);
  EXPECT_NE(describe_tournament(t).find("     1  withdrew\n"), std::string::npos) << describe_tournament(t);
  wire::ServerMessage withdrawn;
  *withdrawn.mutable_tournament() = t;
  EXPECT_EQ(left_tournament_text(withdrawn).rfind("You have withdrawn from the tournament: your games in it under way are "
                                                  "resigned, and no later round pairs you.\n", 0), 0u);
  wire::ServerMessage left;
  left.mutable_ok();
  EXPECT_EQ(left_tournament_text(left), "You have left the tournament.\n") << "before the start";
  s->set_withdrawn(false);
  t.clear_sits_out();
  t.set_round(1);
  EXPECT_EQ(tournament_start_notice(t), "The tournament \"Swiss Open\" has started: `tournament show t2`.");

  // A knock-out's deciding game is told to both its players as it is made.
  wire::GameSummary decider;
  decider.set_game_id("g9");
  decider.set_tournament_id("t2");
  decider.set_soviet("alice");
  decider.set_german("bob");
  decider.set_your_side("german");
  EXPECT_EQ(describe_start(decider),
            "Your deciding game g9 against alice in tournament t2 has started: you play german. `open g9` in the shell to follow it.");

  // Cancelled under way: why, and what was played, stay on show.
  t.set_status("cancelled");
  t.set_started_unix(1764000000);
  t.set_cancel_reason("The server's operator cancelled it: Two entrants share an account.");
  const std::string cancelled = describe_tournament(t);
  EXPECT_NE(cancelled.find("Cancelled. The server's operator cancelled it: Two entrants share an account.\n"), std::string::npos)
      << cancelled;
  EXPECT_NE(cancelled.find("g7  round 2  alice (Soviet) against bob (German)"), std::string::npos) << cancelled;
}

TEST(TournamentKnockOut, TypedAndShownWithItsBracketRoundsAndWhoWentOutWhen) {
  std::string why;
  auto cup = tournament_request({"new", "Club", "Cup", "--players", "8", "--knockout"}, &why);
  ASSERT_TRUE(cup) << why;
  EXPECT_TRUE(cup->create_tournament().knockout());
  EXPECT_EQ(cup->create_tournament().name(), "Club Cup");
  EXPECT_TRUE(tournament_request({"new", "Cup", "--knock-out"}, &why)->create_tournament().knockout());

  wire::Tournament t;
  t.set_tournament_id("t3");
  t.set_name("Club Cup");
  t.set_organiser("alice");
  t.set_status("open");
  t.set_max_players(8);
  t.set_entrants(5);
  t.set_move_seconds(86400);
  t.set_knockout(true);
  EXPECT_EQ(tournament_line(t), "t3  open  \"Club Cup\"  organiser: alice  5/8 players  1d per move  knock-out");
  EXPECT_NE(describe_tournament(t).find("a deciding game"), std::string::npos) << describe_tournament(t);
  t.set_status("playing");
  t.set_rounds(3);
  t.set_round(1);
  t.set_sits_out("carol, dave, erin");
  EXPECT_NE(tournament_line(t).find("knock-out, round 1 of 3"), std::string::npos) << tournament_line(t);
  EXPECT_EQ(tournament_start_notice(t),
            "The tournament \"Club Cup\" has started (carol, dave, erin sit out this round): `tournament show t3`.");
  EXPECT_EQ(tournament_start_notice(t, "dave"),
            "The tournament \"Club Cup\" has started (carol, erin sit out this round): `tournament show t3`. You sit out this "
            "round and go through to the next.");
  auto* in = t.add_standings();
  in->set_rank(1);
  in->set_player("alice");
  auto* out = t.add_standings();
  out->set_rank(5);
  out->set_player("bob");
  out->set_lost(2);
  out->set_knocked_out(1);
  const std::string shown = describe_tournament(t);
  EXPECT_NE(shown.find("tie-break  out"), std::string::npos) << shown;
  EXPECT_NE(shown.find("in round 1"), std::string::npos) << shown;
  EXPECT_NE(shown.find("carol, dave, erin sit out round 1.\n"), std::string::npos) << shown;
  // The next round's notice tells the one who went out, and only them.
  t.set_round(2);
  t.clear_sits_out();
  EXPECT_EQ(tournament_start_notice(t, "bob"),
            "Round 2 of 3 of the tournament \"Club Cup\" has begun: `tournament show t3`. You went out in round 1, and play "
            "no more in it.");
  EXPECT_EQ(tournament_start_notice(t, "alice"), "Round 2 of 3 of the tournament \"Club Cup\" has begun: `tournament show t3`.");
}

TEST(Email, TurnMailIsChosenEachAsADigestOrOffAndShown) {
  std::string why;
  EXPECT_EQ(email_request({"--turns", "each"}, &why)->set_turn_mail().mode(), wire::TURN_MAIL_EACH);
  EXPECT_EQ(email_request({"--turns", "off"}, &why)->set_turn_mail().mode(), wire::TURN_MAIL_OFF);
  auto digest = email_request({"--turns", "digest"}, &why);
  EXPECT_EQ(digest->set_turn_mail().mode(), wire::TURN_MAIL_DIGEST);
  EXPECT_EQ(digest->set_turn_mail().digest_hours(), 0) << "the interval set stays";
  digest = email_request({"--turns", "digest", "--digest-hours", "12"}, &why);
  EXPECT_EQ(digest->set_turn_mail().digest_hours(), 12);
  // An interval alone implies a digest.
  digest = email_request({"--digest-hours", "5"}, &why);
  ASSERT_TRUE(digest) << why;
  EXPECT_EQ(digest->set_turn_mail().mode(), wire::TURN_MAIL_DIGEST);
  EXPECT_EQ(digest->set_turn_mail().digest_hours(), 5);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--turns"}, {"--turns", "weekly"}, {"--turns", "each", "--digest-hours", "12"},
           {"--turns", "digest", "--digest-hours", "0"}, {"--turns", "digest", "--digest-hours", "169"}, {"--turns", "digest", "--digest-hours", "x"},
           {"--turns", "digest", "--digest-hours"}, {"--turns", "digest", "12"}}) {
    why.clear();
    EXPECT_FALSE(email_request(bad, &why)) << bad.back();
    EXPECT_FALSE(why.empty());
  }
  wire::Account a;
  a.set_mail_enabled(true);
  a.set_email("alice@example.org");
  a.set_email_confirmed(true);
  a.set_digest_hours(24);
  EXPECT_EQ(describe_account(a),
            "Turn notices go to alice@example.org while you are away, a mail per game (`email --turns digest` for one "
            "digest a day, `email off` stops them).");
  a.set_turn_mail(wire::TURN_MAIL_DIGEST);
  a.set_digest_hours(12);
  EXPECT_EQ(describe_account(a),
            "Turn notices go to alice@example.org as a digest, at most one every 12 hours, of the games that wait for you "
            "while you are away (`email --turns each` for a mail per game).");
  a.set_turn_mail(wire::TURN_MAIL_OFF);
  EXPECT_EQ(describe_account(a).rfind("No turn notices are mailed to alice@example.org", 0), 0u) << describe_account(a);

  // Chosen before an address is confirmed, the choice is kept and shown, and said to wait for one.
  a.set_email("");
  a.set_email_confirmed(false);
  a.set_turn_mail(wire::TURN_MAIL_DIGEST);
  EXPECT_EQ(describe_account(a, true),
            "Stored; it applies once an address is confirmed. Turn notices: a digest, at most one every 12 hours. "
            "No e-mail address: `email ADDRESS` sets one for turn notices while you are away.");
  EXPECT_EQ(describe_account(a),
            "No e-mail address: `email ADDRESS` sets one for turn notices while you are away. Turn notices, once it is "
            "confirmed: a digest, at most one every 12 hours.");
  a.set_email("alice@example.org");
  a.set_turn_mail(wire::TURN_MAIL_OFF);
  // Shown later, the code is not said to be mailed again: when it was, and how to have a new one.
  EXPECT_EQ(describe_account(a),
            "alice@example.org is not confirmed yet: the code mailed to it when it was set confirms it (`email confirm CODE`, "
            "for an hour after); `email alice@example.org` again mails a new one. Turn notices, once it is confirmed: "
            "off (other mail still comes).");
  EXPECT_EQ(describe_account(a, false, "", true),
            "A code was mailed to alice@example.org just now: `email confirm CODE` confirms it within an hour. Turn notices, "
            "once it is confirmed: off (other mail still comes).");
  a.set_turn_mail(wire::TURN_MAIL_EACH);
  EXPECT_EQ(describe_account(a, true),
            "Stored; it applies once an address is confirmed. Turn notices: a mail per game. alice@example.org is not "
            "confirmed yet: the code mailed to it when it was set confirms it (`email confirm CODE`, for an hour after); "
            "`email alice@example.org` again mails a new one.");
}

TEST(Vacation, TypedAndShownAsPeopleWriteIt) {
  std::string why;
  EXPECT_TRUE(vacation_request({}, &why)->has_get_account());
  EXPECT_EQ(vacation_request({"start", "7"}, &why)->start_vacation().days(), 7);
  EXPECT_EQ(vacation_request({"start", "10d"}, &why)->start_vacation().days(), 10);
  EXPECT_TRUE(vacation_request({"end"}, &why)->has_end_vacation());
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"start"}, {"start", "x"}, {"start", "-3"}, {"start", "2w"}, {"soon"}, {"end", "now"}}) {
    why.clear();
    EXPECT_FALSE(vacation_request(bad, &why));
    EXPECT_EQ(why, "vacation | vacation start DAYS | vacation end");
  }
  wire::Vacation v;
  EXPECT_EQ(describe_vacation(v), "This server gives no vacation time.");
  v.set_days_per_year(30);
  v.set_days_left(30);
  EXPECT_EQ(describe_vacation(v, 1000000),
            "Not on vacation; 30 of 30 vacation days left (in any 365 days). `vacation start DAYS` holds your clocks in "
            "games with a time per move.");
  v.set_days_left(25);
  v.set_started_unix(1000000);
  v.set_until_unix(1000000 + 5 * 86400);
  EXPECT_EQ(describe_vacation(v, 1000000 + 3600),
            "On vacation until 1970-01-17 13:46 UTC (4d 23h from now): your clocks in games with a time per move stand still. 25 of 30 "
            "vacation days left (in any 365 days); `vacation end` ends it now.");
  // On the command line the hint is the command to type there.
  EXPECT_NE(describe_vacation(v, 1000000 + 3600, "counterattack ").find("; `counterattack vacation end` ends it now."),
            std::string::npos);
  v.set_until_unix(0);
  EXPECT_NE(describe_vacation(v, 1000000, "counterattack ").find("`counterattack vacation start DAYS` holds your clocks"),
            std::string::npos);

  wire::GameSummary g;
  g.set_soviet("alice");
  g.set_german("bob");
  g.mutable_soviet_rating()->set_rating(1523);
  g.mutable_german_rating()->set_rating(1500);
  g.set_soviet_vacation_until(1000000 + 5 * 86400);
  EXPECT_EQ(seat_text(g, true), "alice (1523, on vacation until 1970-01-17)");
  EXPECT_EQ(seat_text(g, false), "bob (1500)");
}


// A tournament's game for the cross-table tests.
void add_game(wire::Tournament& t, const std::string& soviet, const std::string& german, const std::string& result,
              int round = 0) {
  auto* g = t.add_games();
  g->set_game_id(soviet + "-" + german + std::to_string(round));
  g->set_soviet(soviet);
  g->set_german(german);
  g->set_tournament_round(round);
  g->set_status(result.empty() ? "playing" : "finished");
  g->set_result(result);
}

wire::Standing* add_standing(wire::Tournament& t, int rank, const std::string& player, double points, double tiebreak) {
  auto* s = t.add_standings();
  s->set_rank(rank);
  s->set_player(player);
  s->set_points(points);
  s->set_tiebreak(tiebreak);
  return s;
}

TEST(TournamentCrossTable, ARoundRobinShowsEachPairsTwoGamesInAGridWithPointsAndTieBreak) {
  wire::Tournament t;
  t.set_tournament_id("t4");
  t.set_name("Club Round");
  t.set_organiser("alice");
  t.set_status("playing");
  t.set_started_unix(1764000000);
  add_standing(t, 1, "alice", 3, 2.5);
  add_standing(t, 2, "bob", 1.5, 1.75);
  add_standing(t, 3, "carol", 0.5, 0.75);
  add_game(t, "alice", "bob", "Soviet victory");
  add_game(t, "bob", "alice", "Draw");
  add_game(t, "alice", "carol", "Soviet victory");
  add_game(t, "carol", "alice", "German victory");
  add_game(t, "bob", "carol", "Draw");
  add_game(t, "carol", "bob", "");
  const std::string shown = describe_tournament(t);
  EXPECT_NE(shown.find("Cross-table (row's results against each column's number, as Soviet then as German: 1 won, = drawn, "
                       "0 lost, * in play, x no result (aborted)):\n"
                       " no  rank  player   1   2   3  points  tie-break\n"
                       "  1     1  alice   --  1=  11       3       2.50\n"
                       "  2     2  bob     =0  --  =*     1.5       1.75\n"
                       "  3     3  carol   00  *=  --     0.5       0.75\n"),
            std::string::npos)
      << shown;
}

TEST(TournamentCrossTable, ASwissShowsEachRoundsOpponentResultsByeAndSonnebornBerger) {
  wire::Tournament t;
  t.set_tournament_id("t5");
  t.set_name("Swiss Open");
  t.set_organiser("alice");
  t.set_status("finished");
  t.set_started_unix(1764000000);
  t.set_rounds(3);
  t.set_round(2);
  t.set_end_reason("It ended after round 2 of 3: no further round could be paired, as fewer than two entrants who have "
                   "not withdrawn are left.");
  add_standing(t, 1, "alice", 4, 2);
  add_standing(t, 2, "carol", 2, 0)->add_bye_rounds(1);
  auto* bob = add_standing(t, 3, "bob", 0, 0);
  bob->add_bye_rounds(2);
  bob->set_withdrawn(true);
  add_game(t, "alice", "bob", "Soviet victory", 1);
  add_game(t, "bob", "alice", "German victory", 1);
  add_game(t, "alice", "carol", "Soviet victory", 2);
  add_game(t, "carol", "alice", "German victory", 2);
  const std::string shown = describe_tournament(t);
  EXPECT_NE(shown.find("Cut short: It ended after round 2 of 3: no further round could be paired"), std::string::npos) << shown;
  // Each entrant's number is fixed (their names' order: alice 1, bob 2, carol 3); the rows follow the standings.
  EXPECT_NE(shown.find("Cross-table (no: each entrant's number for the whole tournament, in the order of their names; rows in "
                       "the order of the standings; each round: the opponent's number, then the results as Soviet and as "
                       "German: 1 won, = drawn, 0 lost, * in play, x no result (aborted); bye: sat out, 2 points; - not paired):\n"
                       " no  rank  player     R1     R2  points  Sonneborn-Berger\n"
                       "  1     1  alice    2 11   3 11       4              2.00\n"
                       "  3     2  carol     bye   1 00       2              0.00\n"
                       "  2     3  bob      1 00    bye       0              0.00  withdrew\n"),
            std::string::npos)
      << shown;
  EXPECT_NE(tournament_end_notice(t).find("alice won. It ended after round 2 of 3"), std::string::npos) << tournament_end_notice(t);
}

// `tournament show` speaks to its reader: "You sit out", no pairing told to one who withdrew.
TEST(TournamentShow, TheReaderWhoSitsOutIsToldSoAndOneWhoWithdrewIsNotToldWhomTheyPlay) {
  wire::Tournament t;
  t.set_tournament_id("t7");
  t.set_name("Swiss Open");
  t.set_organiser("alice");
  t.set_status("playing");
  t.set_started_unix(1764000000);
  t.set_rounds(2);
  t.set_round(1);
  add_standing(t, 1, "alice", 0, 0);
  add_standing(t, 1, "ben", 0, 0);
  auto* cat = add_standing(t, 1, "cat", 0, 0);
  add_game(t, "alice", "cat", "", 1);
  add_game(t, "cat", "alice", "", 1);
  t.set_sits_out("ben");
  EXPECT_NE(describe_tournament(t, "", "ben").find("\nYou sit out round 1.\n"), std::string::npos) << describe_tournament(t, "", "ben");
  EXPECT_EQ(describe_tournament(t, "", "ben").find("ben sits out"), std::string::npos) << describe_tournament(t, "", "ben");
  EXPECT_NE(describe_tournament(t, "", "alice").find("\nben sits out round 1.\n"), std::string::npos);
  t.set_sits_out("ben, dan");  // a knock-out's first round
  EXPECT_NE(describe_tournament(t, "", "ben").find("\nYou sit out round 1 (so does dan).\n"), std::string::npos)
      << describe_tournament(t, "", "ben");
  EXPECT_NE(describe_tournament(t, "", "alice").find("\nben, dan sit out round 1.\n"), std::string::npos);
  t.clear_sits_out();
  t.set_your_opponent("alice");
  EXPECT_NE(describe_tournament(t, "", "cat").find("In round 1 you play alice.\n"), std::string::npos);
  cat->set_withdrawn(true);
  EXPECT_EQ(describe_tournament(t, "", "cat").find("you play alice"), std::string::npos) << describe_tournament(t, "", "cat");
}

TEST(TournamentShow, AKnockOutsDecidingGameIsNamedSoInTheGames) {
  wire::Tournament t;
  t.set_tournament_id("t8");
  t.set_name("Club Cup");
  t.set_organiser("alice");
  t.set_status("playing");
  t.set_started_unix(1764000000);
  t.set_knockout(true);
  t.set_rounds(1);
  t.set_round(1);
  add_standing(t, 1, "bob", 1, 0);
  add_standing(t, 1, "carol", 1, 0);
  add_game(t, "bob", "carol", "Soviet victory", 1);
  add_game(t, "carol", "bob", "Soviet victory", 1);
  auto* decider = t.add_games();
  decider->set_game_id("g3");
  decider->set_soviet("bob");
  decider->set_german("carol");
  decider->set_tournament_round(1);
  decider->set_status("playing");
  const std::string shown = describe_tournament(t);
  EXPECT_NE(shown.find("  g3  round 1, deciding game  bob (Soviet) against carol (German)"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("deciding game  ", shown.find("deciding game  ") + 1), std::string::npos) << "the third game alone: " << shown;
}

TEST(TournamentCrossTable, AKnockOutShowsItsBracketRoundByRound) {
  wire::Tournament t;
  t.set_tournament_id("t6");
  t.set_name("Club Cup");
  t.set_organiser("alice");
  t.set_status("playing");
  t.set_started_unix(1764000000);
  t.set_knockout(true);
  t.set_rounds(2);
  t.set_round(2);
  add_standing(t, 1, "alice", 0, 0);
  add_standing(t, 1, "carol", 2, 0);
  add_standing(t, 3, "bob", 1, 0)->set_knocked_out(1);
  add_game(t, "bob", "carol", "German victory", 1);
  add_game(t, "carol", "bob", "German victory", 1);
  add_game(t, "bob", "carol", "German victory", 1);
  add_game(t, "alice", "carol", "", 2);
  add_game(t, "carol", "alice", "", 2);
  const std::string shown = describe_tournament(t);
  EXPECT_NE(shown.find("Round 1:\n"
                       "  bob 1 - 2 carol  (010)  carol goes through\n"
                       "  alice goes through without playing\n"
                       "Round 2 (the final):\n"
                       "  alice 0 - 0 carol  (**)  in play\n"),
            std::string::npos)
      << shown;
}

// A finished game's line says why it ended; one its tournament's organiser decided says why it is not rated.
TEST(GamesList, AFinishedGameSaysWhyItEndedAndADecidedOneWhyItIsNotRated) {
  wire::GameSummary g;
  g.set_game_id("g1");
  g.set_status("finished");
  g.set_soviet("alice");
  g.set_german("bob");
  g.set_rated(true);
  g.mutable_soviet_rating();
  g.mutable_german_rating();
  g.set_result("German victory");
  g.set_result_reason("The Soviet player ran out of time.");
  EXPECT_NE(game_line(g).find("  German victory (The Soviet player ran out of time.)"), std::string::npos) << game_line(g);
  g.set_tournament_id("t1");
  g.set_tournament_round(2);
  g.set_rated(false);
  g.set_result_reason("Decided by carl, the organiser of the tournament \"Spring\": German victory, without being played out "
                      "(no rating changes). The Soviet player has left.");
  g.set_unrated_reason("not rated: decided by the organiser without being played out");
  const std::string line = game_line(g);
  EXPECT_NE(line.find("  tournament t1, round 2  not rated: decided by the organiser without being played out  German victory ("),
            std::string::npos) << line;
  EXPECT_NE(line.find("The Soviet player has left."), std::string::npos) << line;
  EXPECT_EQ(line.find("casual"), std::string::npos) << line;
  EXPECT_EQ(line.find("not rated", line.find("not rated") + 1), std::string::npos) << "said once: " << line;
  // The server's unrated_reason tells it, not the reason's words: a casual tournament's game reads
  // "casual" whatever its reason says.
  g.clear_unrated_reason();
  EXPECT_NE(game_line(g).find("  casual"), std::string::npos) << game_line(g);
  EXPECT_EQ(game_line(g).find("not rated"), std::string::npos) << game_line(g);
  g.set_result_reason("The German player resigned.");  // a casual tournament's game, played out
  EXPECT_NE(game_line(g).find("  casual"), std::string::npos) << game_line(g);
}

TEST(TournamentAdjudication, TypedWithTheGameTheResultAndAReason) {
  std::string why;
  auto a = tournament_request({"adjudicate", "g7", "german", "The", "Soviet", "player", "has", "left."}, &why);
  ASSERT_TRUE(a) << why;
  EXPECT_EQ(a->adjudicate_game().game_id(), "g7");
  EXPECT_EQ(a->adjudicate_game().result(), "german");
  EXPECT_EQ(a->adjudicate_game().reason(), "The Soviet player has left.");
  EXPECT_FALSE(tournament_request({"adjudicate", "g7", "german"}, &why)) << "no reason";
  EXPECT_NE(why.find("soviet|german|draw REASON"), std::string::npos) << why;
  EXPECT_FALSE(tournament_request({"adjudicate", "g7", "white", "gone"}, &why)) << "no such result";
  EXPECT_FALSE(tournament_request({"adjudicate", "g7", "draw", "gone", "--private"}, &why)) << "a flag is no part of a reason";
  EXPECT_EQ(adjudicated_text(a->adjudicate_game()),
            "Game g7 is decided: the German side wins. Both players are told why; it counts in the standings and moves no "
            "rating.\n");
}

}  // namespace
}  // namespace counterattack::cli
