#include "glicko2.h"

#include <cmath>
#include <numbers>

namespace counterattack::server::glicko2 {
namespace {

// Glicko-2 works on its own scale: (rating - 1500) / 173.7178.
constexpr double kScale = 173.7178;
constexpr double kCentre = 1500;
// Where the volatility's iteration stops.
constexpr double kConvergence = 0.000001;

double g(double phi) { return 1 / std::sqrt(1 + 3 * phi * phi / (std::numbers::pi * std::numbers::pi)); }

double expected(double mu, double mu_j, double phi_j) { return 1 / (1 + std::exp(-g(phi_j) * (mu - mu_j))); }

// Step 5: the new volatility, by the Illinois algorithm.
double new_volatility(double sigma, double phi, double v, double delta, double tau) {
  const double a = std::log(sigma * sigma);
  const auto f = [&](double x) {
    const double ex = std::exp(x);
    const double d = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / (tau * tau);
  };
  double A = a, B;
  if (delta * delta > phi * phi + v) {
    B = std::log(delta * delta - phi * phi - v);
  } else {
    int k = 1;
    while (f(a - k * tau) < 0) ++k;
    B = a - k * tau;
  }
  double fA = f(A), fB = f(B);
  while (std::abs(B - A) > kConvergence) {
    const double C = A + (A - B) * fA / (fB - fA);
    const double fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  return std::exp(A / 2);
}

}  // namespace

Rating rate(const Rating& player, const std::vector<Result>& results, double tau) {
  if (results.empty()) return idle(player, 1);
  const double mu = (player.rating - kCentre) / kScale, phi = player.deviation / kScale;
  double inverse_v = 0, sum = 0;
  for (const auto& r : results) {
    const double mu_j = (r.opponent.rating - kCentre) / kScale, phi_j = r.opponent.deviation / kScale;
    const double e = expected(mu, mu_j, phi_j), gj = g(phi_j);
    inverse_v += gj * gj * e * (1 - e);
    sum += gj * (r.score - e);
  }
  const double v = 1 / inverse_v, delta = v * sum;
  const double sigma = new_volatility(player.volatility, phi, v, delta, tau);
  const double phi_star = std::sqrt(phi * phi + sigma * sigma);
  const double new_phi = 1 / std::sqrt(1 / (phi_star * phi_star) + 1 / v);
  const double new_mu = mu + new_phi * new_phi * sum;
  return Rating{new_mu * kScale + kCentre, new_phi * kScale, sigma};
}

Rating idle(const Rating& player, double periods) {
  const double phi = player.deviation / kScale;
  Rating r = player;
  r.deviation = std::sqrt(phi * phi + player.volatility * player.volatility * periods) * kScale;
  return r;
}

}  // namespace counterattack::server::glicko2
