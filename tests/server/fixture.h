// A server per test, players that keep their view from deltas, and a driver
// that plays a game through the server with two bots.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <string>

#include "bot.h"
#include "engine.h"
#include "client.h"

namespace counterattack::server::testing {

// One client's picture of one game: the view rebuilt from the snapshot and deltas.
struct Player {
  Player(Client& client, std::string game_id, game::Side side);
  Client& client;
  std::string game_id;
  game::Side side;
  game::View view;
  std::int64_t version = -1;
  int deltas = 0, snapshots = 0;
  std::vector<game::Event> events;
  std::vector<std::string> problems;  // broken version chains, leaks

  // Applies the snapshots and deltas already received, in order.
  void absorb();
  void apply(const wire::ServerMessage& m);
  bool mine(const wire::ServerMessage& m) const;
  // Absorbs until the view is at version v.
  bool wait_version(std::int64_t v, Millis timeout = 10s);
};

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // The server again on the same data: the old one, if still running, is killed
  // first; `settings` are added to the test defaults.
  void restart(std::vector<std::string> extra_args = {}, const std::string& settings = "");
  // Damages the stored seed of each of these games, with the server killed, and starts
  // it again on the same data: their logs no longer replay, so they cannot be loaded.
  void make_unloadable(const std::vector<std::string>& game_ids);

  // Whether `done` comes true within about ten seconds: the server reads the
  // operator's requests every two seconds and stores some changes behind other writes.
  static bool eventually(const std::function<bool()>& done);

  std::unique_ptr<Client> connect(bool tls = true);
  // A connected, registered client.
  std::unique_ptr<Client> user(const std::string& name);
  // Another connection of an existing player, logged in.
  std::unique_ptr<Client> login_as(const std::string& name);
  // Creates a game as Soviet by `soviet`, joined by `german`; its id.
  std::string start_game(Client& soviet, Client& german, std::vector<std::string> options = {});
  // `counterattackd --data-dir DIR ARGS` (a shell's words), as the operator runs it
  // beside the server: its exit status, and what it wrote to standard output and error.
  struct CommandOutcome {
    int status = -1;
    std::string said;
  };
  CommandOutcome operator_command(const std::string& args);

  std::string dir_;
  std::unique_ptr<ServerProcess> server_;
};

struct PlayStats {
  int accepted = 0, rejected = 0, moves = 0, takebacks = 0;
  bool over = false;
  std::int64_t version = 0;
  std::map<std::int64_t, game::Order> orders;  // the bots' accepted orders, by version
};

// Both players' views of a game, on connections that watch it from now on.
std::pair<Player, Player> watch_as_players(Client& soviet, Client& german, const std::string& game_id);

// Plays with two bots until the game ends or `max_orders` are accepted. Every
// participant (players and the optional spectator) must receive every version.
// `take_back_every` n > 0: each bot takes back every n-th move it makes.
PlayStats play(Player& soviet, Player& german, Player* spectator, int max_orders, const std::string& key_prefix = "k",
               int take_back_every = 0);

// Orders for one side only, until the decision leaves it; the other player is away.
void play_until_decision_leaves(Player& p, Bot& bot, const std::string& key_prefix);
// GetLog as_seen: the game's events as `c`'s own view reads them, each with its version.
wire::ServerMessage log_as_seen(Client& c, const std::string& game_id);

// One order played by whichever side decides first, so that the game counts as
// played by that side; both stop watching after.
void play_opening(Client& soviet, Client& german, const std::string& game_id);

// Orders from both sides, each bot's in turn as the decision passes, until each
// side has given at least one, so that a rated game's result moves the ratings
// (a side that never moved leaves them as they were); both stop watching after.
void play_an_order_each(Client& soviet, Client& german, const std::string& game_id);

// A game's summary as its player's MyGames gives it (a test failure when it is not there).
wire::GameSummary summary_in_my_games(Client& c, const std::string& game_id);

// Now in whole seconds of the system clock, as the server reads it: std::time
// may lag it by a clock tick, which at a second's boundary is a whole second.
std::int64_t now_unix();

// Hex SHA-256.
std::string sha256_hex(const std::string& bytes);
std::string from_hex(const std::string& hex);

// Where a finished game's audit starts (protocol/README.md): a new game of the
// log's options and rules revision, and its revealed seed as the dice generator;
// the setup's events in `setup`, when given.
struct AuditStart {
  GameState state;
  Prng dice;
};
AuditStart audit_start(const Engine& engine, const wire::GameLog& log, std::vector<game::Event>* setup = nullptr);

}  // namespace counterattack::server::testing
