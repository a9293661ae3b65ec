// The interactive shell (`counterattack play`), driven line by line through
// its standard input against a real `counterattackd`: what each player types,
// and what both players' shells print, live. Skipped when the server has not
// been built.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "notation.h"

namespace counterattack::cli {
namespace {

using namespace cli::testing;

// Generous, for a loaded machine and the sanitizers; a wait ends as soon as the text is there.
constexpr int kWaitSeconds = 30;

// A running shell: lines typed into it, and what it prints read in order.
class LiveShell {
 public:
  void start(const std::vector<std::string>& command, const std::map<std::string, std::string>& env,
             const std::string& log) {
    proc_.start(command, env, log, true);
  }
  void type(const std::string& line) {
    EXPECT_TRUE(proc_.send(line + "\n")) << "the shell no longer reads: " << line;
  }
  // A last line with no newline after it, then the end of the input.
  void type_last(const std::string& text) {
    EXPECT_TRUE(proc_.send(text)) << "the shell no longer reads: " << text;
    proc_.close_input();
  }
  void end_input() { proc_.close_input(); }
  void stop() { proc_.stop(); }

  // Waits for `text` in what the shell printed after the last text waited for,
  // and moves past it.
  ::testing::AssertionResult expect(const std::string& text) { return expect_one_of({text}).first; }
  // Waits for the first of `texts` to appear; which one (-1: none), and the assertion.
  std::pair<::testing::AssertionResult, int> expect_one_of(const std::vector<std::string>& texts) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kWaitSeconds);
    for (;;) {
      const std::string out = proc_.output();
      size_t best = std::string::npos;
      int which = -1;
      for (size_t i = 0; i < texts.size() && mark_ <= out.size(); ++i) {
        const auto at = out.find(texts[i], mark_);
        if (at < best) {
          best = at;
          which = static_cast<int>(i);
        }
      }
      if (which >= 0) {
        mark_ = best + texts[static_cast<size_t>(which)].size();
        return {::testing::AssertionSuccess(), which};
      }
      if (std::chrono::steady_clock::now() >= until) {
        std::string wanted;
        for (const auto& t : texts) wanted += (wanted.empty() ? "'" : " or '") + t + "'";
        return {::testing::AssertionFailure()
                    << "the shell did not print " << wanted << "; after what was read:\n"
                    << (mark_ < out.size() ? out.substr(mark_) : std::string("(nothing)")),
                -1};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  // What was printed from the last text waited for up to `text` (waited for as well).
  std::string printed_until(const std::string& text) {
    const size_t from = mark_;
    if (!expect(text)) return {};
    return proc_.output().substr(from, mark_ - from);
  }
  // Its exit status once it has ended (-1 when it did not end in time and was killed).
  int exit_code() { return proc_.wait(kWaitSeconds); }
  std::string output() const { return proc_.output(); }

 private:
  Background proc_;
  size_t mark_ = 0;
};

// A shell on a pseudo-terminal, as a player has it: the editor, colour and the
// redraws that clear the screen. What it prints is read as the terminal gets it.
class TerminalShell {
 public:
  ~TerminalShell() { stop(); }
  unsigned short rows = 50;  // the terminal's height, set before start
  bool start(const std::vector<std::string>& command, const std::string& config) {
    std::vector<std::string> args = command;
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text = {"XDG_CONFIG_HOME=" + config, "TERM=xterm", "HOME=" + config};
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    winsize size{};
    size.ws_row = rows;
    size.ws_col = 140;
    pid_ = ::forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::fcntl(master_, F_SETFL, ::fcntl(master_, F_GETFL) | O_NONBLOCK);
    return true;
  }
  void read_for(std::chrono::milliseconds span) {
    const auto until = std::chrono::steady_clock::now() + span;
    char buf[4096];
    while (std::chrono::steady_clock::now() < until) {
      const auto n = ::read(master_, buf, sizeof buf);
      if (n > 0) {
        out_.append(buf, static_cast<size_t>(n));
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
  // Waits for `text` printed at or after `from`.
  bool wait_for(const std::string& text, size_t from) {
    for (int i = 0; i < kWaitSeconds * 10 && out_.find(text, from) == std::string::npos; ++i) read_for(std::chrono::milliseconds(100));
    return out_.find(text, from) != std::string::npos;
  }
  bool write(const std::string& keys) { return ::write(master_, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size()); }
  // Types `line`, waits for `shown` and a moment more (the rest, and the prompt); the screen
  // from the last clear after it, empty when the line brought no redraw.
  std::string screen_after(const std::string& line, const std::string& shown = "\033[H\033[2J") {
    const std::string clear = "\033[H\033[2J";
    const size_t before = out_.size();
    EXPECT_TRUE(write(line + "\r"));
    EXPECT_TRUE(wait_for(shown, before)) << out_.substr(before);
    read_for(std::chrono::milliseconds(700));
    const auto cleared = out_.rfind(clear);
    return cleared == std::string::npos || cleared < before ? std::string() : out_.substr(cleared);
  }
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (master_ >= 0) ::close(master_);
    master_ = -1;
  }
  const std::string& output() const { return out_; }

 private:
  pid_t pid_ = -1;
  int master_ = -1;
  std::string out_;
};

class Shell : public TwoPlayers {
 protected:
  void expect_the_draw_offers_notice_to_leave_once_answered(const std::string& answer, const std::string& told);
  void expect_the_rematch_offers_notice_to_leave_with_the_new_game(const std::string& word);
  // `counterattack play [GAME]` for the player, its output in the player's config directory.
  void open(LiveShell& shell, const Player& p, const std::string& game = "") {
    std::vector<std::string> args = {"play"};
    if (!game.empty()) args.push_back(game);
    shell.start(command(args), env(p), p.config + "/shell-" + std::to_string(++shells_) + ".log");
    ASSERT_TRUE(shell.expect("Connected to " + url() + " as " + p.name + "."));
    if (!game.empty()) {
      // The game is drawn once, ending with whose decision it is.
      ASSERT_TRUE(shell.expect_one_of({"Your decision (", "Waiting for the "}).first);
    }
  }
  // The challenge `line` ("new german ... opponent NAME") makes in the maker's shell: the id its
  // confirmation ("Challenged NAME: game GAME, you play german, ...") names; "" when none came.
  static std::string challenge(LiveShell& maker, const std::string& line, const std::string& opponent) {
    maker.type(line);
    if (!maker.expect("Challenged " + opponent + ": game ")) return {};
    const std::string made = maker.printed_until(", you play german");
    return made.substr(0, made.find(','));
  }
  // The open game `line` ("new soviet ...") makes in the maker's shell: the id its confirmation
  // ("Created game GAME; you play SIDE. ...") names; "" when none came.
  static std::string created(LiveShell& maker, const std::string& line, const std::string& side) {
    maker.type(line);
    if (!maker.expect("Created game ")) return {};
    const std::string made = maker.printed_until("; you play " + side + ".");
    return made.substr(0, made.find(';'));
  }
  // alice (Soviet) and bob (German) each in a shell on a new game of theirs: its id.
  std::string both_in_a_game() {
    const std::string game = started_game("2d");
    if (game.empty() || HasFailure()) return {};
    open(alice_shell_, alice_, game);
    open(bob_shell_, bob_, game);
    return HasFailure() ? std::string() : game;
  }
  // alice's shell on a terminal, opened on `game` and at its first prompt: where what it prints
  // from now on starts in its output (npos, with a failure, when the prompt did not come).
  size_t alice_at_the_prompt(TerminalShell& term, const std::string& game, const std::string& prompt_end = " (you)> ") {
    return at_the_prompt(term, alice_, game, prompt_end);
  }
  // The same for player `p`.
  size_t at_the_prompt(TerminalShell& term, const Player& p, const std::string& game, const std::string& prompt_end) {
    if (!term.start(command({"play", game}), p.config)) {
      ADD_FAILURE() << "no terminal for the shell";
      return std::string::npos;
    }
    if (!term.wait_for(prompt_end, 0)) {
      ADD_FAILURE() << "no prompt: " << term.output();
      return std::string::npos;
    }
    return term.output().size();
  }
  // alice's attack on 3546 made from the command line, bob's standing answers cleared: the
  // decision is bob's, and his next order redraws alice's screen.
  void attack_3546_for_bob_to_answer(const std::string& game) {
    bring_8gtc_to_attack_3546(game);
    EXPECT_EQ(cli(bob_, {"standing", game, "none"}).code, 0);
    const auto r = cli(alice_, {"order", game, "attack", "8GTC/58G", "8GTC/59G", "8GTC/60G", "8GTC/1817", "3546"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
  }
  // alice's shell on a terminal (`term`), at its first prompt in a game just started, her decision: the
  // game, and where what the shell prints from now on starts ("" and npos, with a failure, on the way).
  std::pair<std::string, size_t> alice_at_the_prompt_in_a_new_game(TerminalShell& term) {
    const std::string game = started_game("2d");
    if (game.empty()) return {{}, std::string::npos};
    const size_t from = alice_at_the_prompt(term, game);
    if (HasFailure()) return {{}, std::string::npos};
    return {game, from};
  }
  // alice's shell on a terminal (`term`), at its first prompt in a started game where bob is to answer
  // her attack (see attack_3546_for_bob_to_answer): the game, and where what the shell prints from now
  // on starts in its output ("" and npos, with a failure, when that went wrong).
  std::pair<std::string, size_t> alice_at_the_prompt_before_bobs_answer(TerminalShell& term) {
    const std::string game = started_game("2d");
    if (game.empty()) return {{}, std::string::npos};
    attack_3546_for_bob_to_answer(game);
    if (HasFailure()) return {{}, std::string::npos};
    const size_t from = alice_at_the_prompt(term, game, "> ");
    if (HasFailure()) return {{}, std::string::npos};
    return {game, from};
  }
  // bob's answer to the attack, and alice's screen as its redraw leaves it: what was printed from
  // the last screen clear on ("" with a failure when no redraw came after `from`).
  std::string screen_after_bobs_answer(TerminalShell& term, const std::string& game, size_t from) {
    const auto r = cli(bob_, {"order", game, "nosupport"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const std::string clear = "\033[H\033[2J";
    if (!term.wait_for(clear, from)) {
      ADD_FAILURE() << "no redraw: " << term.output().substr(from);
      return {};
    }
    term.read_for(std::chrono::milliseconds(700));  // the rest of the redraw
    const auto cleared = term.output().rfind(clear);
    return term.output().substr(cleared);
  }
  // alice types `command` on a terminal (of `rows` rows; 0: the default) in a started game, with bob to
  // answer her attack; her screen once his answer redraws it ("" with a failure on the way). `printed`,
  // when given, gets what her command printed (it waits for `shown` in it, and the prompt after it).
  std::string screen_after_command_and_bobs_answer(const std::string& command, const std::string& shown, unsigned short rows = 0,
                                                   std::string* printed = nullptr) {
    TerminalShell term;
    if (rows > 0) term.rows = rows;
    const auto [game, from] = alice_at_the_prompt_before_bobs_answer(term);
    if (game.empty()) return {};
    if (!term.write(command + "\r") || !term.wait_for(shown, from)) {
      ADD_FAILURE() << "`" << command << "` did not print \"" << shown << "\": " << term.output().substr(from);
      return {};
    }
    term.read_for(std::chrono::milliseconds(300));  // the rest of it, and the prompt
    if (printed) *printed = term.output().substr(from);
    const std::string screen = screen_after_bobs_answer(term, game, term.output().size());
    term.stop();
    return screen;
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cerr << "alice's shell:\n"
                << tail(alice_shell_.output()) << "\nbob's shell:\n"
                << tail(bob_shell_.output()) << std::endl;
    }
    // Before the server, which they would otherwise try to reach again.
    alice_shell_.stop();
    bob_shell_.stop();
    TwoPlayers::TearDown();
  }
  static std::string tail(const std::string& s) {
    return s.size() > 6000 ? s.substr(s.size() - 6000) : s;
  }

  LiveShell alice_shell_, bob_shell_;
  int shells_ = 0;
};

// Where a unit stands in a view as JSON ("" when it is not on the board).
std::string location_of(const json& view, const std::string& unit) {
  for (const auto& st : view.value("stacks", json::array())) {
    for (const auto& u : st.value("units", json::array())) {
      if (u.value("id", "") == unit) return st.value("location", "");
    }
  }
  return {};
}

TEST_F(Shell, TwoPlayersPlayOrdersAndSeeEachOthersMovesLive) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());

  // Orders go in through the shell of whoever decides, until a unit has moved and the
  // decision has passed from one player to the other; the other's shell shows both
  // without a word typed there.
  bool moved = false, passed = false;
  for (int step = 0; step < 60 && !(moved && passed); ++step) {
    json v = view_of(alice_, game);
    const std::string side = v["decision"].value("side", "");
    const bool soviet = side == "SOVIET";
    const Player& me = soviet ? alice_ : bob_;
    LiveShell& mine = soviet ? alice_shell_ : bob_shell_;
    LiveShell& theirs = soviet ? bob_shell_ : alice_shell_;
    if (!soviet) v = view_of(bob_, game);
    const std::string kind = v["decision"].value("kind", "");
    ASSERT_NE(kind, "GAME_OVER") << v.dump();

    if (!moved && (kind == "MOVEMENT" || kind == "RESERVES")) {
      for (const auto& t : move_tries(v, side)) {
        const auto words = split_words(t);  // move UNIT HEX
        const std::string from = location_of(v, words[1]);
        mine.type(t);
        const auto [answered, outcome] =
            mine.expect_one_of({"Accepted: " + t + " (version ", "Rejected: "});
        ASSERT_TRUE(answered) << t;
        if (outcome == 1) continue;  // not a legal move: the next try
        // The opponent reads the move (its top counter, from where to where) as it happens;
        // the mover's own line gives the cost instead of ending there.
        const std::string seen = " " + from + " → " + words[2] + ".";
        EXPECT_TRUE(theirs.expect(seen)) << me.name << " moved: " << t;
        EXPECT_EQ(location_of(view_of(me, game), words[1]), words[2]);
        moved = true;
        break;
      }
      if (moved) continue;
    }

    const auto cand = candidates(v);
    std::string line = "done";
    if (kind == "CHOOSE_CORPS" && !cand.empty()) line = "corps " + cand.front();
    if (kind == "BREAK_CONTACT") line = "stand";
    if (kind == "DEFENSIVE_SUPPORT") line = "nosupport";
    if (kind == "MODEL_REROLL") line = "noreroll";
    if (kind == "ADVANCE") line = "advance";
    mine.type(line);
    ASSERT_TRUE(mine.expect("Accepted: " + line + " (version "))
        << kind << " answered with " << line;
    if (view_of(alice_, game)["decision"].value("side", "") != side) {
      EXPECT_TRUE(theirs.expect("Your decision (")) << "the decision passed from " << me.name;
      passed = true;
    }
  }
  ASSERT_TRUE(moved) << "no unit could be moved";
  ASSERT_TRUE(passed) << "the decision never passed to the other player";

  // An order out of turn: the server's reason, in the shell of whoever typed it, and nothing
  // changes.
  const json v = view_of(alice_, game);
  const bool soviet_decides = v["decision"].value("side", "") == "SOVIET";
  LiveShell& waiting = soviet_decides ? bob_shell_ : alice_shell_;
  const json before = view_of(soviet_decides ? bob_ : alice_, game);
  waiting.type("done");
  EXPECT_TRUE(waiting.expect(std::string("Rejected: You play the ") + (soviet_decides ? "German" : "Soviet") + " side; it is the " +
                             (soviet_decides ? "Soviet" : "German") +
                             " player's decision now. [NOT_YOUR_DECISION]"));
  EXPECT_EQ(view_of(soviet_decides ? bob_ : alice_, game), before);

  // A line that is no order at all is explained by the shell itself; nothing reaches the server.
  waiting.type("move 3TC/50");
  EXPECT_TRUE(waiting.expect("Expected a hex"));
  EXPECT_EQ(view_of(soviet_decides ? bob_ : alice_, game), before);
}

TEST_F(Shell, ChatTypedInOneShellAppearsInTheOther) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  alice_shell_.type("chat Hold the bridge at Praga until dawn");
  EXPECT_TRUE(bob_shell_.expect("[chat] alice: Hold the bridge at Praga until dawn"));
  bob_shell_.type("say We shall see");
  EXPECT_TRUE(alice_shell_.expect("[chat] bob: We shall see"));
  alice_shell_.type("chat");
  EXPECT_TRUE(alice_shell_.expect("chat TEXT"));
}

// A spectator's chat in the shell goes to the spectators' channel, where the spectators read it.
TEST_F(Shell, ASpectatorsChatGoesToTheSpectatorsChannel) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  Player carol{"carol", temp_dir("carol"), ""};
  ASSERT_EQ(cli(carol, {"register", "carol"}, "password-of-carol\n").code, 0);
  LiveShell carol_shell;
  open(carol_shell, carol, game);
  carol_shell.type("help");
  EXPECT_TRUE(carol_shell.expect("(watching others' game: to its spectators)"));
  carol_shell.type("chat Well played so far");
  const std::string said = carol_shell.printed_until("[spectators] carol: Well played so far");
  EXPECT_EQ(said.find("FORBIDDEN"), std::string::npos) << said;
  carol_shell.stop();
}

// Muted in the shell, a player's chat does not appear there until unmuted; a report names the open game.
// Each answer names the player as registered, whatever the case typed.
TEST_F(Shell, AMutedPlayersChatDoesNotAppearUntilUnmutedAndAReportIsMadeInTheOpenGame) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  alice_shell_.type("mute BOB");
  EXPECT_TRUE(alice_shell_.expect("Muted bob: you no longer read their chat. Muted (1): bob"));
  bob_shell_.type("chat A line alice does not read");
  EXPECT_TRUE(bob_shell_.expect("[chat] bob: A line alice does not read"));
  alice_shell_.type("report Bob Rude in chat");
  EXPECT_TRUE(alice_shell_.expect("Reported bob's chat in game " + game + " to the server's operator"));
  alice_shell_.type("unmute bOb");
  EXPECT_TRUE(alice_shell_.expect("Unmuted bob: you read their chat again. You have muted nobody."));
  bob_shell_.type("chat A line alice reads");
  const std::string printed = alice_shell_.printed_until("[chat] bob: A line alice reads");
  EXPECT_FALSE(printed.empty());
  EXPECT_EQ(printed.find("does not read"), std::string::npos) << printed;
  EXPECT_EQ(alice_shell_.output().find("does not read"), std::string::npos);
  alice_shell_.type("mute alice");
  EXPECT_TRUE(alice_shell_.expect("You cannot mute yourself."));
}

TEST_F(Shell, ADrawOfferedInOneShellIsDeclinedInTheOther) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  alice_shell_.type("draw offer");
  EXPECT_TRUE(alice_shell_.expect("You offered a draw."));
  EXPECT_TRUE(bob_shell_.expect("alice offers a draw."));
  bob_shell_.type("draw decline");
  EXPECT_TRUE(alice_shell_.expect("bob declines the draw."));
  // Her own offer is not echoed to her as one to answer.
  alice_shell_.type("draw maybe");
  const std::string offered = alice_shell_.printed_until("draw offer | draw accept | draw decline");
  EXPECT_EQ(offered.find("alice offers a draw"), std::string::npos) << offered;
  EXPECT_EQ(alice_shell_.output().find("from another client"), std::string::npos) << alice_shell_.output();
  bob_shell_.type("draw maybe");
  const std::string declined = bob_shell_.printed_until("draw offer | draw accept | draw decline");
  EXPECT_NE(declined.find("You declined the draw."), std::string::npos) << declined;
  EXPECT_EQ(declined.find("bob declines the draw."), std::string::npos) << "told once: " << declined;
}

// A decline bob sends from elsewhere (the one-shot command) is told once in his shell and in his
// `watch`: only the decline his shell sent is left to that command's own line.
TEST_F(Shell, ADrawDeclinedFromAnotherClientOfThePlayerIsToldInHisShellAndHisWatch) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  LiveShell watch;
  watch.start(command({"watch", game}), env(bob_), bob_.config + "/watch.log");
  ASSERT_TRUE(watch.expect_one_of({"Your decision (", "Waiting for the "}).first);
  alice_shell_.type("draw offer");
  ASSERT_TRUE(alice_shell_.expect("You offered a draw."));
  ASSERT_TRUE(bob_shell_.expect("alice offers a draw."));
  ASSERT_TRUE(watch.expect("alice offers a draw."));
  const Result declined = cli(bob_, {"draw", game, "decline"});
  ASSERT_EQ(declined.code, 0) << declined.out << declined.err;
  EXPECT_TRUE(alice_shell_.expect("bob declines the draw."));
  EXPECT_TRUE(bob_shell_.expect("bob declines the draw."));
  EXPECT_TRUE(watch.expect("bob declines the draw."));
  bob_shell_.type("draw maybe");
  const std::string after = bob_shell_.printed_until("draw offer | draw accept | draw decline");
  EXPECT_EQ(after.find("declines the draw."), std::string::npos) << "told once: " << after;
  watch.stop();
}

// An offer bob makes from elsewhere (the one-shot command) is told once in his shell as his own,
// not as one for him to answer.
TEST_F(Shell, ADrawOfferedFromAnotherClientOfThePlayerIsToldAsHisOwn) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  const Result offered = cli(bob_, {"draw", game, "offer"});
  ASSERT_EQ(offered.code, 0) << offered.out << offered.err;
  EXPECT_TRUE(alice_shell_.expect("bob offers a draw."));
  EXPECT_TRUE(bob_shell_.expect("You offered a draw (from another client)."));
  bob_shell_.type("draw maybe");
  const std::string after = bob_shell_.printed_until("draw offer | draw accept | draw decline");
  EXPECT_EQ(bob_shell_.output().find("bob offers a draw"), std::string::npos) << bob_shell_.output();
  EXPECT_EQ(after.find("You offered a draw (from another client)."), std::string::npos) << "told once: " << after;
}

// What the opponent said and offered while a player was away is there when they open the game.
TEST_F(Shell, ChatAndADrawOfferMadeWhileAPlayerWasAwayAreShownWhenTheyOpenTheGame) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  open(alice_shell_, alice_, game);
  alice_shell_.type("chat Your move, whenever you are back");
  alice_shell_.type("draw offer");
  ASSERT_TRUE(alice_shell_.expect("You offered a draw."));
  const Result listed = cli(bob_, {"games"});
  EXPECT_NE(listed.out.find("draw offered by alice"), std::string::npos) << listed.out << listed.err;
  open(bob_shell_, bob_, game);
  EXPECT_TRUE(bob_shell_.expect("alice offers a draw: accept or decline it"));
  EXPECT_TRUE(bob_shell_.expect("[chat] alice: Your move, whenever you are back"));
}

// `play GAME` opens a game; `play CHIT ...` in an open game is the order that plays an event.
TEST_F(Shell, PlayWithAnEventChitIsAnOrderForTheOpenGame) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  alice_shell_.type("play SOV-GHOST");
  const auto [judged, which] = alice_shell_.expect_one_of({"Accepted: play SOV-GHOST", "Rejected: ", "There is no game"});
  EXPECT_TRUE(judged);
  EXPECT_NE(which, 2) << "taken for a game's name";
  alice_shell_.type("play sov-ghost 1TC/99");  // a chit in any case, with a mistyped unit
  EXPECT_TRUE(alice_shell_.expect("'1TC/99' is not a unit"));
}

TEST_F(Shell, StandingOrdersAreSetShownAndCleared) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  alice_shell_.type("standing");
  EXPECT_TRUE(alice_shell_.expect("No standing orders: every decision is asked of you."));

  alice_shell_.type("standing no-support");
  EXPECT_TRUE(
      alice_shell_.expect("Standing orders (the server answers these decisions for you at once):\n"
                          "  no-support: when attacked, commit no tactical support"));
  // The game as drawn says so, under the map; the time line comes after it.
  alice_shell_.type("show");
  const std::string drawn = alice_shell_.printed_until("Time: 2d per move");
  EXPECT_NE(
      drawn.find("Standing orders: no-support (answered for you at once; `standing` to change)"),
      std::string::npos)
      << drawn;
  alice_shell_.type("standing");
  EXPECT_TRUE(alice_shell_.expect("  no-support: when attacked"));
  // They are alice's alone.
  EXPECT_NE(cli(bob_, {"standing", game}).out.find("No standing orders"), std::string::npos);

  alice_shell_.type("standing surrender");
  EXPECT_TRUE(alice_shell_.expect("Unknown standing order 'surrender'"));
  alice_shell_.type("standing none");
  EXPECT_TRUE(alice_shell_.expect("No standing orders: every decision is asked of you."));
  alice_shell_.type("show");
  const std::string redrawn = alice_shell_.printed_until("Time: 2d per move");
  EXPECT_EQ(redrawn.find("Standing orders:"), std::string::npos) << redrawn;
  EXPECT_NE(cli(alice_, {"standing", game}).out.find("No standing orders"), std::string::npos);
}

TEST_F(Shell, HelpListsTheCommandsAndAnUnknownWordLeavesTheShellRunning) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  LiveShell shell;
  open(shell, alice_);
  ASSERT_TRUE(shell.expect("Your games:\n  none"));
  shell.type("help");
  const std::string help = shell.printed_until("Tab completes commands");
  for (const char* word : {"Orders (sent to the server for the open game):", "  move ", "  done",
                           "Commands:", "  show [HEX]", "chat TEXT", "games | open GAME",
                           "resign yes", "standing [none | ORDER...]", "quit"}) {
    EXPECT_NE(help.find(word), std::string::npos) << word << " is not in:\n" << help;
  }
  shell.type("help move");
  EXPECT_TRUE(shell.expect("move UNIT"));

  shell.type("frobnicate the panzers");
  EXPECT_TRUE(shell.expect("'frobnicate' is not an order. Orders: move, done"));
  EXPECT_TRUE(shell.expect("`help` lists the shell's commands."));
  // A mistyped word is named by the nearest command or order.
  shell.type("stak 0606");
  EXPECT_TRUE(shell.expect("'stak' is not an order. Orders: move, done"));
  EXPECT_TRUE(shell.expect("Did you mean `stack`? `help` lists the shell's commands."));
  shell.type("corp 3TC");
  EXPECT_TRUE(shell.expect("Did you mean `corps`? `help` lists the shell's commands."));
  shell.type("mvoe 3TC/1818 4740");
  EXPECT_TRUE(shell.expect("Did you mean `move`? `help` lists the shell's commands.")) << "a swap of two letters is one edit";
  // The one-shot form typed in the shell is shown as the shell takes it, and not sent.
  shell.type("order g-123 move 3TC/50 4742 4642");
  EXPECT_TRUE(shell.expect("In the shell, type the order alone: move 3TC/50 4742 4642 (nothing was sent)."));
  shell.type("counterattack order g-123 done");
  EXPECT_TRUE(shell.expect("In the shell, type the order alone: done (nothing was sent)."));
  shell.type("counterattack games");
  EXPECT_TRUE(shell.expect("In the shell, type the command alone: games (nothing was sent)."));
  // An order, and a command of a game, with no game open.
  shell.type("done");
  EXPECT_TRUE(shell.expect("No game open: `games` lists yours, `open GAME` opens one."));
  shell.type("standing no-support");
  EXPECT_TRUE(shell.expect("Open a game first: standing orders are a game's."));
  // Still reading: it answers the next line.
  shell.type("games");
  EXPECT_TRUE(shell.expect("Your games:\n  none"));
  shell.type("quit");
  EXPECT_EQ(shell.exit_code(), 0) << shell.output();
}

TEST_F(Shell, EndOfInputEndsTheShellCleanly) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  bob_shell_.type("decision");
  EXPECT_TRUE(bob_shell_.expect_one_of({"Your decision (", "Waiting for the "}).first);
  bob_shell_.end_input();
  EXPECT_EQ(bob_shell_.exit_code(), 0) << bob_shell_.output();
  // A last line without its newline is obeyed before the shell ends.
  LiveShell watching;
  open(watching, bob_, game);
  alice_shell_.type_last("chat still here");
  EXPECT_EQ(alice_shell_.exit_code(), 0) << alice_shell_.output();
  EXPECT_TRUE(watching.expect("[chat] alice: still here"));
}

TEST_F(Shell, GamesOpenListsTheOpenGamesAPageAtATimeWithTheFilters) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  std::vector<std::string> made;
  for (const char* casual : {"--casual", "", ""}) {
    std::vector<std::string> args = {"--json", "new"};
    if (*casual) args.push_back(casual);
    const auto created = cli(alice_, args);
    ASSERT_EQ(created.code, 0) << created.err;
    made.push_back(json::parse(created.out).value("game_id", ""));
  }
  LiveShell shell;
  open(shell, bob_);
  shell.type("games open per-page 2");
  const std::string first = shell.printed_until("More: games more");
  EXPECT_NE(first.find("Open games (per-page 2):"), std::string::npos) << first;
  EXPECT_NE(first.find(made[2]), std::string::npos) << "newest first: " << first;
  EXPECT_NE(first.find(made[1]), std::string::npos) << first;
  EXPECT_EQ(first.find(made[0]), std::string::npos) << first;
  shell.type("games more");
  const std::string second = shell.printed_until("No more.");
  EXPECT_NE(second.find(made[0]), std::string::npos) << second;
  shell.type("games more");
  EXPECT_TRUE(shell.expect("No more open games: games open lists them from the newest again."));
  shell.type("games open casual");
  const std::string casual = shell.printed_until("No more.");
  EXPECT_NE(casual.find("Open games (casual):\n  " + made[0]), std::string::npos) << casual;
  EXPECT_EQ(casual.find(made[1]), std::string::npos) << casual;
  shell.type("games open min-rating 1600 max-rating 1400");
  EXPECT_TRUE(shell.expect("The least rating asked for (1600) is above the most (1400)."));
  shell.type("games open blitz");
  EXPECT_TRUE(shell.expect("games open [scenario NAME]"));
  shell.type("quit");
  EXPECT_EQ(shell.exit_code(), 0) << shell.output();
}

TEST_F(Shell, GamesPlayingAndFinishedListOthersGamesWithTheCommandsThatWatchOrReplayThem) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  std::vector<std::string> ended;
  for (int i = 0; i < 2; ++i) {
    const auto made = cli(alice_, {"--json", "new", "--side", "soviet"});
    ASSERT_EQ(made.code, 0) << made.err;
    ended.push_back(json::parse(made.out).value("game_id", ""));
    ASSERT_EQ(cli(bob_, {"join", ended.back()}).code, 0);
    ASSERT_EQ(cli(alice_, {"resign", ended.back(), "--yes"}).code, 0);
  }
  LiveShell shell;
  open(shell, bob_);
  shell.type("games playing player alice");
  const std::string playing = shell.printed_until("No more.");
  EXPECT_NE(playing.find("Games in play (player alice):\n  " + game + "  Soviet: alice"), std::string::npos) << playing;
  EXPECT_NE(playing.find("  watch: watch " + game + "\n"), std::string::npos) << playing;
  shell.type("games finished per-page 1");
  const std::string first = shell.printed_until("More: games more");
  EXPECT_NE(first.find("Finished games, newest ended first (per-page 1):\n  " + ended[1]), std::string::npos) << first;
  EXPECT_NE(first.find("German victory (The Soviet player resigned.), turn 1, version 0  not rated: neither side ever moved"
                       "  replay: replay " + ended[1] + "\n"),
            std::string::npos)
      << first;
  shell.type("games more");
  const std::string second = shell.printed_until("No more.");
  EXPECT_NE(second.find(ended[0]), std::string::npos) << second;
  shell.type("games more");
  EXPECT_TRUE(shell.expect("No more finished games: games finished lists them from the newest again."));
  shell.type("games finished player nobody");
  EXPECT_TRUE(shell.expect("There is no player 'nobody'."));
  shell.type("games playing max-rating 1400");
  EXPECT_TRUE(shell.expect("Rating bounds choose among open games by their maker's rating. games playing ["));
  // One player's games of every kind; `games more` goes on with the finished ones.
  shell.type("games player alice per-page 1");
  const std::string hers = shell.printed_until("More: games more");
  EXPECT_NE(hers.find("Open games of alice (per-page 1):\n  none such\nGames in play of alice (per-page 1):\n  " + game +
                      "  Soviet: alice"),
            std::string::npos)
      << hers;
  EXPECT_NE(hers.find("Finished games of alice (per-page 1), newest ended first:\n  " + ended[1]), std::string::npos) << hers;
  EXPECT_EQ(hers.find(ended[0]), std::string::npos) << hers;
  shell.type("games more");
  const std::string older = shell.printed_until("No more.");
  EXPECT_NE(older.find("Finished games, newest ended first (player alice per-page 1):\n  " + ended[0]), std::string::npos)
      << older;
  shell.type("games player");
  EXPECT_TRUE(shell.expect("A player needs their name. games player NAME ["));
  shell.type("games player alice min-rating 1400");
  EXPECT_TRUE(shell.expect("Rating bounds choose among open games by their maker's rating. games player NAME ["));
  shell.type("quit");
  EXPECT_EQ(shell.exit_code(), 0) << shell.output();
}

TEST_F(Shell, GamesListsTheGameAndOpenShowsIt) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  LiveShell shell;
  open(shell, bob_);
  // With no game named, the shell starts with the player's games.
  const std::string first = shell.printed_until("\n  " + game + "  playing");
  EXPECT_NE(first.find("Your games:"), std::string::npos) << first;
  EXPECT_TRUE(shell.expect("Soviet: alice"));
  EXPECT_TRUE(shell.expect("German: bob"));
  EXPECT_TRUE(shell.expect("you: german"));
  shell.type("games");
  EXPECT_TRUE(shell.expect("Your games:\n  " + game + "  playing"));
  shell.type("open " + game);
  EXPECT_TRUE(shell.expect("Turn 1/10"));
  EXPECT_TRUE(
      shell.expect_one_of({"Your decision (German)", "Waiting for the Soviet player"}).first);
  shell.type("open nosuchgame");
  EXPECT_TRUE(shell.expect("There is no game 'nosuchgame'."));
  shell.type("units");
  EXPECT_TRUE(shell.expect_one_of({" at ", "None of your units is on the board."}).first)
      << "the game opened before stays open";
  shell.type("quit");
  EXPECT_EQ(shell.exit_code(), 0) << shell.output();
}

// A script's `play GAME` whose game cannot be opened fails as the one-shot commands do,
// reading none of the lines that follow.
TEST_F(Shell, PlayingAGameThatDoesNotExistFromAScriptFails) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  const Result r = cli(alice_, {"play", "nosuchgame"}, "games\nquit\n");
  EXPECT_NE(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("There is no game 'nosuchgame'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Your games:"), std::string::npos) << "nothing after it is read: " << r.out;
}

TEST_F(Shell, ResignEndsTheGameAndBothShellsSaySo) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  bob_shell_.type("resign");
  EXPECT_TRUE(bob_shell_.expect("Type `resign yes` to resign game " + game + "."));
  bob_shell_.type("resign yes");
  EXPECT_TRUE(bob_shell_.expect("You resigned."));
  const std::string over = "The game is over. Soviet victory: The German player resigned";
  EXPECT_TRUE(bob_shell_.expect(over));
  EXPECT_TRUE(alice_shell_.expect(over));
  EXPECT_TRUE(alice_shell_.expect(". Dice seed: "));
  alice_shell_.type("decision");
  EXPECT_TRUE(alice_shell_.expect("The game is over. Soviet victory: The German player resigned"))
      << "drawn over, not waiting for a move";
  // After the end, orders are refused and the game is listed as finished.
  alice_shell_.type("done");
  EXPECT_TRUE(alice_shell_.expect("Rejected: "));
  alice_shell_.type("games");
  EXPECT_TRUE(alice_shell_.expect("  " + game + "  finished"));
  alice_shell_.type("quit");
  EXPECT_EQ(alice_shell_.exit_code(), 0) << alice_shell_.output();
}

// A game's end is told once in a shell read by a script: one line with the result,
// the ratings and the dice seed, in both players' shells, and no second line after it.
TEST_F(Shell, AGamesEndIsToldOnceWithItsDiceSeedInEachShell) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  bob_shell_.type("resign yes");
  ASSERT_TRUE(bob_shell_.expect("You resigned."));
  for (LiveShell* shell : {&alice_shell_, &bob_shell_}) {
    const std::string told = shell->printed_until(" (`verify` checks every die).");
    EXPECT_EQ(told.find("The game is over. "), told.rfind("The game is over. ")) << "told once: " << told;
    const auto end = told.rfind("The game is over. Soviet victory: The German player resigned. ");
    ASSERT_NE(end, std::string::npos) << told;
    EXPECT_NE(told.find("Dice seed: ", end), std::string::npos) << "on the end's line: " << told;
    EXPECT_EQ(told.find('\n', end), std::string::npos) << "on the end's line: " << told;
    shell->type("games");  // anything more said of it comes before the list
    const std::string after = shell->printed_until("Your games:");
    EXPECT_EQ(after.find("The game is over"), std::string::npos) << "told once: " << after;
  }
}

// On a terminal the redraw that shows a game's end clears the screen: the notice
// of the end (its ratings and dice seed) is printed under the redrawn screen, not
// before it, and the end itself is read there once.
TEST_F(Shell, OnATerminalTheEndsDiceSeedStaysOnTheScreenAfterTheRedraw) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(game.empty());
  const std::string& out = term.output();
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  ASSERT_TRUE(term.wait_for(" (`verify` checks every die).", from)) << out.substr(from);
  term.read_for(std::chrono::milliseconds(500));  // anything the shell prints after it
  term.stop();
  const std::string clear = "\033[H\033[2J";
  const auto cleared = out.rfind(clear);
  ASSERT_NE(cleared, std::string::npos) << out.substr(from);
  ASSERT_GT(cleared, from) << "the end is drawn: " << out.substr(from);
  const std::string screen = out.substr(cleared);
  EXPECT_NE(screen.find("Dice seed: "), std::string::npos) << "on the screen as the redraw leaves it: " << screen;
  EXPECT_NE(screen.find("The game is over. Soviet victory: The German player resigned."), std::string::npos) << screen;
  EXPECT_EQ(screen.find("The game is over. "), screen.rfind("The game is over. ")) << "the end read once: " << screen;
}

// On a terminal an order's answer stays on the screen: the redraw that its change brings
// comes first, and the line that says it was accepted under it.
TEST_F(Shell, OnATerminalAnAcceptedOrdersLineStaysUnderTheRedraw) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(game.empty());
  const std::string& out = term.output();
  ASSERT_TRUE(term.write("corps 3TC\r"));
  ASSERT_TRUE(term.wait_for("Accepted: corps 3TC (version 1).", from)) << out.substr(from);
  term.read_for(std::chrono::milliseconds(700));  // the order's redraw, however late it comes
  term.stop();
  const auto cleared = out.rfind("\033[H\033[2J");
  ASSERT_NE(cleared, std::string::npos) << out.substr(from);
  ASSERT_GT(cleared, from) << "the order's change is drawn: " << out.substr(from);
  EXPECT_NE(out.find("Accepted: corps 3TC (version 1).", cleared), std::string::npos)
      << "on the screen as the redraw leaves it: " << out.substr(cleared);
}

// On a terminal an order that the opponent's standing orders answer at once redraws the
// screen for each of their versions too: the line that says it was accepted waits for the
// last of them and stays under the last redraw.
TEST_F(Shell, OnATerminalAnAcceptedOrdersLineStaysUnderTheRedrawsOfTheStandingAnswersToIt) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  bring_8gtc_to_attack_3546(game);
  ASSERT_FALSE(HasFailure());
  TerminalShell term;
  const size_t from = alice_at_the_prompt(term, game);
  ASSERT_FALSE(HasFailure());
  const std::string& out = term.output();
  const std::string accepted = "Accepted: attack 8GTC/58G 8GTC/59G 8GTC/60G 8GTC/1817 3546 (version ";
  ASSERT_TRUE(term.write("attack 8GTC/58G 8GTC/59G 8GTC/60G 8GTC/1817 3546\r"));
  ASSERT_TRUE(term.wait_for(accepted, from)) << out.substr(from);
  term.read_for(std::chrono::milliseconds(700));  // any redraw however late it comes
  term.stop();
  const auto at = out.find(accepted, from);
  const int version = std::stoi(out.substr(at + accepted.size()));
  // bob's answers followed it at once: the log goes on past her attack.
  auto logged = cli(alice_, {"--json", "show", game, "--log", "0"});
  ASSERT_EQ(logged.code, 0) << logged.err;
  int last = 0;
  const json log = json::parse(logged.out);
  for (const auto& e : log.at("log")) last = std::max(last, e.value("version", 0));
  ASSERT_GT(last, version) << "bob's standing answers follow her attack: " << logged.out;
  const auto cleared = out.rfind("\033[H\033[2J");
  ASSERT_NE(cleared, std::string::npos) << out.substr(from);
  ASSERT_GT(cleared, from) << "the order's change is drawn: " << out.substr(from);
  EXPECT_GT(at, cleared) << "on the screen as the last redraw leaves it: " << out.substr(cleared);
  EXPECT_NE(out.find("A German unit retreats ", cleared), std::string::npos)
      << "the last redraw shows bob's answers: " << out.substr(cleared);
}

// On a terminal each redraw of the game repaints the notice area under it: a chat line bob
// sent is still on alice's screen after his next order redraws it, and read there once.
TEST_F(Shell, OnATerminalAChatLineStaysOnTheScreenAfterTheOpponentsNextOrderRedrawsIt) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_before_bobs_answer(term);
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(bob_, {"chat", game, "Your tanks will not cross the Bug"}).code, 0);
  const std::string line = "[chat] bob: Your tanks will not cross the Bug";
  ASSERT_TRUE(term.wait_for(line, from)) << term.output().substr(from);
  const size_t chatted = term.output().size();
  const std::string screen = screen_after_bobs_answer(term, game, chatted);
  ASSERT_FALSE(HasFailure());
  term.stop();
  EXPECT_NE(screen.find(line), std::string::npos) << "on the screen as bob's redraw leaves it: " << screen;
  EXPECT_EQ(screen.find(line), screen.rfind(line)) << "read once: " << screen;
}

// The notice area keeps the last 5 notices, oldest first: of 7 chat lines the first two are gone.
TEST_F(Shell, OnATerminalTheNoticeAreaKeepsTheLastFiveNoticesOldestFirst) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_before_bobs_answer(term);
  ASSERT_FALSE(game.empty());
  for (int i = 1; i <= 7; ++i) {
    const std::string text = "Chat line " + std::to_string(i) + " of 7";
    ASSERT_EQ(cli(bob_, {"chat", game, text}).code, 0);
    ASSERT_TRUE(term.wait_for("[chat] bob: " + text, from)) << term.output().substr(from);
  }
  const std::string screen = screen_after_bobs_answer(term, game, term.output().size());
  ASSERT_FALSE(HasFailure());
  term.stop();
  EXPECT_EQ(screen.find("Chat line 1 of 7"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("Chat line 2 of 7"), std::string::npos) << screen;
  size_t last = 0;
  for (int i = 3; i <= 7; ++i) {
    const auto at = screen.find("[chat] bob: Chat line " + std::to_string(i) + " of 7");
    ASSERT_NE(at, std::string::npos) << i << ": " << screen;
    EXPECT_GT(at, last) << "oldest first: " << screen;
    last = at;
  }
}

// What alice asked for is not lost when bob's order redraws her screen: the list `units` printed,
// shorter than half the terminal, is printed again under the notice area.
TEST_F(Shell, OnATerminalTheUnitsAliceListedAreShownAgainAfterTheOpponentsNextOrderRedrawsTheScreen) {
  const std::string screen = screen_after_command_and_bobs_answer("units", "  3TC/50 at S3");
  ASSERT_FALSE(HasFailure());
  const auto area = screen.find("Connected to " + url() + " as alice.");
  ASSERT_NE(area, std::string::npos) << "the notice area: " << screen;
  const auto units = screen.find("  8GTC/58G at 3446: ", area);
  ASSERT_NE(units, std::string::npos) << "under the notice area: " << screen;
  EXPECT_NE(screen.substr(units, screen.find('\n', units) - units).find("(activated this turn)"), std::string::npos) << screen;
  EXPECT_NE(screen.find("  3TC/50 at S3", units), std::string::npos) << "the whole list: " << screen;
  EXPECT_EQ(screen.find("was cleared by the redraw"), std::string::npos) << screen;
}

// An output too long to be printed again under a redraw the opponent brings (`help`, longer than
// half the terminal) is named in one line that says which command shows it again.
TEST_F(Shell, OnATerminalALongOutputClearedByTheOpponentsRedrawIsNamedInOneLine) {
  const std::string screen = screen_after_command_and_bobs_answer("help", "Tab completes commands");
  ASSERT_FALSE(HasFailure());
  EXPECT_NE(screen.find("(The output of `help` was cleared by the redraw: `help` shows it again.)"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("Tab completes commands"), std::string::npos) << screen;
}

// `log` marks the game seen as it shows it, so typed again it would show it otherwise: its long output,
// cleared by the opponent's redraw, is said to be cleared, no command named to show it again.
TEST_F(Shell, OnATerminalALongOutputOfACommandThatIsNotOnlyReadingIsSaidToBeClearedByTheRedraw) {
  std::string logged;
  const std::string screen = screen_after_command_and_bobs_answer("log", "8GTC/1817", 30, &logged);  // the log is longer than half of 30 rows
  ASSERT_FALSE(HasFailure());
  ASSERT_GT(std::count(logged.begin(), logged.end(), '\n'), 15) << "longer than half the terminal: " << logged;
  EXPECT_NE(screen.find("(The output of your last command was cleared by the redraw.)"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("shows it again"), std::string::npos) << screen;
}

// The terminal wraps a line longer than it is wide: an output of one newline that fills more than
// half of its rows (a word typed by mistake, said back in the error) is not printed again under the
// opponent's redraw, but said to be cleared.
TEST_F(Shell, OnATerminalAnOutputOfFewLinesThatWrapPastHalfTheTerminalIsSaidToBeClearedByTheRedraw) {
  const std::string word(900, 'x');  // 900 columns and more: 7 rows of 140, more than half of 12
  std::string printed;
  const std::string screen = screen_after_command_and_bobs_answer(word, "' is not an order.", 12, &printed);
  ASSERT_FALSE(HasFailure());
  const auto said = printed.find("'" + word + "' is not an order.");
  ASSERT_NE(said, std::string::npos) << printed;
  ASSERT_LE(std::count(printed.begin() + static_cast<std::ptrdiff_t>(said), printed.end(), '\n'), 6)
      << "fewer newlines than half the terminal: " << printed;
  EXPECT_NE(screen.find("(The output of your last command was cleared by the redraw.)"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("' is not an order."), std::string::npos) << screen;
}

// On a terminal too `games more` goes on with the list; typed again it would show the next page, so
// its output, cleared by the opponent's redraw, is said to be cleared with no command named.
TEST_F(Shell, OnATerminalGamesMoreGoesOnWithTheListAndItsLongOutputIsSaidToBeClearedByTheRedraw) {
  TerminalShell term;
  term.rows = 8;  // a page of three games and its head and foot: more than half of it
  const auto [game, from] = alice_at_the_prompt_before_bobs_answer(term);
  ASSERT_FALSE(game.empty());
  std::vector<std::string> made;  // oldest first
  for (int i = 0; i < 6; ++i) {
    const auto created = cli(bob_, {"--json", "new", "--side", "german"});
    ASSERT_EQ(created.code, 0) << created.err;
    made.push_back(json::parse(created.out).value("game_id", ""));
  }
  const size_t asked = term.output().size();
  ASSERT_TRUE(term.write("games open per-page 3\r"));
  ASSERT_TRUE(term.wait_for("More: games more", asked)) << term.output().substr(asked);
  const size_t first_page = term.output().size();
  ASSERT_TRUE(term.write("games more\r"));
  ASSERT_TRUE(term.wait_for(made[0], first_page)) << "the oldest on the next page: " << term.output().substr(first_page);
  term.read_for(std::chrono::milliseconds(300));  // the rest of it, and the prompt
  const std::string second = term.output().substr(first_page);
  EXPECT_NE(second.find(made[2]), std::string::npos) << second;
  EXPECT_EQ(second.find(made[3]), std::string::npos) << "shown on the first page: " << second;
  const std::string screen = screen_after_bobs_answer(term, game, term.output().size());
  ASSERT_FALSE(HasFailure());
  term.stop();
  EXPECT_NE(screen.find("(The output of your last command was cleared by the redraw.)"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("shows it again"), std::string::npos) << screen;
  EXPECT_EQ(screen.find(made[0]), std::string::npos) << screen;
}

// Under a redraw that brings notices with it, they are told first, then the last command's output
// again: bob's resignation ends the game, and its dice seed comes before the units alice listed.
TEST_F(Shell, OnATerminalTheNoticesARedrawBringsComeBeforeTheOutputShownAgain) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(game.empty());
  const std::string units = "  3TC/50 at S3";
  ASSERT_TRUE(term.write("units\r"));
  ASSERT_TRUE(term.wait_for(units, from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(300));  // the rest of it, and the prompt
  const size_t listed = term.output().size();
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  ASSERT_TRUE(term.wait_for(" (`verify` checks every die).", listed)) << term.output().substr(listed);
  term.read_for(std::chrono::milliseconds(700));  // the output shown again, however late the redraw comes
  term.stop();
  const std::string& out = term.output();
  const auto cleared = out.rfind("\033[H\033[2J");
  ASSERT_NE(cleared, std::string::npos) << out.substr(listed);
  ASSERT_GT(cleared, listed) << "the end is drawn: " << out.substr(listed);
  const std::string screen = out.substr(cleared);
  const auto seed = screen.find("Dice seed: ");
  ASSERT_NE(seed, std::string::npos) << screen;
  EXPECT_NE(screen.find(units, seed), std::string::npos) << "the units after the end's notice: " << screen;
  EXPECT_EQ(screen.find(units), screen.rfind(units)) << "listed once: " << screen;
}

// Back in a game the opponent moved in, the line that says how many orders are new is a notice:
// it stays in the notice area under each redraw.
TEST_F(Shell, OnATerminalTheNewOrdersSinceThePlayerLastLookedStayInTheNoticeArea) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(alice_, {"order", game, "corps", "3TC"}).code, 0);
  ASSERT_EQ(cli(alice_, {"order", game, "done"}).code, 0);
  TerminalShell term;
  const size_t from = at_the_prompt(term, bob_, game, "> ");
  ASSERT_FALSE(HasFailure());
  const std::string line = "2 new orders since you last looked: log shows them, marked.";
  ASSERT_NE(term.output().find(line, 0), std::string::npos) << "said on opening: " << term.output();
  ASSERT_TRUE(term.write("show\r"));
  const std::string clear = "\033[H\033[2J";
  ASSERT_TRUE(term.wait_for(clear, from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(500));  // the rest of the redraw, and the prompt
  term.stop();
  const std::string screen = term.output().substr(term.output().rfind(clear));
  const auto area = screen.find("Connected to " + url() + " as bob.");
  ASSERT_NE(area, std::string::npos) << "the notice area: " << screen;
  EXPECT_NE(screen.find(line, area), std::string::npos) << "in the notice area: " << screen;
  EXPECT_EQ(screen.find(line), screen.rfind(line)) << "once: " << screen;
}

// `refresh` watches the game from its start again, and the server sends its kept chat again:
// a chat line is on the redrawn screen once.
TEST_F(Shell, OnATerminalAChatLineIsShownOnceAfterRefresh) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(bob_, {"chat", game, "Hold the bridge at Brody"}).code, 0);
  const std::string line = "[chat] bob: Hold the bridge at Brody";
  ASSERT_TRUE(term.wait_for(line, from)) << term.output().substr(from);
  const size_t chatted = term.output().size();
  ASSERT_TRUE(term.write("refresh\r"));
  const std::string clear = "\033[H\033[2J";
  ASSERT_TRUE(term.wait_for(clear, chatted)) << term.output().substr(chatted);
  term.read_for(std::chrono::milliseconds(700));  // the kept chat, and the prompt
  term.stop();
  const std::string screen = term.output().substr(term.output().rfind(clear));
  EXPECT_NE(screen.find(line), std::string::npos) << screen;
  EXPECT_EQ(screen.find(line), screen.rfind(line)) << "shown once: " << screen;
}

// A notice is of the game it tells of: another game's turn stays in the notice area until alice
// opens that game, and the open game's chat leaves it when she opens another.
TEST_F(Shell, OnATerminalAnotherGamesTurnStaysInTheNoticeAreaUntilItIsOpenedAndTheOpenGamesChatGoesWithIt) {
  TerminalShell term;
  const auto [x, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(x.empty());
  const std::string clear = "\033[H\033[2J";
  ASSERT_EQ(cli(bob_, {"chat", x, "Hold the bridge at Brody"}).code, 0);
  const std::string line = "[chat] bob: Hold the bridge at Brody";
  ASSERT_TRUE(term.wait_for(line, from)) << term.output().substr(from);
  // A second game of alice's, bob joins it: her move in it, told while she has game x open.
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--time", "2d"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string y = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", y}).code, 0);
  const std::string turn = "Your move in game " + y + " (turn ";
  ASSERT_TRUE(term.wait_for(turn, from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(300));
  const std::string refreshed = term.screen_after("refresh");
  EXPECT_NE(refreshed.find(turn), std::string::npos) << "another game's turn stays: " << refreshed;
  const std::string in_y = term.screen_after("open " + y);
  EXPECT_EQ(in_y.find(turn), std::string::npos) << "its turn, answered by opening it: " << in_y;
  EXPECT_EQ(in_y.find(line), std::string::npos) << "game x's chat goes with it: " << in_y;
  const std::string in_x = term.screen_after("open " + x);
  term.stop();
  EXPECT_EQ(in_x.find(turn), std::string::npos) << in_x;
  EXPECT_NE(in_x.find(line), std::string::npos) << "game x's chat comes with it: " << in_x;
  EXPECT_EQ(in_x.find(line), in_x.rfind(line)) << "once: " << in_x;
}

// On a terminal the confirmation of `new` (a private game's invite code) comes under the redraw that opens the
// game, and a redraw the opponent brings shows it again.
TEST_F(Shell, OnATerminalTheInviteCodeOfAPrivateGameMadeStaysUnderTheRedrawThatOpensIt) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  TerminalShell term;
  ASSERT_TRUE(term.start(command({"play"}), alice_.config));
  ASSERT_TRUE(term.wait_for("counterattack> ", 0)) << term.output();
  const size_t from = term.output().size();
  ASSERT_TRUE(term.write("new soviet private casual\r"));
  ASSERT_TRUE(term.wait_for(" (invite code ", from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(700));  // the rest, and the prompt
  const std::string clear = "\033[H\033[2J";
  const auto cleared = term.output().rfind(clear);
  ASSERT_NE(cleared, std::string::npos) << "the game is drawn: " << term.output().substr(from);
  const std::string screen = term.output().substr(cleared);
  const auto made = screen.find("Created game ");
  ASSERT_NE(made, std::string::npos) << "under the game drawn: " << screen;
  EXPECT_NE(screen.find(" (invite code ", made), std::string::npos) << screen;
  EXPECT_GT(made, screen.find("Not started: the game waits")) << "after the game: " << screen;
}

// A challenge alice accepts with `join` and another game's turn she answers by opening it leave the
// notice area: they would tell her to do what she has done. The same notice again is kept once.
TEST_F(Shell, OnATerminalNoticesOfAGameJoinedOrOpenedLeaveTheNoticeArea) {
  TerminalShell term;
  const auto [x, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(x.empty());
  const std::string clear = "\033[H\033[2J";
  // bob challenges alice: she joins from the shell.
  auto made = cli(bob_, {"--json", "new", "--side", "german", "--time", "2d", "--opponent", "alice"});
  ASSERT_EQ(made.code, 0) << made.out << made.err;
  const std::string y = json::parse(made.out).value("game_id", "");
  ASSERT_EQ(y.size(), 10u) << made.out;
  const std::string challenged = "bob challenges you: game " + y;
  ASSERT_TRUE(term.wait_for(challenged, from)) << term.output().substr(from);
  // A game of alice's that bob joins: her move in it, told while she has game x open.
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--time", "2d"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string z = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", z}).code, 0);
  const std::string turn = "Your move in game " + z + " (turn ";
  ASSERT_TRUE(term.wait_for(turn, from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(300));
  const std::string joined = term.screen_after("join " + y, "Joined game " + y);
  EXPECT_NE(joined.find("Joined game " + y + " as the soviet player."), std::string::npos) << "under the redraw: " << joined;
  EXPECT_EQ(joined.find(challenged), std::string::npos) << "the challenge accepted: " << joined;
  EXPECT_NE(joined.find(turn), std::string::npos) << "game " << z << "'s turn stays: " << joined;
  const std::string opened = term.screen_after("open " + z, clear);
  EXPECT_EQ(opened.find(turn), std::string::npos) << "game " << z << " opened: " << opened;
  EXPECT_EQ(opened.find(challenged), std::string::npos) << opened;
  const std::string again = term.screen_after("open " + x, clear);
  term.stop();
  EXPECT_EQ(again.find(turn), std::string::npos) << again;
  EXPECT_EQ(again.find(challenged), std::string::npos) << again;
}

// A rematch offer tells of two games, the finished one and the new one: joining or opening the new
// one by its id (`word`) answers the offer, and its notice leaves the area as when the finished game
// is opened.
void Shell::expect_the_rematch_offers_notice_to_leave_with_the_new_game(const std::string& word) {
  TerminalShell term;
  const auto [x, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(x.empty());
  const std::string clear = "\033[H\033[2J";
  ASSERT_EQ(cli(bob_, {"resign", x, "--yes"}).code, 0);
  ASSERT_TRUE(term.wait_for("The game is over. ", from)) << term.output().substr(from);
  const Result offered = cli(bob_, {"--json", "rematch", x});
  ASSERT_EQ(offered.code, 0) << offered.out << offered.err;
  const std::string y = json::parse(offered.out).value("game_id", "");
  ASSERT_EQ(y.size(), 10u) << offered.out;
  const std::string offer = "bob offers a rematch of game " + x + ": game " + y;
  ASSERT_TRUE(term.wait_for(offer, from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(300));
  const std::string shown = term.screen_after("show", clear);
  EXPECT_NE(shown.find(offer), std::string::npos) << "in the area until answered: " << shown;
  const std::string answered = term.screen_after(word + " " + y, word == "join" ? "Joined game " + y : clear);
  term.stop();
  if (word == "join") {
    EXPECT_NE(answered.find("Joined game " + y), std::string::npos) << "under the redraw: " << answered;
  } else {
    // Opened, not yet joined: the game itself says what the notice said.
    EXPECT_NE(answered.find("Not started: bob offers you this rematch of game " + x + ". `join " + y + "` accepts it."),
              std::string::npos)
        << answered;
  }
  EXPECT_EQ(answered.find(offer), std::string::npos) << "the new game " << word << "ed: " << answered;
}

TEST_F(Shell, OnATerminalARematchOffersNoticeLeavesTheNoticeAreaWhenTheNewGameIsJoined) {
  expect_the_rematch_offers_notice_to_leave_with_the_new_game("join");
}

TEST_F(Shell, OnATerminalARematchOffersNoticeLeavesTheNoticeAreaWhenTheNewGameIsOpened) {
  expect_the_rematch_offers_notice_to_leave_with_the_new_game("open");
}

// A draw offer's notice leaves the notice area once the player answers it (`answer`, told by `told`).
void Shell::expect_the_draw_offers_notice_to_leave_once_answered(const std::string& answer, const std::string& told) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(game.empty());
  const std::string clear = "\033[H\033[2J";
  ASSERT_EQ(cli(bob_, {"draw", game, "offer"}).code, 0);
  const std::string offer = "bob offers a draw.";
  ASSERT_TRUE(term.wait_for(offer, from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(300));
  const std::string offered = term.screen_after("show", clear);
  EXPECT_NE(offered.find(offer), std::string::npos) << "in the area until answered: " << offered;
  const size_t before = term.output().size();
  ASSERT_TRUE(term.write("draw " + answer + "\r"));
  ASSERT_TRUE(term.wait_for(told, before)) << term.output().substr(before);
  term.read_for(std::chrono::milliseconds(500));
  const std::string answered = term.screen_after("show", clear);
  term.stop();
  ASSERT_FALSE(answered.empty()) << term.output().substr(before);
  EXPECT_EQ(answered.find(offer), std::string::npos) << "answered: " << answered;
}

TEST_F(Shell, OnATerminalADrawOffersNoticeLeavesTheNoticeAreaOnceDeclined) {
  expect_the_draw_offers_notice_to_leave_once_answered("decline", "You declined the draw.");
}

TEST_F(Shell, OnATerminalADrawOffersNoticeLeavesTheNoticeAreaOnceAccepted) {
  expect_the_draw_offers_notice_to_leave_once_answered("accept", "You accepted the draw.");
}

// The connection lost, each try to reconnect is told as it comes; the notice area keeps the same line once.
TEST_F(Shell, OnATerminalTheSameReconnectingLineIsKeptOnceInTheNoticeArea) {
  TerminalShell term;
  const auto [game, from] = alice_at_the_prompt_in_a_new_game(term);
  ASSERT_FALSE(game.empty());
  // A chat line before the outage: the full view after it brings the kept chat again, shown once.
  ASSERT_TRUE(term.write("chat Hold the bridge\r"));
  ASSERT_TRUE(term.wait_for("alice: Hold the bridge", from)) << term.output().substr(from);
  term.read_for(std::chrono::milliseconds(300));
  server_.stop();
  size_t at = from;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(term.wait_for("Reconnecting (", at)) << term.output().substr(from);
    at = term.output().find("Reconnecting (", at) + 1;
  }
  // The tries' lines are the same once the server's refusals are.
  ASSERT_EQ(start_server(server_, data_, addr_), addr_) << "the same address again";
  ASSERT_TRUE(term.wait_for("Reconnected; at version ", at)) << term.output().substr(at);
  term.read_for(std::chrono::milliseconds(300));
  const size_t back = term.output().size();
  ASSERT_TRUE(term.write("show\r"));
  const std::string clear = "\033[H\033[2J";
  ASSERT_TRUE(term.wait_for(clear, back)) << term.output().substr(back);
  term.read_for(std::chrono::milliseconds(500));
  term.stop();
  const std::string screen = term.output().substr(term.output().rfind(clear));
  const auto first = screen.find("Reconnecting (");
  ASSERT_NE(first, std::string::npos) << screen;
  // Each distinct line once: the second try's line differs from the first's only when the reason does.
  const std::string line = screen.substr(first, screen.find('\n', first) - first);
  EXPECT_EQ(screen.find(line.substr(0, line.find(")...") + 4), first + 1), std::string::npos) << screen;
  EXPECT_NE(screen.find(" times)"), std::string::npos) << "how often it came: " << screen;
  const auto chat = screen.find("alice: Hold the bridge");
  ASSERT_NE(chat, std::string::npos) << screen;
  EXPECT_EQ(screen.find("alice: Hold the bridge", chat + 1), std::string::npos) << "shown once: " << screen;
  EXPECT_EQ(screen.substr(chat, screen.find('\n', chat) - chat).find("times)"), std::string::npos) << screen;
}

// Off a terminal nothing is repainted: a chat line is printed once, however the game changes after it.
TEST_F(Shell, OffATerminalAChatLineIsPrintedOnceThoughTheGameChangesAfterIt) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  bob_shell_.type("chat Not one step back");
  ASSERT_TRUE(alice_shell_.expect("[chat] bob: Not one step back"));
  alice_shell_.type("corps 3TC");
  ASSERT_TRUE(alice_shell_.expect("Accepted: corps 3TC (version 1)."));
  ASSERT_TRUE(bob_shell_.expect("3TC activates."));
  for (LiveShell* shell : {&alice_shell_, &bob_shell_}) {
    shell->type("games");
    ASSERT_TRUE(shell->expect("Your games:"));
    const std::string all = shell->output();
    EXPECT_EQ(all.find("[chat] bob: Not one step back"), all.rfind("[chat] bob: Not one step back")) << all;
  }
}

// The shell's hints name its own commands: `replay` of a game in play points to
// `open GAME`, then `log`; the game's end says `verify` checks every die, and
// `verify` audits the open game once it is over, not before.
TEST_F(Shell, TheShellsHintsNameItsOwnCommandsAndVerifyAuditsTheOpenGame) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  open(alice_shell_, alice_, game);
  alice_shell_.type("replay " + game);
  EXPECT_TRUE(alice_shell_.expect("a replay steps through a finished game. `open " + game +
                                  "`, then `log`, shows the log as you may read it now."));
  alice_shell_.type("verify");
  EXPECT_TRUE(alice_shell_.expect("Game " + game + " is not over: a game is verified once it is over"));
  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  EXPECT_TRUE(alice_shell_.expect("The game is over. Soviet victory: The German player resigned"));
  EXPECT_TRUE(alice_shell_.expect(". Dice seed: "));
  EXPECT_TRUE(alice_shell_.expect(" (`verify` checks every die)."));
  alice_shell_.type("verify");
  EXPECT_TRUE(alice_shell_.expect("Verified: "));
  alice_shell_.type("quit");
  EXPECT_EQ(alice_shell_.exit_code(), 0) << alice_shell_.output();
}

// `new soviet clock 15m+10s` makes a game with a clock, as `new --clock 15m+10s` does; a word
// `new` does not know is refused with the optional rules and the words it takes.
TEST_F(Shell, NewTakesTheClockAsAWordAndAnUnknownWordIsAnsweredWithTheWordsItKnows) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  open(alice_shell_, alice_);
  const std::string game = created(alice_shell_, "new soviet clock 15m+10s", "soviet");
  ASSERT_EQ(game.size(), 10u) << game;
  alice_shell_.type("new soviet clok 15m+10s");
  EXPECT_TRUE(alice_shell_.expect("Unknown optional rule 'clok' (known: limited_german_activation"));
  EXPECT_TRUE(alice_shell_.expect("new [soviet|german|random] [private] [casual] [time 3d|12h|90m | clock 15m+10s] [opponent NAME]"));
  alice_shell_.type("quit");
  EXPECT_EQ(alice_shell_.exit_code(), 0) << alice_shell_.output();
  const auto listed = cli(alice_, {"games"});
  EXPECT_NE(listed.out.find(game + "  open"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("clock 15m+10s"), std::string::npos) << listed.out;
}

TEST_F(Shell, AGameMadeInOneShellIsJoinedFromTheOther) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  open(alice_shell_, alice_);
  open(bob_shell_, bob_);
  alice_shell_.type("new soviet 2d");
  ASSERT_TRUE(alice_shell_.expect("Created game "));
  const std::string created =
      alice_shell_.printed_until(". Your opponent joins with: counterattack join ");
  const std::string game = created.substr(0, created.find_first_of(";."));
  ASSERT_EQ(game.size(), 10u) << created;
  EXPECT_EQ(created.find("; you play soviet. "), game.size()) << "the side, as the command line says it: " << created;
  // The new game is open in the creator's shell; orders wait for an opponent.
  EXPECT_TRUE(alice_shell_.expect("Not started: the game waits for a second player to join it"));
  alice_shell_.type("corps 3TC");
  EXPECT_TRUE(alice_shell_.expect(
      "Rejected: The game has not started: it waits for a second player. [CONFLICT]"));

  bob_shell_.type("join " + game);
  EXPECT_TRUE(bob_shell_.expect("Joined game " + game + " as the german player."));
  EXPECT_TRUE(bob_shell_.expect("Waiting for the Soviet player: "));
  // The creator, who watches the game and so gets no turn notice, is told it started.
  EXPECT_TRUE(
      alice_shell_.expect("bob joined game " + game + ": it has started, you play soviet."));
  alice_shell_.type("corps 3TC");
  EXPECT_TRUE(alice_shell_.expect("Accepted: corps 3TC (version 1)."));
  EXPECT_TRUE(bob_shell_.expect("3TC activates."));
}

TEST_F(Shell, AShellTellsOfAGameItDoesNotShowWhenTheDecisionPassesToYou) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  open(alice_shell_, alice_);
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--time", "2d"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", game}).code, 0);
  EXPECT_TRUE(alice_shell_.expect("bob joined your game " + game + ": it has started, you play soviet."));
  EXPECT_TRUE(alice_shell_.expect("Your move in game " + game + " (turn 1, Soviet, 2d per move"));
  EXPECT_TRUE(alice_shell_.expect("`open " + game + "` in the shell to answer."));
  alice_shell_.type("open " + game);
  EXPECT_TRUE(alice_shell_.expect("Your decision (Soviet): "));
}

// The shell with no game open is where notices of every game arrive: it waits
// out a restart of the server as a shell with a game open does, and goes on telling.
// The counter sheet and the charts need no game open: they are the scenario's.
TEST_F(Shell, ACountersValuesAndTheChartsAreShownWithNoGameOpen) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  open(alice_shell_, alice_);
  alice_shell_.type("unit 3tc/1818");
  EXPECT_TRUE(alice_shell_.expect("Class: armor"));
  alice_shell_.type("chart crt");
  EXPECT_TRUE(alice_shell_.expect("Combat Results Table (rule 9)"));
  alice_shell_.type("chart");
  EXPECT_TRUE(alice_shell_.expect("magnuszew  the Magnuszew track"));
  const Result one_shot = cli(alice_, {"chart", "calendar"});
  EXPECT_EQ(one_shot.code, 0) << one_shot.err;
  EXPECT_NE(one_shot.out.find("Reinforcements Calendar (rule 17)"), std::string::npos) << one_shot.out;
  const Result none = cli(alice_, {"unit", "9TC/1"});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("No unit '9TC/1' in the scenario."), std::string::npos) << none.err;
}

TEST_F(Shell, AShellWithNoGameOpenReconnectsAfterTheServerRestartsAndGoesOnTellingOfGames) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  open(alice_shell_, alice_);
  server_.stop();
  EXPECT_TRUE(alice_shell_.expect("Lost the connection"));
  EXPECT_TRUE(alice_shell_.expect("Reconnecting ("));
  ASSERT_EQ(start_server(server_, data_, addr_), addr_) << "the same address again";
  EXPECT_TRUE(alice_shell_.expect("Reconnected."));
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--time", "2d"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", game}).code, 0);
  EXPECT_TRUE(alice_shell_.expect("bob joined your game " + game + ": it has started, you play soviet."));
  alice_shell_.type("games");
  EXPECT_TRUE(alice_shell_.expect(game));
}

// --insecure accepts the certificate a shell first meets, not whichever one a
// server on the same address presents after the connection dropped.
TEST_F(Shell, AShellStartedInsecurelyReconnectsOnlyToTheCertificateItFirstAccepted) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  open(alice_shell_, alice_);
  server_.stop();
  EXPECT_TRUE(alice_shell_.expect("Lost the connection"));
  const std::string other_data = temp_dir("other");
  Background other;
  ASSERT_EQ(start_server(other, other_data, addr_), addr_) << other.output();
  EXPECT_TRUE(alice_shell_.expect("CERTIFICATE HAS CHANGED"));
  other.stop();
  ASSERT_EQ(start_server(server_, data_, addr_), addr_) << "the first server again";
  EXPECT_TRUE(alice_shell_.expect("Reconnected."));
  std::error_code ec;
  std::filesystem::remove_all(other_data, ec);
}

TEST_F(Shell, ARematchOfferedInOneShellIsAcceptedInTheOther) {
  const std::string game = both_in_a_game();
  ASSERT_FALSE(game.empty());
  alice_shell_.type("rematch");
  EXPECT_TRUE(alice_shell_.expect("A rematch follows a finished game; this one is not over."));
  bob_shell_.type("resign yes");
  ASSERT_TRUE(alice_shell_.expect("The game is over. Soviet victory"));
  alice_shell_.type("rematch");
  ASSERT_TRUE(alice_shell_.expect("Offered a rematch: game "));
  const std::string offered = alice_shell_.printed_until(", you play german");
  const std::string next = offered.substr(0, offered.find(','));
  ASSERT_EQ(next.size(), 10u) << offered;
  EXPECT_TRUE(bob_shell_.expect("alice offers a rematch of game " + game + ": game " + next +
                                ", rated, you would play soviet, 2d per move."));
  bob_shell_.type("rematch");
  ASSERT_TRUE(bob_shell_.expect("Rematch accepted: game " + next + " has started, you play soviet."));
  const std::string accepted = bob_shell_.printed_until("Your decision (Soviet): ");
  EXPECT_EQ(accepted.find("`open " + next + "`"), std::string::npos) << "the shell opened it already: " << accepted;
  // The shell now shows the rematch: no notice sends him to open what is open already.
  bob_shell_.type("decision");
  const std::string meanwhile = bob_shell_.printed_until("Your decision (Soviet): ");
  EXPECT_EQ(meanwhile.find("Your move in game " + next), std::string::npos) << meanwhile;
  // The offerer, who moves second, is told at once that it has started.
  EXPECT_TRUE(alice_shell_.expect("bob joined your game " + next + ": it has started, you play german."));
  alice_shell_.type("games");
  EXPECT_TRUE(alice_shell_.expect("  " + next + "  playing"));
}

TEST_F(Shell, AChallengeMadeInOneShellIsToldInTheOtherDeclinedAndThenAccepted) {
  ASSERT_FALSE(started_game("2d").empty());  // both registered
  open(alice_shell_, alice_);
  open(bob_shell_, bob_);
  const std::string id = challenge(alice_shell_, "new german 2d opponent bob", "bob");
  ASSERT_EQ(id.size(), 10u) << id;
  EXPECT_TRUE(bob_shell_.expect("alice challenges you: game " + id + ", rated, you would play soviet, 2d per move. `join " +
                                id + "` accepts it, `decline " + id + "` declines it"));
  bob_shell_.type("decline " + id);
  EXPECT_TRUE(bob_shell_.expect("Declined the challenge of game " + id + "."));
  EXPECT_TRUE(alice_shell_.expect("bob declined the challenge."));

  // Declined, bob is not challenged by alice again for a day; he may challenge her.
  alice_shell_.type("new soviet opponent bob");
  EXPECT_TRUE(alice_shell_.expect("bob declined your challenge less than a day ago: you may challenge them again from "));
  const std::string next = challenge(bob_shell_, "new german opponent alice", "alice");
  ASSERT_FALSE(next.empty());
  ASSERT_TRUE(alice_shell_.expect("bob challenges you: game " + next));
  alice_shell_.type("games");
  EXPECT_TRUE(alice_shell_.expect("challenge from bob: join " + next));
  alice_shell_.type("join " + next);
  EXPECT_TRUE(alice_shell_.expect("Joined game " + next + " as the soviet player."));
  EXPECT_TRUE(bob_shell_.expect("alice joined game " + next + ": it has started, you play german."));
}

// A challenge names every term to both players, the challenged one in the words
// his `games` uses; withdrawn with `resign yes`, its maker reads that it was
// withdrawn, not resigned, and the challenged player's shell says so.
TEST_F(Shell, AChallengeNamesEveryTermInBothShellsAndItsWithdrawalIsToldToTheChallengedPlayer) {
  ASSERT_FALSE(started_game("2d").empty());  // both registered
  open(alice_shell_, alice_);
  open(bob_shell_, bob_);
  const std::string id = challenge(alice_shell_, "new german private casual --clock 15m+10s limited_bonus opponent bob", "bob");
  ASSERT_EQ(id.size(), 10u) << id;
  EXPECT_TRUE(alice_shell_.expect(", private, casual, clock 15m+10s, options: limited_bonus. It waits for bob, who accepts with `join " +
                                  id + "`"))
      << "the maker sees the terms bob is offered";
  EXPECT_TRUE(bob_shell_.expect("alice challenges you: game " + id +
                                ", casual, private, you would play soviet, clock 15m+10s, options: limited_bonus. `join " + id +
                                "` accepts it"))
      << "bob is told every term, in the words his games uses";
  alice_shell_.type("resign yes");
  EXPECT_TRUE(alice_shell_.expect("You withdrew your challenge to bob (game " + id + ").")) << "withdrawn, not resigned";
  EXPECT_TRUE(bob_shell_.expect("The challenge from alice (game " + id + ") no longer waits for you: withdrawn by its maker."));
}

// A challenge its player has open in the shell, withdrawn, is told to them once, in
// the words of the withdrawal.
TEST_F(Shell, AChallengeOpenInTheChallengedPlayersShellIsToldWithdrawnOnce) {
  ASSERT_FALSE(started_game("2d").empty());  // both registered
  open(alice_shell_, alice_);
  open(bob_shell_, bob_);
  const std::string id = challenge(alice_shell_, "new german opponent bob", "bob");
  ASSERT_EQ(id.size(), 10u) << id;
  ASSERT_TRUE(bob_shell_.expect("alice challenges you: game " + id));
  bob_shell_.type("open " + id);
  ASSERT_TRUE(bob_shell_.expect("Not started"));
  alice_shell_.type("resign yes");
  ASSERT_TRUE(alice_shell_.expect("You withdrew your challenge to bob (game " + id + ")."));
  const std::string told = bob_shell_.printed_until("no longer waits for you: withdrawn by its maker.");
  EXPECT_NE(told.find("The game is over. Cancelled: The challenge from alice (game " + id + ") no longer waits for you"),
            std::string::npos)
      << told;
  bob_shell_.type("games");  // anything more said of it comes before the list
  const std::string after = bob_shell_.printed_until("Your games:");
  EXPECT_EQ(after.find("no longer waits"), std::string::npos) << "told once: " << after;
  EXPECT_EQ(after.find("The game is over"), std::string::npos) << "told once: " << after;
  EXPECT_EQ((told + after).find("The game was withdrawn before anyone joined"), std::string::npos)
      << "in the withdrawal's words: " << told << after;
}

// `resign yes` on a game of one's own that nobody has joined withdraws it, and says so.
TEST_F(Shell, ResignYesOnAGameNobodyJoinedSaysItWasWithdrawn) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  open(alice_shell_, alice_);
  const std::string game = created(alice_shell_, "new soviet", "soviet");
  ASSERT_EQ(game.size(), 10u) << game;
  alice_shell_.type("resign yes");
  EXPECT_TRUE(alice_shell_.expect("You withdrew game " + game + ": no one had joined it."));
}

// The operator's words reach a suspended player's shell, whether or not a game is open in it.
TEST_F(Shell, ASuspendedPlayersShellShowsTheOperatorsReason) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  open(alice_shell_, alice_);
  const Result suspended = run({server_bin(), "--data-dir", data_, "--suspend", "alice", "--reason", "Abusive chat in game " + game + "."}, {}, "");
  ASSERT_EQ(suspended.code, 0) << suspended.out << suspended.err;
  EXPECT_TRUE(alice_shell_.expect("Abusive chat in game " + game + "."));
}

// The shell on a terminal, as a player has it: a running game clock ticks in
// the prompt, which is rewritten in place with what is typed so far, and each
// command leaves an empty line for the next.
TEST_F(Shell, OnATerminalTheClockTicksInThePromptAndTypingStaysWhole) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  const auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--clock", "15m+10s"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", game}).code, 0);

  TerminalShell term;
  ASSERT_TRUE(term.start(command({"play", game}), alice_.config));
  const std::string& out = term.output();
  auto type_slowly = [&](const std::string& text) {  // a key at a time, across the clock's ticks
    for (char ch : text) {
      ASSERT_TRUE(term.write(std::string(1, ch)));
      term.read_for(std::chrono::milliseconds(350));
    }
    ASSERT_TRUE(term.write("\r"));
  };
  ASSERT_TRUE(term.wait_for(" (you) [S ", 0)) << out;
  const size_t typed_from = out.size();
  type_slowly("decision");
  ASSERT_TRUE(term.wait_for("Your decision (Soviet):", typed_from)) << "the typed command ran whole: " << out.substr(typed_from);
  const size_t next_from = out.size();
  type_slowly("units");
  ASSERT_TRUE(term.wait_for("3TC/50 at S3", next_from)) << out.substr(next_from);
  term.read_for(std::chrono::milliseconds(1200));  // a tick after the command
  ASSERT_TRUE(term.write("quit\r"));
  term.read_for(std::chrono::milliseconds(500));
  term.stop();

  const std::string typed = out.substr(typed_from);
  // Each redraw starts the line afresh: no line of the terminal holds two prompts.
  std::string line;
  int redraws = 0;
  for (char ch : typed + "\n") {
    if (ch != '\r' && ch != '\n') {
      line += ch;
      continue;
    }
    const auto first = line.find("(you) [S ");
    EXPECT_TRUE(first == std::string::npos || line.find("(you) [S ", first + 1) == std::string::npos) << "two prompts: " << line;
    redraws += first != std::string::npos;
    line.clear();
  }
  EXPECT_GE(redraws, 3) << "the clock ticked while the player typed";
  EXPECT_NE(typed.find("> decisi"), std::string::npos) << "the typed text is redrawn with the prompt";
  EXPECT_EQ(out.substr(next_from).find("> decision"), std::string::npos)
      << "a command taken is not shown again on the next line: " << out.substr(next_from);
}

}  // namespace
}  // namespace counterattack::cli
