// Loads scenario data (protobuf text format) and validates it, naming the file,
// the line and the problem for every error.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "embedded_scenarios.h"
#include "scenario.h"

namespace counterattack {
namespace {

namespace pb = google::protobuf;
using Tree = pb::TextFormat::ParseInfoTree;

class SyntaxErrors : public pb::io::ErrorCollector {
 public:
  SyntaxErrors(std::string file, std::vector<LoadError>& out) : file_(std::move(file)), out_(out) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    out_.push_back({file_, line + 1, "column " + std::to_string(column + 1) + ": " + message});
  }
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    AddError(line, column, message);
  }

 private:
  std::string file_;
  std::vector<LoadError>& out_;
};

// One parsed file with the positions of its fields, for semantic errors.
template <typename Msg>
struct Parsed {
  std::string file;
  Msg msg;
  Tree tree;
};

template <typename Msg>
bool parse_file(const std::map<std::string, std::string>& files, const std::string& name,
                Parsed<Msg>& out, std::vector<LoadError>& errors) {
  out.file = name + ".textproto";
  auto it = files.find(name);
  if (it == files.end()) {
    errors.push_back({out.file, 0, "file is missing"});
    return false;
  }
  SyntaxErrors collector(out.file, errors);
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(&out.tree);
  return parser.ParseFromString(it->second, &out.msg);
}

// Where a field stands in its file: path of (field, index) pairs from the root.
struct At {
  const Tree* tree;
  const pb::Message* msg;

  int line(const char* field, int index = -1) const {
    if (!tree || !msg) return 0;
    const auto* fd = msg->GetDescriptor()->FindFieldByName(field);
    if (!fd) return 0;
    const auto loc = tree->GetLocation(fd, fd->is_repeated() ? std::max(index, 0) : -1);
    return loc.line >= 0 ? loc.line + 1 : 0;
  }
  At nested(const char* field, int index, const pb::Message& child) const {
    if (!tree || !msg) return {nullptr, &child};
    const auto* fd = msg->GetDescriptor()->FindFieldByName(field);
    if (!fd) return {nullptr, &child};
    return {tree->GetTreeForNested(fd, fd->is_repeated() ? index : -1), &child};
  }
};

class Builder {
 public:
  explicit Builder(std::vector<LoadError>& errors) : errors_(errors) {}

  void fail(const std::string& file, int line, std::string message) {
    errors_.push_back({file, line, std::move(message)});
  }

  void provenance(const std::string& table, const data::Provenance& p, const std::string& file,
                  int line) {
    if (p.from_rulebook().empty() || p.reconstructed().empty() || p.why().empty()) {
      fail(file, line,
           "table '" + table + "' needs a provenance with from_rulebook, reconstructed and why");
    }
    sc.provenance[table] = p;
  }

  void info(const Parsed<data::ScenarioInfo>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    sc.id = m.id();
    sc.name = m.name();
    sc.description = m.description();
    sc.first_turn_day = m.first_turn_day();
    sc.rules = m.rules();
    if (m.id().empty()) fail(f.file, at.line("id"), "scenario id is empty");
    const auto& r = m.rules();
    At rat = at.nested("rules", -1, r);
    auto positive = [&](const char* field, int value) {
      if (value <= 0) fail(f.file, rat.line(field), std::string("rule constant ") + field + " must be positive");
    };
    positive("turns", r.turns());
    positive("stacking_limit", r.stacking_limit());
    positive("kampfgruppe_limit", r.kampfgruppe_limit());
    positive("zoc_cost_half", r.zoc_cost_half());
    positive("break_contact_min_movement", r.break_contact_min_movement());
    positive("supply_range", r.supply_range());
    positive("reserve_markers", r.reserve_markers());
    positive("events_per_phase", r.events_per_phase());
    positive("uprising_distance", r.uprising_distance());
    provenance("rules", r.provenance(), f.file, at.line("rules"));
    for (const auto& o : m.optional_rule()) {
      sc.optional_rules.push_back({o.key(), o.name(), o.section(), o.text()});
    }
  }

  void tec(const Parsed<data::TerrainEffects>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    std::set<std::string> keys;
    std::set<char> symbols;
    for (int i = 0; i < m.terrain_size(); ++i) {
      const auto& t = m.terrain(i);
      At tat = at.nested("terrain", i, t);
      if (t.symbol().size() != 1 || t.symbol()[0] == ' ') {
        fail(f.file, tat.line("symbol"), "terrain '" + t.key() + "' needs a one-character symbol other than space");
        continue;
      }
      if (!keys.insert(t.key()).second) fail(f.file, tat.line("key"), "duplicate terrain key '" + t.key() + "'");
      if (!symbols.insert(t.symbol()[0]).second) fail(f.file, tat.line("symbol"), "duplicate terrain symbol '" + t.symbol() + "'");
      if (t.move_cost_half() <= 0 && !t.prohibited()) fail(f.file, tat.line("move_cost_half"), "terrain '" + t.key() + "' needs a positive movement cost");
      sc.terrain.push_back({t.key(), t.name(), t.symbol()[0], t.move_cost_half(), t.prohibited(),
                            t.combat_shift(), t.defense_drm(), t.barrage_drm()});
    }
    if (sc.terrain.empty()) fail(f.file, 0, "no terrain types");
    keys.clear();
    for (int i = 0; i < m.hexside_size(); ++i) {
      const auto& h = m.hexside(i);
      if (!keys.insert(h.key()).second) fail(f.file, at.nested("hexside", i, h).line("key"), "duplicate hexside key '" + h.key() + "'");
      sc.hexside_types.push_back({h.key(), h.name(), h.move_cost_half(), h.prohibited(), h.combat_shift(), h.negated_by_road()});
    }
    keys.clear();
    for (int i = 0; i < m.road_size(); ++i) {
      const auto& r = m.road(i);
      At rat = at.nested("road", i, r);
      if (!keys.insert(r.key()).second) fail(f.file, rat.line("key"), "duplicate road key '" + r.key() + "'");
      if (r.move_cost_half() <= 0) fail(f.file, rat.line("move_cost_half"), "road '" + r.key() + "' needs a positive movement cost");
      sc.road_types.push_back({r.key(), r.name(), r.move_cost_half(), r.railway()});
    }
    if (sc.road_types.size() > 8) fail(f.file, 0, "at most 8 road types");
    provenance("terrain effects", m.provenance(), f.file, at.line("provenance"));
  }

  Loc hex(const std::string& file, int line, int id, const std::string& what) {
    const Loc l = (id > 0) ? sc.hex_by_id(id) : Loc{-1};
    if (l < 0) fail(file, line, what + ": hex " + format_hex(std::max(id, 0)) + " is not on the map");
    return l;
  }

  void map(const Parsed<data::Map>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    sc.columns = m.columns();
    sc.rows = m.rows();
    if (sc.columns <= 0 || sc.columns > 99 || sc.rows <= 0 || sc.rows > 99) {
      fail(f.file, at.line("columns"), "columns and rows must be between 1 and 99");
      return;
    }
    if (m.row_size() != sc.rows) {
      fail(f.file, at.line("rows"), "rows is " + std::to_string(sc.rows) + " but " + std::to_string(m.row_size()) + " row lines are given");
    }
    sc.cell.assign(static_cast<size_t>(sc.columns * sc.rows), -1);
    // Hex indices run column by column so that they are stable and ordered by id.
    for (int c = 1; c <= sc.columns; ++c) {
      for (int r = 1; r <= std::min(sc.rows, m.row_size()); ++r) {
        const std::string& line = m.row(r - 1);
        if (static_cast<int>(line.size()) > sc.columns) {
          if (c == 1) fail(f.file, at.line("row", r - 1), "row " + std::to_string(r) + " is longer than columns");
        }
        const char ch = c <= static_cast<int>(line.size()) ? line[static_cast<size_t>(c - 1)] : ' ';
        if (ch == ' ') continue;
        auto t = std::find_if(sc.terrain.begin(), sc.terrain.end(), [&](const TerrainType& tt) { return tt.symbol == ch; });
        if (t == sc.terrain.end()) {
          fail(f.file, at.line("row", r - 1), std::string("unknown terrain symbol '") + ch + "' at hex " + format_hex(hex_id({c, r})));
          continue;
        }
        Hex h;
        h.id = hex_id({c, r});
        h.terrain = static_cast<std::uint8_t>(t - sc.terrain.begin());
        h.side.fill(kNone);
        sc.cell[static_cast<size_t>((c - 1) * sc.rows + (r - 1))] = static_cast<Loc>(sc.hexes.size());
        sc.hexes.push_back(h);
      }
    }
    for (auto& h : sc.hexes) {
      for (int d = 0; d < kDirs; ++d) h.nb[static_cast<size_t>(d)] = sc.hex_at(neighbour(coord_of(h.id), static_cast<Dir>(d)));
    }
    for (int i = 0; i < m.place_size(); ++i) {
      const auto& p = m.place(i);
      const Loc l = hex(f.file, at.nested("place", i, p).line("hex"), p.hex(), "place '" + p.name() + "'");
      if (l >= 0) sc.hexes[static_cast<size_t>(l)].name = p.name();
    }
    for (int i = 0; i < m.road_size(); ++i) {
      const auto& road = m.road(i);
      At rat = at.nested("road", i, road);
      auto type = std::find_if(sc.road_types.begin(), sc.road_types.end(), [&](const RoadType& rt) { return rt.key == road.type(); });
      if (type == sc.road_types.end()) {
        fail(f.file, rat.line("type"), "road '" + road.name() + "' has unknown type '" + road.type() + "'");
        continue;
      }
      const auto bit = static_cast<std::uint8_t>(1u << (type - sc.road_types.begin()));
      Loc prev = -1;
      for (int k = 0; k < road.hexes_size(); ++k) {
        const Loc l = hex(f.file, rat.line("hexes", k), road.hexes(k), "road '" + road.name() + "'");
        if (l < 0) {
          prev = -1;
          continue;
        }
        auto& h = sc.hexes[static_cast<size_t>(l)];
        h.on_road = true;
        if (type->railway) h.on_railway = true;
        if (prev >= 0) {
          auto d = direction_to(coord_of(sc.hexes[static_cast<size_t>(prev)].id), coord_of(h.id));
          if (!d) {
            fail(f.file, rat.line("hexes", k), "road '" + road.name() + "': hexes " + format_hex(sc.hexes[static_cast<size_t>(prev)].id) + " and " + format_hex(h.id) + " are not adjacent");
          } else {
            sc.hexes[static_cast<size_t>(prev)].roads[static_cast<size_t>(*d)] |= bit;
            h.roads[static_cast<size_t>(opposite(*d))] |= bit;
          }
        }
        prev = l;
      }
    }
    for (int i = 0; i < m.hexside_size(); ++i) {
      const auto& run = m.hexside(i);
      At hat = at.nested("hexside", i, run);
      auto type = std::find_if(sc.hexside_types.begin(), sc.hexside_types.end(), [&](const HexsideType& ht) { return ht.key == run.type(); });
      if (type == sc.hexside_types.end()) {
        fail(f.file, hat.line("type"), "hexside run '" + run.name() + "' has unknown type '" + run.type() + "'");
        continue;
      }
      for (int k = 0; k < run.sides_size(); ++k) {
        const std::string& s = run.sides(k);
        const auto dash = s.find('-');
        std::optional<int> a, b;
        if (dash != std::string::npos) {
          a = parse_hex(s.substr(0, dash));
          b = parse_hex(s.substr(dash + 1));
        }
        if (!a || !b) {
          fail(f.file, hat.line("sides", k), "hexside '" + s + "' is not written CCRR-CCRR");
          continue;
        }
        const Loc la = hex(f.file, hat.line("sides", k), *a, "hexside '" + s + "'");
        const Loc lb = hex(f.file, hat.line("sides", k), *b, "hexside '" + s + "'");
        if (la < 0 || lb < 0) continue;
        auto d = direction_to(coord_of(*a), coord_of(*b));
        if (!d) {
          fail(f.file, hat.line("sides", k), "hexside '" + s + "' joins hexes that are not adjacent");
          continue;
        }
        const auto t = static_cast<std::int8_t>(type - sc.hexside_types.begin());
        sc.hexes[static_cast<size_t>(la)].side[static_cast<size_t>(*d)] = t;
        sc.hexes[static_cast<size_t>(lb)].side[static_cast<size_t>(opposite(*d))] = t;
      }
    }
    // A road meets a hexside that no road bridges (negated_by_road false) and
    // stops there: it joins the hexes on either side no more than if it were not there.
    for (auto& h : sc.hexes) {
      for (int d = 0; d < kDirs; ++d) {
        const auto t = h.side[static_cast<size_t>(d)];
        if (t != kNone && !sc.hexside_types[static_cast<size_t>(t)].negated_by_road) h.roads[static_cast<size_t>(d)] = 0;
      }
    }
    // Warsaw special zone (6)
    const auto& w = m.warsaw();
    At wat = at.nested("warsaw", -1, w);
    for (int i = 0; i < w.praga_bridge_size(); ++i) {
      const auto& b = w.praga_bridge(i);
      At bat = wat.nested("praga_bridge", i, b);
      const Loc l = hex(f.file, bat.line("hex"), b.hex(), "bridge '" + b.name() + "'");
      if (b.cost_half() <= 0) fail(f.file, bat.line("cost_half"), "bridge '" + b.name() + "' needs a positive cost");
      if (l >= 0) {
        sc.hexes[static_cast<size_t>(l)].praga_bridge = static_cast<std::int8_t>(sc.praga_bridges.size());
        sc.praga_bridges.push_back({b.name(), l, b.cost_half()});
      }
    }
    if (sc.praga_bridges.empty()) fail(f.file, at.line("warsaw"), "the Warsaw zone needs its Praga bridges");
    if (w.has_jozefow_bridge()) {
      const auto& b = w.jozefow_bridge();
      const Loc l = hex(f.file, wat.nested("jozefow_bridge", -1, b).line("hex"), b.hex(), "the Józefów bridge");
      if (l >= 0) {
        sc.hexes[static_cast<size_t>(l)].jozefow_bridge = true;
        sc.jozefow = {b.name(), l, b.cost_half()};
      }
    }
    sc.warsaw_supply_source = w.supply_source();
    std::set<std::string> ids;
    for (int i = 0; i < m.entry_point_size(); ++i) {
      const auto& e = m.entry_point(i);
      At eat = at.nested("entry_point", i, e);
      if (e.id().empty() || e.id() == "WARSAW" || parse_hex(e.id()) || !ids.insert(e.id()).second) {
        fail(f.file, eat.line("id"), "entry point id '" + e.id() + "' is empty, reserved or repeated");
      }
      if (e.side() == data::SIDE_UNSPECIFIED) fail(f.file, eat.line("side"), "entry point '" + e.id() + "' needs a side");
      EntryPoint ep{e.id(), e.name(), e.side() == data::SOVIET ? Side::Soviet : Side::German, {}, e.supply_source()};
      for (int k = 0; k < e.hexes_size(); ++k) {
        const Loc l = hex(f.file, eat.line("hexes", k), e.hexes(k), "entry point '" + e.id() + "'");
        if (l >= 0) ep.hexes.push_back(l);
      }
      if (ep.hexes.empty()) fail(f.file, eat.line("id"), "entry point '" + e.id() + "' has no hexes");
      sc.entry_points.push_back(ep);
    }
    const size_t nodes = sc.entry_points.size() + 1;
    sc.off_map_cost.assign(nodes, std::vector<int>(nodes, -1));
    auto node_of = [&](const std::string& id) -> int {
      if (id == "WARSAW") return static_cast<int>(sc.entry_points.size());
      for (size_t i = 0; i < sc.entry_points.size(); ++i) {
        if (sc.entry_points[i].id == id && sc.entry_points[i].side == Side::German) return static_cast<int>(i);
      }
      return -1;
    };
    for (int i = 0; i < m.off_map_route_size(); ++i) {
      const auto& r = m.off_map_route(i);
      At rat = at.nested("off_map_route", i, r);
      const int a = node_of(r.from()), b = node_of(r.to());
      if (a < 0 || b < 0 || a == b) {
        fail(f.file, rat.line("from"), "off-map route " + r.from() + "->" + r.to() + " must join two different German entry points or WARSAW");
        continue;
      }
      if (r.cost_half() <= 0) fail(f.file, rat.line("cost_half"), "off-map route needs a positive cost");
      sc.off_map_cost[static_cast<size_t>(a)][static_cast<size_t>(b)] = r.cost_half();
    }
    for (int i = 0; i < m.victory_size(); ++i) {
      const auto& v = m.victory(i);
      At vat = at.nested("victory", i, v);
      VictoryLocation vl{v.name(), {}, v.points_per_hex()};
      if (v.points_per_hex() <= 0) fail(f.file, vat.line("points_per_hex"), "victory location '" + v.name() + "' needs positive points");
      for (int k = 0; k < v.hexes_size(); ++k) {
        const Loc l = hex(f.file, vat.line("hexes", k), v.hexes(k), "victory location '" + v.name() + "'");
        if (l < 0) continue;
        if (sc.hexes[static_cast<size_t>(l)].victory != kNone) {
          fail(f.file, vat.line("hexes", k), "hex " + format_hex(v.hexes(k)) + " is in two victory locations");
          continue;
        }
        sc.hexes[static_cast<size_t>(l)].victory = static_cast<std::int8_t>(sc.victory.size());
        vl.hexes.push_back(l);
      }
      sc.victory.push_back(vl);
    }
    provenance("map", m.provenance(), f.file, at.line("provenance"));
  }

  void counters(const Parsed<data::Counters>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    std::map<std::string, int> groups;
    for (int i = 0; i < m.formation_size(); ++i) {
      const auto& fm = m.formation(i);
      At fat = at.nested("formation", i, fm);
      if (fm.id().empty() || sc.formation_by_id.count(fm.id())) {
        fail(f.file, fat.line("id"), "formation id '" + fm.id() + "' is empty or repeated");
        continue;
      }
      if (fm.side() == data::SIDE_UNSPECIFIED) fail(f.file, fat.line("side"), "formation '" + fm.id() + "' needs a side");
      if (fm.kind() == data::FORMATION_KIND_UNSPECIFIED) fail(f.file, fat.line("kind"), "formation '" + fm.id() + "' needs a kind");
      const std::string group = fm.activation_group().empty() ? fm.id() : fm.activation_group();
      const int gi = groups.emplace(group, static_cast<int>(groups.size())).first->second;
      sc.formation_by_id[fm.id()] = static_cast<int>(sc.formations.size());
      sc.formations.push_back({fm.id(), fm.name(), fm.side() == data::SOVIET ? Side::Soviet : Side::German,
                               fm.kind(), fm.armored_division(), gi});
    }
    for (int i = 0; i < m.unit_size(); ++i) {
      const auto& u = m.unit(i);
      At uat = at.nested("unit", i, u);
      const bool well_formed = !u.id().empty() && std::all_of(u.id().begin(), u.id().end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '/' || ch == '-' || ch == '.';
      });
      if (!well_formed || sc.unit_by_id.count(u.id())) {
        fail(f.file, uat.line("id"), "unit id '" + u.id() + "' is empty, repeated, or has characters other than letters, digits, '/', '-' and '.'");
        continue;
      }
      if (parse_hex(u.id()) || u.id() == "WARSAW") {
        fail(f.file, uat.line("id"), "unit id '" + u.id() + "' reads like a location");
        continue;
      }
      auto fi = sc.formation_by_id.find(u.formation());
      if (fi == sc.formation_by_id.end()) {
        fail(f.file, uat.line("formation"), "unit '" + u.id() + "' names unknown formation '" + u.formation() + "'");
        continue;
      }
      const Side side = u.side() == data::SOVIET ? Side::Soviet : Side::German;
      if (u.side() == data::SIDE_UNSPECIFIED || side != sc.formations[static_cast<size_t>(fi->second)].side) {
        fail(f.file, uat.line("side"), "unit '" + u.id() + "' must have the side of its formation");
      }
      if (u.unit_class() == data::UNIT_CLASS_UNSPECIFIED) fail(f.file, uat.line("unit_class"), "unit '" + u.id() + "' needs a unit_class");
      if (u.step_size() < 1) fail(f.file, uat.line("id"), "unit '" + u.id() + "' needs at least one step");
      UnitDef def{u.id(), u.name(), u.size(), side, fi->second,
                  static_cast<UnitClass>(std::max(0, static_cast<int>(u.unit_class()) - 1)), {}};
      for (int k = 0; k < u.step_size(); ++k) {
        const auto& s = u.step(k);
        if (s.combat() < 0 || s.movement() <= 0) fail(f.file, uat.line("step", k), "unit '" + u.id() + "' step " + std::to_string(k + 1) + " needs combat >= 0 and movement > 0");
        def.steps.push_back({s.combat(), s.movement(), s.attack_bonus(), s.defense_bonus()});
      }
      sc.unit_by_id[u.id()] = static_cast<int>(sc.units.size());
      sc.units.push_back(std::move(def));
    }
    if (sc.units.size() > 4000) fail(f.file, 0, "too many units");
    for (int i = 0; i < m.artillery_size(); ++i) {
      const auto& a = m.artillery(i);
      At aat = at.nested("artillery", i, a);
      auto fi = sc.formation_by_id.find(a.formation());
      if (fi == sc.formation_by_id.end()) {
        fail(f.file, aat.line("formation"), "artillery '" + a.id() + "' names unknown formation '" + a.formation() + "'");
        continue;
      }
      if (a.range() <= 0) fail(f.file, aat.line("range"), "artillery '" + a.id() + "' needs a positive range");
      sc.artillery.push_back({a.id(), fi->second, a.range(), std::max(1, a.arrival_turn())});
    }
    for (const auto& s : m.stuka()) sc.stukas.push_back({s.id(), std::max(1, s.arrival_turn())});
    provenance("counters", m.provenance(), f.file, at.line("provenance"));
  }

  Loc location(const std::string& file, int line, const std::string& text, const std::string& what) {
    auto l = sc.parse_location(text);
    if (!l) fail(file, line, what + ": unknown location '" + text + "'");
    return l.value_or(-1);
  }

  void calendar(const Parsed<data::Calendar>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    std::vector<int> seen(sc.units.size(), 0);
    auto unit = [&](const std::string& id, int line) -> int {
      auto u = sc.unit_index(id);
      if (!u) {
        fail(f.file, line, "unknown unit '" + id + "'");
        return -1;
      }
      if (seen[static_cast<size_t>(*u)]++) fail(f.file, line, "unit '" + id + "' appears twice in the calendar");
      return *u;
    };
    for (int i = 0; i < m.setup_size(); ++i) {
      const auto& p = m.setup(i);
      At pat = at.nested("setup", i, p);
      const int u = unit(p.unit(), pat.line("unit"));
      const Loc l = p.in_warsaw() ? sc.warsaw() : hex(f.file, pat.line("hex"), p.hex(), "setup of '" + p.unit() + "'");
      if (u >= 0 && l >= 0) sc.setup.emplace_back(u, l);
    }
    for (int i = 0; i < m.reinforcement_size(); ++i) {
      const auto& r = m.reinforcement(i);
      At rat = at.nested("reinforcement", i, r);
      const int turns = sc.rules.turns() > 0 ? sc.rules.turns() : 99;
      if (r.turn() < 1 || r.turn() > turns) fail(f.file, rat.line("turn"), "reinforcement turn " + std::to_string(r.turn()) + " is outside the game");
      const Loc l = location(f.file, rat.line("entry_point"), r.entry_point(), "reinforcement");
      if (l >= 0 && !sc.is_entry(l) && l != sc.warsaw()) fail(f.file, rat.line("entry_point"), "reinforcements arrive at an entry point or WARSAW, not '" + r.entry_point() + "'");
      Reinforcement rf{r.turn(), l, {}};
      for (int k = 0; k < r.unit_size(); ++k) {
        const int u = unit(r.unit(k), rat.line("unit", k));
        if (u < 0) continue;
        if (l >= 0 && sc.is_entry(l) && sc.entry_points[static_cast<size_t>(sc.entry_index(l))].side != sc.units[static_cast<size_t>(u)].side) {
          fail(f.file, rat.line("unit", k), "unit '" + r.unit(k) + "' arrives at an entry point of the other side");
        }
        if (l == sc.warsaw() && sc.units[static_cast<size_t>(u)].side != Side::German) {
          fail(f.file, rat.line("unit", k), "only German units arrive in Warsaw");
        }
        rf.units.push_back(u);
      }
      sc.reinforcements.push_back(std::move(rf));
    }
    for (size_t u = 0; u < seen.size(); ++u) {
      if (!seen[u]) fail(f.file, 0, "unit '" + sc.units[u].id + "' is neither set up nor a reinforcement");
    }
    sc.model_arrival_turn = std::max(1, m.model_arrival_turn());
    provenance("calendar", m.provenance(), f.file, at.line("provenance"));
  }

  void tracks(const Parsed<data::Tracks>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    const auto& u = m.uprising();
    At uat = at.nested("uprising", -1, u);
    sc.uprising_units_per_drm = u.units_per_drm();
    if (u.units_per_drm() <= 0) fail(f.file, uat.line("units_per_drm"), "units_per_drm must be positive");
    for (int i = 0; i < u.box_size(); ++i) {
      const auto& b = u.box(i);
      if (b.effect() == data::UPRISING_EFFECT_UNSPECIFIED) fail(f.file, uat.nested("box", i, b).line("effect"), "uprising box needs an effect");
      if (i > 0 && b.roll() != u.box(i - 1).roll() + 1) fail(f.file, uat.nested("box", i, b).line("roll"), "uprising boxes must list consecutive rolls");
      sc.uprising_boxes.push_back({b.roll(), b.effect(), b.amount(), b.label()});
    }
    if (sc.uprising_boxes.empty()) fail(f.file, at.line("uprising"), "the Warsaw Uprising track has no boxes");
    provenance("uprising track", u.provenance(), f.file, at.line("uprising"));
    const auto& g = m.magnuszew();
    At gat = at.nested("magnuszew", -1, g);
    for (int i = 0; i < g.turn_size(); ++i) {
      const auto& t = g.turn(i);
      std::vector<data::WithdrawalType> types;
      for (int w : t.withdraw()) types.push_back(static_cast<data::WithdrawalType>(w));
      for (auto w : types) {
        if (w == data::WITHDRAWAL_TYPE_UNSPECIFIED) fail(f.file, gat.nested("turn", i, t).line("withdraw"), "Magnuszew withdrawal needs a type");
      }
      sc.magnuszew[t.turn()] = types;
    }
    provenance("magnuszew track", g.provenance(), f.file, at.line("magnuszew"));
  }

  void events(const Parsed<data::Events>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    for (int i = 0; i < m.chit_size(); ++i) {
      const auto& c = m.chit(i);
      At cat = at.nested("chit", i, c);
      if (c.id().empty() || sc.event_by_id.count(c.id())) {
        fail(f.file, cat.line("id"), "event id '" + c.id() + "' is empty or repeated");
        continue;
      }
      if (c.side() == data::SIDE_UNSPECIFIED) fail(f.file, cat.line("side"), "event '" + c.id() + "' needs a side");
      if (c.effect() == data::EVENT_EFFECT_UNSPECIFIED) fail(f.file, cat.line("effect"), "event '" + c.id() + "' needs an effect");
      std::vector<UnitClass> classes;
      for (int k : c.unit_class()) {
        if (k == data::UNIT_CLASS_UNSPECIFIED) fail(f.file, cat.line("unit_class"), "event '" + c.id() + "' names an unspecified unit_class");
        classes.push_back(static_cast<UnitClass>(std::max(0, k - 1)));
      }
      sc.event_by_id[c.id()] = static_cast<int>(sc.events.size());
      sc.events.push_back({c.id(), c.name(), c.text(), c.side() == data::SOVIET ? Side::Soviet : Side::German,
                           c.effect(), c.amount(), c.stays_in_play(), std::move(classes)});
    }
    if (sc.events.size() > 200) fail(f.file, 0, "too many event chits");
    provenance("events", m.provenance(), f.file, at.line("provenance"));
  }

  static std::optional<CombatResult> parse_result(std::string text) {
    CombatResult r;
    r.text = text;
    if (!text.empty() && text.back() == '*') {
      r.yellow = true;
      text.pop_back();
    }
    if (text == "-") return r;
    size_t i = 0;
    auto number = [&](int& out) {
      if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
      out = text[i++] - '0';
      return true;
    };
    if (i < text.size() && text[i] == 'A') {
      ++i;
      if (!number(r.attacker_steps)) return std::nullopt;
    }
    if (i < text.size() && text[i] == 'D') {
      ++i;
      if (!number(r.defender_steps)) return std::nullopt;
    }
    if (i < text.size() && text[i] == 'r') {
      ++i;
      if (!number(r.retreat)) return std::nullopt;
    }
    if (i != text.size() || (r.attacker_steps == 0 && r.defender_steps == 0 && r.retreat == 0)) return std::nullopt;
    return r;
  }

  void charts(const Parsed<data::Charts>& f) {
    const auto& m = f.msg;
    At at{&f.tree, &m};
    const auto& crt = m.crt();
    At cat = at.nested("crt", -1, crt);
    sc.crt_columns.assign(crt.column().begin(), crt.column().end());
    for (int i = 0; i < crt.row_size(); ++i) {
      const auto& row = crt.row(i);
      At rat = cat.nested("row", i, row);
      if (i == 0) sc.crt_min_roll = row.roll();
      if (row.roll() != sc.crt_min_roll + i) fail(f.file, rat.line("roll"), "CRT rows must list consecutive rolls");
      if (row.result_size() != crt.column_size()) fail(f.file, rat.line("roll"), "CRT row for roll " + std::to_string(row.roll()) + " needs one result per column");
      std::vector<CombatResult> results;
      for (int k = 0; k < row.result_size(); ++k) {
        auto r = parse_result(row.result(k));
        if (!r) fail(f.file, rat.line("result", k), "CRT result '" + row.result(k) + "' is not like A1D1r1, D2r2, A2, or -");
        results.push_back(r.value_or(CombatResult{}));
      }
      sc.crt.push_back(std::move(results));
    }
    provenance("combat results table", crt.provenance(), f.file, at.line("crt"));
    const auto& bt = m.barrage();
    At bat = at.nested("barrage", -1, bt);
    for (int i = 0; i < bt.row_size(); ++i) {
      const auto& row = bt.row(i);
      if (i == 0) sc.barrage_min_roll = row.roll();
      if (row.roll() != sc.barrage_min_roll + i) fail(f.file, bat.nested("row", i, row).line("roll"), "barrage rows must list consecutive rolls");
      if (row.result() != "-" && row.result() != "DIS" && row.result() != "L") fail(f.file, bat.nested("row", i, row).line("result"), "barrage result must be -, DIS or L");
      sc.barrage.push_back(row.result());
    }
    provenance("barrage fire table", bt.provenance(), f.file, at.line("barrage"));
  }

  Scenario sc;

 private:
  std::vector<LoadError>& errors_;
};

}  // namespace

std::string LoadError::to_string() const {
  return file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + message;
}

LoadResult load_scenario(const std::map<std::string, std::string>& files) {
  LoadResult result;
  Parsed<data::ScenarioInfo> info;
  Parsed<data::TerrainEffects> tec;
  Parsed<data::Map> map;
  Parsed<data::Counters> counters;
  Parsed<data::Calendar> calendar;
  Parsed<data::Tracks> tracks;
  Parsed<data::Events> events;
  Parsed<data::Charts> charts;
  bool parsed = parse_file(files, "scenario", info, result.errors);
  parsed &= parse_file(files, "tec", tec, result.errors);
  parsed &= parse_file(files, "map", map, result.errors);
  parsed &= parse_file(files, "counters", counters, result.errors);
  parsed &= parse_file(files, "calendar", calendar, result.errors);
  parsed &= parse_file(files, "tracks", tracks, result.errors);
  parsed &= parse_file(files, "events", events, result.errors);
  parsed &= parse_file(files, "charts", charts, result.errors);
  if (!parsed) return result;

  Builder b(result.errors);
  b.info(info);
  b.tec(tec);
  b.map(map);
  b.counters(counters);
  b.calendar(calendar);
  b.tracks(tracks);
  b.events(events);
  b.charts(charts);
  if (!result.errors.empty()) return result;
  auto as_read = std::make_shared<data::ScenarioData>();
  as_read->mutable_scenario()->Swap(&info.msg);
  as_read->mutable_tec()->Swap(&tec.msg);
  as_read->mutable_map()->Swap(&map.msg);
  as_read->mutable_counters()->Swap(&counters.msg);
  as_read->mutable_calendar()->Swap(&calendar.msg);
  as_read->mutable_tracks()->Swap(&tracks.msg);
  as_read->mutable_events()->Swap(&events.msg);
  as_read->mutable_charts()->Swap(&charts.msg);
  b.sc.data = std::move(as_read);
  result.scenario = std::make_shared<const Scenario>(std::move(b.sc));
  return result;
}

LoadResult load_scenario_dir(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const char* name : {"scenario", "tec", "map", "counters", "calendar", "tracks", "events", "charts"}) {
    std::ifstream in(std::filesystem::path(dir) / (std::string(name) + ".textproto"));
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    files[name] = text.str();
  }
  return load_scenario(files);
}

std::vector<std::string> builtin_scenarios() {
  std::vector<std::string> names;
  for (const auto& [name, files] : embedded_scenarios()) names.push_back(name);
  return names;
}

LoadResult load_builtin_scenario(const std::string& name) {
  const auto& all = embedded_scenarios();
  auto it = all.find(name);
  if (it == all.end()) {
    LoadResult r;
    r.errors.push_back({name, 0, "no such built-in scenario"});
    return r;
  }
  return load_scenario(it->second);
}

std::shared_ptr<const Scenario> default_scenario() {
  static const std::shared_ptr<const Scenario> sc = [] {
    auto r = load_builtin_scenario("counterattack");
    if (!r.ok()) {
      for (const auto& e : r.errors) fprintf(stderr, "%s\n", e.to_string().c_str());
      std::abort();
    }
    return r.scenario;
  }();
  return sc;
}

}  // namespace counterattack
