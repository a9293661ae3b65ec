// Engine costs: checking and applying an order, generating legal orders,
// computing a view, tracing supply. Numbers go to the README, never into tests.
#include <benchmark/benchmark.h>

#include "playout.h"
#include "view_delta.h"

namespace counterattack {
namespace {

const Engine& engine() {
  static const Engine e(default_scenario());
  return e;
}

// A mid-game position: random play from a fixed seed up to the third turn,
// stopped in a Soviet movement step with units to move.
GameState midgame() {
  Prng dice = Prng::from_seed(2024), choices = Prng::from_seed(7);
  GameState s = engine().new_game(0, dice);
  while (s.turn < 3 || engine().decision(s).kind != game::Decision::MOVEMENT || s.phase_side() != Side::Soviet ||
         !s.mover.empty()) {
    engine().apply(s, engine().decision(s).side, random_order(engine(), s, choices), dice);
  }
  return s;
}

void BM_CheckAndApplyMove(benchmark::State& state) {
  const GameState start = midgame();
  std::vector<Order> moves;
  for (auto& o : engine().legal_orders(start)) {
    if (o.kind == Order::Kind::Move) moves.push_back(o);
  }
  Prng dice = Prng::from_seed(1);
  size_t i = 0;
  for (auto _ : state) {
    GameState s = start;
    auto out = engine().apply(s, Side::Soviet, moves[i++ % moves.size()], dice);
    benchmark::DoNotOptimize(out.accepted);
  }
  state.SetLabel(std::to_string(moves.size()) + " different moves");
}
BENCHMARK(BM_CheckAndApplyMove);

void BM_RejectIllegalOrder(benchmark::State& state) {
  GameState s = midgame();
  Prng dice = Prng::from_seed(1);
  Order o = Order::of(Order::Kind::Move, {0}, {0});
  for (auto _ : state) benchmark::DoNotOptimize(engine().apply(s, Side::German, o, dice).accepted);
}
BENCHMARK(BM_RejectIllegalOrder);

void BM_LegalOrders(benchmark::State& state) {
  const GameState s = midgame();
  size_t n = 0;
  for (auto _ : state) {
    auto orders = engine().legal_orders(s);
    n = orders.size();
    benchmark::DoNotOptimize(orders.data());
  }
  state.SetLabel(std::to_string(n) + " orders");
}
BENCHMARK(BM_LegalOrders)->Unit(benchmark::kMicrosecond);

void BM_ReachableHexesOfOneUnit(benchmark::State& state) {
  const GameState s = midgame();
  std::int16_t unit = 0;
  for (size_t u = 0; u < s.units.size(); ++u) {
    if (engine().unit_active(s, static_cast<int>(u))) unit = static_cast<std::int16_t>(u);
  }
  for (auto _ : state) benchmark::DoNotOptimize(engine().destinations(s, {unit}).size());
}
BENCHMARK(BM_ReachableHexesOfOneUnit)->Unit(benchmark::kMicrosecond);

void BM_View(benchmark::State& state) {
  const GameState s = midgame();
  const Viewer v = static_cast<Viewer>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(engine().view(s, v).ByteSizeLong());
}
BENCHMARK(BM_View)->Arg(0)->Arg(2)->Unit(benchmark::kMicrosecond);

// What the server does for each viewer on each order: the new view and its delta.
void BM_ViewAndDelta(benchmark::State& state) {
  GameState s = midgame();
  const game::View before = engine().view(s, Viewer::German);
  Prng dice = Prng::from_seed(3), choices = Prng::from_seed(4);
  engine().apply(s, engine().decision(s).side, random_order(engine(), s, choices), dice);
  for (auto _ : state) {
    const game::View after = engine().view(s, Viewer::German);
    benchmark::DoNotOptimize(diff_views(before, after).ByteSizeLong());
  }
}
BENCHMARK(BM_ViewAndDelta)->Unit(benchmark::kMicrosecond);

// The same as the server does it: views as plain values, compared directly.
void BM_ViewModelAndDelta(benchmark::State& state) {
  GameState s = midgame();
  const ViewModel before = engine().view_model(s, Viewer::German);
  Prng dice = Prng::from_seed(3), choices = Prng::from_seed(4);
  engine().apply(s, engine().decision(s).side, random_order(engine(), s, choices), dice);
  for (auto _ : state) {
    const ViewModel after = engine().view_model(s, Viewer::German);
    benchmark::DoNotOptimize(engine().delta(before, after).ByteSizeLong());
  }
}
BENCHMARK(BM_ViewModelAndDelta)->Unit(benchmark::kMicrosecond);

void BM_Decision(benchmark::State& state) {
  const GameState s = midgame();
  for (auto _ : state) benchmark::DoNotOptimize(engine().decision(s).candidates.size());
}
BENCHMARK(BM_Decision);

void BM_VictoryPoints(benchmark::State& state) {
  const GameState s = midgame();
  for (auto _ : state) benchmark::DoNotOptimize(engine().victory_points(s, Side::Soviet));
}
BENCHMARK(BM_VictoryPoints);

void BM_SupplyTrace(benchmark::State& state) {
  const GameState s = midgame();
  for (auto _ : state) benchmark::DoNotOptimize(engine().units_in_supply(s, Side::Soviet).size());
}
BENCHMARK(BM_SupplyTrace)->Unit(benchmark::kMicrosecond);

void BM_StateHash(benchmark::State& state) {
  const GameState s = midgame();
  for (auto _ : state) benchmark::DoNotOptimize(state_hash(s));
}
BENCHMARK(BM_StateHash);

// A coordinated combat from declaration to its end: odds, die, losses, retreat, advance.
void BM_CombatResolution(benchmark::State& state) {
  Prng dice = Prng::from_seed(77), choices = Prng::from_seed(78);
  GameState s = engine().new_game(0, dice);
  Order attack;
  bool found = false;
  for (int i = 0; i < 200000 && !found && s.step != Step::GameOver; ++i) {
    if (engine().decision(s).kind == game::Decision::COMBAT) {
      for (auto& o : engine().legal_orders(s)) {
        if (o.kind == Order::Kind::Attack) {
          attack = o;
          found = true;
          break;
        }
      }
      if (found) break;
    }
    engine().apply(s, engine().decision(s).side, random_order(engine(), s, choices), dice);
  }
  if (!found) {
    state.SkipWithError("no attack found");
    return;
  }
  const GameState start = s;
  const Side attacker = start.phase_side();
  for (auto _ : state) {
    GameState g = start;
    engine().apply(g, attacker, attack, dice);
    while (g.combat.stage != CombatStage::None) {
      auto answers = engine().legal_orders(g);
      engine().apply(g, engine().decision(g).side, answers.back(), dice);
    }
    benchmark::DoNotOptimize(g.units.data());
  }
}
BENCHMARK(BM_CombatResolution)->Unit(benchmark::kMicrosecond);

void BM_RandomCompleteGame(benchmark::State& state) {
  std::uint64_t seed = 1;
  for (auto _ : state) {
    Prng dice = Prng::from_seed(seed), choices = Prng::from_seed(seed++ + 99);
    GameState s = engine().new_game(0, dice);
    while (s.step != Step::GameOver) engine().apply(s, engine().decision(s).side, random_order(engine(), s, choices), dice);
    benchmark::DoNotOptimize(s.result);
  }
}
BENCHMARK(BM_RandomCompleteGame)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace counterattack

BENCHMARK_MAIN();
