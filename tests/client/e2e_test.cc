// A whole game between two players, each a `counterattack` process with its
// own config directory, against a real `counterattackd` on 127.0.0.1:0.
// Skipped when the server has not been built.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "config.h"
#include "harness.h"
#include "render.h"
#include "notation.h"

namespace counterattack::cli {
namespace {

using namespace cli::testing;
namespace fs = std::filesystem;

TEST_F(TwoPlayers, PlayAWholeGameToTheEnd) {
  // Accounts: passwords on standard input, sessions in separate config directories.
  for (const Player* p : {&alice_, &bob_}) {
    auto r = cli(*p, {"register", p->name}, "password-of-" + p->name + "\n");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Registered and logged in as " + p->name), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(p->config + "/counterattack/config.json"));
  }
  {
    auto again = cli(bob_, {"login", "bob"}, "password-of-bob\n");
    ASSERT_EQ(again.code, 0) << again.err;
    auto wrong = cli(bob_, {"login", "bob"}, "not-the-password\n");
    EXPECT_NE(wrong.code, 0);
    // A failed login keeps the session that works.
    auto games = cli(bob_, {"games"});
    EXPECT_EQ(games.code, 0) << games.err;
  }

  auto created = cli(alice_, {"new", "--side", "soviet", "--json"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).at("game_id");
  ASSERT_FALSE(game.empty());
  {
    auto open = cli(bob_, {"games", "--json"});
    ASSERT_EQ(open.code, 0) << open.err;
    bool listed = false;
    const json list = json::parse(open.out);
    for (const auto& g : list.at("open")) listed |= g.value("game_id", "") == game;
    EXPECT_TRUE(listed) << game << " not in " << open.out;
  }
  auto joined = cli(bob_, {"join", game});
  ASSERT_EQ(joined.code, 0) << joined.err;

  // Bob's second window follows the game live.
  Background watcher;
  const std::string watch_log = bob_.config + "/watch.log";
  watcher.start({CA_CLIENT_BIN, "--server", url(), "--insecure", "--json", "watch", game},
                env(bob_), watch_log);

  // A text view and a parse error, as a player sees them.
  {
    auto shown = cli(alice_, {"show", game, "--at", "2021"});
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_NE(shown.out.find("Turn 1/10"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("2021"), std::string::npos) << shown.out;
    auto bad = cli(alice_, {"order", game, "move", "3TC/50"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("Expected a hex"), std::string::npos) << bad.err;
    // The rules' refusal exits 3; an order that never reaches them (no such game) fails as any command does.
    EXPECT_EQ(cli(bob_, {"order", game, "done"}).code, 3) << "not bob's decision";
    EXPECT_EQ(cli(alice_, {"order", "nosuchgame", "done"}).code, 1);
    auto typo = cli(alice_, {"shw", game});
    EXPECT_EQ(typo.code, 2);
    EXPECT_NE(typo.err.find("Did you mean `counterattack show`?"), std::string::npos) << typo.err;
    auto help = cli(alice_, {"help"});
    EXPECT_EQ(help.code, 0) << help.err;
    EXPECT_NE(help.out.find("Subcommands:"), std::string::npos) << help.out;
  }

  // A draw offered and declined; play goes on.
  {
    auto offered = cli(alice_, {"draw", game, "offer"});
    EXPECT_EQ(offered.code, 0) << offered.err;
    EXPECT_NE(offered.out.find("You offered a draw"), std::string::npos) << offered.out;
    auto own = cli(alice_, {"draw", game, "accept"});
    EXPECT_NE(own.code, 0);
    EXPECT_NE(own.err.find("No draw is offered to you"), std::string::npos) << own.err;
    auto declined = cli(bob_, {"draw", game, "decline"});
    EXPECT_EQ(declined.code, 0) << declined.err;
    EXPECT_NE(declined.out.find("You declined the draw"), std::string::npos) << declined.out;
    auto again = cli(bob_, {"draw", game, "accept"});
    EXPECT_NE(again.code, 0);
    auto nonsense = cli(bob_, {"draw", game, "maybe"});
    EXPECT_EQ(nonsense.code, 2);
  }

  int accepted = 0, moves = 0, rejected_moves = 0, shell_orders = 0, own_hidden = 0;
  bool restarted = false, game_over = false, taken_back = false;
  std::string last_decision;
  for (int step = 0; step < 4000 && !game_over; ++step) {
    json v = view_of(alice_, game);
    ASSERT_TRUE(v.contains("decision")) << v.dump();
    const std::string kind = v["decision"].value("kind", "");
    if (kind == "GAME_OVER") {
      game_over = true;
      break;
    }
    Player& me = v["decision"].value("side", "") == "SOVIET" ? alice_ : bob_;
    if (&me == &bob_) v = view_of(bob_, game);
    const auto cand = candidates(v);
    const int count = v["decision"].value("count", 0);
    const std::string my_side = &me == &alice_ ? "SOVIET" : "GERMAN";

    std::vector<std::string> order;
    if ((kind == "MOVEMENT" || kind == "RESERVES") && moves < 6 && rejected_moves < 60) {
      bool moved = false;
      for (const auto& t : move_tries(v, my_side)) {
        auto w = cli::split_words(t);
        std::vector<std::string> args = {"order", game};
        args.insert(args.end(), w.begin(), w.end());
        auto r = cli(me, args);
        if (r.code == 0) {
          ++moves;
          ++accepted;
          moved = true;
          EXPECT_NE(r.out.find("accepted (version"), std::string::npos) << r.out;
          const int kept = view_of(me, game)["decision"].value("takebacks", 0);
          if (!taken_back && kept > 0) {
            // Taken back, and the same move given again.
            taken_back = true;
            auto undo = cli(me, {"order", game, "undo"});
            ASSERT_EQ(undo.code, 0) << undo.out << undo.err;
            EXPECT_EQ(view_of(me, game)["decision"].value("takebacks", 0), kept - 1);
            auto again = cli(me, args);
            ASSERT_EQ(again.code, 0) << t << ": " << again.out << again.err;
            accepted += 2;
          }
          break;
        }
        ASSERT_EQ(r.code, 3) << t << ": " << r.out << r.err;
        EXPECT_NE(r.out.find("rejected: "), std::string::npos) << r.out;
        if (++rejected_moves >= 60) break;
      }
      if (moved) continue;
    }

    std::string line;
    if (kind == "CHOOSE_CORPS") {
      ASSERT_FALSE(cand.empty()) << v.dump();
      line = "corps " + cand.front();
    } else if (kind == "BREAK_CONTACT") {
      line = "stand";
    } else if (kind == "UPRISING_STEP_LOSS" || kind == "UPRISING_UNITS_MOVED") {
      line = "choose";
      for (int i = 0; i < count && i < static_cast<int>(cand.size()); ++i)
        line += " " + cand[static_cast<size_t>(i)];
    } else if (kind == "MAGNUSZEW") {
      // Send what the track asks for: add candidates one by one, dropping those it refuses.
      std::vector<std::string> chosen;
      bool done = false;
      for (const auto& c : cand) {
        std::vector<std::string> args = {"order", game, "choose"};
        args.insert(args.end(), chosen.begin(), chosen.end());
        args.push_back(c);
        auto r = cli(me, args);
        if (r.code == 0) {
          done = true;
          ++accepted;
          break;
        }
        if (r.out.find("mandatory") != std::string::npos) chosen.push_back(c);
      }
      ASSERT_TRUE(done) << "no Magnuszew answer was accepted: " << v["decision"].dump();
      continue;
    } else if (kind == "DEFENSIVE_SUPPORT") {
      line = "nosupport";
    } else if (kind == "MODEL_REROLL") {
      line = "model noreroll";  // as README and `order --help` write it
    } else if (kind == "BARRAGE_LOSS" && !cand.empty()) {
      line = "choose " + cand.front();
    } else if (kind == "ADVANCE") {
      line = "advance";
    } else if (kind == "ATTACKER_LOSSES" || kind == "DEFENDER_LOSSES") {
      line = "losses";
      for (int i = 0; i < std::max(count, 1) && i < static_cast<int>(cand.size()); ++i)
        line += " " + cand[static_cast<size_t>(i)];
    } else {
      line = "done";
    }

    // Now and then the order goes through the interactive shell instead.
    if (line == "done" && step % 25 == 7) {
      auto r = cli(me, {"play", game}, "decision\ndone\nquit\n");
      ASSERT_EQ(r.code, 0) << r.err;
      ASSERT_NE(r.out.find("Accepted: done"), std::string::npos) << r.out << r.err;
      ++accepted;
      ++shell_orders;
      continue;
    }
    auto w = cli::split_words(line);
    std::vector<std::string> args = {"order", game};
    args.insert(args.end(), w.begin(), w.end());
    args.push_back("--json");
    auto r = cli(me, args);
    ASSERT_EQ(r.code, 0) << me.name << " " << line << " at " << v["decision"].dump() << ":\n"
                         << r.out << r.err;
    const json answer = json::parse(r.out);
    EXPECT_TRUE(answer.value("accepted", false)) << r.out;
    // What the order did, as the player's view reads it: never the other side's hidden forms.
    for (const auto& e : answer.value("events", json::array())) {
      const std::string audience = e.value("audience", "AUDIENCE_ALL");
      EXPECT_NE(audience, &me == &alice_ ? "AUDIENCE_GERMAN" : "AUDIENCE_SOVIET") << e.dump();
      EXPECT_NE(audience, &me == &alice_ ? "AUDIENCE_ALL_BUT_SOVIET" : "AUDIENCE_ALL_BUT_GERMAN") << e.dump();
      own_hidden += audience == (&me == &alice_ ? "AUDIENCE_SOVIET" : "AUDIENCE_GERMAN") ? 1 : 0;
    }
    ++accepted;

    // Halfway, the server stops and starts again on the same port: the watcher must resume by
    // itself.
    if (!restarted && accepted >= 150) {
      restarted = true;
      server_.stop(SIGTERM);
      const std::string again = start_server(server_, data_, addr_);
      ASSERT_EQ(again, addr_) << server_.output();
    }
  }
  ASSERT_TRUE(game_over) << "the game did not end";
  std::cout << "orders accepted: " << accepted << ", moves: " << moves << " (" << rejected_moves
            << " tried and rejected), through the shell: " << shell_orders
            << ", server restarted: " << restarted << std::endl;
  EXPECT_GE(moves, 3) << "too few real moves were accepted";
  EXPECT_TRUE(taken_back) << "no move could be taken back";
  EXPECT_GE(shell_orders, 1);
  EXPECT_GT(own_hidden, 0) << "no order printed an event only its player reads (an event chit drawn, a step lost)";

  // The end, as each player sees it.
  auto final_text = cli(alice_, {"show", game});
  EXPECT_NE(final_text.out.find("The game is over"), std::string::npos) << final_text.out;
  auto late = cli(bob_, {"order", game, "done"});
  EXPECT_EQ(late.code, 1) << "refused before the rules, the game being over: " << late.out << late.err;
  EXPECT_NE(late.out.find("The game is over."), std::string::npos) << late.out;

  // The watcher ends with the game, and its view (deltas applied one by one,
  // across a server restart) is the server's: now, after the end, the whole
  // board, of which bob's own stacks, the header and the decision are as bob saw them.
  ASSERT_EQ(watcher.wait(60), 0) << watcher.output().substr(0, 4000);
  const std::string wout = watcher.output();
  const auto last = wout.rfind("{\"final_version\"");
  ASSERT_NE(last, std::string::npos) << wout.substr(wout.size() > 4000 ? wout.size() - 4000 : 0);
  const json fin = json::parse(wout.substr(last, wout.find('\n', last) - last));
  const json now = view_of(bob_, game);
  EXPECT_EQ(now.at("viewer"), "VIEWER_OMNISCIENT") << "after the end the players see everything";
  const json& seen = fin.at("final_view");
  EXPECT_EQ(seen.at("header"), now.at("header"));
  EXPECT_EQ(seen.at("decision"), now.at("decision"));
  auto own = [](const json& view) {
    json out = json::array();
    for (const auto& st : view.at("stacks")) {
      if (st.at("side") == "GERMAN") out.push_back(st);
    }
    return out;
  };
  EXPECT_EQ(own(seen), own(now));
  if (restarted) {
    EXPECT_NE(wout.find("resumed at version"), std::string::npos);
  }

  // The log, with the seed revealed and the omniscient view.
  auto exported = cli(alice_, {"export", game});
  ASSERT_EQ(exported.code, 0) << exported.err;
  const json log = json::parse(exported.out);
  EXPECT_FALSE(log.value("seed_hex", "").empty()) << exported.out.substr(0, 2000);
  EXPECT_TRUE(log.contains("omniscient"));
  EXPECT_EQ(static_cast<int>(log.value("orders", json::array()).size()), accepted);

  // Every die of the whole game, across the server's restart, is the seed's.
  auto verified = cli(bob_, {"verify", game});
  EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("Verified: " + std::to_string(accepted) + " orders, "), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("the seed matches the commitment published at the start"), std::string::npos) << verified.out;
}

// A game resigned after some orders is audited by the client: the seed against
// its commitment, every order replayed with its events and dice. In play the
// log is closed, and both commands say so.
TEST_F(TwoPlayers, AResignedGameIsVerifiedEveryOrderAndDieReplayed) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  int accepted = 0;
  for (int step = 0; step < 60; ++step) {
    const json v = view_of(alice_, game);
    const std::string kind = v["decision"].value("kind", "");
    const Player& me = v["decision"].value("side", "") == "SOVIET" ? alice_ : bob_;
    const auto cand = candidates(me.name == "alice" ? v : view_of(bob_, game));
    std::vector<std::string> args = {"order", game};
    if (kind == "CHOOSE_CORPS" && !cand.empty()) {
      args.insert(args.end(), {"corps", cand.front()});
    } else if (kind == "BREAK_CONTACT") {
      args.push_back("stand");
    } else if (kind == "DEFENSIVE_SUPPORT") {
      args.push_back("nosupport");
    } else if (kind == "MODEL_REROLL") {
      args.push_back("noreroll");
    } else {
      args.push_back("done");
    }
    if (cli(me, args).code != 0) break;  // a decision this walk does not answer: enough orders
    ++accepted;
  }
  ASSERT_GE(accepted, 10);

  // In play the log, the seed and the full view are closed: each command says what to do instead.
  auto early = cli(alice_, {"verify", game});
  EXPECT_EQ(early.code, 1) << early.out;
  EXPECT_NE(early.err.find("is under way: a game is verified once it is over"), std::string::npos) << early.err;
  auto early_export = cli(alice_, {"export", game});
  EXPECT_EQ(early_export.code, 1) << early_export.out;
  EXPECT_NE(early_export.err.find("--log 0` shows the log as you may read it now"), std::string::npos) << early_export.err;
  auto help = cli(alice_, {"export", "--help"});
  EXPECT_NE(help.out.find("Once a game is over"), std::string::npos) << help.out;

  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  auto verified = cli(alice_, {"verify", game});
  EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("Verified: " + std::to_string(accepted) + " orders, "), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("revision 6 (ChaCha20 dice)"), std::string::npos) << verified.out;
  std::cout << verified.out;

  // Anyone may audit a public game, with no account on the server.
  Player carol{"carol", temp_dir("carol"), ""};
  auto by_anyone = cli(carol, {"verify", game, "--json"});
  ASSERT_EQ(by_anyone.code, 0) << by_anyone.out << by_anyone.err;
  const json j = json::parse(by_anyone.out);
  EXPECT_TRUE(j.value("verified", false)) << by_anyone.out;
  EXPECT_EQ(j.value("orders", 0), accepted);
  EXPECT_TRUE(j.value("seed_matches_commitment", false));
  std::error_code ec;
  fs::remove_all(carol.config, ec);
}

// A view comes with the last few events of the log; `show --log 0` asks the
// server for all of them, as this player's view reads them.
TEST_F(TwoPlayers, ShowWithLogZeroShowsTheWholeLogNotOnlyTheRecentEvents) {
  Background small;
  const std::string data = temp_dir("recent");
  {
    std::ofstream(data + "/counterattackd.conf") << "recent_events = 3\n";
  }
  const std::string addr = start_server(small, data, "127.0.0.1:0", {"--config", data + "/counterattackd.conf"});
  ASSERT_FALSE(addr.empty()) << small.output();
  auto as = [&](const Player& p, std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {CA_CLIENT_BIN, "--server", "wss://" + addr, "--insecure"});
    return run(args, env(p), input);
  };
  ASSERT_EQ(as(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(as(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto created = as(alice_, {"--json", "new", "--side", "soviet"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(as(bob_, {"join", game}).code, 0);
  ASSERT_EQ(as(alice_, {"order", game, "corps", "3TC"}).code, 0);
  ASSERT_EQ(as(alice_, {"order", game, "done"}).code, 0);
  const auto whole = as(alice_, {"show", game, "--log", "0"});
  EXPECT_EQ(whole.code, 0) << whole.err;
  EXPECT_NE(whole.out.find("3TC activates."), std::string::npos) << whole.out;
  // The setup's draws, long out of the recent events: the Soviet's own by name, to the German unnamed.
  const std::regex drawn("You draw the event ([^.]+)\\.");
  std::vector<std::string> soviet_chits;
  for (std::sregex_iterator it(whole.out.begin(), whole.out.end(), drawn), end; it != end; ++it) soviet_chits.push_back((*it)[1]);
  EXPECT_FALSE(soviet_chits.empty()) << whole.out;
  const auto german = as(bob_, {"show", game, "--log", "0"});
  EXPECT_NE(german.out.find("Soviet draws an event chit."), std::string::npos) << german.out;
  for (const auto& chit : soviet_chits) EXPECT_EQ(german.out.find(chit), std::string::npos) << chit << " in:\n" << german.out;
  small.stop();
  std::error_code ec;
  fs::remove_all(data, ec);
}

// A server put back to a backup has its games at an earlier version than a
// watcher has seen: the watcher takes the game as it now is, and follows on.
TEST_F(TwoPlayers, AWatcherFollowsOnAfterTheServerIsRestoredFromABackup) {
  const std::string game = started_game("1d");
  ASSERT_FALSE(game.empty());
  const std::string backup = data_ + "/before.db";
  ASSERT_EQ(run({server_bin(), "--data-dir", data_, "--backup", backup}, {}, "").code, 0);
  Background watcher;
  watcher.start({CA_CLIENT_BIN, "--server", url(), "--insecure", "--json", "watch", game}, env(bob_),
                bob_.config + "/watch.log");
  // Two orders after the backup, each by whoever decides.
  auto play_one = [&] {
    const bool soviet = view_of(alice_, game)["decision"].value("side", "") != "GERMAN";
    const Player& p = soviet ? alice_ : bob_;
    const json v = view_of(p, game);
    const auto cand = candidates(v);
    std::vector<std::string> order{"order", game, "done"};
    if (v["decision"].value("kind", "") == "CHOOSE_CORPS" && !cand.empty()) order = {"order", game, "corps", cand.front()};
    auto r = cli(p, order);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
  };
  play_one();
  play_one();
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (watcher.output().find("\"to_version\":\"2\"") == std::string::npos && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  server_.stop(SIGTERM);
  auto restored = run({server_bin(), "--data-dir", data_, "--restore", backup}, {}, "");
  ASSERT_EQ(restored.code, 0) << restored.err;
  ASSERT_EQ(start_server(server_, data_, addr_), addr_) << server_.output();
  until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (watcher.output().find("back at an earlier version") == std::string::npos && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(watcher.output().find("back at an earlier version"), std::string::npos) << watcher.output().substr(0, 4000);
  EXPECT_EQ(watcher.output().find("CONFLICT"), std::string::npos) << watcher.output().substr(0, 4000);
  // And follows the game on from there.
  const auto before = watcher.output().size();
  play_one();
  until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (watcher.output().find("\"delta\"", before) == std::string::npos && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(watcher.output().find("\"delta\"", before), std::string::npos) << watcher.output().substr(before);
  watcher.stop();
}

// `games --playing` offers anyone `counterattack watch GAME`: it works without an account, the
// board drawn and redrawn as the game moves; only writing in the spectators' chat needs one.
TEST_F(TwoPlayers, APublicGameInPlayIsWatchedWithoutAnAccount) {
  const std::string game = started_game("1d");
  ASSERT_FALSE(game.empty());
  const Player carol{"carol", temp_dir("carol"), ""};  // never registered
  const auto listed = cli(carol, {"games", "--playing"});
  ASSERT_NE(listed.out.find("watch: counterattack watch " + game), std::string::npos) << listed.out << listed.err;

  Background watcher;
  watcher.start(command({"watch", game}), env(carol), carol.config + "/watch.log");
  auto wait_for = [&](const std::string& text, std::size_t from) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (watcher.output().find(text, from) == std::string::npos && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return watcher.output().find(text, from) != std::string::npos;
  };
  ASSERT_TRUE(wait_for("Waiting for", 0)) << watcher.output();
  EXPECT_EQ(watcher.output().find("not logged in"), std::string::npos) << watcher.output();
  const std::string first = watcher.output();
  EXPECT_NE(first.find("Soviet"), std::string::npos) << first;

  // The Soviet player activates a corps: the watcher's board is drawn again with it.
  const json v = view_of(alice_, game);
  ASSERT_EQ(v["decision"].value("kind", ""), "CHOOSE_CORPS") << v.dump();
  const auto cand = candidates(v);
  ASSERT_FALSE(cand.empty());
  ASSERT_EQ(cli(alice_, {"order", game, "corps", cand.front()}).code, 0);
  EXPECT_TRUE(wait_for("Waiting for", first.size())) << watcher.output().substr(first.size());
  EXPECT_NE(watcher.output().find(cand.front(), first.size()), std::string::npos) << watcher.output().substr(first.size());
  watcher.stop();

  const auto chat = cli(carol, {"chat", "--spectators", game, "hello"});
  EXPECT_EQ(chat.code, 1);
  EXPECT_NE(chat.err.find("Writing in a game's chat, the spectators' channel too, needs an account"), std::string::npos)
      << chat.err;
  std::error_code ec;
  std::filesystem::remove_all(carol.config, ec);
}

// The email command against a server without a mail server: it shows what is
// set, says plainly that nothing can be mailed, and explains its own words.
// A server started with --plain (loopback only) is reached with a ws:// URL; the
// client never sends a password over plain WebSocket to another machine.
TEST_F(TwoPlayers, APlainServerOnLoopbackIsPlayedOverWsUrls) {
  Background plain;
  const std::string data = temp_dir("plain");
  const std::string addr = start_server(plain, data, "127.0.0.1:0", {"--plain"});
  ASSERT_FALSE(addr.empty()) << plain.output();
  const std::string url = "ws://" + addr;
  auto as = [&](const Player& p, std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {CA_CLIENT_BIN, "--server", url});
    return run(args, env(p), input);
  };
  auto reg = as(alice_, {"register", "alice"}, "password-of-alice\n");
  EXPECT_EQ(reg.code, 0) << reg.err;
  EXPECT_NE(reg.out.find("on " + url), std::string::npos) << reg.out;
  EXPECT_EQ(as(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto created = as(alice_, {"--json", "new", "--side", "soviet"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  EXPECT_EQ(as(bob_, {"join", game}).code, 0);
  auto shown = as(bob_, {"show", game, "--json"});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("\"decision\""), std::string::npos);
  // Remembered as this server: later commands need no --server.
  auto games = run({CA_CLIENT_BIN, "games"}, env(alice_), "");
  EXPECT_EQ(games.code, 0) << games.err;
  EXPECT_NE(games.out.find(game), std::string::npos) << games.out;

  auto remote = run({CA_CLIENT_BIN, "--server", "ws://192.0.2.7:8080", "games"}, env(alice_), "");
  EXPECT_EQ(remote.code, 2);
  EXPECT_NE(remote.err.find("Plain ws:// is for a server on this machine only"), std::string::npos) << remote.err;
  plain.stop();
  std::error_code ec;
  fs::remove_all(data, ec);
}

// Trust on first use, as SSH's known_hosts: --insecure once remembers the
// server's certificate; a different one on the same host and port is refused.
TEST_F(TwoPlayers, ACertificateAcceptedOnceWithInsecureIsTrustedAfterAndAChangedOneIsRefused) {
  const std::string config = alice_.config + "/counterattack/config.json";
  auto as = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {CA_CLIENT_BIN, "--server", url()});
    return run(args, env(alice_), "");
  };
  auto file = [&] {
    std::ifstream in(config);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto remembered = [&] {
    const std::string text = file();
    return text.empty() ? json::object() : json::parse(text).value("pins", json::object());
  };

  // A stranger's self-signed certificate is refused, and nothing is remembered.
  auto stranger = as({"ratings"});
  EXPECT_EQ(stranger.code, 1);
  EXPECT_NE(stranger.err.find("is not trusted"), std::string::npos) << stranger.err;
  EXPECT_NE(stranger.err.find("--insecure once"), std::string::npos) << stranger.err;
  EXPECT_TRUE(remembered().empty()) << file();

  auto probe = as({"--json", "fingerprint"});
  ASSERT_EQ(probe.code, 0) << probe.err;
  const std::string first = json::parse(probe.out).value("sha256", "");
  ASSERT_EQ(first.size(), 64u);
  EXPECT_TRUE(remembered().empty()) << "the fingerprint command remembers nothing: " << file();
  // Its words suggest a command that works before a login, pinning the certificate.
  auto told = as({"fingerprint"});
  ASSERT_EQ(told.code, 0) << told.err;
  const std::string suggested = "counterattack --server " + url() + " --pin " + first + " ratings (or register NAME, or login NAME)";
  EXPECT_NE(told.out.find(suggested), std::string::npos) << told.out;
  EXPECT_EQ(told.out.find(" games"), std::string::npos) << "games needs a login: " << told.out;
  EXPECT_TRUE(remembered().empty()) << file();

  auto once = as({"--insecure", "ratings"});
  ASSERT_EQ(once.code, 0) << once.err;
  EXPECT_NE(once.err.find("Remembered the certificate of " + url() + ", SHA-256 " + display_fingerprint(first)),
            std::string::npos)
      << once.err;
  EXPECT_EQ(remembered(), (json{{url(), first}})) << file();

  auto after = as({"ratings"});
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_TRUE(after.err.empty()) << after.err;
  auto registered = run({CA_CLIENT_BIN, "--server", url(), "register", "alice"}, env(alice_), "password-of-alice\n");
  EXPECT_EQ(registered.code, 0) << registered.err;

  // Another server, with a certificate of its own, on the same host and port.
  server_.stop();
  const std::string other_data = temp_dir("other");
  Background other;
  ASSERT_EQ(start_server(other, other_data, addr_), addr_) << other.output();
  const std::string stored = file();
  auto changed = as({"ratings"});
  EXPECT_EQ(changed.code, 1);
  for (const std::string& said : {std::string("CERTIFICATE HAS CHANGED"), display_fingerprint(first), std::string("man-in-the-middle"),
                                  std::string("--insecure"), "counterattack --server " + url() + " forget-certificate"}) {
    EXPECT_NE(changed.err.find(said), std::string::npos) << said << " not in: " << changed.err;
  }
  auto games = as({"games"});
  EXPECT_EQ(games.code, 1);
  EXPECT_NE(games.err.find("CERTIFICATE HAS CHANGED"), std::string::npos) << games.err;
  EXPECT_EQ(file(), stored) << "a refused certificate changes nothing stored";

  auto second_probe = as({"--json", "fingerprint"});
  ASSERT_EQ(second_probe.code, 0) << second_probe.err;
  const std::string second = json::parse(second_probe.out).value("sha256", "");
  ASSERT_NE(second, first);
  EXPECT_NE(changed.err.find(display_fingerprint(second)), std::string::npos) << changed.err;
  EXPECT_EQ(file(), stored);

  // Forgotten, the new one is a stranger again; --insecure once takes it.
  auto forget = as({"forget-certificate"});
  ASSERT_EQ(forget.code, 0) << forget.err;
  EXPECT_NE(forget.out.find("Forgot the certificate remembered for " + url()), std::string::npos) << forget.out;
  EXPECT_TRUE(remembered().empty()) << file();
  auto unknown = as({"ratings"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("is not trusted"), std::string::npos) << unknown.err;
  // (alice's session was the first server's: she registers on this one.)
  auto accepted = run({CA_CLIENT_BIN, "--server", url(), "--insecure", "register", "alice"}, env(alice_), "password-of-alice\n");
  ASSERT_EQ(accepted.code, 0) << accepted.err;
  EXPECT_EQ(remembered(), (json{{url(), second}})) << file();
  auto trusted = as({"games"});
  EXPECT_EQ(trusted.code, 0) << trusted.err;

  other.stop();
  std::error_code ec;
  fs::remove_all(other_data, ec);
}

// Two clients of one player at once: a login on another server that has read the config
// and waits for its password, while a one-shot command here remembers this server's
// certificate and session. The login's save keeps them: both servers are reached after
// without --insecure, logged in.
TEST_F(TwoPlayers, TwoClientsOfOnePlayerKeepEachOthersCertificatesAndSessions) {
  const std::string config = alice_.config + "/counterattack/config.json";
  fs::create_directories(alice_.config + "/counterattack");
  const std::string other_data = temp_dir("other");
  Background other;
  const std::string other_addr = start_server(other, other_data, "127.0.0.1:0");
  ASSERT_FALSE(other_addr.empty()) << other.output();
  const std::string other_url = "wss://" + other_addr;

  // The config is first a pipe, so that the test knows when the login has read it (empty).
  ASSERT_EQ(::mkfifo(config.c_str(), 0600), 0);
  Background login;
  login.start({CA_CLIENT_BIN, "--server", other_url, "--insecure", "register", "alice"}, env(alice_),
              alice_.config + "/login.log", true);
  int fifo = -1;
  for (int i = 0; i < 600 && fifo < 0; ++i) {  // ENXIO until the login opens it to read
    fifo = ::open(config.c_str(), O_WRONLY | O_NONBLOCK);
    if (fifo < 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(fifo, 0) << "the login never read its config: " << login.output();
  ::close(fifo);
  ASSERT_EQ(::unlink(config.c_str()), 0);

  auto here = cli(alice_, {"register", "alice"}, "password-of-alice\n");
  ASSERT_EQ(here.code, 0) << here.err;
  ASSERT_TRUE(login.send("password-of-alice\n"));
  login.close_input();
  ASSERT_EQ(login.wait(60), 0) << login.output();

  std::ifstream in(config);
  std::stringstream text;
  text << in.rdbuf();
  const json stored = json::parse(text.str());
  EXPECT_EQ(stored.value("pins", json::object()).size(), 2u) << text.str();
  EXPECT_EQ(stored.value("sessions", json::object()).size(), 2u) << text.str();
  for (const std::string& server : {url(), other_url}) {
    auto games = run({CA_CLIENT_BIN, "--server", server, "games"}, env(alice_), "");
    EXPECT_EQ(games.code, 0) << server << ": " << games.err;
  }
  other.stop();
  std::error_code ec;
  fs::remove_all(other_data, ec);
}

// With mail but no address yet, a choice of turn mail is kept: it is said to wait for a
// confirmed address when made, and `email` shows it.
TEST_F(TwoPlayers, TurnMailChosenBeforeAnAddressIsShownAndSaidToWaitForOne) {
  server_.stop();
  const std::string settings = data_ + "/mail.conf";
  { std::ofstream(settings) << "smtp_url = smtp://127.0.0.1:9\n"; }  // nothing there: mail waits in the outbox
  ASSERT_EQ(start_server(server_, data_, addr_, {"--config", settings}), addr_) << server_.output();
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);

  auto chosen = cli(alice_, {"email", "--turns", "digest", "--digest-hours", "12"});
  ASSERT_EQ(chosen.code, 0) << chosen.err;
  EXPECT_NE(chosen.out.find("Stored; it applies once an address is confirmed. Turn notices: a digest, at most one every 12 hours."),
            std::string::npos)
      << chosen.out;
  auto shown = cli(alice_, {"email"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("No e-mail address: `counterattack email ADDRESS` sets one for turn notices while you are away. Turn notices, once "
                           "it is confirmed: a digest, at most one every 12 hours."),
            std::string::npos)
      << shown.out;
  auto set = cli(alice_, {"email", "alice@example.org"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_NE(set.out.find("A code was mailed to alice@example.org just now: `counterattack email confirm CODE` confirms it within an "
                         "hour. Turn notices, once it is confirmed: a digest, at most one every 12 hours."),
            std::string::npos)
      << set.out;
  // Asked later, the code is not said to come again; an interval alone implies the digest.
  auto later = cli(alice_, {"email", "--digest-hours", "5"});
  ASSERT_EQ(later.code, 0) << later.err;
  EXPECT_NE(later.out.find("Turn notices: a digest, at most one every 5 hours. alice@example.org is not confirmed yet: the code mailed "
                           "to it when it was set confirms it (`counterattack email confirm CODE`, for an hour after); `counterattack "
                           "email alice@example.org` again mails a new one."),
            std::string::npos)
      << later.out;
}

TEST_F(TwoPlayers, TheEmailCommandSaysWhatTheServerCanDo) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  auto shown = cli(alice_, {"email"});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("This server sends no e-mail"), std::string::npos) << shown.out;
  auto as_json = cli(alice_, {"--json", "email"});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out).value("mail_enabled", true), false) << as_json.out;
  auto set = cli(alice_, {"email", "alice@example.org"});
  EXPECT_EQ(set.code, 1) << set.out;
  EXPECT_NE((set.out + set.err).find("This server sends no e-mail."), std::string::npos) << set.out << set.err;
  auto bad = cli(alice_, {"email", "confirm"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE((bad.out + bad.err).find("email confirm CODE"), std::string::npos) << bad.out << bad.err;
  auto digest = cli(alice_, {"email", "--turns", "digest", "--digest-hours", "12"});
  EXPECT_EQ(digest.code, 1) << digest.out;
  EXPECT_NE((digest.out + digest.err).find("This server sends no e-mail."), std::string::npos) << digest.out << digest.err;
  // An interval alone implies the digest: asked of the server, which sends no mail.
  auto alone = cli(alice_, {"email", "--digest-hours", "12"});
  EXPECT_EQ(alone.code, 1) << alone.out;
  EXPECT_NE((alone.out + alone.err).find("This server sends no e-mail."), std::string::npos) << alone.out << alone.err;
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"email", "--turns", "weekly"}, {"email", "--turns", "off", "--digest-hours", "12"}}) {
    auto refused = cli(alice_, words);
    EXPECT_EQ(refused.code, 2) << words.back() << ": " << refused.out << refused.err;
    EXPECT_NE((refused.out + refused.err).find("--turns"), std::string::npos) << refused.out << refused.err;
  }
}

// The password command: a change (old, then new, from standard input), after
// which only the new one logs in; a reset needs mail, which this server has not.
TEST_F(TwoPlayers, APasswordIsChangedFromTheCommandLine) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  auto wrong = cli(alice_, {"password"}, "not-her-password\nnew-password-1\n");
  EXPECT_EQ(wrong.code, 1);
  EXPECT_NE((wrong.out + wrong.err).find("The old password is wrong."), std::string::npos) << wrong.out << wrong.err;
  auto changed = cli(alice_, {"password"}, "password-of-alice\nnew-password-1\n");
  ASSERT_EQ(changed.code, 0) << changed.err;
  EXPECT_NE(changed.out.find("Password changed"), std::string::npos) << changed.out;
  EXPECT_EQ(cli(alice_, {"games"}).code, 0) << "this session goes on";
  EXPECT_EQ(cli(alice_, {"login", "alice"}, "password-of-alice\n").code, 1);
  EXPECT_EQ(cli(alice_, {"login", "alice"}, "new-password-1\n").code, 0);
  auto forgot = cli(bob_, {"password", "--forgot", "alice"});
  EXPECT_EQ(forgot.code, 1);
  EXPECT_NE((forgot.out + forgot.err).find("This server sends no e-mail: ask its operator for a new password."),
            std::string::npos)
      << forgot.out << forgot.err;
  EXPECT_EQ(cli(bob_, {"password", "--reset", "alice"}, "x\n").code, 2) << "the code is missing";
}

// Vacation from the command line: alice goes away for five days, which her
// opponent's list of games shows, and comes back early.
TEST_F(TwoPlayers, AVacationHoldsTheClocksAndShowsInTheOpponentsList) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(HasFailure());

  auto shown = cli(alice_, {"vacation"});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("Not on vacation; 30 of 30 vacation days left (in any 365 days)."), std::string::npos)
      << shown.out;
  auto away = cli(alice_, {"vacation", "start", "5"});
  ASSERT_EQ(away.code, 0) << away.err;
  EXPECT_NE(away.out.find("On vacation until "), std::string::npos) << away.out;
  EXPECT_NE(away.out.find("from now): your clocks in games with a time per move stand still. 25 of 30"), std::string::npos)
      << away.out;
  auto as_json = cli(alice_, {"--json", "vacation"});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  const auto until = std::stoll(json::parse(as_json.out).value("until_unix", std::string("0")));
  ASSERT_GT(until, 0) << as_json.out;
  const std::time_t t = static_cast<std::time_t>(until);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char day[16];
  std::strftime(day, sizeof day, "%Y-%m-%d", &tm);
  auto games = cli(bob_, {"games"});
  EXPECT_NE(games.out.find("alice (1500?, on vacation until " + std::string(day) + ")"), std::string::npos)
      << games.out;
  // alice decides: her time per move is shown held, its time left running past her return.
  EXPECT_NE(games.out.find("3d per move, held while alice is on vacation until " + std::string(day) + ": "), std::string::npos)
      << games.out;
  EXPECT_NE(games.out.find(" left (the vacation included)"), std::string::npos) << games.out;

  EXPECT_EQ(cli(alice_, {"vacation", "start", "5"}).code, 1) << "already away";
  EXPECT_EQ(cli(alice_, {"vacation", "soon"}).code, 2);
  auto back = cli(alice_, {"vacation", "end"});
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_NE(back.out.find("Not on vacation; 29 of 30"), std::string::npos) << back.out;
  const std::string after = cli(bob_, {"games"}).out;
  EXPECT_EQ(after.find("on vacation"), std::string::npos) << after;
  EXPECT_EQ(after.find("held while"), std::string::npos) << after;
}

TEST_F(TwoPlayers, AGameClockIsTypedOnTheCommandLineAndBothClocksShowInTheGamesList) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  EXPECT_EQ(cli(alice_, {"new", "--clock", "soon"}).code, 2);
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--clock", "15m+10s"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string game = json::parse(created.out).value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", game}).code, 0);
  auto games = cli(bob_, {"games"});
  ASSERT_EQ(games.code, 0) << games.err;
  EXPECT_NE(games.out.find("clock 15m+10s: Soviet 1"), std::string::npos) << games.out;
  EXPECT_NE(games.out.find(" (running)"), std::string::npos) << "one clock runs: " << games.out;
  EXPECT_TRUE(games.out.find("German 15:00") != std::string::npos || games.out.find("Soviet 15:00") != std::string::npos)
      << "the other has all its time: " << games.out;
  auto shown = cli(alice_, {"show", game});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("Time: clock 15m+10s: Soviet "), std::string::npos) << shown.out;
  // A vacation does not hold a game clock: with both players away, the list says the running one runs on.
  ASSERT_EQ(cli(alice_, {"vacation", "start", "1"}).code, 0);
  ASSERT_EQ(cli(bob_, {"vacation", "start", "1"}).code, 0);
  const auto away = cli(bob_, {"games"});
  ASSERT_EQ(away.code, 0) << away.err;
  const std::regex runs_on(" \\(running: a game clock is not held while (alice|bob) is on vacation\\)");
  EXPECT_TRUE(std::regex_search(away.out, runs_on)) << away.out;
  EXPECT_EQ(away.out.find("per move, held while"), std::string::npos) << "no time per move to hold: " << away.out;
}

// A player looking for a game reads the open games a page at a time, told how
// to get the next, and narrows them down with the filters.
TEST_F(TwoPlayers, OpenGamesAreListedAPageAtATimeAndFilteredFromTheCommandLine) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  std::vector<std::string> made;
  for (const std::vector<std::string>& terms : std::vector<std::vector<std::string>>{
           {"--casual"}, {"--time", "3d"}, {"--clock", "15m+10s"}}) {
    std::vector<std::string> args = {"--json", "new"};
    args.insert(args.end(), terms.begin(), terms.end());
    const auto created = cli(alice_, args);
    ASSERT_EQ(created.code, 0) << created.err;
    made.push_back(json::parse(created.out).value("game_id", ""));
  }
  const auto first = cli(bob_, {"games", "--open", "--per-page", "2"});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("Open games (--per-page 2), page 1:"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find(made[2]), std::string::npos) << "newest first: " << first.out;
  EXPECT_NE(first.out.find(made[1]), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find(made[0]), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("More: counterattack games --open --per-page 2 --after " + made[1] + "\n"), std::string::npos) << first.out;
  // The More line's command goes on after the page's last game, whatever was made meanwhile.
  const auto after = cli(bob_, {"games", "--open", "--per-page", "2", "--after", made[1]});
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_NE(after.out.find("Open games (--per-page 2), after " + made[1] + ":"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find(made[0]), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find(made[1]), after.out.find("after " + made[1]) + 6) << "only in the heading: " << after.out;
  const auto second = cli(bob_, {"games", "--open", "--per-page", "2", "--page", "2"});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find(made[0]), std::string::npos) << second.out;
  EXPECT_EQ(second.out.find("More:"), std::string::npos) << "the last page: " << second.out;
  const auto past = cli(bob_, {"games", "--open", "--per-page", "2", "--page", "3"});
  EXPECT_EQ(past.code, 1);
  EXPECT_NE(past.err.find("There are 2 pages of open games, not 3."), std::string::npos) << past.err;
  const auto paged = json::parse(cli(bob_, {"--json", "games", "--open", "--per-page", "2"}).out);
  EXPECT_EQ(paged.value("next_page", 0), 2) << paged.dump();
  EXPECT_EQ(paged.value("next_after", ""), made[1]) << paged.dump();
  // As the text, the open games alone: no list of the caller's own games, as if they had none.
  EXPECT_FALSE(paged.contains("mine")) << paged.dump();
  ASSERT_EQ(paged.value("open", json::array()).size(), 2u) << paged.dump();
  EXPECT_EQ(paged["open"][0].value("game_id", ""), made[2]) << paged.dump();
  const auto everything = json::parse(cli(alice_, {"--json", "games"}).out);
  EXPECT_EQ(everything.value("mine", json::array()).size(), 3u) << "without --open, both: " << everything.dump();

  const auto casual = cli(bob_, {"games", "--open", "--casual"});
  ASSERT_EQ(casual.code, 0) << casual.err;
  EXPECT_NE(casual.out.find(made[0]), std::string::npos) << casual.out;
  EXPECT_EQ(casual.out.find(made[1]), std::string::npos) << casual.out;
  const auto clocked = cli(bob_, {"games", "--open", "--timing", "clock", "--max-rating", "1500"});
  ASSERT_EQ(clocked.code, 0) << clocked.err;
  EXPECT_NE(clocked.out.find(made[2]), std::string::npos) << clocked.out;
  EXPECT_EQ(clocked.out.find(made[1]), std::string::npos) << clocked.out;
  const auto strong = cli(bob_, {"games", "--open", "--min-rating", "1600"});
  ASSERT_EQ(strong.code, 0) << strong.err;
  EXPECT_NE(strong.out.find("  none such (counterattack new"), std::string::npos) << strong.out;

  EXPECT_EQ(cli(bob_, {"games", "--open", "--timing", "blitz"}).code, 2);
  const auto upside_down = cli(bob_, {"games", "--open", "--min-rating", "1600", "--max-rating", "1400"});
  EXPECT_EQ(upside_down.code, 1);
  EXPECT_NE(upside_down.err.find("The least rating asked for (1600) is above the most (1400)."), std::string::npos)
      << upside_down.err;
}

// Someone looking for a game to watch lists the public games in play and the
// finished ones, each with the command that watches or replays it, without an
// account; a private game is never among them.
TEST_F(TwoPlayers, GamesInPlayAndFinishedAreListedWithTheCommandThatWatchesOrReplaysThem) {
  const std::string playing = started_game("2d");
  ASSERT_FALSE(HasFailure());
  const std::vector<std::string> ended = resigned_games(2);
  ASSERT_FALSE(HasFailure());
  const auto hidden = json::parse(cli(alice_, {"--json", "new", "--side", "soviet", "--private"}).out);
  const std::string secret = hidden.value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", secret, "--invite", hidden.value("invite_code", "")}).code, 0);
  const Player stranger{"carol", temp_dir("carol"), ""};

  const auto in_play = cli(stranger, {"games", "--playing"});
  ASSERT_EQ(in_play.code, 0) << in_play.err;
  EXPECT_NE(in_play.out.find("Games in play:\n  " + playing + "  Soviet: alice (1500?)  German: bob (1500?)  counterattack  "),
            std::string::npos)
      << in_play.out;
  EXPECT_NE(in_play.out.find("  watch: counterattack watch " + playing + "\n"), std::string::npos) << in_play.out;
  EXPECT_EQ(in_play.out.find(secret), std::string::npos) << "private: " << in_play.out;
  EXPECT_EQ(in_play.out.find(ended[0]), std::string::npos) << in_play.out;

  const auto first = cli(stranger, {"games", "--finished", "--player", "bob", "--per-page", "1"});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("Finished games, newest ended first (--player bob --per-page 1), page 1:\n  " + ended[1] +
                           "  Soviet: alice  German: bob  counterattack  Soviet victory (The German player resigned.), turn 1, version 0"),
            std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("  replay: counterattack replay " + ended[1] + "\n"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("More: counterattack games --finished --player bob --per-page 1 --after " + ended[1] + "\n"), std::string::npos)
      << first.out;
  const auto second = json::parse(cli(stranger, {"--json", "games", "--finished", "--per-page", "1", "--page", "2"}).out);
  ASSERT_EQ(second.value("finished", json::array()).size(), 1u) << second.dump();
  EXPECT_EQ(second["finished"][0].value("game_id", ""), ended[0]) << second.dump();
  EXPECT_TRUE(second["next_page"].is_null()) << second.dump();
  // What it names replays it, for anyone.
  EXPECT_EQ(cli(stranger, {"--json", "replay", ended[0], "--at", "0"}).code, 0);

  // The open games too, public ones alone: joining one is what takes an account.
  const auto waiting = json::parse(cli(alice_, {"--json", "new", "--side", "german"}).out).value("game_id", "");
  const auto kept = json::parse(cli(alice_, {"--json", "new", "--side", "german", "--private"}).out).value("game_id", "");
  ASSERT_FALSE(waiting.empty());
  ASSERT_FALSE(kept.empty());
  const auto open = cli(stranger, {"games", "--open"});
  ASSERT_EQ(open.code, 0) << open.err;
  EXPECT_NE(open.out.find("Open games:\n  " + waiting), std::string::npos) << open.out;
  EXPECT_EQ(open.out.find(kept), std::string::npos) << "private: " << open.out;
  EXPECT_NE(open.out.find("To join one, have an account: counterattack register NAME (or login NAME).\n"), std::string::npos)
      << open.out;
  EXPECT_EQ(cli(alice_, {"games", "--open"}).out.find("To join one"), std::string::npos) << "alice has one";
  const auto refused = cli(stranger, {"games"});
  EXPECT_EQ(refused.code, 1) << "their own games need a login";
  EXPECT_NE(refused.err.find("You are not logged in"), std::string::npos) << refused.err;

  const auto nobody = cli(stranger, {"games", "--playing", "--player", "nobody"});
  EXPECT_EQ(nobody.code, 1);
  EXPECT_NE(nobody.err.find("There is no player 'nobody'."), std::string::npos) << nobody.err;
  EXPECT_EQ(cli(stranger, {"games", "--finished", "--min-rating", "1400"}).code, 2) << "open games' bounds";
  EXPECT_EQ(cli(stranger, {"games", "--finished", "--playing"}).code, 2);
  const auto past = cli(stranger, {"games", "--finished", "--per-page", "1", "--page", "3"});
  EXPECT_EQ(past.code, 1);
  EXPECT_NE(past.err.find("There are 2 pages of finished games, not 3."), std::string::npos) << past.err;
  std::error_code ec;
  std::filesystem::remove_all(stranger.config, ec);
}

// Looking a player up: `games --player NAME` alone lists their public games of
// every kind, open, in play and finished, without an account, and never a private
// game or a challenge nobody accepted; the finished ones a page at a time.
TEST_F(TwoPlayers, GamesWithOnlyAPlayerListsTheirPublicGamesOpenInPlayAndFinished) {
  const std::string playing = started_game("2d");
  ASSERT_FALSE(HasFailure());
  const std::vector<std::string> ended = resigned_games(2);
  ASSERT_FALSE(HasFailure());
  const std::string open = json::parse(cli(alice_, {"--json", "new", "--side", "german"}).out).value("game_id", "");
  const auto hidden = json::parse(cli(alice_, {"--json", "new", "--side", "soviet", "--private"}).out);
  const std::string secret = hidden.value("game_id", "");
  ASSERT_EQ(cli(bob_, {"join", secret, "--invite", hidden.value("invite_code", "")}).code, 0);
  const std::string hidden_open = json::parse(cli(alice_, {"--json", "new", "--private"}).out).value("game_id", "");
  const std::string challenge = json::parse(cli(alice_, {"--json", "new", "--opponent", "bob"}).out).value("game_id", "");
  ASSERT_FALSE(open.empty() || secret.empty() || hidden_open.empty() || challenge.empty());
  const Player stranger{"carol", temp_dir("carol"), ""};

  const auto all = cli(stranger, {"games", "--player", "alice"});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(all.out.rfind("Open games of alice:\n  " + open + "  open  Soviet: (open)  German: alice", 0), 0u) << all.out;
  EXPECT_NE(all.out.find("Games in play of alice:\n  " + playing + "  Soviet: alice (1500?)  German: bob (1500?)"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("Finished games of alice, newest ended first:\n  " + ended[1] + "  Soviet: alice  German: bob"
                         "  counterattack  Soviet victory (The German player resigned.), turn 1, version 0"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("  replay: counterattack replay " + ended[0] + "\n"), std::string::npos) << all.out;
  for (const auto& id : {secret, hidden_open, challenge}) EXPECT_EQ(all.out.find(id), std::string::npos) << id << ": " << all.out;
  EXPECT_EQ(all.out.find("Your games"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("More:"), std::string::npos) << all.out;
  const auto bobs = cli(alice_, {"games", "--player", "bob"});
  ASSERT_EQ(bobs.code, 0) << bobs.err;
  EXPECT_EQ(bobs.out.rfind("Open games of bob:\n  none\nGames in play of bob:\n  " + playing, 0), 0u)
      << "his games alone, not hers: " << bobs.out;

  // The finished ones a page at a time, the rest by the More line's command.
  const auto first = cli(stranger, {"games", "--player", "alice", "--per-page", "1"});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("Finished games of alice (--per-page 1), newest ended first:\n  " + ended[1]), std::string::npos)
      << first.out;
  EXPECT_EQ(first.out.find(ended[0]), std::string::npos) << first.out;
  const std::string more = "More: counterattack games --finished --player alice --per-page 1 --after " + ended[1] + "\n";
  EXPECT_NE(first.out.find(more), std::string::npos) << first.out;
  const auto rest = cli(stranger, {"games", "--finished", "--player", "alice", "--per-page", "1", "--after", ended[1]});
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_NE(rest.out.find("  " + ended[0] + "  Soviet: alice"), std::string::npos) << rest.out;

  const auto j = json::parse(cli(stranger, {"--json", "games", "--player", "alice", "--per-page", "1"}).out);
  EXPECT_EQ(j.value("player", ""), "alice") << j.dump();
  for (const auto& [key, id] : {std::pair<std::string, std::string>{"open", open}, {"playing", playing}, {"finished", ended[1]}}) {
    ASSERT_EQ(j.value(key, json::array()).size(), 1u) << key << ": " << j.dump();
    EXPECT_EQ(j[key][0].value("game_id", ""), id) << j.dump();
  }
  EXPECT_EQ(j["finished"][0].value("turn", 0), 1) << j.dump();
  EXPECT_EQ(j.value("finished_next_after", ""), ended[1]) << j.dump();
  EXPECT_TRUE(j["open_next_after"].is_null()) << j.dump();
  EXPECT_TRUE(j["playing_next_after"].is_null()) << j.dump();

  EXPECT_EQ(cli(stranger, {"games", "--player", "alice", "--min-rating", "1400"}).code, 2) << "open games' bounds";
  EXPECT_EQ(cli(stranger, {"games", "--player", "alice", "--page", "2"}).code, 2) << "a page of which list";
  const auto nobody = cli(stranger, {"games", "--player", "nobody"});
  EXPECT_EQ(nobody.code, 1);
  EXPECT_NE(nobody.err.find("There is no player 'nobody'."), std::string::npos) << nobody.err;
  // Without --player, your games as before.
  EXPECT_NE(cli(alice_, {"games"}).out.find("Your games:\n"), std::string::npos);
  std::error_code ec;
  std::filesystem::remove_all(stranger.config, ec);
}

TEST_F(TwoPlayers, ARematchIsOfferedAcceptedWithdrawnAndDeclinedFromTheCommandLine) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(cli(alice_, {"rematch", game}).code, 1) << "not over yet";
  // A game no one has joined is withdrawn, and said so.
  const auto waiting = cli(alice_, {"--json", "new"});
  ASSERT_EQ(waiting.code, 0) << waiting.err;
  const std::string unjoined = json::parse(waiting.out).value("game_id", "");
  const auto withdrawn = cli(alice_, {"resign", unjoined, "--yes"});
  EXPECT_NE(withdrawn.out.find("You withdrew game " + unjoined + ": no one had joined it."), std::string::npos) << withdrawn.out;
  // Scripts are told a withdrawal from a resignation too.
  const auto another = cli(alice_, {"--json", "new"});
  ASSERT_EQ(another.code, 0) << another.err;
  const std::string unjoined_too = json::parse(another.out).value("game_id", "");
  const auto withdrawn_json = cli(alice_, {"--json", "resign", unjoined_too, "--yes"});
  ASSERT_EQ(withdrawn_json.code, 0) << withdrawn_json.err;
  EXPECT_EQ(json::parse(withdrawn_json.out), json({{"withdrawn", true}, {"game_id", unjoined_too}})) << withdrawn_json.out;
  // Chat from the command line, read by the one who plays day by day with `show`.
  const auto said = cli(alice_, {"chat", game, "good", "luck"});
  EXPECT_NE(said.out.find("Sent to the players' chat of game " + game), std::string::npos) << said.out << said.err;
  EXPECT_NE(cli(bob_, {"show", game}).out.find("[chat] alice: good luck"), std::string::npos);
  const auto resigned = cli(bob_, {"--json", "resign", game});
  ASSERT_EQ(resigned.code, 0) << resigned.err;
  EXPECT_EQ(json::parse(resigned.out), json({{"resigned", true}})) << resigned.out;
  // A resignation adds no order: the game is shown over all the same, not waiting for a move.
  const auto over = cli(alice_, {"show", game});
  EXPECT_NE(over.out.find("The game is over. Soviet victory: The German player resigned."), std::string::npos)
      << "why, for the player who was away: " << over.out;
  EXPECT_EQ(over.out.find("Waiting for the"), std::string::npos) << over.out;
  EXPECT_NE(cli(alice_, {"show", game, "--json"}).out.find("GAME_OVER"), std::string::npos);
  const auto last = cli(alice_, {"show", game, "--log", "1"});
  EXPECT_NE(last.out.find(" earlier events: --log 0 shows all)"), std::string::npos) << "not the shell's `log`: " << last.out;
  const auto negative = cli(alice_, {"show", game, "--log", "-1"});
  EXPECT_EQ(negative.code, 2) << "a count of events is never negative: " << negative.out;

  auto offered = cli(alice_, {"rematch", game});
  ASSERT_EQ(offered.code, 0) << offered.err;
  EXPECT_NE(offered.out.find("Offered a rematch: game "), std::string::npos) << offered.out;
  EXPECT_NE(offered.out.find("you play german, 2d per move. It waits for bob"), std::string::npos) << offered.out;
  auto listed = cli(bob_, {"games"});
  EXPECT_NE(listed.out.find("rematch of " + game + ", kept for bob"), std::string::npos) << listed.out;
  auto accepted = cli(bob_, {"rematch", game});
  ASSERT_EQ(accepted.code, 0) << accepted.err;
  EXPECT_NE(accepted.out.find("Rematch accepted: game "), std::string::npos) << accepted.out;
  EXPECT_NE(accepted.out.find("has started, you play soviet"), std::string::npos) << accepted.out;

  // The rematch of the rematch, declined.
  const auto from = accepted.out.find("Rematch accepted: game ") + std::string("Rematch accepted: game ").size();
  const std::string second = accepted.out.substr(from, accepted.out.find(' ', from) - from);
  ASSERT_EQ(cli(alice_, {"resign", second, "--yes"}).code, 0);
  // Withdrawn by its maker, who reads whom it waited for; then offered again.
  const auto offer = cli(bob_, {"rematch", second});
  ASSERT_EQ(offer.code, 0) << offer.err;
  const auto offer_at = offer.out.find("Offered a rematch: game ");
  ASSERT_NE(offer_at, std::string::npos) << offer.out;
  const auto offer_from = offer_at + std::string("Offered a rematch: game ").size();
  const std::string third = offer.out.substr(offer_from, offer.out.find(',', offer_from) - offer_from);
  const auto withdrawn_offer = cli(bob_, {"resign", third, "--yes"});
  ASSERT_EQ(withdrawn_offer.code, 0) << withdrawn_offer.err;
  EXPECT_NE(withdrawn_offer.out.find("You withdrew your rematch offer to alice (game " + third + ")."), std::string::npos)
      << withdrawn_offer.out;
  // Scripts read whom it waited for and the game it follows.
  const auto offered_again = cli(bob_, {"--json", "rematch", second});
  ASSERT_EQ(offered_again.code, 0) << offered_again.err;
  const std::string fourth = json::parse(offered_again.out).value("game_id", "");
  ASSERT_FALSE(fourth.empty()) << offered_again.out;
  const auto withdrawn_offer_json = cli(bob_, {"--json", "resign", fourth, "--yes"});
  ASSERT_EQ(withdrawn_offer_json.code, 0) << withdrawn_offer_json.err;
  EXPECT_EQ(json::parse(withdrawn_offer_json.out),
            json({{"withdrawn", true}, {"game_id", fourth}, {"reserved_for", "alice"}, {"rematch_of", second}}))
      << withdrawn_offer_json.out;
  ASSERT_EQ(cli(bob_, {"rematch", second}).code, 0);
  auto declined = cli(alice_, {"rematch", second, "--decline"});
  ASSERT_EQ(declined.code, 0) << declined.err;
  EXPECT_NE(declined.out.find("Declined the rematch of game " + second + "."), std::string::npos) << declined.out;
  auto again = cli(alice_, {"rematch", second});
  EXPECT_EQ(again.code, 1) << "a declined rematch is final";
  EXPECT_NE(again.err.find("was declined"), std::string::npos) << again.err;
}

TEST_F(TwoPlayers, AChallengeIsMadeShownAndDeclinedFromTheCommandLine) {
  ASSERT_FALSE(started_game("2d").empty());  // both registered
  const auto self = cli(alice_, {"new", "--opponent", "alice"});
  EXPECT_EQ(self.code, 1);
  EXPECT_NE(self.err.find("You cannot challenge yourself."), std::string::npos) << self.err;

  const auto made = cli(alice_, {"new", "--opponent", "bob", "--side", "german", "--time", "2d", "--casual"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string id = made.out.substr(0, made.out.find('\n'));
  ASSERT_EQ(id.size(), 10u) << made.out;
  EXPECT_NE(made.err.find("Challenged bob: game " + id + ", you play german, casual, 2d per move. It waits for bob, who accepts "
                          "with `counterattack join " + id + "` or declines with `counterattack decline " + id + "`"),
            std::string::npos)
      << made.err;
  const auto his = cli(bob_, {"games"});
  EXPECT_NE(his.out.find("challenge from alice: counterattack join " + id + " to accept it, or decline it with counterattack decline " + id),
            std::string::npos)
      << his.out;
  const auto open = cli(bob_, {"games", "--open"});
  EXPECT_EQ(open.out.find(id), std::string::npos) << "not among the open games: " << open.out;
  EXPECT_NE(cli(alice_, {"games"}).out.find(id + "  open"), std::string::npos);
  EXPECT_NE(cli(alice_, {"games"}).out.find("challenge to bob"), std::string::npos);

  const auto declined = cli(bob_, {"decline", id});
  ASSERT_EQ(declined.code, 0) << declined.err;
  EXPECT_NE(declined.out.find("Declined the challenge of game " + id + "."), std::string::npos) << declined.out;
  EXPECT_NE(cli(alice_, {"games"}).out.find("Declined (bob declined the challenge.)"), std::string::npos);
  EXPECT_EQ(cli(bob_, {"join", id}).code, 1) << "declined for good";
}

// HG/II-1 arrives in Warsaw on turn 1: `move HG/II-1 WARSAW 1225` names where it stands. The
// rules refuse it by the off-map chart ("no route from WARSAW to WARSAW"); the command line adds
// what they say for a hex, and the shell says it without sending the order.
TEST_F(TwoPlayers, APathNamingWarsawWhereItsUnitsStandIsToldThatAPathListsTheLocationsEntered) {
  const std::string game = started_game("1d");
  ASSERT_FALSE(game.empty());
  json v;
  for (int step = 0; step < 12; ++step) {
    v = view_of(alice_, game);
    const std::string kind = v["decision"].value("kind", "");
    if (v["decision"].value("side", "") == "GERMAN") break;
    const auto cand = candidates(v);
    std::vector<std::string> args = {"order", game, "done"};
    if (kind == "CHOOSE_CORPS" && !cand.empty()) args = {"order", game, "corps", cand.front()};
    ASSERT_EQ(cli(alice_, args).code, 0) << kind;
  }
  v = view_of(bob_, game);
  ASSERT_EQ(v["decision"].value("kind", ""), "MOVEMENT") << v["decision"].dump();
  bool in_warsaw = false;
  for (const auto& st : v.value("stacks", json::array())) {
    for (const auto& u : st.value("units", json::array())) in_warsaw |= st.value("location", "") == "WARSAW" && u.value("id", "") == "HG/II-1";
  }
  ASSERT_TRUE(in_warsaw) << v.dump();

  const std::string hint = "WARSAW is named where the units already are: a path lists only the locations entered.";
  const auto sent = cli(bob_, {"order", game, "move", "HG/II-1", "WARSAW", "1225"});
  EXPECT_EQ(sent.code, 3) << sent.out << sent.err;
  EXPECT_NE(sent.out.find("rejected: The off-map movement chart has no route from WARSAW to WARSAW (rule 6). " + hint),
            std::string::npos)
      << sent.out;
  const auto as_json = json::parse(cli(bob_, {"--json", "order", game, "move", "HG/II-1", "WARSAW", "1225"}).out);
  EXPECT_EQ(as_json.value("hint", ""), hint) << as_json.dump();
  const auto shell = cli(bob_, {"play", game}, "move HG/II-1 WARSAW 1225\nquit\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  EXPECT_NE(shell.out.find(hint + " (not sent)"), std::string::npos) << shell.out;
  EXPECT_EQ(shell.out.find("Rejected:"), std::string::npos) << shell.out;
  EXPECT_EQ(view_of(bob_, game).value("header", json::object()).dump(), v.value("header", json::object()).dump())
      << "nothing changed";
}

// A newcomer's slips on the command line are answered with what to type there: an order given
// as a command, a draw without its answer, a spectator in the players' chat; the hints name the
// command line's own commands, and a challenge withdrawn is called one.
TEST_F(TwoPlayers, TheCommandLineAnswersANewcomersSlipsWithWhatToTypeThere) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(game.empty());
  const auto advance = cli(alice_, {"advance", "3TC/50", "1816"});
  EXPECT_EQ(advance.code, 2);
  EXPECT_NE(advance.err.find("Orders go through `counterattack order GAME advance 3TC/50 1816`."), std::string::npos)
      << advance.err;
  EXPECT_EQ(advance.err.find("not expected"), std::string::npos) << advance.err;
  const auto typo = cli(alice_, {"shw", game});
  EXPECT_NE(typo.err.find("Did you mean `counterattack show`?"), std::string::npos) << "other words as before: " << typo.err;

  const auto draw = cli(alice_, {"draw", game});
  EXPECT_EQ(draw.code, 2);
  EXPECT_NE(draw.err.find("offer | accept | decline"), std::string::npos) << draw.err;

  const Player carol{"carol", temp_dir("carol"), ""};
  ASSERT_EQ(cli(carol, {"register", "carol"}, "password-of-carol\n").code, 0);
  const auto spectator = cli(carol, {"chat", game, "hello"});
  EXPECT_EQ(spectator.code, 1);
  EXPECT_NE(spectator.err.find("Only the players write in the players' channel; spectators write in the spectators' channel."),
            std::string::npos)
      << spectator.err;
  EXPECT_EQ(cli(carol, {"chat", "--spectators", game, "hello"}).code, 0);

  const auto vacation = cli(alice_, {"vacation"});
  ASSERT_EQ(vacation.code, 0) << vacation.err;
  EXPECT_NE(vacation.out.find("`counterattack vacation start DAYS` holds your clocks"), std::string::npos) << vacation.out;

  const auto made = cli(alice_, {"new", "--opponent", "bob"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string id = made.out.substr(0, made.out.find('\n'));
  const auto withdrawn = cli(alice_, {"resign", id, "--yes"});
  ASSERT_EQ(withdrawn.code, 0) << withdrawn.err;
  EXPECT_NE(withdrawn.out.find("You withdrew your challenge to bob (game " + id + ")."), std::string::npos) << withdrawn.out;
  std::error_code ec;
  std::filesystem::remove_all(carol.config, ec);
}

TEST_F(TwoPlayers, AChallengesConfirmationNamesTheTermsTheChallengedPlayerIsShown) {
  ASSERT_FALSE(started_game("2d").empty());  // both registered
  const auto made = cli(alice_, {"new", "--opponent", "bob", "--side", "soviet", "--clock", "15m+10s", "--private",
                                 "--option", "limited_bonus"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string id = made.out.substr(0, made.out.find('\n'));
  EXPECT_NE(made.err.find("Challenged bob: game " + id +
                          ", you play soviet, rated, private, clock 15m+10s, options: limited_bonus. It waits for bob"),
            std::string::npos)
      << made.err;
  const auto his = cli(bob_, {"games"});
  EXPECT_NE(his.out.find("private"), std::string::npos) << "as bob's line of it shows: " << his.out;
  EXPECT_NE(his.out.find("clock 15m+10s  options: limited_bonus"), std::string::npos) << his.out;
  ASSERT_EQ(cli(alice_, {"resign", id, "--yes"}).code, 0);

  // --json says what it said before: the game, the code, the side and whom it waits for.
  const auto json_made = cli(alice_, {"new", "--opponent", "bob", "--side", "german", "--json"});
  ASSERT_EQ(json_made.code, 0) << json_made.err;
  const auto j = json::parse(json_made.out);
  EXPECT_EQ(j.at("your_side"), "german");
  EXPECT_EQ(j.at("opponent"), "bob");
  EXPECT_EQ(j.at("game_id").get<std::string>().size(), 10u);
  EXPECT_EQ(j.size(), 3u) << j.dump();
  // Withdrawn, it names whom it waited for, and no game it follows.
  const auto withdrawn = cli(alice_, {"--json", "resign", j.at("game_id").get<std::string>(), "--yes"});
  ASSERT_EQ(withdrawn.code, 0) << withdrawn.err;
  EXPECT_EQ(json::parse(withdrawn.out), json({{"withdrawn", true}, {"game_id", j.at("game_id")}, {"reserved_for", "bob"}}))
      << withdrawn.out;
}

// Standing orders from the command line: set, shown to their player alone, cleared; a word the
// client does not know, and one the side cannot give, are refused with what to type instead.
TEST_F(TwoPlayers, StandingOrdersAreSetShownAndClearedFromTheCommandLine) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(HasFailure());

  auto none = cli(alice_, {"standing", game});
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.out.find("No standing orders: every decision is asked of you."), std::string::npos) << none.out;
  auto set = cli(alice_, {"standing", game, "no-support", "retreat"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_NE(set.out.find("no-support: when attacked, commit no tactical support"), std::string::npos) << set.out;
  auto shown = cli(alice_, {"standing", game});
  EXPECT_NE(shown.out.find("no-support:"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("retreat:"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("stand-fast:"), std::string::npos) << shown.out;
  auto drawn = cli(alice_, {"show", game});
  EXPECT_NE(drawn.out.find("Standing orders: no-support, retreat (answered for you at once"), std::string::npos)
      << drawn.out;
  EXPECT_EQ(cli(bob_, {"show", game}).out.find("Standing orders:"), std::string::npos);
  auto theirs = cli(bob_, {"standing", game});
  EXPECT_NE(theirs.out.find("No standing orders"), std::string::npos) << "alice's are hers alone: " << theirs.out;

  auto unknown = cli(alice_, {"standing", game, "surrender"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("Unknown standing order 'surrender'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("take-losses:"), std::string::npos) << unknown.err;
  auto model = cli(alice_, {"standing", game, "keep-die"});
  EXPECT_EQ(model.code, 1);
  EXPECT_NE(model.err.find("FM Model is the German's"), std::string::npos) << model.err;

  ASSERT_EQ(cli(alice_, {"standing", game, "none"}).code, 0);
  EXPECT_NE(cli(alice_, {"standing", game}).out.find("No standing orders"), std::string::npos);
}

// Chat moderation from the command line: a player muted is no longer read in
// `show`, until unmuted; a report goes to the operator; yourself and unknown
// names are refused with a sentence.
TEST_F(TwoPlayers, APlayerIsMutedUnmutedAndReportedFromTheCommandLine) {
  const std::string game = started_game("2d");
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(cli(bob_, {"chat", game, "before the mute"}).code, 0);
  auto muting = cli(alice_, {"mute", "Bob"});
  ASSERT_EQ(muting.code, 0) << muting.err;
  EXPECT_NE(muting.out.find("Muted bob: you no longer read their chat. Muted (1): bob"), std::string::npos)
      << "the name as registered, not as typed: " << muting.out;
  ASSERT_EQ(cli(bob_, {"chat", game, "while muted"}).code, 0);
  auto shown = cli(alice_, {"show", game});
  EXPECT_EQ(shown.out.find("while muted"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("before the mute"), std::string::npos) << shown.out;
  EXPECT_NE(cli(bob_, {"show", game}).out.find("while muted"), std::string::npos) << "his own line stays his";
  auto listed = cli(alice_, {"--json", "muted"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out).at("muted"), json::array({"bob"})) << listed.out;
  auto again = cli(alice_, {"--json", "mute", "BOB"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out), (json{{"muted", json::array({"bob"})}, {"name", "bob"}})) << "a mute again changes nothing";

  auto self = cli(alice_, {"mute", "alice"});
  EXPECT_EQ(self.code, 1);
  EXPECT_NE(self.err.find("You cannot mute yourself."), std::string::npos) << self.err;
  auto nobody = cli(alice_, {"mute", "nobody"});
  EXPECT_EQ(nobody.code, 1);
  EXPECT_NE(nobody.err.find("There is no player 'nobody'."), std::string::npos) << nobody.err;

  auto reported = cli(alice_, {"report", "BOB", "--game", game, "Rude", "in", "chat"});
  ASSERT_EQ(reported.code, 0) << reported.err;
  EXPECT_NE(reported.out.find("Reported bob's chat in game " + game + " to the server's operator"), std::string::npos)
      << reported.out;
  // bob is muted: the lines that go with the report are his in that game, not only those alice read.
  EXPECT_NE(reported.out.find("with their latest lines in that game"), std::string::npos) << reported.out;
  EXPECT_EQ(reported.out.find("that you can read"), std::string::npos) << reported.out;
  EXPECT_EQ(cli(alice_, {"report", "bob", "Rude"}).code, 2) << "--game is needed";

  auto unmuting = cli(alice_, {"unmute", "Bob"});
  ASSERT_EQ(unmuting.code, 0) << unmuting.err;
  EXPECT_NE(unmuting.out.find("Unmuted bob: you read their chat again. You have muted nobody."), std::string::npos)
      << unmuting.out;
  EXPECT_NE(cli(alice_, {"show", game}).out.find("while muted"), std::string::npos);
}

// A tournament from the command line: made, entered (which starts it, being
// full), its standings and games shown, and a game of it played by the same
// commands as any other.
TEST_F(TwoPlayers, ATournamentIsMadeEnteredAndShownFromTheCommandLine) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto none = cli(bob_, {"tournament"});
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.out.find("No tournaments"), std::string::npos) << none.out;
  auto bad = cli(alice_, {"tournament", "new", "Autumn", "Cup", "--players"});
  EXPECT_EQ(bad.code, 2);
  auto made = cli(alice_, {"--json", "tournament", "new", "Autumn", "Cup", "--players", "2", "--time", "2d"});
  ASSERT_EQ(made.code, 0) << made.err;
  const auto t = json::parse(made.out);
  EXPECT_EQ(t.value("name", ""), "Autumn Cup");
  EXPECT_EQ(t.value("status", ""), "open");
  const std::string id = t.value("tournament_id", "");
  ASSERT_FALSE(id.empty()) << made.out;

  auto listed = cli(bob_, {"tournament", "list"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find(id + "  open  \"Autumn Cup\"  organiser: alice  1/2 players  2d per move"), std::string::npos)
      << listed.out;

  auto joined = cli(bob_, {"tournament", "join", id});
  ASSERT_EQ(joined.code, 0) << joined.err;
  EXPECT_NE(joined.out.find(id + "  playing"), std::string::npos) << joined.out;
  EXPECT_NE(joined.out.find("alice (Soviet) against bob (German)"), std::string::npos) << joined.out;
  EXPECT_NE(joined.out.find("bob (Soviet) against alice (German)"), std::string::npos) << joined.out;

  // Its games are in each player's list, and resigning one shows in the standings.
  auto shown = cli(alice_, {"--json", "tournament", "show", id});
  ASSERT_EQ(shown.code, 0) << shown.err;
  std::string alices_soviet_game;
  const auto shown_json = json::parse(shown.out);
  for (const auto& g : shown_json["games"]) {
    if (g.value("soviet", "") == "alice") alices_soviet_game = g.value("game_id", "");
  }
  ASSERT_FALSE(alices_soviet_game.empty()) << shown.out;
  auto games = cli(alice_, {"games"});
  EXPECT_NE(games.out.find(alices_soviet_game), std::string::npos) << games.out;
  ASSERT_EQ(cli(bob_, {"resign", alices_soviet_game, "--yes"}).code, 0);
  auto standings = cli(bob_, {"tournament", "show", id});
  EXPECT_NE(standings.out.find("   1  alice                         1    1     0    0       1"), std::string::npos)
      << standings.out;
  EXPECT_NE(standings.out.find("Soviet victory"), std::string::npos) << standings.out;
  // The cross-table: each pair's two games, as Soviet then as German, from the row's side.
  EXPECT_NE(standings.out.find(" no  rank  player   1   2  points  tie-break\n"
                               "  1     1  alice   --  1*       1       0.00\n"
                               "  2     2  bob     *0  --       0       0.00\n"),
            std::string::npos)
      << standings.out;
  EXPECT_EQ(cli(bob_, {"tournament", "cancel", id}).code, 1) << "only the organiser, and only before the start";
}

// A Swiss's cross-table from the command line: each round's opponent by number,
// with the results as Soviet and as German.
TEST_F(TwoPlayers, ASwissIsShownRoundByRoundInItsCrossTable) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto made = cli(alice_, {"--json", "tournament", "new", "Pair", "Swiss", "--players", "2", "--swiss", "1"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string id = json::parse(made.out).value("tournament_id", "");
  ASSERT_FALSE(id.empty()) << made.out;
  ASSERT_EQ(cli(bob_, {"tournament", "join", id}).code, 0);
  auto shown = cli(alice_, {"--json", "tournament", "show", id});
  ASSERT_EQ(shown.code, 0) << shown.err;
  std::string bobs_soviet_game;
  const auto shown_json = json::parse(shown.out);
  for (const auto& g : shown_json["games"]) {
    if (g.value("soviet", "") == "bob") bobs_soviet_game = g.value("game_id", "");
  }
  ASSERT_FALSE(bobs_soviet_game.empty()) << shown.out;
  ASSERT_EQ(cli(bob_, {"resign", bobs_soviet_game, "--yes"}).code, 0);
  auto table = cli(bob_, {"tournament", "show", id});
  EXPECT_NE(table.out.find(" no  rank  player     R1  points  Sonneborn-Berger\n"
                           "  1     1  alice    2 *1       1              0.00\n"
                           "  2     2  bob      1 0*       0              0.00\n"),
            std::string::npos)
      << table.out;
}

// Of three entrants in a Swiss, the one who sits out the round is told "You sit out"; one who
// withdraws is not told whom they play, and reads that they withdrew, in the list too.
TEST_F(TwoPlayers, ASwissTellsItsReaderThatTheySitOutAndAWithdrawnEntrantNoPairing) {
  Player carol{"carol", temp_dir("carol-swiss"), ""};
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  ASSERT_EQ(cli(carol, {"register", "carol"}, "password-of-carol\n").code, 0);
  auto made = cli(alice_, {"--json", "tournament", "new", "Three", "Swiss", "--players", "3", "--swiss", "2"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string id = json::parse(made.out).value("tournament_id", "");
  ASSERT_EQ(cli(bob_, {"tournament", "join", id}).code, 0);
  ASSERT_EQ(cli(carol, {"tournament", "join", id}).code, 0);
  const auto shown = json::parse(cli(alice_, {"--json", "tournament", "show", id}).out);
  const std::string out = shown.value("sits_out", "");
  ASSERT_FALSE(out.empty()) << shown.dump();
  const Player* players[] = {&alice_, &bob_, &carol};
  const Player* sitter = nullptr;
  const Player* playing = nullptr;
  for (const Player* p : players) (p->name == out ? sitter : playing) = p;
  const Result sits = cli(*sitter, {"tournament", "show", id});
  EXPECT_NE(sits.out.find("\nYou sit out round 1.\n"), std::string::npos) << sits.out;
  EXPECT_EQ(sits.out.find(out + " sits out"), std::string::npos) << sits.out;
  const Result left = cli(*playing, {"tournament", "leave", id});
  ASSERT_EQ(left.code, 0) << left.out << left.err;
  EXPECT_NE(left.out.find("You have withdrawn from the tournament"), std::string::npos) << left.out;
  const std::regex pairing("In round [0-9]+ you play");
  EXPECT_FALSE(std::regex_search(left.out, pairing)) << left.out;
  const Result after = cli(*playing, {"tournament", "show", id});
  EXPECT_FALSE(std::regex_search(after.out, pairing)) << after.out;
  // Its header says they withdrew, not that they play.
  EXPECT_NE(after.out.find("  you withdrew\n"), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find("  you play"), std::string::npos) << after.out;
  const Result others = cli(*sitter, {"tournament", "show", id});
  EXPECT_NE(others.out.find("  you play\n"), std::string::npos) << "still in it: " << others.out;
  // The list says so too, on the command line and in the shell.
  for (const Result& listed : {cli(*playing, {"tournament", "list"}), cli(*playing, {"play"}, "tournaments\nquit\n")}) {
    const auto at = listed.out.find(id + "  ");
    ASSERT_NE(at, std::string::npos) << listed.out << listed.err;
    const std::string line = listed.out.substr(at, listed.out.find('\n', at) - at);
    EXPECT_NE(line.find("  you withdrew"), std::string::npos) << line;
    EXPECT_EQ(line.find("  you play"), std::string::npos) << line;
  }
  const Result listed_by_other = cli(*sitter, {"tournament", "list"});
  EXPECT_NE(listed_by_other.out.find("  you play\n"), std::string::npos) << "still in it: " << listed_by_other.out;
  std::error_code ec;
  fs::remove_all(carol.config, ec);
}

// The line of a game in `games`' text.
std::string line_of(const std::string& text, const std::string& game) {
  const auto at = text.find("  " + game + "  ");
  if (at == std::string::npos) return {};
  return text.substr(at, text.find('\n', at) - at);
}

// "1662" or "1662?" (provisional), as the lists show a rating given as JSON.
std::string rating_text_of(const json& r) {
  return std::to_string(r.value("rating", 0)) + (r.value("provisional", false) ? "?" : "");
}

// Ratings from the command line: bob resigns a rated game, which moves
// alice's rating up and his down, as `rating`, `ratings` and `games` show;
// then a game made with --casual and resigned the same way changes nothing.
TEST_F(TwoPlayers, ARatedGameMovesBothRatingsAndACasualOneLeavesThem) {
  ASSERT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  ASSERT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto fresh = cli(alice_, {"rating"});
  EXPECT_EQ(fresh.code, 0) << fresh.err;
  EXPECT_EQ(fresh.out, "alice: 1500 ±350 (provisional)\nNo rated games yet.\n");
  auto nobody = cli(bob_, {"ratings"});
  EXPECT_EQ(nobody.code, 0) << nobody.err;
  EXPECT_NE(nobody.out.find("Nobody has a rating yet"), std::string::npos) << nobody.out;
  EXPECT_EQ(cli(bob_, {"rating", "alice", "bob"}).code, 2);

  // alice plays the Soviet side; bob joins and resigns.
  auto play_resigned_by_bob = [&](const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"--json", "new", "--side", "soviet"};
    args.insert(args.end(), flags.begin(), flags.end());
    auto created = cli(alice_, args);
    EXPECT_EQ(created.code, 0) << created.err;
    const std::string game = json::parse(created.out).value("game_id", "");
    EXPECT_EQ(cli(bob_, {"join", game}).code, 0);
    // An order from each side first: a game ended before each side moved is not rated.
    bool moved[2] = {false, false};
    for (int step = 0; step < 60 && !(moved[0] && moved[1]); ++step) {
      const json v = view_of(alice_, game);
      const bool soviet = v["decision"].value("side", "") == "SOVIET";
      Player& next = soviet ? alice_ : bob_;
      const auto cand = candidates(view_of(next, game));
      std::vector<std::string> order = {"order", game};
      if (v["decision"].value("kind", "") == "CHOOSE_CORPS" && !cand.empty()) {
        order.insert(order.end(), {"corps", cand.front()});
      } else {
        order.push_back("done");
      }
      const auto given = cli(next, order);
      EXPECT_EQ(given.code, 0) << given.out << given.err;
      if (given.code != 0) break;
      moved[soviet ? 0 : 1] = true;
    }
    EXPECT_TRUE(moved[0] && moved[1]) << "not an order from each side in " << game;
    EXPECT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
    return game;
  };
  auto rating_of = [&](const std::string& name) {
    auto r = cli(alice_, {"--json", "rating", name});
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out);
  };
  const std::string rated = play_resigned_by_bob({});
  ASSERT_FALSE(rated.empty());

  const json alice = rating_of("alice"), bob = rating_of("bob");
  EXPECT_GT(alice["rating"].value("rating", 0), 1500) << alice.dump();
  EXPECT_LT(bob["rating"].value("rating", 0), 1500) << bob.dump();
  EXPECT_EQ(alice.value("wins", 0), 1) << alice.dump();
  EXPECT_EQ(bob.value("losses", 0), 1) << bob.dump();
  auto own = cli(alice_, {"rating"});
  EXPECT_EQ(own.code, 0) << own.err;
  const std::string headline = "alice: " + std::to_string(alice["rating"].value("rating", 0)) + " ±" +
                               std::to_string(alice["rating"].value("deviation", 0));
  EXPECT_EQ(own.out.rfind(headline, 0), 0u) << own.out;
  EXPECT_NE(own.out.find("Rated games: 1 (1 won, 0 drawn, 0 lost)"), std::string::npos) << own.out;
  EXPECT_NE(own.out.find("Last rated game: "), std::string::npos) << own.out;
  EXPECT_NE(own.out.find("won as Soviet against bob: " + std::to_string(alice["rating"].value("rating", 0)) + " (+" +
                         std::to_string(alice["rating"].value("rating", 0) - 1500) + "), game " + rated),
            std::string::npos)
      << own.out;
  auto bobs = cli(alice_, {"rating", "bob"});
  EXPECT_NE(bobs.out.find("Rated games: 1 (0 won, 0 drawn, 1 lost)"), std::string::npos) << bobs.out;
  EXPECT_NE(bobs.out.find("lost as German against alice"), std::string::npos) << bobs.out;

  // Ratings are public: someone who never logged in reads them too, but has no rating of their own.
  const Player visitor{"visitor", temp_dir("visitor"), ""};
  auto seen = cli(visitor, {"rating", "alice"});
  EXPECT_EQ(seen.code, 0) << seen.err;
  EXPECT_EQ(seen.out, own.out);
  EXPECT_EQ(cli(visitor, {"ratings"}).code, 0);
  auto self = cli(visitor, {"rating"});
  EXPECT_NE(self.code, 0);
  EXPECT_NE(self.err.find("not logged in"), std::string::npos) << self.err;
  fs::remove_all(visitor.config);

  // The list: the winner above the loser.
  auto table = cli(bob_, {"ratings"});
  EXPECT_EQ(table.code, 0) << table.err;
  const auto alice_row = table.out.find("  alice  "), bob_row = table.out.find("  bob  ");
  ASSERT_NE(alice_row, std::string::npos) << table.out;
  ASSERT_NE(bob_row, std::string::npos) << table.out;
  EXPECT_LT(alice_row, bob_row) << table.out;
  EXPECT_NE(table.out.find(rating_text_of(alice["rating"]), alice_row), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("1/0/0"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("0/0/1"), std::string::npos) << table.out;
  auto list = cli(bob_, {"--json", "ratings"});
  ASSERT_EQ(list.code, 0) << list.err;
  const json players = json::parse(list.out).value("players", json::array());
  ASSERT_EQ(players.size(), 2u) << list.out;
  EXPECT_EQ(players[0].value("name", ""), "alice");
  EXPECT_EQ(players[1].value("name", ""), "bob");

  // The game list shows what the game changed.
  auto mine = cli(alice_, {"--json", "games"});
  ASSERT_EQ(mine.code, 0) << mine.err;
  json summary;
  const json listed = json::parse(mine.out);
  for (const auto& g : listed.at("mine")) {
    if (g.value("game_id", "") == rated) summary = g;
  }
  ASSERT_FALSE(summary.is_null()) << mine.out;
  EXPECT_TRUE(summary.value("rated", false)) << summary.dump();
  const int won = summary.value("soviet_rating_change", 0), lost = summary.value("german_rating_change", 0);
  EXPECT_GT(won, 0) << summary.dump();
  EXPECT_LT(lost, 0) << summary.dump();
  auto games = cli(alice_, {"games"});
  EXPECT_NE(line_of(games.out, rated).find("Soviet: alice (+" + std::to_string(won) + ")  German: bob (" + std::to_string(lost) + ")"),
            std::string::npos)
      << games.out;

  // A casual game, shown so, leaves both ratings as they were.
  const std::string casual = play_resigned_by_bob({"--casual"});
  ASSERT_FALSE(casual.empty());
  const json alice_after = rating_of("alice"), bob_after = rating_of("bob");
  EXPECT_EQ(alice_after["rating"].value("rating", 0), alice["rating"].value("rating", 0)) << alice_after.dump();
  EXPECT_EQ(bob_after["rating"].value("rating", 0), bob["rating"].value("rating", 0)) << bob_after.dump();
  EXPECT_EQ(alice_after.value("games", 0), 1) << alice_after.dump();
  EXPECT_EQ(bob_after.value("games", 0), 1) << bob_after.dump();
  games = cli(bob_, {"games"});
  const std::string casual_line = line_of(games.out, casual);
  EXPECT_NE(casual_line.find("  casual"), std::string::npos) << games.out;
  EXPECT_NE(casual_line.find("Soviet: alice  German: bob"), std::string::npos) << "a casual game changed no rating: " << games.out;
  EXPECT_EQ(line_of(games.out, rated).find("casual"), std::string::npos) << games.out;

  // The shell takes the same words.
  auto shell = cli(bob_, {"play"}, "rating alice\nratings\nquit\n");
  EXPECT_EQ(shell.code, 0) << shell.err;
  EXPECT_NE(shell.out.find("alice: " + std::to_string(alice["rating"].value("rating", 0)) + " ±"), std::string::npos)
      << shell.out;
  EXPECT_NE(shell.out.find("W/D/L"), std::string::npos) << shell.out;
}

// A player who checks in once a day looks at their units, a hex, their chits
// and the decision without opening the shell; each answers as the shell does.
TEST_F(TwoPlayers, UnitsStackHandAndDecisionAnswerFromTheCommandLineAsInTheShell) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());

  auto decision = cli(alice_, {"decision", game});
  ASSERT_EQ(decision.code, 0) << decision.err;
  EXPECT_NE(decision.out.find("Your decision (Soviet)"), std::string::npos) << decision.out;
  EXPECT_NE(decision.out.find("Answer: corps"), std::string::npos) << decision.out;
  auto waiting = cli(bob_, {"decision", game});
  EXPECT_NE(waiting.out.find("Waiting for the Soviet player"), std::string::npos) << waiting.out;

  auto units = cli(bob_, {"units", game});
  ASSERT_EQ(units.code, 0) << units.err;
  const std::regex line("  (\\S+) at (\\S+): ");
  std::smatch first;
  ASSERT_TRUE(std::regex_search(units.out, first, line)) << "the German starts with units on the board: " << units.out;
  const std::string unit = first[1], hex = first[2];

  auto stack = cli(bob_, {"stack", game, hex});
  ASSERT_EQ(stack.code, 0) << stack.err;
  EXPECT_NE(stack.out.find(unit), std::string::npos) << stack.out;
  auto nowhere = cli(bob_, {"stack", game, "nowhere"});
  EXPECT_EQ(nowhere.code, 2);
  EXPECT_NE(nowhere.err.find("'nowhere' is not a location"), std::string::npos) << nowhere.err;

  auto hand = cli(bob_, {"hand", game});
  ASSERT_EQ(hand.code, 0) << hand.err;
  EXPECT_NE(hand.out.find("Your event chits ("), std::string::npos) << hand.out;
  EXPECT_NE(hand.out.find("Soviet player holds "), std::string::npos) << hand.out;

  // The shell prints the same for the same words.
  auto shell = cli(bob_, {"play", game}, "units\nstack " + hex + "\nhand\nquit\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  for (const auto* one_shot : {&units, &stack, &hand}) {
    EXPECT_NE(shell.out.find(one_shot->out), std::string::npos) << one_shot->out << "\nnot in the shell's\n" << shell.out;
  }

  auto as_json = cli(bob_, {"units", game, "--json"});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  const json stacks = json::parse(as_json.out);
  ASSERT_FALSE(stacks.empty());
  for (const auto& st : stacks) EXPECT_EQ(st.value("side", ""), "GERMAN") << st.dump();
}


// The log says when each order was played: `show --log` and the shell's `log`
// print each order's time in UTC before its first event, the date on a line of
// its own, and `show --log --json` gives each event its version and time.
TEST_F(TwoPlayers, TheLogSaysWhenEachOrderWasPlayed) {
  const std::int64_t before = std::time(nullptr);
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(alice_, {"order", game, "corps", "3TC"}).code, 0);
  ASSERT_EQ(cli(alice_, {"order", game, "done"}).code, 0);
  const std::int64_t after = std::time(nullptr) + 1;

  auto listed = cli(bob_, {"--json", "show", game, "--log", "0"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  const json j = json::parse(listed.out);
  ASSERT_TRUE(j.contains("view") && j.contains("log")) << listed.out;
  std::int64_t activated = 0;
  for (const auto& e : j.at("log")) {
    const std::int64_t t = e.value("time_unix", std::int64_t{0});
    EXPECT_GE(t, before) << e.dump();
    EXPECT_LE(t, after) << e.dump();
    if (e.at("event").value("text", "") == "3TC activates.") {
      EXPECT_EQ(e.value("version", 0), 1) << e.dump();
      activated = t;
    }
  }
  ASSERT_GT(activated, 0) << listed.out;
  const std::string when = utc_minute(activated);

  auto shown_log = cli(bob_, {"show", game, "--log", "0"});
  ASSERT_EQ(shown_log.code, 0) << shown_log.err;
  EXPECT_NE(shown_log.out.find("  " + when.substr(0, 10) + " (UTC)\n"), std::string::npos) << shown_log.out;
  EXPECT_NE(shown_log.out.find("  " + when.substr(11) + " 3TC activates."), std::string::npos) << shown_log.out;
  auto shell = cli(alice_, {"play", game}, "log\nquit\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  EXPECT_NE(shell.out.find("  " + when.substr(11) + " 3TC activates."), std::string::npos) << shell.out;
}

// A finished game is stepped through from its log: each version shows the full
// map with the events of the order that made it, as the log has them, and its time.
// A version the game does not have, an unknown game and one still in play are refused.
TEST_F(TwoPlayers, AFinishedGameIsReplayedVersionByVersionAsItsLogSays) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  ASSERT_EQ(cli(alice_, {"order", game, "corps", "3TC"}).code, 0);
  ASSERT_EQ(cli(alice_, {"order", game, "done"}).code, 0);

  auto early = cli(alice_, {"replay", game, "--at", "1"});
  EXPECT_EQ(early.code, 1) << early.out;
  EXPECT_NE(early.err.find("Game " + game + " is not over: its whole log opens when it ends"), std::string::npos) << early.err;
  EXPECT_EQ(early.out.find("3TC"), std::string::npos) << early.out;
  auto early_shell = cli(alice_, {"play"}, "replay " + game + "\nquit\n");
  EXPECT_NE(early_shell.out.find("is not over: its whole log opens when it ends"), std::string::npos) << early_shell.out;
  auto unknown = cli(alice_, {"replay", "nosuchgame", "--at", "0"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("There is no game 'nosuchgame'"), std::string::npos) << unknown.err;

  ASSERT_EQ(cli(bob_, {"resign", game, "--yes"}).code, 0);
  auto exported = cli(alice_, {"export", game});
  ASSERT_EQ(exported.code, 0) << exported.err;
  const json log = json::parse(exported.out);
  const auto& orders = log.at("orders");
  ASSERT_EQ(orders.size(), 2u) << exported.out;

  // Each version as the log has it: its events, its time, the order that made it.
  Player carol{"carol", temp_dir("carol"), ""};  // a public game's replay needs no account
  for (std::size_t v = 1; v <= orders.size(); ++v) {
    auto at = cli(carol, {"replay", game, "--at", std::to_string(v)});
    ASSERT_EQ(at.code, 0) << at.err;
    EXPECT_NE(at.out.find("Replay of game " + game + ": version " + std::to_string(v) + " of 2"), std::string::npos) << at.out;
    const auto& o = orders[v - 1];
    const std::string when = utc_minute(std::stoll(o.value("played_unix", "0")));
    EXPECT_NE(at.out.find(when + " UTC, the Soviet player's order: " + (v == 1 ? "corps 3TC" : "done")), std::string::npos) << at.out;
    const auto events = at.out.find("The events of this order:");
    ASSERT_NE(events, std::string::npos) << at.out;
    for (const auto& e : o.at("events")) EXPECT_NE(at.out.find(e.value("text", "?"), events), std::string::npos) << e.dump() << at.out;
  }
  auto setup = cli(carol, {"replay", game, "--at", "0"});
  ASSERT_EQ(setup.code, 0) << setup.err;
  EXPECT_NE(setup.out.find(": the setup, as the game was made"), std::string::npos) << setup.out;
  EXPECT_NE(setup.out.find("The setup's events:"), std::string::npos) << setup.out;
  auto as_json = cli(carol, {"--json", "replay", game, "--at", "1"});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  const json one = json::parse(as_json.out);
  EXPECT_EQ(one.value("version", -1), 1);
  EXPECT_EQ(one.value("last_version", -1), 2);
  EXPECT_EQ(one.value("order", ""), "corps 3TC");
  EXPECT_EQ(one.value("side", ""), "SOVIET");
  EXPECT_EQ(one.value("time_unix", std::int64_t{0}), std::stoll(orders[0].value("played_unix", "0")));
  EXPECT_EQ(one.at("events").size(), orders[0].at("events").size());
  EXPECT_EQ(one.at("view").value("viewer", ""), "VIEWER_OMNISCIENT") << "the full map: " << as_json.out;

  for (const std::string& bad : std::vector<std::string>{"3", "99"}) {
    auto beyond = cli(carol, {"replay", game, "--at", bad});
    EXPECT_EQ(beyond.code, 1) << beyond.out;
    EXPECT_NE(beyond.err.find("has versions 0 (the setup) to 2: " + bad + " is not one of them."), std::string::npos) << beyond.err;
  }
  auto negative = cli(carol, {"replay", game, "--at", "x1"});
  EXPECT_EQ(negative.code, 2);
  EXPECT_NE(negative.err.find("'x1' is not a version"), std::string::npos) << negative.err;

  // Stepping, line by line: ENTER repeats next; the ends and a version out of range are said.
  auto stepped = cli(carol, {"replay", game}, "next\n\nnext\nprev\ngoto 7\nfirst\nprev\nquit\n");
  ASSERT_EQ(stepped.code, 0) << stepped.err;
  std::size_t from = 0;
  for (const std::string& expected : std::vector<std::string>{
           "version 0 of 2", "version 1 of 2", "version 2 of 2, the last", "That is the last version, 2", "version 1 of 2",
           "7 is not one of them", "version 0 of 2", "That is the setup, version 0", "Left the replay of game " + game}) {
    const auto found = stepped.out.find(expected, from);
    ASSERT_NE(found, std::string::npos) << "after " << from << ": " << expected << " in:\n" << stepped.out;
    from = found + expected.size();
  }
  EXPECT_NE(stepped.out.find("The log ends here, and the game ended without another order. Soviet victory: The German player resigned."),
            std::string::npos)
      << stepped.out;

  // The shell steps the same way, and goes back to its commands after quit.
  auto shell = cli(alice_, {"play"}, "replay " + game + "\n\ngoto 2\ngoto 3\nquit\ngames\nquit\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  from = 0;
  for (const std::string& expected : std::vector<std::string>{"version 0 of 2", "version 1 of 2", "version 2 of 2",
                                                               "3 is not one of them", "Left the replay of game " + game,
                                                               "Your games:"}) {
    const auto found = shell.out.find(expected, from);
    ASSERT_NE(found, std::string::npos) << expected << " in:\n" << shell.out;
    from = found + expected.size();
  }
  std::error_code ec;
  fs::remove_all(carol.config, ec);
}

}  // namespace
// A player who looks in once a day: the games list says which games wait for them
// and what has moved since they last looked, and the log marks the place.
TEST_F(TwoPlayers, TheGamesListAndTheLogSayWhatHappenedSinceYouLastLooked) {
  const std::string game = started_game("3d");
  ASSERT_FALSE(game.empty());
  // The Soviet player decides first.
  auto waiting = cli(alice_, {"games", "--my-turn"});
  ASSERT_EQ(waiting.code, 0) << waiting.err;
  EXPECT_NE(waiting.out.find(game), std::string::npos) << waiting.out;
  EXPECT_NE(waiting.out.find("YOUR MOVE"), std::string::npos) << waiting.out;
  EXPECT_EQ(waiting.out.find("Open games"), std::string::npos) << "only the games that wait: " << waiting.out;
  auto not_bobs = cli(bob_, {"games", "--my-turn"});
  ASSERT_EQ(not_bobs.code, 0) << not_bobs.err;
  EXPECT_EQ(not_bobs.out.find(game), std::string::npos) << not_bobs.out;
  auto not_bobs_json = cli(bob_, {"--json", "games", "--my-turn"});
  ASSERT_EQ(not_bobs_json.code, 0) << not_bobs_json.err;
  EXPECT_TRUE(json::parse(not_bobs_json.out).at("mine").empty()) << not_bobs_json.out;

  ASSERT_EQ(cli(alice_, {"order", game, "corps", "3TC"}).code, 0);
  ASSERT_EQ(cli(alice_, {"order", game, "done"}).code, 0);
  // bob has never looked: both orders are new to him; alice gave them.
  auto bobs = cli(bob_, {"games"});
  EXPECT_NE(bobs.out.find("2 new orders"), std::string::npos) << bobs.out;
  auto alices = cli(alice_, {"games"});
  EXPECT_EQ(alices.out.find(" new order"), std::string::npos) << alices.out;
  auto listed = cli(bob_, {"--json", "games"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  const json mine = json::parse(listed.out).at("mine");
  ASSERT_EQ(mine.size(), 1u) << listed.out;
  EXPECT_EQ(mine[0].value("your_seen_version", "x"), "0") << "every field, this one too: " << listed.out;
  EXPECT_EQ(mine[0].value("version", "x"), "2") << listed.out;

  // The shell's log marks the place: the setup before it, alice's orders after it.
  auto shell = cli(bob_, {"play", game}, "log\nquit\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  EXPECT_NE(shell.out.find("2 new orders since you last looked"), std::string::npos) << "said on opening: " << shell.out;
  const auto mark = shell.out.find("-- since you last looked --");
  ASSERT_NE(mark, std::string::npos) << shell.out;
  const auto activates = shell.out.find("3TC activates.", mark);
  EXPECT_NE(activates, std::string::npos) << shell.out;
  const auto setup = shell.out.find("Soviet draws an event chit.");
  EXPECT_LT(setup, mark) << shell.out;
  // Looked: nothing new since, in the list or the log.
  bobs = cli(bob_, {"games"});
  EXPECT_EQ(bobs.out.find(" new order"), std::string::npos) << bobs.out;
  auto again = cli(bob_, {"show", game, "--log", "0"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out.find("since you last looked"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("3TC activates."), std::string::npos) << again.out;
}

}  // namespace counterattack::cli
