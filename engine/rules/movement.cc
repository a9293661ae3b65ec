// 6 Movement, 7 Stacking, 13 Armored train, 14 Reserves (movement), 17 Reinforcements.
#include <algorithm>
#include <queue>

#include "rules/rules.h"

namespace counterattack {
namespace {

bool same_set(std::vector<std::int16_t> a, std::vector<std::int16_t> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

bool Rules::continues_mover(const std::vector<std::int16_t>& units) const {
  if (s_.mover.empty() || units.empty()) return false;
  if (same_set(units, s_.mover)) return true;
  // 7: from revision 5, some of the units in motion may go on without the others.
  if (!option(kStacksSplitInMotion)) return false;
  for (size_t i = 0; i < units.size(); ++i) {
    if (std::find(s_.mover.begin(), s_.mover.end(), units[i]) == s_.mover.end()) return false;
    if (std::find(units.begin(), units.begin() + static_cast<long>(i), units[i]) != units.begin() + static_cast<long>(i)) return false;
  }
  return true;
}

Side Occupancy::owner(Loc l) const { return count[0][static_cast<size_t>(l)] ? Side::Soviet : Side::German; }

Occupancy Rules::occupancy() const {
  Occupancy occ;
  const size_t n = static_cast<size_t>(sc_.location_count());
  for (int side = 0; side < 2; ++side) {
    occ.count[side].assign(n, 0);
    occ.zoc[side].assign(static_cast<size_t>(sc_.hex_count()), 0);
  }
  for (size_t u = 0; u < s_.units.size(); ++u) {
    const Loc l = s_.units[u].loc;
    if (!sc_.on_board(l)) continue;
    const int side = static_cast<int>(sc_.units[u].side);
    occ.count[side][static_cast<size_t>(l)]++;
    // 6: a unit's ZOC is the six hexes around it; 13: the armored train has none.
    if (sc_.is_hex(l) && sc_.units[u].unit_class != UnitClass::ArmoredTrain) {
      for (Loc nb : sc_.hexes[static_cast<size_t>(l)].nb) {
        if (nb >= 0) occ.zoc[side][static_cast<size_t>(nb)] = 1;
      }
    }
  }
  return occ;
}

bool Engine::exerts_zoc(const GameState& s, int unit) const {
  return sc_->is_hex(s.units[static_cast<size_t>(unit)].loc) &&
         sc_->units[static_cast<size_t>(unit)].unit_class != UnitClass::ArmoredTrain;
}

bool Engine::in_enemy_zoc(const GameState& s, Loc hex, Side side) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.occupancy().zoc[static_cast<int>(enemy_of(side))][static_cast<size_t>(hex)] != 0;
}

int Engine::movement_half(const GameState& s, int unit) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  if (r.is_train(unit)) return 2 * 999;  // 13: unlimited along the railway
  int mp = r.face(unit).movement;
  const auto& u = s.units[static_cast<size_t>(unit)];
  if (u.flags & kDisorganized) mp = (mp + 1) / 2;  // 10: halved, rounded up
  if ((u.flags & kOutOfSupply) && !(u.flags & kSupplyDrop)) {
    // 15: motorized units move at half; foot units slower than the threshold move normally.
    const auto c = sc_->units[static_cast<size_t>(unit)].unit_class;
    const bool foot = (c == UnitClass::Infantry || c == UnitClass::Cavalry || c == UnitClass::Engineer) &&
                      r.face(unit).movement < r.rule(sc_->rules.supply_unaffected_min_movement(), 7);
    if (!foot) mp = (mp + 1) / 2;
  }
  return 2 * mp;
}

int Engine::combat_value(const GameState& s, int unit) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  int cp = r.face(unit).combat;
  const auto& u = s.units[static_cast<size_t>(unit)];
  if (u.flags & kDisorganized) cp = (cp + 1) / 2;
  if ((u.flags & kOutOfSupply) && !(u.flags & kSupplyDrop)) cp = (cp + 1) / 2;
  return cp;
}

std::vector<int> Engine::units_at(const GameState& s, Loc l) const {
  std::vector<int> out;
  for (size_t u = 0; u < s.units.size(); ++u) {
    if (s.units[u].loc == l) out.push_back(static_cast<int>(u));
  }
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    return s.units[static_cast<size_t>(a)].stack_seq > s.units[static_cast<size_t>(b)].stack_seq;
  });
  return out;
}

int Engine::stack_height(const GameState& s, Loc l, Side side) const {
  int n = 0;
  for (size_t u = 0; u < s.units.size(); ++u) n += s.units[u].loc == l && sc_->units[u].side == side;
  return n;
}

bool Engine::stacking_ok(const GameState& s, Loc l, Side side) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.stacking_ok_after(r.occupancy(), l, side, {});
}

// 7: two units a hex; three of one armored division form a Kampfgruppe.
// No limit in Warsaw or off the map.
bool Rules::stacking_ok_after(const Occupancy& occ, Loc l, Side side, const std::vector<std::int16_t>& arriving) const {
  if (!sc_.is_hex(l)) return true;
  int existing = occ.count[static_cast<int>(side)][static_cast<size_t>(l)];
  for (auto u : arriving) existing -= us(u).loc == l;
  if (existing + static_cast<int>(arriving.size()) <= rule(sc_.rules.stacking_limit(), 2)) return true;
  std::vector<int> stack;
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (s_.units[u].loc == l && sc_.units[u].side == side &&
        std::find(arriving.begin(), arriving.end(), static_cast<std::int16_t>(u)) == arriving.end()) {
      stack.push_back(static_cast<int>(u));
    }
  }
  for (auto u : arriving) stack.push_back(u);
  const int n = static_cast<int>(stack.size());
  if (n <= rule(sc_.rules.stacking_limit(), 2)) return true;
  if (side != Side::German || n > rule(sc_.rules.kampfgruppe_limit(), 3)) return false;
  const int f = def(stack[0]).formation;
  if (!sc_.formations[static_cast<size_t>(f)].armored_division) return false;
  return std::all_of(stack.begin(), stack.end(), [&](int u) { return def(u).formation == f; });
}

// ---------------------------------------------------------------------------
// 5 Activation
// ---------------------------------------------------------------------------

bool Engine::unit_active(const GameState& s, int unit) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.can_activate(unit);
}

bool Rules::can_activate(int u) const {
  if (!s_.in_activation() || s_.step == Step::ChooseCorps || !on_board(u)) return false;
  const Side side = side_of(u);
  if (side != s_.phase_side()) return false;
  const auto flags = us(u).flags;
  if (s_.step == Step::Reserves && !us(u).reserve) return false;
  if (flags & kReactivated) return true;
  if (is_train(u)) return side == Side::German && (!(flags & kActedThisPhase) || (flags & kMoving));
  if (flags & kMoved) return false;
  if (s_.step == Step::Reserves) return true;  // 14: reserves may be used in a later phase
  const auto& f = formation(u);
  if (side == Side::Soviet) {
    switch (f.kind) {
      case data::CORPS: return def(u).formation == s_.active_corps || def(u).formation == s_.extra_corps;
      case data::ARMY: return s_.forty_seventh_phase == s_.activation;
      default: return s_.active_corps >= 0 || s_.extra_corps >= 0;  // independents go with an active corps
    }
  }
  // 5 optional: limited German activation.
  if (!option(kLimitedGermanActivation) || s_.turn < rule(sc_.rules.limited_activation_from_turn(), 6) ||
      f.kind == data::INDEPENDENT || (flags & kActedThisPhase)) {
    return true;
  }
  if (s_.divisions_this_phase & (1u << f.activation_group)) return true;
  int used = 0;
  for (auto m = s_.divisions_this_phase; m; m &= m - 1) ++used;
  if (used < rule(sc_.rules.limited_activation_divisions(), 2) + (s_.model_extra_division ? 1 : 0)) return true;
  return s_.extra_division_unit < 0 || s_.extra_division_unit == u;
}

void Rules::note_activation(int u) {
  s_.set(u, kActedThisPhase);
  if (side_of(u) != Side::German || !option(kLimitedGermanActivation) ||
      s_.turn < rule(sc_.rules.limited_activation_from_turn(), 6) || formation(u).kind == data::INDEPENDENT) {
    return;
  }
  const auto bit = 1u << formation(u).activation_group;
  if (s_.divisions_this_phase & bit) return;
  int used = 0;
  for (auto m = s_.divisions_this_phase; m; m &= m - 1) ++used;
  if (used < rule(sc_.rules.limited_activation_divisions(), 2) + (s_.model_extra_division ? 1 : 0)) {
    s_.divisions_this_phase |= bit;
  } else {
    s_.extra_division_unit = static_cast<std::int16_t>(u);
  }
}

// ---------------------------------------------------------------------------
// 6 Movement costs
// ---------------------------------------------------------------------------

std::vector<Loc> Rules::entry_hexes(Loc entry, const Occupancy& occ) const {
  const auto& ep = sc_.entry_points[static_cast<size_t>(sc_.entry_index(entry))];
  const int enemy = static_cast<int>(enemy_of(ep.side));
  std::vector<Loc> out;
  for (Loc h : ep.hexes) {
    out.push_back(h);
    for (Loc nb : sc_.hexes[static_cast<size_t>(h)].nb) {
      if (nb >= 0) out.push_back(nb);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (std::any_of(out.begin(), out.end(), [&](Loc h) { return !occ.count[enemy][static_cast<size_t>(h)]; })) return out;
  // 17: all blocked by the enemy: the nearest free hexes.
  int best = 1 << 20;
  std::vector<Loc> nearest;
  for (Loc h = 0; h < sc_.hex_count(); ++h) {
    if (occ.count[enemy][static_cast<size_t>(h)] || sc_.terrain[sc_.hexes[static_cast<size_t>(h)].terrain].prohibited) continue;
    int d = 1 << 20;
    for (Loc e : ep.hexes) d = std::min(d, sc_.distance(h, e));
    if (d < best) {
      best = d;
      nearest.clear();
    }
    if (d == best) nearest.push_back(h);
  }
  return nearest;
}

StepCost Rules::step_cost(const std::vector<std::int16_t>& group, Loc from, Loc to, const Occupancy& occ) const {
  StepCost c;
  auto fail = [&](game::RejectCode code, std::string why) {
    c.error = code;
    c.why = std::move(why);
    return c;
  };
  const Side side = side_of(group[0]);
  const int enemy = static_cast<int>(enemy_of(side));
  const bool train = is_train(group[0]);
  const bool ignore_zoc = std::all_of(group.begin(), group.end(), [&](int u) { return (us(u).flags & kIgnoreZoc) != 0; });
  auto enter_hex = [&](int base) {
    const auto& t = sc_.terrain[sc_.hexes[static_cast<size_t>(to)].terrain];
    if (occ.count[enemy][static_cast<size_t>(to)]) return fail(game::ENEMY_OCCUPIED, loc_name(to) + " is occupied by the enemy (rule 6).");
    if (t.prohibited) return fail(game::PROHIBITED_TERRAIN, loc_name(to) + " is prohibited terrain.");
    c.cost_half = base;
    if (occ.zoc[enemy][static_cast<size_t>(to)] && !ignore_zoc) {
      c.enters_zoc = true;
      c.cost_half += rule(sc_.rules.zoc_cost_half(), 2);  // 6: +1 MP to enter an enemy ZOC
    }
    return c;
  };
  // A hex, or a Soviet arrow, named where the units stand (the German off-map
  // chart's own rows are left as they always read, for stored games' sake).
  if (from == to && (sc_.is_hex(from) || side != Side::German)) {
    return fail(game::ILLEGAL_PATH, loc_name(to) + " is named where the units already are: a path lists only the locations entered.");
  }
  const bool from_hex = sc_.is_hex(from), to_hex = sc_.is_hex(to);
  if (s_.step == Step::Reserves && sc_.is_entry(from) && !to_hex && option(kReservesEnterAtTheirEntry)) {
    return fail(game::ILLEGAL_PATH, "Reinforcements in reserve off the map enter the map from " + loc_name(from) +
                                        ", where they wait, without moving to another entry first (rule 17).");
  }
  if (from_hex && to_hex) {
    const auto& h = sc_.hexes[static_cast<size_t>(from)];
    int d = -1;
    for (int k = 0; k < kDirs; ++k) {
      if (h.nb[static_cast<size_t>(k)] == to) d = k;
    }
    if (d < 0) return fail(game::ILLEGAL_PATH, loc_name(from) + " and " + loc_name(to) + " are not adjacent.");
    const auto roads = h.roads[static_cast<size_t>(d)];
    int road_cost = -1;
    for (size_t r = 0; r < sc_.road_types.size(); ++r) {
      if (!(roads & (1u << r))) continue;
      if (train && !sc_.road_types[r].railway) continue;
      const int rc = sc_.road_types[r].move_cost_half;
      if (road_cost < 0 || rc < road_cost) road_cost = rc;
    }
    if (train && road_cost < 0) return fail(game::ILLEGAL_PATH, "The armored train moves only along connected railway hexes (rule 13).");
    if (road_cost >= 0) return enter_hex(road_cost);  // 6: roads negate the terrain
    int cost = sc_.terrain[sc_.hexes[static_cast<size_t>(to)].terrain].move_cost_half;
    const auto side_type = h.side[static_cast<size_t>(d)];
    if (side_type != kNone) {
      const auto& ht = sc_.hexside_types[static_cast<size_t>(side_type)];
      if (ht.prohibited) return fail(game::PROHIBITED_TERRAIN, "The " + ht.name + " between " + loc_name(from) + " and " + loc_name(to) + " cannot be crossed.");
      cost += ht.move_cost_half;
    }
    return enter_hex(cost);
  }
  if (train) return fail(game::ILLEGAL_PATH, "The armored train moves only along connected railway hexes (rule 13).");
  if (from_hex && to == sc_.warsaw()) {
    if (side == Side::Soviet) return fail(game::WARSAW_RESTRICTED, "Soviet units may never enter Warsaw (rule 6).");
    const auto& h = sc_.hexes[static_cast<size_t>(from)];
    if (h.praga_bridge != kNone) {
      if (s_.bridges_closed) return fail(game::WARSAW_RESTRICTED, "The Warsaw Uprising has closed the Vistula bridges this turn (rule 18).");
      c.cost_half = sc_.praga_bridges[static_cast<size_t>(h.praga_bridge)].cost_half + s_.bridge_extra_half;
      return c;
    }
    if (h.jozefow_bridge) {
      if (s_.jozefow == 2) return fail(game::WARSAW_RESTRICTED, "The Józefów bridge has been destroyed (rule 6).");
      c.cost_half = sc_.jozefow.cost_half;
      return c;
    }
    return fail(game::ILLEGAL_PATH, "Warsaw is reached only over the Praga bridges or the Józefów bridge (rule 6).");
  }
  if (from == sc_.warsaw() && to_hex) {
    const auto& h = sc_.hexes[static_cast<size_t>(to)];
    if (h.praga_bridge == kNone) return fail(game::ILLEGAL_PATH, "From Warsaw, units cross to the Praga bridge hexes only (rule 6).");
    if (s_.bridges_closed) return fail(game::WARSAW_RESTRICTED, "The Warsaw Uprising has closed the Vistula bridges this turn (rule 18).");
    return enter_hex(sc_.praga_bridges[static_cast<size_t>(h.praga_bridge)].cost_half + s_.bridge_extra_half);
  }
  if (sc_.is_entry(from) && to_hex) {
    const auto ok = entry_hexes(from, occ);
    const auto& ep = sc_.entry_points[static_cast<size_t>(sc_.entry_index(from))];
    if (!std::binary_search(ok.begin(), ok.end(), to) && std::find(ok.begin(), ok.end(), to) == ok.end()) {
      const bool usual = std::any_of(ep.hexes.begin(), ep.hexes.end(), [&](Loc h) { return std::find(ok.begin(), ok.end(), h) != ok.end(); });
      const auto& named = usual ? ep.hexes : ok;
      std::string hexes;
      for (std::size_t i = 0; i < named.size(); ++i) {
        hexes += (i == 0 ? "" : i + 1 == named.size() ? " or " : ", ") + loc_name(named[i]);
      }
      return fail(game::ILLEGAL_PATH, usual ? "Units enter from " + loc_name(from) + " at " + hexes + ", or a hex next to one (rule 17)."
                                            : "The enemy holds every hex where units enter from " + loc_name(from) +
                                                  ": they enter at the nearest free hex, " + hexes + " (rule 17).");
    }
    int cost = sc_.terrain[sc_.hexes[static_cast<size_t>(to)].terrain].move_cost_half;
    if (std::find(ep.hexes.begin(), ep.hexes.end(), to) != ep.hexes.end()) {
      // The arrow follows the road into its entry hex.
      for (auto roads : sc_.hexes[static_cast<size_t>(to)].roads) {
        for (size_t r = 0; r < sc_.road_types.size(); ++r) {
          if (roads & (1u << r)) cost = std::min(cost, sc_.road_types[r].move_cost_half);
        }
      }
    }
    return enter_hex(cost);
  }
  const int a = sc_.off_map_node(from), b = sc_.off_map_node(to);
  if (a >= 0 && b >= 0) {
    if (side != Side::German) return fail(game::ILLEGAL_PATH, "Only German units move off the map (rule 6).");
    const int cost = sc_.off_map_cost[static_cast<size_t>(a)][static_cast<size_t>(b)];
    if (cost < 0) return fail(game::ILLEGAL_PATH, "The off-map movement chart has no route from " + loc_name(from) + " to " + loc_name(to) + " (rule 6).");
    c.cost_half = cost;
    return c;
  }
  if (sc_.is_entry(to)) return fail(game::ILLEGAL_PATH, "Units on the map cannot leave it.");
  return fail(game::ILLEGAL_PATH, "No way from " + loc_name(from) + " to " + loc_name(to) + ".");
}

// ---------------------------------------------------------------------------
// Moving a unit or stack
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_group_start(const std::vector<std::int16_t>& units, bool reserves_step) const {
  if (units.empty()) return reject(game::MALFORMED, "Name the units to move.");
  const Loc at = us(units[0]).loc;
  for (size_t i = 0; i < units.size(); ++i) {
    const int u = units[i];
    if (std::find(units.begin(), units.begin() + static_cast<long>(i), units[i]) != units.begin() + static_cast<long>(i)) {
      return reject(game::MALFORMED, unit_name(u) + " is named twice.");
    }
    if (side_of(u) != s_.phase_side()) return reject(game::NOT_ALLOWED, unit_name(u) + " is not yours.");
    if (us(u).loc != at) return reject(game::NOT_ALLOWED, "Units moving together must start in the same location.");
    if (is_train(u) != is_train(units[0])) return reject(game::NOT_ALLOWED, "The armored train moves alone (rule 13).");
    if (reserves_step && !us(u).reserve) return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " is not in reserve (rule 14).");
    if (!reserves_step && us(u).reserve) return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " is in reserve: it moves after combat (rule 14).");
    if ((us(u).flags & kMoving) || !can_activate(u)) {
      std::string why = " is not active in this phase (rule 5).";
      if (us(u).flags & kMoving) {
        why = " has already moved in this phase (rule 6: a unit's move is over once another begins";
        if (option(kStacksSplitInMotion)) why += "; units in motion may go on together, or some without the others";
        why += ").";
      } else if (us(u).flags & kMoved) {
        why = " was activated in an earlier phase this turn: it carries a Moved marker (rule 5).";
      }
      return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + why);
    }
  }
  return std::nullopt;
}

bool Rules::neighbours(Loc a, Loc b) const {
  if (a == b || !sc_.is_hex(a) || !sc_.is_hex(b)) return true;  // those have their own reasons
  const auto& nb = sc_.hexes[static_cast<size_t>(a)].nb;
  return std::find(nb.begin(), nb.end(), b) != nb.end();
}

// A path's first hex not next to the units is most often a path given again,
// or one from where the units were: say where they are, not only "not adjacent".
std::string Rules::not_where_the_path_starts(const std::vector<std::int16_t>& units, bool continuing, Loc first) const {
  const Loc at = us(units[0]).loc;
  const bool one = units.size() == 1;
  return (one ? unit_name(units[0]) + " is" : "These units are") + " at " + loc_name(at) +
         (continuing ? std::string(", where ") + (one ? "it has" : "they have") + " already moved this phase: the path goes on from there"
                     : std::string(": a path starts from where the units are")) +
         ", and " + loc_name(first) + " is not adjacent to " + loc_name(at) + " (rule 6).";
}

std::optional<Rejection> Rules::check_move(const Order& o) const {
  if (o.path.empty()) return reject(game::MALFORMED, "Give the path: every location entered.");
  const bool continuing = continues_mover(o.units);
  if (continuing) {
    if (s_.mover_stopped) return reject(game::MUST_STOP_IN_ZOC, "These units entered an enemy ZOC and must stop (rule 6).");
  } else if (auto why = check_group_start(o.units, s_.step == Step::Reserves)) {
    return why;
  }
  const Occupancy occ = occupancy();
  Loc from = us(o.units[0]).loc;
  int total = 0;
  bool min_move_ok = !continuing;
  auto mp = [](int half) { return std::to_string(half / 2) + (half % 2 ? ".5" : ""); };
  std::string each;  // every hex's cost, for a path that costs too much
  for (size_t i = 0; i < o.path.size(); ++i) {
    const Loc to = o.path[i];
    const StepCost c = step_cost(o.units, from, to, occ);
    if (!c.ok()) {
      if (i == 0 && c.error == game::ILLEGAL_PATH && !neighbours(from, to)) return reject(c.error, not_where_the_path_starts(o.units, continuing, to));
      return reject(c.error, c.why);
    }
    if (c.enters_zoc && i + 1 < o.path.size()) {
      return reject(game::MUST_STOP_IN_ZOC, "Units entering an enemy ZOC must stop there, at " + loc_name(to) + " (rule 6).");
    }
    const bool bridge_or_offmap = !(sc_.is_hex(to) && (sc_.is_hex(from) || sc_.is_entry(from)));
    if (bridge_or_offmap) min_move_ok = false;
    total += c.cost_half;
    each += (each.empty() ? "" : ", ") + loc_name(to) + " " + mp(c.cost_half);
    from = to;
  }
  // 6: a unit may always move one hex.
  const bool min_move = min_move_ok && o.path.size() == 1;
  for (auto u : o.units) {
    const int left = e_.movement_half(s_, u) - us(u).mp_used;
    if (total > left && !min_move) {
      return reject(game::NOT_ENOUGH_MOVEMENT,
                    unit_name(u) + " has " + mp(left) + " MP left; the path costs " + mp(total) + " (" + each + ").");
    }
  }
  if (!stacking_ok_after(occ, o.path.back(), s_.phase_side(), o.units)) {
    return reject(game::STACKING_LIMIT, "Too many units would end in " + loc_name(o.path.back()) + " (rule 7: two units, three for a Kampfgruppe).");
  }
  return std::nullopt;
}

void Rules::do_move(const Order& o) {
  const bool continuing = continues_mover(o.units);
  if (!continuing) {
    finish_mover();
    s_.mover = o.units;
    for (auto u : o.units) {
      note_activation(u);
      s_.set(u, kMoving);
    }
  } else if (o.units.size() < s_.mover.size()) {
    // 7: the stack splits; the units left behind have ended their move.
    for (auto u : s_.mover) {
      if (std::find(o.units.begin(), o.units.end(), u) == o.units.end() && !is_train(u)) s_.set(u, kMoved);
    }
    s_.mover = o.units;
  }
  const Occupancy occ = occupancy();
  const Side side = side_of(o.units[0]);
  const Loc start = us(o.units[0]).loc;
  Loc from = start;
  int total = 0;
  for (Loc to : o.path) {
    total += step_cost(o.units, from, to, occ).cost_half;
    if (sc_.is_hex(from) && sc_.hexes[static_cast<size_t>(from)].jozefow_bridge && to == sc_.warsaw() && s_.jozefow == 0) {
      s_.jozefow = 1;  // 6: destroyed at the end of the turn it is first used
    }
    from = to;
  }
  for (auto it = o.units.rbegin(); it != o.units.rend(); ++it) {
    us(*it).mp_used = static_cast<std::int16_t>(us(*it).mp_used + total);
    place(*it, o.path.back());
    if (s_.step == Step::Reserves) us(*it).reserve = 0;  // 14: the marker comes off once used
  }
  // The owner reads every unit; the others see the moving stack's top counter and height.
  std::string names;
  for (auto u : o.units) names += (names.empty() ? "" : ", ") + unit_name(u);
  std::vector<Loc> path{start};
  path.insert(path.end(), o.path.begin(), o.path.end());
  const bool entering = sc_.is_entry(start) && sc_.is_hex(o.path.front());
  const auto kind = entering ? game::Event::ENTERED : game::Event::MOVED;
  std::string route;
  for (Loc l : path) route += (route.empty() ? "" : " → ") + loc_name(l);
  const size_t n = o.units.size();
  log_path(kind, names + (entering ? in_number(n, " enters: ", " enter: ", " enter: ") : in_number(n, " moves ", " move ", " move ")) + route + " (" + std::to_string(total / 2) + (total % 2 ? ".5" : "") + " MP).", path, owner_only(side));
  std::string seen = std::string(side_name(side)) + " " + (o.units.size() > 1 ? "stack (" + std::to_string(o.units.size()) + " units, top " + unit_name(o.units[0]) + ")" : unit_name(o.units[0]));
  log_path(kind, seen + (entering ? " enters: " : " moves ") + route + ".", path, all_but(side));

  const Loc at = o.path.back();
  if (!sc_.is_hex(at)) return;
  const Occupancy after = occupancy();
  const bool ignore_zoc = std::all_of(o.units.begin(), o.units.end(), [&](int u) { return (us(u).flags & kIgnoreZoc) != 0; });
  if (ignore_zoc) return;
  const bool in_zoc = after.zoc[static_cast<int>(enemy_of(side))][static_cast<size_t>(at)] != 0;
  // 13: the armored train has no ZOC yet may break contact, so it is asked
  // whenever an enemy comes next to it; other candidates imply a ZOC.
  auto eligible = break_contact_candidates(at, after);
  if (eligible.empty()) {
    if (in_zoc) s_.mover_stopped = true;  // 6: stop on entering an enemy ZOC
  } else {
    s_.pending_break = {at, std::move(eligible)};
  }
}

// ---------------------------------------------------------------------------
// 6 Breaking contact: the first out-of-turn decision
// ---------------------------------------------------------------------------

// One hex into an adjacent one: not into enemy units or prohibited terrain, not
// across a prohibited hexside without a road, and the armored train only by rail (13).
bool Rules::can_step(int u, Loc from, Loc to, const Occupancy& occ) const {
  if (!sc_.is_hex(from) || !sc_.is_hex(to)) return false;
  const auto& h = sc_.hexes[static_cast<size_t>(from)];
  int d = -1;
  for (int k = 0; k < kDirs; ++k) {
    if (h.nb[static_cast<size_t>(k)] == to) d = k;
  }
  if (d < 0) return false;
  if (occ.count[static_cast<int>(enemy_of(side_of(u)))][static_cast<size_t>(to)]) return false;
  if (sc_.terrain[sc_.hexes[static_cast<size_t>(to)].terrain].prohibited) return false;
  const auto roads = h.roads[static_cast<size_t>(d)];
  const auto st = h.side[static_cast<size_t>(d)];
  if (st != kNone && sc_.hexside_types[static_cast<size_t>(st)].prohibited && !roads) return false;
  if (is_train(u)) {
    bool rail = false;
    for (size_t r = 0; r < sc_.road_types.size(); ++r) rail |= (roads & (1u << r)) && sc_.road_types[r].railway;
    if (!rail) return false;
  }
  return true;
}

bool Rules::break_contact_destination_ok(int u, Loc to, const Occupancy& occ) const {
  if (!can_step(u, us(u).loc, to, occ)) return false;
  const Side side = side_of(u);
  const int enemy = static_cast<int>(enemy_of(side));
  // Not next to other enemy units, unless friends already hold the hex.
  if (!occ.count[static_cast<int>(side)][static_cast<size_t>(to)]) {
    for (Loc nb : sc_.hexes[static_cast<size_t>(to)].nb) {
      if (nb >= 0 && occ.count[enemy][static_cast<size_t>(nb)]) return false;
    }
  }
  return true;
}

std::vector<std::int16_t> Rules::break_contact_candidates(Loc entered, const Occupancy& occ) const {
  std::vector<std::int16_t> out;
  if (s_.no_break_contact) return out;  // 20: an event forbids it this phase
  const Side mover = s_.phase_side();
  for (size_t u = 0; u < s_.units.size(); ++u) {
    const auto& d = sc_.units[u];
    const Loc l = s_.units[u].loc;
    if (d.side == mover || !sc_.is_hex(l)) continue;  // 13: the train too, along the railway
    const auto& nb = sc_.hexes[static_cast<size_t>(l)].nb;
    if (std::find(nb.begin(), nb.end(), entered) == nb.end()) continue;
    const int mf = face(static_cast<int>(u)).movement;
    const int min_mf = rule(sc_.rules.break_contact_min_movement(), 9);
    const bool able = d.side == Side::German ? mf >= min_mf
                                             : d.unit_class == UnitClass::Recon || (option(kRedArmyFlexibility) && mf >= min_mf);
    if (!able) continue;
    bool somewhere = false;
    for (Loc to : sc_.hexes[static_cast<size_t>(l)].nb) somewhere |= to >= 0 && break_contact_destination_ok(static_cast<int>(u), to, occ);
    if (somewhere) out.push_back(static_cast<std::int16_t>(u));
  }
  return out;
}

std::optional<Rejection> Rules::check_break_contact(const Order& o) const {
  if (o.units.size() != o.path.size()) return reject(game::MALFORMED, "Give one destination for every unit that breaks contact.");
  const Occupancy occ = occupancy();
  const auto& eligible = s_.pending_break.eligible;
  for (size_t i = 0; i < o.units.size(); ++i) {
    const int u = o.units[i];
    if (std::find(eligible.begin(), eligible.end(), o.units[i]) == eligible.end()) {
      return reject(game::NOT_ALLOWED, unit_name(u) + " cannot break contact now (rule 6: German units with movement 9+, Soviet recon).");
    }
    if (std::count(o.units.begin(), o.units.end(), o.units[i]) > 1) return reject(game::MALFORMED, unit_name(u) + " is named twice.");
    if (!break_contact_destination_ok(u, o.path[i], occ)) {
      return reject(game::ILLEGAL_PATH, unit_name(u) + " cannot break contact into " + loc_name(o.path[i]) +
                                            " (rule 6: one hex, not next to other enemy units unless friends hold it).");
    }
  }
  // 7: stacking at every destination once all have moved.
  GameState trial = s_;
  for (size_t i = 0; i < o.units.size(); ++i) trial.units[static_cast<size_t>(o.units[i])].loc = o.path[i];
  Rules tr(e_, trial, nullptr, nullptr);
  const Occupancy tocc = tr.occupancy();
  for (size_t i = 0; i < o.units.size(); ++i) {
    if (!tr.stacking_ok_after(tocc, o.path[i], side_of(o.units[i]), {})) {
      return reject(game::STACKING_LIMIT, "Too many units would end in " + loc_name(o.path[i]) + " (rule 7).");
    }
  }
  return std::nullopt;
}

void Rules::do_break_contact(const Order& o) {
  const Loc entered = s_.pending_break.entered;
  const auto standing = s_.pending_break.eligible;
  s_.pending_break = {};
  for (size_t i = 0; i < o.units.size(); ++i) {
    const int u = o.units[i];
    const Loc from = us(u).loc;
    place(u, o.path[i]);
    const Side side = side_of(u);
    log_path(game::Event::BROKE_CONTACT, unit_name(u) + " breaks contact: " + loc_name(from) + " → " + loc_name(o.path[i]) + ".",
             {from, o.path[i]}, owner_only(side));
    log_path(game::Event::BROKE_CONTACT, std::string("A ") + side_name(side) + " unit breaks contact: " + loc_name(from) + " → " + loc_name(o.path[i]) + ".",
             {from, o.path[i]}, all_but(side));
  }
  if (o.units.empty() && option(kReaderTexts) && !standing.empty()) {
    // Revision 6: each reads it of the side that stood; the others are told no count, as a
    // spectator sees only the top unit of a stack.
    const Side side = side_of(standing.front());
    log(game::Event::BROKE_CONTACT,
        in_number(standing.size(), "Your unit stands fast", "Your units stand fast", "Your unit(s) stand(s) fast") + " at " +
            loc_name(entered) + ".",
        owner_only(side));
    log(game::Event::BROKE_CONTACT, std::string("The ") + side_name(side) + "s stand fast at " + loc_name(entered) + ".",
        all_but(side));
  } else if (o.units.empty()) {
    log(game::Event::BROKE_CONTACT, "The enemy stands fast at " + loc_name(entered) + ".");
  }
  // 6: the mover goes on only if no enemy ZOC is left on its hex.
  const Occupancy occ = occupancy();
  if (occ.zoc[static_cast<int>(enemy_of(s_.phase_side()))][static_cast<size_t>(entered)]) s_.mover_stopped = true;
}

// ---------------------------------------------------------------------------
// Reachable locations (legal orders, bots, the perft-style tests)
// ---------------------------------------------------------------------------

std::vector<std::pair<Loc, std::vector<Loc>>> Engine::destinations(const GameState& s,
                                                                   const std::vector<std::int16_t>& group) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.reachable(group);
}

std::vector<std::pair<Loc, std::vector<Loc>>> Rules::reachable(const std::vector<std::int16_t>& group) const {
  std::vector<std::pair<Loc, std::vector<Loc>>> out;
  if (group.empty()) return out;
  const Occupancy occ = occupancy();
  const bool continuing = continues_mover(group);
  int budget = 1 << 20;
  for (auto u : group) budget = std::min(budget, e_.movement_half(s_, u) - us(u).mp_used);
  const Loc start = us(group[0]).loc;
  const size_t n = static_cast<size_t>(sc_.location_count());
  std::vector<int> best(n, 1 << 30);
  std::vector<Loc> prev(n, -1);
  std::vector<std::uint8_t> stop(n, 0);
  using Item = std::pair<int, Loc>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  best[static_cast<size_t>(start)] = 0;
  queue.push({0, start});
  std::vector<Loc> nbs;  // reused: no allocation per node
  auto neighbours = [&](Loc l) -> const std::vector<Loc>& {
    nbs.clear();
    if (sc_.is_hex(l)) {
      const auto& h = sc_.hexes[static_cast<size_t>(l)];
      for (Loc nb : h.nb) {
        if (nb >= 0) nbs.push_back(nb);
      }
      if (h.praga_bridge != kNone || h.jozefow_bridge) nbs.push_back(sc_.warsaw());
      return nbs;
    }
    if (l == sc_.warsaw()) {
      for (const auto& b : sc_.praga_bridges) nbs.push_back(b.hex);
    } else if (sc_.is_entry(l)) {
      nbs = entry_hexes(l, occ);
    }
    const int a = sc_.off_map_node(l);
    for (size_t b = 0; a >= 0 && b < sc_.off_map_cost.size(); ++b) {
      if (sc_.off_map_cost[static_cast<size_t>(a)][b] >= 0) {
        nbs.push_back(b + 1 == sc_.off_map_cost.size() ? sc_.warsaw() : sc_.entry_loc(static_cast<int>(b)));
      }
    }
    return nbs;
  };
  while (!queue.empty()) {
    auto [cost, l] = queue.top();
    queue.pop();
    if (cost > best[static_cast<size_t>(l)] || stop[static_cast<size_t>(l)]) continue;
    const auto& around = neighbours(l);
    for (size_t k = 0; k < around.size(); ++k) {
      const Loc to = around[k];
      const StepCost c = step_cost(group, l, to, occ);
      if (!c.ok()) continue;
      const int next = cost + c.cost_half;
      if (next > budget || next >= best[static_cast<size_t>(to)]) continue;
      best[static_cast<size_t>(to)] = next;
      prev[static_cast<size_t>(to)] = l;
      stop[static_cast<size_t>(to)] = c.enters_zoc;
      queue.push({next, to});
    }
  }
  // 6: one hex is always possible for a unit that has not yet moved.
  if (!continuing && sc_.is_hex(start) != sc_.is_entry(start)) {
    std::vector<Loc> first;
    if (sc_.is_hex(start)) {
      for (Loc nb : sc_.hexes[static_cast<size_t>(start)].nb) {
        if (nb >= 0) first.push_back(nb);
      }
    } else {
      first = entry_hexes(start, occ);
    }
    for (Loc to : first) {
      if (best[static_cast<size_t>(to)] < (1 << 30)) continue;
      if (!step_cost(group, start, to, occ).ok()) continue;
      best[static_cast<size_t>(to)] = budget;
      prev[static_cast<size_t>(to)] = start;
    }
  }
  for (Loc l = 0; l < static_cast<Loc>(n); ++l) {
    if (l == start || best[static_cast<size_t>(l)] >= (1 << 30)) continue;
    if (!stacking_ok_after(occ, l, side_of(group[0]), group)) continue;
    std::vector<Loc> path;
    for (Loc at = l; at != start; at = prev[static_cast<size_t>(at)]) path.push_back(at);
    std::reverse(path.begin(), path.end());
    out.emplace_back(l, std::move(path));
  }
  return out;
}

}  // namespace counterattack
