// The Glicko-2 rating system (Mark Glickman, "Example of the Glicko-2
// system", 2013): a rating, how uncertain it is (the deviation), and how
// erratic the player's results are (the volatility).
#pragma once

#include <vector>

namespace counterattack::server::glicko2 {

struct Rating {
  double rating = 1500;
  double deviation = 350;
  double volatility = 0.06;
};

struct Result {
  Rating opponent;
  double score;  // 1 a win, 0.5 a draw, 0 a loss
};

// The player's rating after one rating period with these results. `tau`
// bounds how fast the volatility moves (Glickman suggests 0.3 to 1.2).
Rating rate(const Rating& player, const std::vector<Result>& results, double tau);

// The rating after `periods` rating periods without games, fractions
// allowed: the deviation grows, nothing else changes.
Rating idle(const Rating& player, double periods);

}  // namespace counterattack::server::glicko2
