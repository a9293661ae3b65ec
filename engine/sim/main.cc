// counterattack-sim: plays random complete games and checks the engine's
// invariants; describes the scenario data.
#include <sodium.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "playout.h"

using namespace counterattack;

namespace {

std::shared_ptr<const Scenario> load(const std::string& dir) {
  auto r = dir.empty() ? load_builtin_scenario("counterattack") : load_scenario_dir(dir);
  if (!r.ok()) {
    for (const auto& e : r.errors) std::cerr << e.to_string() << "\n";
    std::exit(2);
  }
  return r.scenario;
}

std::uint32_t parse_options(const std::vector<std::string>& names) {
  std::uint32_t bits = 0;
  for (const auto& n : names) {
    if (const auto bit = option_bit(n)) bits |= bit;
    else if (n == "all") bits |= kLimitedGermanActivation | kRedArmyFlexibility | kLimitedBonus | kRedArmyElasticDefense;
    else {
      std::cerr << "unknown optional rule: " << n << "\n";
      std::exit(2);
    }
  }
  return bits;
}

int playout(const Scenario&, std::shared_ptr<const Scenario> sc, int games, std::uint64_t seed,
            const std::vector<std::string>& options, int revision, int view_every, bool mixed, bool require_coverage) {
  Engine engine(sc);
  PlayoutOptions opt;
  opt.seed = seed;
  opt.options = parse_options(options);
  opt.revision = revision;
  opt.view_check_every = view_every;
  PlayoutStats stats;
  const auto t0 = std::chrono::steady_clock::now();
  for (int g = 0; g < games; ++g) {
    PlayoutOptions one = opt;
    // With --mixed-options every game draws its own set of optional rules.
    if (mixed) one.options = static_cast<std::uint32_t>((seed + static_cast<std::uint64_t>(g)) * 2654435761u) & 0xF;
    play_one(engine, seed * 1000003ull + static_cast<std::uint64_t>(g), one, stats);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& v : stats.violations) std::cerr << "violation: " << v << "\n";
  nlohmann::ordered_json j;
  j["games"] = stats.games;
  j["completed"] = stats.completed;
  j["orders"] = stats.orders;
  j["seconds"] = seconds;
  j["games_per_second"] = seconds > 0 ? stats.games / seconds : 0.0;
  j["orders_per_second"] = seconds > 0 ? static_cast<double>(stats.orders) / seconds : 0.0;
  j["soviet_wins"] = stats.soviet_wins;
  j["german_wins"] = stats.german_wins;
  j["draws"] = stats.draws;
  j["invariant_violations"] = stats.invariant_violations;
  j["moves"] = stats.moves;
  j["break_contacts"] = stats.break_contacts;
  j["events_played"] = stats.events_played;
  j["recoveries"] = stats.recoveries;
  j["takebacks"] = stats.takebacks;
  j["standing_answers"] = stats.standing_answers;
  j["combats"] = stats.combats;
  j["overruns"] = stats.overruns;
  j["barrages"] = stats.barrages;
  j["retreats"] = stats.retreats;
  j["advances"] = stats.advances;
  j["steps_lost"] = stats.steps_lost;
  auto columns = nlohmann::ordered_json::object();
  for (const auto& c : sc->crt_columns) columns[c] = stats.crt_columns.count(c) ? stats.crt_columns.at(c) : 0;
  j["crt_columns"] = columns;
  auto chits = nlohmann::ordered_json::object();
  for (const auto& e : sc->events) chits[e.id] = stats.chits_played.count(e.id) ? stats.chits_played.at(e.id) : 0;
  j["chits_played"] = chits;
  std::cout << j.dump() << std::endl;
  bool covered = true;
  if (require_coverage) {
    // Every combat mechanism and every CRT column must have come up.
    for (long n : {stats.combats, stats.overruns, stats.barrages, stats.retreats, stats.advances, stats.steps_lost}) covered &= n > 0;
    for (const auto& c : sc->crt_columns) covered &= stats.crt_columns.count(c) && stats.crt_columns.at(c) > 0;
    if (!covered) std::cerr << "coverage: some combat mechanism or CRT column never came up\n";
  }
  return stats.invariant_violations == 0 && stats.completed == stats.games && covered ? 0 : 1;
}

int scenario_info(const Scenario& sc) {
  int soviet = 0, german = 0;
  for (const auto& u : sc.units) (u.side == Side::Soviet ? soviet : german)++;
  nlohmann::ordered_json j;
  j["scenario"] = sc.id;
  j["name"] = sc.name;
  j["hexes"] = sc.hex_count();
  j["columns"] = sc.columns;
  j["rows"] = sc.rows;
  j["units_soviet"] = soviet;
  j["units_german"] = german;
  j["formations"] = sc.formations.size();
  j["artillery"] = sc.artillery.size();
  j["stukas"] = sc.stukas.size();
  j["events"] = sc.events.size();
  j["turns"] = sc.rules.turns();
  auto vh = nlohmann::ordered_json::array();
  for (const auto& v : sc.victory) {
    for (Loc h : v.hexes) vh.push_back({{"hex", sc.location_name(h)}, {"name", v.name}, {"value", v.points_per_hex}});
  }
  j["victory_hexes"] = vh;
  auto ep = nlohmann::ordered_json::array();
  for (const auto& e : sc.entry_points) {
    auto hexes = nlohmann::ordered_json::array();
    for (Loc h : e.hexes) hexes.push_back(sc.location_name(h));
    ep.push_back({{"id", e.id}, {"side", side_name(e.side)}, {"name", e.name}, {"hexes", hexes}, {"supply_source", e.supply_source}});
  }
  j["entry_points"] = ep;
  auto routes = nlohmann::ordered_json::array();
  for (size_t a = 0; a < sc.off_map_cost.size(); ++a) {
    for (size_t b = 0; b < sc.off_map_cost.size(); ++b) {
      const int c = sc.off_map_cost[a][b];
      if (c < 0) continue;
      auto name = [&](size_t n) { return n == sc.entry_points.size() ? std::string("WARSAW") : sc.entry_points[n].id; };
      routes.push_back({{"from", name(a)}, {"to", name(b)}, {"mp", c / 2.0}});
    }
  }
  j["off_map_routes"] = routes;
  auto prov = nlohmann::ordered_json::object();
  for (const auto& [table, p] : sc.provenance) prov[table] = p.why();
  j["provenance_tables"] = prov;
  std::cout << j.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) {  // the dice of revision 2 are ChaCha20's
    std::cerr << "libsodium cannot initialise\n";
    return 1;
  }
  CLI::App app{"counterattack-sim: random playouts and checks of the Model's Counterattack engine"};
  app.require_subcommand(1);
  std::string dir;
  app.add_option("--scenario-dir", dir, "Load scenario data from this directory instead of the built-in copy");

  auto* play = app.add_subcommand("playout", "Play random complete games, checking invariants after every order");
  int games = 100;
  std::uint64_t seed = 1;
  int view_every = 25;
  int revision = kLatestRevision;
  bool mixed = false;
  bool coverage = false;
  std::vector<std::string> options;
  play->add_option("--games", games, "Number of games")->check(CLI::Range(1, 10000000));
  play->add_option("--seed", seed, "Seed of the first game");
  play->add_option("--option", options, "Optional rule to play with (repeatable; 'all' for every one)");
  play->add_option("--revision", revision, "Revision of the rules (1: games begun before revision 2; 2: xoshiro256** dice replaced by ChaCha20's, support asked whenever the defender holds a chit; 3: a Soviet phase checks the supply of its whole corps, chits go only on the classes they name, Surprise Attack at a phase's start; 4: the die line names each modifier, texts built from counts agree in number; 5: stacks split in motion, off-map reserves enter where they wait, turns dated; 6: who stands fast reads it of their own units, the first activation phase named, barrage and strength lines give their reasons, Kessel refused without Red Army elastic defense)")
      ->check(CLI::Range(1, kLatestRevision));
  play->add_flag("--mixed-options", mixed, "Each game plays with its own random set of optional rules");
  play->add_option("--view-check-every", view_every, "Orders between hidden-information checks (0: never)");
  play->add_flag("--require-coverage", coverage, "Fail unless every combat mechanism and CRT column came up");

  auto* info = app.add_subcommand("scenario-info", "Describe the scenario data as JSON");

  CLI11_PARSE(app, argc, argv);
  auto sc = load(dir);
  if (*play) return playout(*sc, sc, games, seed, options, revision, view_every, mixed, coverage);
  if (*info) return scenario_info(*sc);
  return 1;
}
