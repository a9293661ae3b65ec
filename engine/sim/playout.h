// Random complete games with invariant checks after every order: the engine's
// main regression oracle, used by counterattack-sim and the tests alike.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine.h"

namespace counterattack {

// Picks a random legal order cheaply: a random action first, then (for a move)
// a random destination of that unit or stack.
Order random_order(const Engine& engine, const GameState& s, Prng& rng);

// Changes only what `side` keeps hidden from the other: event chits in hand and
// cup, and the units below the top of its stacks that no enemy is adjacent to.
void perturb_hidden(const Engine& engine, GameState& s, Side side, Prng& rng);

struct PlayoutStats {
  int games = 0, completed = 0;
  long orders = 0;
  int soviet_wins = 0, german_wins = 0, draws = 0;
  long invariant_violations = 0;
  long moves = 0, break_contacts = 0, events_played = 0, recoveries = 0, takebacks = 0;
  long standing_answers = 0;  // decisions every standing order would have answered
  long combats = 0, overruns = 0, barrages = 0, retreats = 0, advances = 0, steps_lost = 0;
  std::map<std::string, long> crt_columns;  // combats resolved on each column
  std::map<std::string, long> chits_played;  // by event chit id, in any order that plays one
  std::vector<std::string> violations;  // the first few, for the report
};

struct PlayoutOptions {
  std::uint64_t seed = 1;
  std::uint32_t options = 0;      // optional rules
  int revision = kLatestRevision;  // of the rules (revision_bits): the one new games play
  int view_check_every = 25;      // orders between hidden-information checks
  long max_orders = 200000;       // a game that runs longer counts as not completed
};

// 9 (revision 4): what is wrong with a die line's list of modifiers, or "" when
// they add up to its net: "...: die 4 +1 (unit bonuses +2, woods -1)."; at the
// limit (`limit`, six) the units' bonuses are a bound, "...: die 3 +6 (unit
// bonuses +5 or more, German artillery +1; limited to +6).", as the net told them.
std::string die_line_problem(const std::string& line, int limit);

// Every standing order set.
game::StandingOrders every_standing_order();

// Plays one complete game and checks invariants after every order.
void play_one(const Engine& engine, std::uint64_t game_seed, const PlayoutOptions& opt, PlayoutStats& stats);

// Checks the structural invariants of a state; appends what is wrong.
void check_state(const Engine& engine, const GameState& s, std::vector<std::string>& problems);

// Checks that one side's hidden information never changes the other side's or
// the spectator's view.
void check_views(const Engine& engine, const GameState& s, Prng& rng, std::vector<std::string>& problems);

}  // namespace counterattack
