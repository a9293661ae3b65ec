// A simple player for tests: it answers every decision from its own view only,
// and makes a few real moves of its own units so that hidden information moves.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "game.pb.h"
#include "scenario.h"

namespace counterattack::server::testing {

class Bot {
 public:
  // `take_back_every` n > 0: every n-th move made is taken back once, then another made instead.
  Bot(game::Side side, std::shared_ptr<const Scenario> sc, int moves_per_step = 2, int take_back_every = 0);
  // The order to try now, or nothing when this side does not decide.
  std::optional<game::Order> next(const game::View& view);
  // The fate of the last order next() gave.
  void result(bool accepted, const std::string& reason = "");

  int moves_made() const { return moves_made_; }
  int barrages_made() const { return barrages_made_; }
  int rejections() const { return rejections_; }
  int takebacks() const { return takebacks_; }
  int stuck() const { return tries_; }  // rejections in a row at the current decision

 private:
  std::optional<game::Order> pick_move(const game::View& v);
  std::optional<game::Order> pick_barrage(const game::View& v);

  game::Side side_;
  std::shared_ptr<const Scenario> sc_;
  int moves_per_step_, take_back_every_;
  std::string key_;  // turn, phase, step, decision: when it changes, start afresh
  int tries_ = 0, moved_here_ = 0, moves_made_ = 0, rejections_ = 0, barrages_here_ = 0, barrages_made_ = 0;
  int takebacks_ = 0;
  bool last_was_move_ = false, last_was_barrage_ = false, last_was_undo_ = false;
  bool undo_next_ = false;  // the move just made is to be taken back
  // Magnuszew: items kept, the candidate tried last.
  std::vector<std::string> kept_;
  int cursor_ = -1;
  std::string tried_;
};

}  // namespace counterattack::server::testing
