// Programs the client tests run: the real `counterattackd` on 127.0.0.1:0 with
// a temporary data directory, and `counterattack` processes, each player with
// a config directory of their own.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace counterattack::cli::testing {

using json = nlohmann::json;

std::string server_bin();
// A new directory under the system's temporary one; empty when it could not be made.
std::string temp_dir(const std::string& tag);

struct Result {
  int code = -1;
  std::string out, err;
};

// Runs a program to its end, feeding it standard input.
Result run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
           const std::string& input, int timeout_s = 60);

// A program left running, its standard output and error going to a file. With
// piped input its standard input is a pipe that `send` writes to.
struct Background {
  pid_t pid = -1;
  int input = -1;
  std::string log;
  void start(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
             const std::string& log_path, bool piped_input = false);
  std::string output() const;
  // Writes to its standard input; false when that failed.
  bool send(const std::string& text);
  // Ends its standard input.
  void close_input();
  // Waits for the end; -1 when it had to be killed.
  int wait(int timeout_s);
  void stop(int sig = SIGTERM);
  ~Background();
};

// Starts the server and returns its "host:port", read from its log.
std::string start_server(Background& server, const std::string& data_dir,
                         const std::string& listen, const std::vector<std::string>& extra = {});

struct Player {
  std::string name, config;
  std::string side;  // "SOVIET" or "GERMAN"
};

// A server per test and two players, alice and bob, not yet registered.
class TwoPlayers : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  std::string url() const { return "wss://" + addr_; }
  // alice and bob registered, and a game of alice's (Soviet) with `time` per move that bob has
  // joined: its id (empty, with a test failure, when that went wrong).
  std::string started_game(const std::string& time);
  // `n` games of alice's (Soviet) that bob joined and resigned, oldest first.
  std::vector<std::string> resigned_games(int n);
  // In `game`: bob answers support, losses and retreats in advance, and alice brings four
  // units of 8GTC next to 3546, where two German battalions stand, to the combat step,
  // from the command line; an attack on 3546 then has bob's standing answers follow it.
  void bring_8gtc_to_attack_3546(const std::string& game);
  std::map<std::string, std::string> env(const Player& p) const;
  // The client's command line for `p`, its arguments after the server's.
  std::vector<std::string> command(const std::vector<std::string>& args) const;
  Result cli(const Player& p, std::vector<std::string> args, const std::string& input = "");
  json view_of(const Player& p, const std::string& game);

  Background server_;
  std::string data_, addr_;
  Player alice_, bob_;
};

// The decision's candidates in a view as JSON.
std::vector<std::string> candidates(const json& view);

// Real moves: one of the decider's units that has not moved, one hex onto an
// empty map hex (or from an entry point onto one of its hexes).
std::vector<std::string> move_tries(const json& view, const std::string& side);

}  // namespace counterattack::cli::testing
