// A small test scenario whose every cost can be worked out by hand, and helpers
// to set up positions and give orders in players' terms.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine.h"

namespace counterattack::testing {

// The text files of the test scenario ("TEST" below), by file stem.
std::map<std::string, std::string> test_scenario_files();
std::shared_ptr<const Scenario> test_scenario();

class Table {
 public:
  // The test scenario by default, or the shipped Counterattack scenario.
  explicit Table(std::shared_ptr<const Scenario> sc = test_scenario(), std::uint32_t options = 0);

  const Scenario& sc() const { return *sc_; }
  int unit(const std::string& id) const;
  Loc loc(const std::string& name) const;
  std::string name(Loc l) const { return sc_->location_name(l); }

  // Puts a unit somewhere ("0405", "WARSAW", an entry point id, "eliminated").
  void put(const std::string& unit, const std::string& where);
  // Clears the board: every unit back on the calendar.
  void clear_board();
  // Starts activation phase k (0 = Soviet 1, 1 = German 1 ...) in its movement step.
  void begin_phase(int activation, const std::string& corps = "");

  Outcome order(Side who, const game::Order& o);
  Outcome move(Side who, const std::vector<std::string>& units, const std::vector<std::string>& path);
  Outcome done(Side who);
  Decision decision() const { return engine.decision(s); }

  // Reachable locations of a unit or stack with their cost in half MP, "0405:3".
  std::set<std::string> reachable(const std::vector<std::string>& units) const;
  std::set<std::string> reachable_hexes(const std::vector<std::string>& units) const;

  std::shared_ptr<const Scenario> sc_;
  Engine engine;
  GameState s;
  Prng rng;
};

// Puts exactly these chits in a side's hand; the rest of its chits go to the cup.
void give_chits(Table& t, Side side, const std::vector<std::string>& chits);

// Accepted, or why not.
::testing::AssertionResult Accepted(const Outcome& out);
// Rejected with `code`, and nothing in the game changed.
::testing::AssertionResult Rejected(Table& t, Side who, const game::Order& o, game::RejectCode code);

game::Order move_order(const std::vector<std::string>& units, const std::vector<std::string>& path);
game::Order done_order();

}  // namespace counterattack::testing
