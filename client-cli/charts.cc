#include "charts.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "notation.h"
#include "render.h"

namespace counterattack::cli {
namespace {

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }

std::string signed_number(int n) { return (n > 0 ? "+" : "") + std::to_string(n); }

const char* class_name(UnitClass c) {
  switch (c) {
    case UnitClass::Armor: return "armor";
    case UnitClass::Mechanized: return "mechanized";
    case UnitClass::Motorized: return "motorized";
    case UnitClass::Infantry: return "infantry";
    case UnitClass::Cavalry: return "cavalry";
    case UnitClass::Recon: return "recon";
    case UnitClass::AntiTank: return "antitank";
    case UnitClass::Engineer: return "engineer";
    case UnitClass::ArmoredTrain: return "armored train";
  }
  return "?";
}

// A rule constant as the scenario states it, or the rulebook's value when it leaves it out.
int rule(int value, int fallback) { return value > 0 ? value : fallback; }

const char* kReconstructed = "Reconstructed from the rulebook: the printed chart is not in the rules text.\n";

std::string crt(const Scenario& sc) {
  std::string out = "Combat Results Table (rule 9): odds column, then the modified die roll.\n";
  const size_t w = 8;
  out += pad("roll", 6);
  for (const auto& c : sc.crt_columns) out += pad(c, w);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
  for (size_t r = 0; r < sc.crt.size(); ++r) {
    const int roll = sc.crt_min_roll + static_cast<int>(r);
    std::string label = std::to_string(roll);
    if (r == 0) label += "-";
    if (r + 1 == sc.crt.size()) label += "+";
    out += pad(label, 6);
    for (const auto& cell : sc.crt[r]) out += pad(cell.text, w);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  out += "A: steps the attacker loses; D: steps the defender loses; rN: the defender retreats N hexes;\n"
         "*: no elastic defense; -: no effect. Odds below the first column use it, above the last use it.\n"
         "Terrain shifts columns toward the defender and its modifiers come off the roll (`chart terrain`);\n"
         "modifiers add up to at most " + std::to_string(rule(sc.rules.max_modifier(), 6)) + " either way (rule 9).\n";
  return out + kReconstructed;
}

std::string barrage(const Scenario& sc) {
  std::string out = "Barrage Fire Table (rule 10): the modified die roll.\n";
  for (size_t r = 0; r < sc.barrage.size(); ++r) {
    std::string label = std::to_string(sc.barrage_min_roll + static_cast<int>(r));
    if (r == 0) label += "-";
    if (r + 1 == sc.barrage.size()) label += "+";
    out += "  " + pad(label, 4) + sc.barrage[r] + "\n";
  }
  out += "L: one step lost by a unit its owner chooses; DIS: one unit disorganized; -: no effect.\n"
         "The defender's terrain comes off the roll (`chart terrain`).\n";
  return out + kReconstructed;
}

// A chart's short name: the scenario's full one up to its explanation ("Woods (forest)": "Woods").
std::string short_name(const std::string& name) { return name.substr(0, std::min(name.find(" ("), name.find(':'))); }

std::string columns_left(int shift) {
  return shift ? std::to_string(shift) + " left" : "-";
}

std::string terrain(const Scenario& sc) {
  std::string out = "Terrain Effects Chart (rules 6, 9, 10): MP to enter; CRT columns toward the defender; what comes off\n"
                    "the combat roll and the barrage roll against a unit there.\n";
  out += pad("terrain", 14) + pad("MP", 6) + pad("columns", 9) + pad("combat", 8) + "barrage\n";
  for (const auto& t : sc.terrain) {
    out += pad(std::string(1, t.symbol) + " " + short_name(t.name), 14) + pad(t.prohibited ? "no" : mp_text(t.move_cost_half), 6) +
           pad(columns_left(t.combat_shift), 9) + pad(t.defense_drm ? "-" + std::to_string(t.defense_drm) : "-", 8) +
           (t.barrage_drm ? "-" + std::to_string(t.barrage_drm) : "-") + "\n";
  }
  out += "Hexsides:\n";
  for (const auto& h : sc.hexside_types) {
    out += "  " + pad(short_name(h.name), 12) +
           (h.prohibited ? std::string("never crossed")
                         : "+" + mp_text(h.move_cost_half) + " MP" + (h.negated_by_road ? " (none along a road)" : "")) +
           (h.combat_shift ? "; an attack across it: " + columns_left(h.combat_shift) : "") + "\n";
  }
  out += "Roads (a unit coming along the same road pays this instead of the terrain):\n";
  for (const auto& r : sc.road_types) out += "  " + pad(short_name(r.name), 12) + mp_text(r.move_cost_half) + " MP a hex\n";
  out += "Entering an enemy ZOC costs +" + mp_text(rule(sc.rules.zoc_cost_half(), 2)) + " MP (rule 6).\n";
  return out + kReconstructed;
}

std::string calendar(const Scenario& sc) {
  std::string out = "Reinforcements Calendar (rule 17): each turn's arrivals and where they enter.\n";
  for (const auto& r : sc.reinforcements) {
    std::string names;
    for (int u : r.units) names += (names.empty() ? "" : ", ") + sc.units[static_cast<size_t>(u)].id;
    out += "  Turn " + std::to_string(r.turn) + " (" + sc.turn_date(r.turn) + "), " + sc.location_name(r.entry) + ": " + names + "\n";
  }
  out += "FM Model arrives on turn " + std::to_string(sc.model_arrival_turn) + " (rule 12).\n";
  return out + kReconstructed;
}

std::string off_map(const Scenario& sc) {
  std::string out = "Off-map movement (rule 6): MP from one German entry point (or Warsaw) to another.\n";
  const size_t n = sc.off_map_cost.size();
  auto node = [&](size_t i) { return i + 1 == n ? std::string("WARSAW") : sc.location_name(sc.entry_loc(static_cast<int>(i))); };
  for (size_t a = 0; a < n; ++a) {
    std::string to;
    for (size_t b = 0; b < n; ++b) {
      if (sc.off_map_cost[a][b] >= 0) to += (to.empty() ? "" : ", ") + node(b) + " " + mp_text(sc.off_map_cost[a][b]);
    }
    if (!to.empty()) out += "  from " + pad(node(a), 7) + "to " + to + "\n";
  }
  out += "A unit short of the MP may not make the move; the Praga bridges cost " +
         (sc.praga_bridges.empty() ? std::string("3") : mp_text(sc.praga_bridges[0].cost_half)) + " MP (rule 6).\n";
  return out + kReconstructed;
}

std::string uprising(const Scenario& sc) {
  std::string out = "Warsaw Uprising track (rule 18): the modified die roll each administrative phase once it rises.\n";
  for (size_t i = 0; i < sc.uprising_boxes.size(); ++i) {
    const auto& b = sc.uprising_boxes[i];
    out += "  " + pad(std::to_string(b.roll) + (i + 1 == sc.uprising_boxes.size() ? "+" : ""), 4) + b.label + "\n";
  }
  out += "Every " + std::to_string(sc.uprising_units_per_drm) + " German units that suppress it take 1 off the roll.\n";
  return out + kReconstructed;
}

std::string magnuszew(const Scenario& sc) {
  std::string out = "Magnuszew track (rule 19): what the German sends from Warsaw in each turn's administrative phase.\n";
  for (const auto& [turn, need] : sc.magnuszew) {
    out += "  Turn " + std::to_string(turn) + " (" + sc.turn_date(turn) + "): " + sc.magnuszew_words(turn, WithdrawalWords::Chart) + "\n";
  }
  out += "Each turn it is not met gives the Soviet player 1 VP.\n";
  return out + kReconstructed;
}

std::string events(const Scenario& sc) {
  std::string out = "Event chits (rule 20), each side's cup.\n";
  for (Side side : {Side::Soviet, Side::German}) {
    out += std::string(side_name(side)) + ":\n";
    for (const auto& e : sc.events) {
      if (e.side == side) out += "  " + e.id + " - " + e.name + ": " + e.text + "\n";
    }
  }
  return out;
}

using Chart = std::string (*)(const Scenario&);

const std::map<std::string, Chart>& charts() {
  static const std::map<std::string, Chart> all = {
      {"crt", crt},           {"barrage", barrage},     {"terrain", terrain},     {"calendar", calendar},
      {"offmap", off_map},    {"uprising", uprising},   {"magnuszew", magnuszew}, {"events", events},
  };
  return all;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& chart_names() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"crt", "the Combat Results Table"},
      {"barrage", "the Barrage Fire Table"},
      {"terrain", "the Terrain Effects Chart: movement, column shifts, modifiers"},
      {"calendar", "the Reinforcements Calendar"},
      {"offmap", "off-map movement between entry points"},
      {"uprising", "the Warsaw Uprising track"},
      {"magnuszew", "the Magnuszew track"},
      {"events", "every event chit of both cups"},
  };
  return names;
}

std::string chart_list() {
  std::string out = "Charts (chart NAME):\n";
  for (const auto& [name, what] : chart_names()) out += "  " + pad(name, 11) + what + "\n";
  return out + "A counter's values: unit UNIT (e.g. unit 19Pz/I-27).\n";
}

std::optional<std::string> render_chart(const Scenario& sc, const std::string& name) {
  const auto it = charts().find(lower(name));
  if (it == charts().end()) return std::nullopt;
  return it->second(sc);
}

std::optional<std::string> render_unit_card(const Scenario& sc, const std::string& unit) {
  const auto found = std::find_if(sc.units.begin(), sc.units.end(), [&](const UnitDef& d) { return lower(d.id) == lower(unit); });
  if (found == sc.units.end()) return std::nullopt;
  const UnitDef& d = *found;
  const int index = static_cast<int>(found - sc.units.begin());
  const Formation& f = sc.formations[static_cast<size_t>(d.formation)];
  std::string out = d.id + " - " + d.name + (d.size.empty() ? "" : " (" + d.size + ")") + ", " + side_name(d.side) + "\n";
  out += "  Formation: " + f.id + (f.name.empty() || f.name == f.id ? "" : " (" + f.name + ")") +
         (f.kind == data::CORPS ? ", a corps" : f.kind == data::INDEPENDENT ? ", independent" : "") +
         (f.armored_division ? ", an armored division" : "") + "\n";
  out += std::string("  Class: ") + class_name(d.unit_class) + "\n";
  for (size_t i = 0; i < d.steps.size(); ++i) {
    const auto& s = d.steps[i];
    out += std::string("  ") + (i == 0 ? "Full" : i == 1 ? "Reduced" : "Step " + std::to_string(i + 1)) + ": " +
           std::to_string(s.combat) + "-" + std::to_string(s.movement) + " (combat " + std::to_string(s.combat) +
           ", movement " + std::to_string(s.movement) + ")";
    if (s.attack_bonus) out += ", attack bonus " + signed_number(s.attack_bonus);
    if (s.defense_bonus) out += ", defense bonus " + signed_number(s.defense_bonus);
    out += "\n";
  }
  out += "  Steps: " + std::to_string(d.steps.size()) + "\n";
  for (const auto& [u, at] : sc.setup) {
    if (u == index) out += "  Sets up at " + sc.location_name(at) + "\n";
  }
  for (const auto& r : sc.reinforcements) {
    if (std::find(r.units.begin(), r.units.end(), index) != r.units.end()) {
      out += "  Arrives on turn " + std::to_string(r.turn) + " (" + sc.turn_date(r.turn) + ") at " + sc.location_name(r.entry) + "\n";
    }
  }
  const int movement = d.steps.empty() ? 0 : d.steps[0].movement;
  if (d.unit_class == UnitClass::ArmoredTrain) {
    out += "  Moves along railways without limit, has no ZOC, and may break contact (rule 13).\n";
  } else {
    std::vector<std::string> may;
    if (movement >= rule(sc.rules.overrun_min_movement(), 9)) may.push_back("overrun (rule 9)");
    if (movement >= rule(sc.rules.break_contact_min_movement(), 9)) {
      if (d.side == Side::German || d.unit_class == UnitClass::Recon) {
        may.push_back("break contact (rule 6)");
      } else {
        may.push_back("break contact with Red Army Flexibility (optional, rule 6)");
      }
    }
    if (!may.empty()) {
      out += "  With its full movement it may ";
      for (size_t i = 0; i < may.size(); ++i) out += (i == 0 ? "" : i + 1 == may.size() ? " and " : ", ") + may[i];
      out += ".\n";
    }
  }
  return out;
}

}  // namespace counterattack::cli
