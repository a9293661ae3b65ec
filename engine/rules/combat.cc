// 9 Overrun attacks, 10 Artillery, 11 Coordinated combat, 12 FM Model.
// Every choice a defender makes is an out-of-turn decision: tactical support,
// which unit takes a loss, elastic or desperate defense, the retreat path.
#include <algorithm>
#include <cctype>
#include <climits>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rules/rules.h"

namespace counterattack {

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

std::string Rules::marker_name(int m) const {
  if (m < 0) return "none";
  if (m < static_cast<int>(sc_.artillery.size())) return sc_.artillery[static_cast<size_t>(m)].id;
  return sc_.stukas[static_cast<size_t>(m) - sc_.artillery.size()].id;
}

// 10: tactical support as the die line names it: "German artillery", "Stuka".
std::string Rules::support_word(int m) const {
  if (m < 0) return "";
  if (m >= static_cast<int>(sc_.artillery.size())) return "Stuka";
  const auto& art = sc_.artillery[static_cast<size_t>(m)];
  return std::string(side_name(sc_.formations[static_cast<size_t>(art.formation)].side)) + " artillery";
}

namespace {
// 9: the defender's terrain as the die line names it: "Village (...)" reads "village".
std::string terrain_word(const std::string& name) {
  std::string word = name.substr(0, name.find(" ("));
  if (!word.empty()) word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[0])));
  return word;
}

std::string signed_number(int n) { return (n >= 0 ? "+" : "") + std::to_string(n); }

MarkerState& marker_state(GameState& s, const Scenario& sc, int m) {
  if (m < static_cast<int>(sc.artillery.size())) return s.artillery[static_cast<size_t>(m)];
  return s.stukas[static_cast<size_t>(m) - sc.artillery.size()];
}
}  // namespace

Side Rules::combat_defender() const {
  const auto& c = s_.combat;
  return c.defenders.empty() ? enemy_of(s_.phase_side()) : side_of(c.defenders.front());
}

int Rules::survivors(const std::vector<std::int16_t>& units) const {
  int n = 0;
  for (auto u : units) n += on_board(u);
  return n;
}

bool Rules::model_available() const {
  return s_.turn >= sc_.model_arrival_turn && s_.model_turn <= s_.turn && !s_.model_used;
}

// 10: an artillery marker supports (or fires for) units of its formation or
// independents: Soviet independents use their activating corps' artillery,
// German independents any German artillery. Out-of-supply units cannot call it.
bool Rules::support_ok(int m, const std::vector<std::int16_t>& units, Side side) const {
  const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
  if (m < 0 || m >= markers || marker_state(s_, sc_, m) != MarkerState::Ready) return false;
  if (m >= static_cast<int>(sc_.artillery.size())) return side == Side::German;  // a Stuka
  const auto& art = sc_.artillery[static_cast<size_t>(m)];
  if (sc_.formations[static_cast<size_t>(art.formation)].side != side) return false;
  for (auto u : units) {
    if (side_of(u) != side || ((us(u).flags & kOutOfSupply) && !(us(u).flags & kSupplyDrop))) continue;
    if (def(u).formation == art.formation) return true;
    if (formation(u).kind == data::INDEPENDENT) {
      if (side == Side::German) return true;
      if (side == s_.phase_side() && (art.formation == s_.active_corps || art.formation == s_.extra_corps)) return true;
    }
  }
  return false;
}

std::vector<int> Rules::defensive_markers() const {
  std::vector<int> out;
  const auto& c = s_.combat;
  if (c.overrun) return out;  // 9: no tactical support in an overrun
  const Side side = combat_defender();
  const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
  for (int m = 0; m < markers; ++m) {
    if (support_ok(m, c.defenders, side)) out.push_back(m);
  }
  return out;
}

// ---------------------------------------------------------------------------
// 9 Overrun
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_overrun(const Order& o) const {
  if (o.path.size() != 1 || !sc_.is_hex(o.path[0])) return reject(game::MALFORMED, "Name the hex to overrun.");
  if (o.units.empty()) return reject(game::MALFORMED, "Name the overrunning unit.");
  const bool continuing = !s_.mover.empty() && std::is_permutation(o.units.begin(), o.units.end(), s_.mover.begin(), s_.mover.end());
  if (!continuing) {
    for (auto u : o.units) {
      if (s_.mover.size() > 1 && std::find(s_.mover.begin(), s_.mover.end(), u) != s_.mover.end()) {
        return reject(game::NOT_ALLOWED, unit_name(u) + " is moving together with other units: a unit that overruns moves alone, "
                                         "or in a Kampfgruppe (rules 7, 9).");
      }
    }
    // 9 Sudden attack: units next to the enemy that have not yet moved.
    if (auto why = check_group_start(o.units, s_.step == Step::Reserves)) return why;
  }
  const int min_mf = rule(sc_.rules.overrun_min_movement(), 9);
  for (auto u : o.units) {
    if (face(u).movement < min_mf || is_train(u)) {
      return reject(game::NOT_ALLOWED, unit_name(u) + " cannot overrun: only armored, mechanized and motorized units (movement 9+) do (rule 9).");
    }
  }
  if (o.units.size() > 1) {
    // 7: a Kampfgruppe of one armored division overruns as a single unit.
    const int f = def(o.units[0]).formation;
    const bool kampfgruppe = side_of(o.units[0]) == Side::German && sc_.formations[static_cast<size_t>(f)].armored_division &&
                             std::all_of(o.units.begin(), o.units.end(), [&](int u) { return def(u).formation == f; });
    if (!kampfgruppe) return reject(game::NOT_ALLOWED, "Overruns are made by single units, or a Kampfgruppe of one armored division (rules 7, 9).");
  }
  const Loc at = us(o.units[0]).loc, target = o.path[0];
  if (!sc_.is_hex(at)) return reject(game::NOT_ALLOWED, "The overrunning units must be on the map.");
  const auto& h = sc_.hexes[static_cast<size_t>(at)];
  int d = -1;
  for (int k = 0; k < kDirs; ++k) {
    if (h.nb[static_cast<size_t>(k)] == target) d = k;
  }
  if (d < 0) return reject(game::NOT_ALLOWED, loc_name(target) + " is not adjacent to " + loc_name(at) + ".");
  const Occupancy occ = occupancy();
  if (!occ.count[static_cast<int>(enemy_of(side_of(o.units[0])))][static_cast<size_t>(target)]) {
    return reject(game::NOT_ALLOWED, "There is no enemy in " + loc_name(target) + ".");
  }
  // The overrun costs what entering the target hex would cost.
  int cost = sc_.terrain[sc_.hexes[static_cast<size_t>(target)].terrain].move_cost_half;
  int road = INT_MAX;
  for (size_t r = 0; r < sc_.road_types.size(); ++r) {
    if (h.roads[static_cast<size_t>(d)] & (1u << r)) road = std::min(road, sc_.road_types[r].move_cost_half);
  }
  if (road != INT_MAX) {
    cost = road;
  } else if (h.side[static_cast<size_t>(d)] != kNone) {
    const auto& ht = sc_.hexside_types[static_cast<size_t>(h.side[static_cast<size_t>(d)])];
    if (ht.prohibited) return reject(game::PROHIBITED_TERRAIN, "No attack across the " + ht.name + ".");
    cost += ht.move_cost_half;
  }
  for (auto u : o.units) {
    if (e_.movement_half(s_, u) - us(u).mp_used < cost) {
      return reject(game::NOT_ENOUGH_MOVEMENT, unit_name(u) + " has not the movement points left to overrun " + loc_name(target) + ".");
    }
  }
  return std::nullopt;
}

void Rules::do_overrun(const Order& o) {
  const bool continuing = !s_.mover.empty() && std::is_permutation(o.units.begin(), o.units.end(), s_.mover.begin(), s_.mover.end());
  if (!continuing) {
    finish_mover();
    s_.mover = o.units;
    for (auto u : o.units) {
      note_activation(u);
      s_.set(u, kMoving);
      if (s_.step == Step::Reserves) us(u).reserve = 0;  // 14: the marker comes off once the reserve acts
    }
  }
  const Loc target = o.path[0], at = us(o.units[0]).loc;
  int cost = sc_.terrain[sc_.hexes[static_cast<size_t>(target)].terrain].move_cost_half;
  const auto& h = sc_.hexes[static_cast<size_t>(at)];
  for (int k = 0; k < kDirs; ++k) {
    if (h.nb[static_cast<size_t>(k)] != target) continue;
    int road = INT_MAX;
    for (size_t r = 0; r < sc_.road_types.size(); ++r) {
      if (h.roads[static_cast<size_t>(k)] & (1u << r)) road = std::min(road, sc_.road_types[r].move_cost_half);
    }
    if (road != INT_MAX) {
      cost = road;
    } else if (h.side[static_cast<size_t>(k)] != kNone) {
      cost += sc_.hexside_types[static_cast<size_t>(h.side[static_cast<size_t>(k)])].move_cost_half;
    }
  }
  for (auto u : o.units) us(u).mp_used = static_cast<std::int16_t>(us(u).mp_used + cost);
  auto& c = s_.combat;
  c = CombatState{};
  c.overrun = true;
  c.attackers = o.units;
  c.target = target;
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (s_.units[u].loc == target) c.defenders.push_back(static_cast<std::int16_t>(u));
  }
  std::string names;
  for (auto u : o.units) names += (names.empty() ? "" : ", ") + unit_name(u);
  // 7: the others (the spectators above all) may not see below the top: they read where, not who.
  log(game::Event::COMBAT, names + in_number(o.units.size(), " overruns ", " overrun ", " overrun ") + loc_name(target) + ".",
      owner_only(side_of(o.units[0])));
  log(game::Event::COMBAT, unnamed(o.units) + (o.units.size() == 1 ? " overruns " : " overrun ") + loc_name(target) + ".",
      all_but(side_of(o.units[0])));
  roll_combat();
}

// ---------------------------------------------------------------------------
// 10 Barrage
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_barrage(Side who, int m, Loc target, bool air_strike) const {
  if (s_.step != Step::Barrage) return reject(game::WRONG_ORDER_KIND, "Barrage fire comes after movement, in the barrage step (rule 10).");
  if (!sc_.is_hex(target)) return reject(game::NOT_ALLOWED, "Barrage fire targets a hex of the map (rule 6: never Warsaw).");
  const Occupancy occ = occupancy();
  if (!occ.count[static_cast<int>(enemy_of(who))][static_cast<size_t>(target)]) return reject(game::NOT_ALLOWED, "There is no enemy in " + loc_name(target) + ".");
  const auto in = [&](const std::vector<Loc>& v) { return std::find(v.begin(), v.end(), target) != v.end(); };
  if (air_strike) {
    if (in(s_.stuka_hexes)) return reject(game::LIMIT_REACHED, loc_name(target) + " has already been struck from the air this phase (rule 10).");
    return std::nullopt;
  }
  const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
  if (m < 0 || m >= markers) return reject(game::MALFORMED, "Unknown artillery or Stuka marker.");
  // Whose it is first: the other side's marker is not "not ready" but not theirs.
  const bool stuka = m >= static_cast<int>(sc_.artillery.size());
  if (stuka && who != Side::German) return reject(game::NOT_ALLOWED, "Stukas are German.");
  if (!stuka && sc_.formations[static_cast<size_t>(sc_.artillery[static_cast<size_t>(m)].formation)].side != who) {
    return reject(game::NOT_ALLOWED, marker_name(m) + " is not yours.");
  }
  if (marker_state(s_, sc_, m) != MarkerState::Ready) return reject(game::NOT_ALLOWED, marker_name(m) + " is not ready (rule 10).");
  if (stuka) {
    if (in(s_.stuka_hexes)) return reject(game::LIMIT_REACHED, "Only one Stuka per target hex in a phase (rule 10).");
    return std::nullopt;  // 10: a Stuka strikes anywhere
  }
  const auto& art = sc_.artillery[static_cast<size_t>(m)];
  if (in(s_.barraged_hexes)) return reject(game::LIMIT_REACHED, loc_name(target) + " has already been barraged this phase (rule 10).");
  if (who == Side::Soviet) {
    const bool active = art.formation == s_.active_corps || art.formation == s_.extra_corps ||
                        (sc_.formations[static_cast<size_t>(art.formation)].kind == data::ARMY && s_.forty_seventh_phase == s_.activation);
    if (!active) return reject(game::NOT_ALLOWED, marker_name(m) + " belongs to a formation not activated in this phase (rule 10).");
  }
  // 10: a unit of the firing formation (or an independent allowed to use it) has the target in range.
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (sc_.units[u].side != who || !sc_.is_hex(s_.units[u].loc)) continue;
    if (sc_.distance(s_.units[u].loc, target) > art.range) continue;
    if (support_ok(m, {static_cast<std::int16_t>(u)}, who)) return std::nullopt;
  }
  return reject(game::NOT_ALLOWED, "No supplied unit of " + sc_.formations[static_cast<size_t>(art.formation)].id + " has " + loc_name(target) +
                                       " within " + std::to_string(art.range) + " hexes (rule 10).");
}

void Rules::do_barrage(int m, Loc target, bool air_strike) {
  if (air_strike || m >= static_cast<int>(sc_.artillery.size())) {
    s_.stuka_hexes.push_back(target);
  } else {
    s_.barraged_hexes.push_back(target);
  }
  if (!air_strike) marker_state(s_, sc_, m) = MarkerState::Used;
  const int die = rng_->d6();
  const auto& terrain = sc_.terrain[sc_.hexes[static_cast<size_t>(target)].terrain];
  const int drm = terrain.barrage_drm;
  const int roll = die - drm;
  const int row = std::clamp(roll - sc_.barrage_min_roll, 0, static_cast<int>(sc_.barrage.size()) - 1);
  const std::string result = sc_.barrage.empty() ? "-" : sc_.barrage[static_cast<size_t>(row)];
  std::string modifier = drm ? " -" + std::to_string(drm) : "";
  // Revision 6: the modifier is the target's terrain's, and the line says so.
  if (drm && option(kReaderTexts)) modifier = " " + signed_number(-drm) + " (" + terrain_word(terrain.name) + " " + signed_number(-drm) + ")";
  log(game::Event::BARRAGE, (air_strike ? std::string("Air strike") : marker_name(m)) + " fires at " + loc_name(target) + ": die " +
                                std::to_string(die) + modifier + ": " + result + ".");
  if (log_) log_->back().set_die(die);
  if (result == "-") return;
  std::vector<std::int16_t> hit;
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (s_.units[u].loc == target) hit.push_back(static_cast<std::int16_t>(u));
  }
  auto& c = s_.combat;
  c = CombatState{};
  c.target = target;
  c.defenders = hit;
  c.barrage_result = result == "L" ? 2 : 1;
  if (hit.size() == 1) {
    Order o = Order::of(Order::Kind::ChooseUnits, {hit[0]});
    c.stage = CombatStage::BarrageLoss;
    do_choose_units(o);
    return;
  }
  c.stage = CombatStage::BarrageLoss;  // 10: the owner chooses the unit
}

// ---------------------------------------------------------------------------
// 11 Coordinated combat
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_attack(const Order& o) const {
  if (o.units.empty() || o.path.size() != 1) return reject(game::MALFORMED, "Name the attacking units and the hex they attack.");
  const Side who = s_.phase_side();
  const Loc target = o.path[0];
  if (!sc_.is_hex(target)) return reject(game::NOT_ALLOWED, "Attacks target a hex of the map (rule 6: Soviet units never attack inside Warsaw).");
  const Occupancy occ = occupancy();
  if (!occ.count[static_cast<int>(enemy_of(who))][static_cast<size_t>(target)]) return reject(game::NOT_ALLOWED, "There is no enemy in " + loc_name(target) + ".");
  if (std::find(s_.attacked_hexes.begin(), s_.attacked_hexes.end(), target) != s_.attacked_hexes.end()) {
    return reject(game::LIMIT_REACHED, loc_name(target) + " has already been attacked this phase (rule 11).");
  }
  std::set<Loc> hexes;
  int from_warsaw = 0;
  for (size_t i = 0; i < o.units.size(); ++i) {
    const int u = o.units[i];
    if (std::count(o.units.begin(), o.units.end(), o.units[i]) > 1) return reject(game::MALFORMED, unit_name(u) + " is named twice.");
    if (side_of(u) != who) return reject(game::NOT_ALLOWED, unit_name(u) + " is not yours.");
    const auto flags = us(u).flags;
    if (flags & kAttacked) return reject(game::LIMIT_REACHED, unit_name(u) + " has already attacked this phase (rule 11).");
    // 8: building a prepared defense takes the unit's whole activation.
    if ((flags & kPreparedDefense) && (flags & kActedThisPhase) && !(flags & kMoving)) {
      return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " built a prepared defense this phase: it cannot attack (rule 8).");
    }
    if (us(u).reserve) return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " is in reserve: it acts after combat (rule 14).");
    if (!(flags & kActedThisPhase) && !can_activate(u)) return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " is not active in this phase (rule 5).");
    const Loc at = us(u).loc;
    if (at == sc_.warsaw()) {
      // 6: units in Warsaw attack across the bridges, two per bridge, at half strength.
      if (sc_.hexes[static_cast<size_t>(target)].praga_bridge == kNone) return reject(game::NOT_ALLOWED, "From Warsaw, units attack only the Praga bridge hexes (rule 6).");
      if (++from_warsaw > 2) return reject(game::LIMIT_REACHED, "At most two units attack across a bridge (rule 6).");
      continue;
    }
    if (!sc_.is_hex(at)) return reject(game::NOT_ALLOWED, unit_name(u) + " is not on the map.");
    const auto& nb = sc_.hexes[static_cast<size_t>(at)].nb;
    if (std::find(nb.begin(), nb.end(), target) == nb.end()) return reject(game::NOT_ALLOWED, unit_name(u) + " is not adjacent to " + loc_name(target) + " (rule 11).");
    hexes.insert(at);
  }
  // 11: attacking hexes must touch one another, unless FM Model allows otherwise (12).
  if (hexes.size() > 1 && !(who == Side::German && s_.model_noncontiguous)) {
    std::set<Loc> seen{*hexes.begin()};
    std::vector<Loc> todo{*hexes.begin()};
    while (!todo.empty()) {
      const Loc h = todo.back();
      todo.pop_back();
      for (Loc nb : sc_.hexes[static_cast<size_t>(h)].nb) {
        if (hexes.count(nb) && seen.insert(nb).second) todo.push_back(nb);
      }
    }
    if (seen.size() != hexes.size()) return reject(game::NOT_ALLOWED, "Attacking units must be in hexes adjacent to each other (rule 11).");
  }
  if (o.markers.size() > 1) return reject(game::LIMIT_REACHED, "At most one artillery or Stuka supports a combat per side (rule 10).");
  if (!o.markers.empty() && !support_ok(o.markers[0], o.units, who)) {
    // The first of support_ok's conditions that fails, in words.
    const int m = o.markers[0];
    const std::string name = marker_name(m);
    const MarkerState state = marker_state(s_, sc_, m);
    const bool stuka = m >= static_cast<int>(sc_.artillery.size());
    std::string why;
    if (stuka ? who != Side::German : sc_.formations[static_cast<size_t>(sc_.artillery[static_cast<size_t>(m)].formation)].side != who) {
      why = name + " is not yours.";
    } else if (state == MarkerState::NotArrived) {
      why = name + " has not arrived yet (rule 10).";
    } else if (state == MarkerState::Used) {
      why = name + " has been used already (rule 10).";
    } else if (state == MarkerState::Removed) {
      why = name + " is out of the game (rule 10).";
    } else if (stuka) {
      why = name + " cannot support this attack (rule 10).";
    } else {
      why = name + " supports only an attack with a unit of " +
            sc_.formations[static_cast<size_t>(sc_.artillery[static_cast<size_t>(m)].formation)].id +
            " in supply, or an independent unit" + (who == Side::German ? "" : " while that corps is active") + " (rule 10).";
    }
    return reject(game::NOT_ALLOWED, why);
  }
  if (o.chit >= 0) {
    const auto& hand = s_.sides[static_cast<int>(who)].hand;
    if (std::find(hand.begin(), hand.end(), static_cast<std::uint8_t>(o.chit)) == hand.end()) return reject(game::NOT_ALLOWED, "That event chit is not in your hand.");
    const auto e = sc_.events[static_cast<size_t>(o.chit)].effect;
    if (e != data::COMBAT_DRM && e != data::NO_ELASTIC_DEFENSE) return reject(game::NOT_ALLOWED, sc_.events[static_cast<size_t>(o.chit)].name + " is not played on an attack.");
    // Revision 6: without the optional rule the Soviet has no elastic defense to forbid.
    if (e == data::NO_ELASTIC_DEFENSE && option(kKesselNeedsElasticDefense) && !option(kRedArmyElasticDefense)) {
      std::string rule_name = "Red Army Elastic Defense";
      for (const auto& r : sc_.optional_rules) {
        if (r.key == "red_army_elastic_defense") rule_name = r.name;
      }
      return reject(game::NOT_ALLOWED, sc_.events[static_cast<size_t>(o.chit)].name + " only forbids the elastic defense of the optional rule " + rule_name +
                                           ", which this game does not play (rule 20).");
    }
    if (s_.sides[static_cast<int>(who)].events_this_phase >= rule(sc_.rules.events_per_phase(), 1)) return reject(game::LIMIT_REACHED, "You have already played an event in this phase (rule 20).");
  }
  return std::nullopt;
}

void Rules::do_attack(const Order& o) {
  finish_mover();
  const Side who = s_.phase_side();
  auto& c = s_.combat;
  c = CombatState{};
  c.attackers = o.units;
  c.target = o.path[0];
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (s_.units[u].loc == c.target) c.defenders.push_back(static_cast<std::int16_t>(u));
  }
  std::string names;
  for (auto u : o.units) {
    if (!(us(u).flags & kActedThisPhase)) note_activation(u);
    s_.set(u, kAttacked);
    if (!is_train(u)) s_.set(u, kMoved);
    names += (names.empty() ? "" : ", ") + unit_name(u);
  }
  std::string extra;
  if (!o.markers.empty()) {
    c.attacker_support = static_cast<std::int8_t>(o.markers[0]);
    marker_state(s_, sc_, o.markers[0]) = MarkerState::Used;
    extra += ", supported by " + marker_name(o.markers[0]);
  }
  if (o.chit >= 0) {
    auto& st = s_.sides[static_cast<int>(who)];
    st.hand.erase(std::find(st.hand.begin(), st.hand.end(), static_cast<std::uint8_t>(o.chit)));
    st.events_this_phase++;
    const auto& chit = sc_.events[static_cast<size_t>(o.chit)];
    if (chit.effect == data::COMBAT_DRM) {
      c.chit_drm = static_cast<std::int8_t>(c.chit_drm + chit.amount);
      if (option(kClearerTexts)) c.attacker_chit = static_cast<std::int16_t>(o.chit);
    }
    if (chit.effect == data::NO_ELASTIC_DEFENSE) c.no_elastic = true;
    extra += ", playing " + chit.name;
  }
  if (who == Side::German) s_.model_noncontiguous = false;
  // 7: the others (the spectators above all) may not see below the top: they read where, not who.
  log(game::Event::COMBAT, names + in_number(o.units.size(), " attacks ", " attack ", " attack ") + loc_name(c.target) + extra + ".",
      owner_only(who));
  log(game::Event::COMBAT, unnamed(o.units) + (o.units.size() == 1 ? " attacks " : " attack ") + loc_name(c.target) + extra + ".",
      all_but(who));
  bool defender_chits = false;
  const auto& hand = s_.sides[static_cast<int>(combat_defender())].hand;
  if (option(kSupportAskedWhenChitsHeld)) {
    defender_chits = !hand.empty();  // how many they hold is public, which ones is not
  } else {
    for (auto chit : hand) defender_chits |= sc_.events[chit].effect == data::COMBAT_DRM;
  }
  defender_chits &= s_.sides[static_cast<int>(combat_defender())].events_this_phase < rule(sc_.rules.events_per_phase(), 1);
  if (!defensive_markers().empty() || defender_chits) {
    c.stage = CombatStage::DefensiveSupport;
    return;
  }
  roll_combat();
}

std::optional<Rejection> Rules::check_defensive_support(const Order& o) const {
  if (o.markers.size() > 1) return reject(game::LIMIT_REACHED, "At most one artillery or Stuka supports a combat per side (rule 10).");
  if (!o.markers.empty()) {
    const auto ok = defensive_markers();
    if (std::find(ok.begin(), ok.end(), o.markers[0]) == ok.end()) {
      return reject(game::NOT_ALLOWED, marker_name(o.markers[0]) + " cannot support this defense (rule 10).");
    }
  }
  if (o.chit >= 0) {
    const Side d = combat_defender();
    const auto& st = s_.sides[static_cast<int>(d)];
    if (std::find(st.hand.begin(), st.hand.end(), static_cast<std::uint8_t>(o.chit)) == st.hand.end()) return reject(game::NOT_ALLOWED, "That event chit is not in your hand.");
    if (sc_.events[static_cast<size_t>(o.chit)].effect != data::COMBAT_DRM) return reject(game::NOT_ALLOWED, "That chit is not played on a defense.");
    if (st.events_this_phase >= rule(sc_.rules.events_per_phase(), 1)) return reject(game::LIMIT_REACHED, "You have already played an event in this phase (rule 20).");
  }
  return std::nullopt;
}

void Rules::do_defensive_support(const Order& o) {
  auto& c = s_.combat;
  if (!o.markers.empty()) {
    c.defender_support = static_cast<std::int8_t>(o.markers[0]);
    marker_state(s_, sc_, o.markers[0]) = MarkerState::Used;
    log(game::Event::COMBAT, marker_name(o.markers[0]) + " supports the defense of " + loc_name(c.target) + ".");
  }
  if (o.chit >= 0) {
    auto& st = s_.sides[static_cast<int>(combat_defender())];
    st.hand.erase(std::find(st.hand.begin(), st.hand.end(), static_cast<std::uint8_t>(o.chit)));
    st.events_this_phase++;
    const auto& chit = sc_.events[static_cast<size_t>(o.chit)];
    c.chit_drm = static_cast<std::int8_t>(c.chit_drm - chit.amount);
    if (option(kClearerTexts)) c.defender_chit = static_cast<std::int16_t>(o.chit);
    log(game::Event::EVENT_PLAYED, std::string(side_name(chit.side)) + " plays " + chit.name + " in defense.");
  }
  roll_combat();
}

// ---------------------------------------------------------------------------
// 9 Resolution procedure
// ---------------------------------------------------------------------------

void Rules::roll_combat() {
  auto& c = s_.combat;
  int att = 0, def = 0;
  for (auto u : c.attackers) {
    if (!on_board(u)) continue;
    int cp = e_.combat_value(s_, u);
    if (us(u).loc == sc_.warsaw()) cp = (cp + 1) / 2;  // 6: across the bridges at half strength
    att += cp;
  }
  bool prepared = false, retreated = false;
  for (auto u : c.defenders) {
    if (us(u).flags & kRetreated) {  // 9: retreated here this phase: shares the fate, adds nothing
      retreated = true;
      continue;
    }
    def += e_.combat_value(s_, u);
    prepared |= (us(u).flags & kPreparedDefense) != 0;
  }
  // Odds, rounded down in the defender's favour, kept within the table's columns.
  const int n = static_cast<int>(sc_.crt_columns.size());
  int col = def == 0 ? n - 1 : 0;
  for (int i = 0; i < n && def > 0; ++i) {
    const auto& label = sc_.crt_columns[static_cast<size_t>(i)];
    const auto colon = label.find(':');
    const int a = std::stoi(label.substr(0, colon)), b = std::stoi(label.substr(colon + 1));
    if (a * def <= att * b) col = i;
  }
  const std::string odds = n ? sc_.crt_columns[static_cast<size_t>(col)] : "?";
  // Column shifts: the defender's terrain, a hexside every attacker crosses, prepared defense (8).
  const auto& terrain = sc_.terrain[sc_.hexes[static_cast<size_t>(c.target)].terrain];
  int shift = terrain.combat_shift;
  int side_shift = INT_MAX;
  for (auto u : c.attackers) {
    const Loc at = us(u).loc;
    int this_side = 0;
    if (sc_.is_hex(at)) {
      const auto& h = sc_.hexes[static_cast<size_t>(at)];
      for (int k = 0; k < kDirs; ++k) {
        if (h.nb[static_cast<size_t>(k)] == c.target && h.side[static_cast<size_t>(k)] != kNone) {
          this_side = sc_.hexside_types[static_cast<size_t>(h.side[static_cast<size_t>(k)])].combat_shift;
        }
      }
    }
    side_shift = std::min(side_shift, this_side);
  }
  if (side_shift != INT_MAX) shift += side_shift;
  if (prepared) shift += 1;
  c.column = static_cast<std::int8_t>(std::clamp(col - shift, 0, std::max(0, n - 1)));
  // Die modifiers: one attack bonus per attacking hex, all defensive bonuses (9).
  std::map<Loc, int> per_hex;
  int best_attack = 0;
  for (auto u : c.attackers) {
    if (!on_board(u)) continue;
    const int b = face(u).attack_bonus + us(u).bonus;
    per_hex[us(u).loc] = std::max(per_hex[us(u).loc], b);
    best_attack = std::max(best_attack, b);
  }
  int attack_bonus = 0;
  for (const auto& [h, b] : per_hex) attack_bonus += b;
  int defense_bonus = 0, best_defense = 0;
  for (auto u : c.defenders) {
    if (us(u).flags & kRetreated) continue;
    const int b = face(u).attack_bonus + face(u).defense_bonus + us(u).bonus;
    defense_bonus += b;
    best_defense = std::max(best_defense, b);
  }
  if (option(kLimitedBonus)) {
    attack_bonus = best_attack;
    defense_bonus = best_defense;
  }
  // Each modifier with its source, in the rulebook's words (8, 9, 10); the chits' (20) are in chit_drm.
  // The units' bonuses are one sum: a spectator sees only the top unit of a stack, and the sum is
  // what the net told before, where the attackers' and the defenders' apart would tell more.
  using Source = std::pair<std::string, int>;
  const int unit_bonuses = attack_bonus - defense_bonus;
  std::vector<Source> sources = {
      {terrain_word(terrain.name), -terrain.defense_drm},
      {"prepared defense", prepared ? -1 : 0},
      {support_word(c.attacker_support), c.attacker_support >= 0 ? 1 : 0},
      {support_word(c.defender_support), c.defender_support >= 0 ? -1 : 0},
  };
  int told = c.chit_drm;  // the modifiers every viewer was told of
  for (const auto& source : sources) told += source.second;
  const int cap = rule(sc_.rules.max_modifier(), 6);
  const int modifier = std::clamp(unit_bonuses + told, -cap, cap);
  c.modifier = static_cast<std::int8_t>(modifier);
  c.die = static_cast<std::int8_t>(rng_->d6());
  std::string named;  // revision 4: the modifiers by source, each known to both players
  if (option(kClearerTexts)) {
    for (const auto& [chit, sign] : {std::pair{c.attacker_chit, 1}, std::pair{c.defender_chit, -1}}) {
      if (chit < 0) continue;
      const auto& event = sc_.events[static_cast<size_t>(chit)];
      sources.emplace_back(event.name, sign * event.amount);
    }
    // 9, the limit: at it the net tells the units' bonuses only as a bound, and so does the line.
    const bool limited = modifier == cap || modifier == -cap;
    if (limited) {
      named = "unit bonuses " + signed_number(modifier - told) + (modifier > 0 ? " or more" : " or less");
    } else if (unit_bonuses) {
      named = "unit bonuses " + signed_number(unit_bonuses);
    }
    for (const auto& [source, value] : sources) {
      if (value) named += (named.empty() ? "" : ", ") + source + " " + signed_number(value);
    }
    if (limited) named += "; limited to " + signed_number(modifier);
    if (!named.empty()) named = " (" + named + ")";
  }
  // Revision 6: a strength that leaves out units in the hex says why (retreats are seen by all).
  const std::string left_out =
      retreated && option(kReaderTexts) ? " (retreated units do not add their strength, rule 9)" : "";
  log(game::Event::DIE_ROLLED, std::to_string(att) + " against " + std::to_string(def) + left_out + " (" + odds + ")" +
                                   (shift ? ", " + std::to_string(shift) + " column" + (shift > 1 ? "s" : "") + " to the defender" : "") +
                                   ": die " + std::to_string(c.die) + " " + signed_number(modifier) + named + ".");
  if (log_) log_->back().set_die(c.die);
  if (model_available() && (side_of(c.attackers[0]) == Side::German || combat_defender() == Side::German)) {
    c.stage = CombatStage::ModelReroll;  // 12: the German may re-roll
    return;
  }
  apply_combat_result();
}

void Rules::do_reroll(bool reroll) {
  auto& c = s_.combat;
  if (reroll) {
    s_.model_used = true;
    s_.model_turn = static_cast<std::int8_t>(s_.turn + 1);
    c.die = static_cast<std::int8_t>(rng_->d6());
    log(game::Event::DIE_ROLLED, "FM Model orders a new roll: die " + std::to_string(c.die) + ".");
    if (log_) log_->back().set_die(c.die);
  }
  apply_combat_result();
}

void Rules::apply_combat_result() {
  auto& c = s_.combat;
  const int rows = static_cast<int>(sc_.crt.size());
  const int row = std::clamp(c.die + c.modifier - sc_.crt_min_roll, 0, rows - 1);
  const auto& r = sc_.crt[static_cast<size_t>(row)][static_cast<size_t>(c.column)];
  c.attacker_steps = static_cast<std::uint8_t>(r.attacker_steps);
  c.defender_steps = static_cast<std::uint8_t>(r.defender_steps);
  c.retreat = static_cast<std::uint8_t>(r.retreat);
  c.yellow = r.yellow;
  log(game::Event::COMBAT, "Result at " + loc_name(c.target) + " (" + sc_.crt_columns[static_cast<size_t>(c.column)] + ", " +
                               std::to_string(c.die + c.modifier) + "): " + r.text + ".");
  if (log_) {
    log_->back().set_column(sc_.crt_columns[static_cast<size_t>(c.column)]);
    log_->back().set_result(r.text);
    log_->back().set_overrun(c.overrun);
  }
  c.stage = CombatStage::AttackerLosses;
  next_combat_stage();
}

int Rules::elastic_allowed() const {
  const auto& c = s_.combat;
  const Side d = combat_defender();
  if (c.yellow || c.no_elastic || c.defender_steps == 0) return 0;
  if (d == Side::Soviet && !option(kRedArmyElasticDefense)) return 0;
  return 1;  // 9: losses are reduced "by one step" for one more hex, not step for step
}

void Rules::next_combat_stage() {
  auto& c = s_.combat;
  auto steps_left = [&](const std::vector<std::int16_t>& units) {
    int n = 0;
    for (auto u : units) n += on_board(u) ? static_cast<int>(def(u).steps.size()) - us(u).hits : 0;
    return n;
  };
  while (true) {
    switch (c.stage) {
      case CombatStage::AttackerLosses: {
        if (c.attacker_steps > 0) {
          if (survivors(c.attackers) > 1 && steps_left(c.attackers) > c.attacker_steps) return;  // the attacker chooses
          int left = c.attacker_steps;
          for (auto u : c.attackers) {
            while (left > 0 && on_board(u)) {
              lose_step(u, "combat");
              --left;
            }
          }
        }
        c.stage = CombatStage::DefenderLosses;
        break;
      }
      case CombatStage::DefenderLosses: {
        const bool choice = c.retreat > 0 || elastic_allowed() > 0 ||
                            (c.defender_steps > 0 && survivors(c.defenders) > 1 && steps_left(c.defenders) > c.defender_steps);
        if (choice && survivors(c.defenders) > 0) return;  // the defender chooses
        int left = c.defender_steps;
        for (auto u : c.defenders) {
          while (left > 0 && on_board(u)) {
            lose_step(u, "combat");
            --left;
          }
        }
        c.stage = CombatStage::Retreat;
        break;
      }
      case CombatStage::Retreat: {
        bool any = false, movable = false;
        const Occupancy occ = occupancy();
        for (auto u : c.defenders) {
          if (us(u).loc != c.target) continue;
          any = true;
          if (!retreat_paths(u, 1).empty()) movable = true;
        }
        if (c.retreat > 0 && any) {
          if (movable) return;  // the defender chooses the paths
          // 9: a unit that cannot retreat loses steps instead.
          for (auto u : c.defenders) {
            for (int k = 0; k < c.retreat && us(u).loc == c.target; ++k) lose_step(u, "no retreat path");
          }
        }
        c.defender_gone = std::none_of(c.defenders.begin(), c.defenders.end(), [&](int u) { return us(u).loc == c.target; }) &&
                          std::none_of(s_.units.begin(), s_.units.end(), [&](const UnitState& x) { return x.loc == c.target; });
        c.stage = CombatStage::Advance;
        break;
      }
      case CombatStage::Advance:
        if (c.defender_gone && survivors(c.attackers) > 0 && max_advance() > 0) return;  // the attacker may advance
        end_combat();
        return;
      case CombatStage::DefensiveSupport:
      case CombatStage::ModelReroll:
      case CombatStage::BarrageLoss:
      case CombatStage::None:
        return;
    }
  }
}

void Rules::end_combat() {
  auto& c = s_.combat;
  if (c.overrun) {
    // 9: if the attack fails to clear the hex, the movement ends.
    const bool cleared = std::none_of(s_.units.begin(), s_.units.end(), [&](const UnitState& u) { return u.loc == c.target; }) ||
                         std::any_of(c.attackers.begin(), c.attackers.end(), [&](int u) { return us(u).loc == c.target; });
    s_.mover.erase(std::remove_if(s_.mover.begin(), s_.mover.end(), [&](int u) { return !on_board(u); }), s_.mover.end());
    if (!cleared) {
      finish_mover();  // no more moves, nor overruns
    } else if (!s_.mover.empty()) {
      // 9: with MP left the unit moves on; the ZOC of the cleared hex no longer holds it,
      // but a hex it stopped in or advanced into in another enemy ZOC still does (6).
      const Loc at = us(s_.mover[0]).loc;
      const bool ignore = std::all_of(s_.mover.begin(), s_.mover.end(), [&](int u) { return (us(u).flags & kIgnoreZoc) != 0; });
      const bool in_zoc = sc_.is_hex(at) && occupancy().zoc[static_cast<int>(enemy_of(side_of(s_.mover[0])))][static_cast<size_t>(at)];
      s_.mover_stopped = !ignore && in_zoc && (at == c.target || s_.mover_stopped);
    }
    if (s_.mover.empty()) s_.mover_stopped = false;
  } else {
    s_.attacked_hexes.push_back(c.target);
  }
  c = CombatState{};
}

// ---------------------------------------------------------------------------
// Losses
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_take_losses(const Order& o) const {
  const auto& c = s_.combat;
  const bool attacker = c.stage == CombatStage::AttackerLosses;
  const auto& units = attacker ? c.attackers : c.defenders;
  int required = attacker ? c.attacker_steps : c.defender_steps;
  if (attacker && (o.elastic || o.desperate)) return reject(game::NOT_ALLOWED, "Attackers take their losses as they come (rule 9).");
  if (!attacker) {
    if (o.elastic < 0 || o.elastic > elastic_allowed()) {
      return reject(game::NOT_ALLOWED, elastic_allowed() ? "Elastic defense turns at most " + std::to_string(elastic_allowed()) + " steps into retreat (rule 9)."
                                                         : std::string("Elastic defense is not allowed here (rule 9: German only, never on a yellow result)."));
    }
    if (o.desperate < 0 || o.desperate > c.retreat) return reject(game::NOT_ALLOWED, "Desperate defense exchanges at most the retreat's hexes (rule 9).");
    if (o.elastic && o.desperate) return reject(game::NOT_ALLOWED, "Choose elastic or desperate defense, not both.");
    required = required - o.elastic + o.desperate;
  }
  int available = 0;
  for (auto u : units) available += on_board(u) ? static_cast<int>(def(u).steps.size()) - us(u).hits : 0;
  required = std::min(required, available);
  if (static_cast<int>(o.units.size()) != required) {
    return reject(game::MALFORMED, "Name one unit for each of the " + std::to_string(required) + " steps lost.");
  }
  for (auto u : o.units) {
    if (std::find(units.begin(), units.end(), u) == units.end() || !on_board(u)) return reject(game::NOT_ALLOWED, unit_name(u) + " is not in this combat.");
    const int times = static_cast<int>(std::count(o.units.begin(), o.units.end(), u));
    if (times > static_cast<int>(def(u).steps.size()) - us(u).hits) return reject(game::NOT_ALLOWED, unit_name(u) + " does not have that many steps.");
  }
  return std::nullopt;
}

void Rules::do_take_losses(const Order& o) {
  auto& c = s_.combat;
  const bool attacker = c.stage == CombatStage::AttackerLosses;
  if (!attacker) {
    const auto elastic = static_cast<size_t>(o.elastic), desperate = static_cast<size_t>(o.desperate);
    if (o.elastic) {
      log(game::Event::COMBAT, "Elastic defense: " + std::to_string(o.elastic) + in_number(elastic, " step", " steps", " step(s)") + " fewer, " +
                                   std::to_string(o.elastic) + in_number(elastic, " hex", " hexes", " hex(es)") + " more retreat.");
    }
    if (o.desperate) {
      log(game::Event::COMBAT, "Desperate defense: " + std::to_string(o.desperate) + in_number(desperate, " step", " steps", " step(s)") +
                                   " instead of retreating.");
    }
    c.retreat = static_cast<std::uint8_t>(c.retreat + o.elastic - o.desperate);
  }
  for (auto u : o.units) {
    if (on_board(u)) lose_step(u, "combat");
  }
  c.stage = attacker ? CombatStage::DefenderLosses : CombatStage::Retreat;
  next_combat_stage();
}

// ---------------------------------------------------------------------------
// Retreat (9)
// ---------------------------------------------------------------------------

bool Rules::can_retreat_step(int u, Loc from, Loc to, const std::vector<Loc>& visited, const Occupancy& occ) const {
  if (std::find(visited.begin(), visited.end(), to) != visited.end()) return false;
  const Side side = side_of(u);
  if (to == sc_.warsaw()) {
    // 6: German units may retreat across the Praga bridges, never the Józefów bridge.
    return side == Side::German && sc_.is_hex(from) && sc_.hexes[static_cast<size_t>(from)].praga_bridge != kNone && !s_.bridges_closed;
  }
  return can_step(u, from, to, occ);
}

std::vector<std::vector<Loc>> Rules::retreat_paths(int u, int length) const {
  std::vector<std::vector<Loc>> out;
  const Occupancy occ = occupancy();
  std::vector<Loc> path;
  std::vector<Loc> visited{us(u).loc};
  std::function<void(Loc)> walk = [&](Loc at) {
    if (static_cast<int>(path.size()) == length) {
      out.push_back(path);
      return;
    }
    if (out.size() >= 64 || at == sc_.warsaw()) return;
    std::vector<Loc> next(sc_.hexes[static_cast<size_t>(at)].nb.begin(), sc_.hexes[static_cast<size_t>(at)].nb.end());
    next.push_back(sc_.warsaw());
    for (Loc to : next) {
      if (to < 0 || !can_retreat_step(u, at, to, visited, occ)) continue;
      path.push_back(to);
      visited.push_back(to);
      walk(to);
      path.pop_back();
      visited.pop_back();
    }
  };
  walk(us(u).loc);
  return out;
}

// Whether a retreat that has come `len` hexes to `at` can go on to a legal end:
// the result's length or more, past full hexes only, ending where the unit has
// room (or in Warsaw), within the maximum length (9).
bool Rules::retreat_can_finish(int u, Loc at, std::vector<Loc>& visited, int len, const Occupancy& occ,
                               std::vector<Loc>* found) const {
  const int need = s_.combat.retreat;
  const Side side = side_of(u);
  if ((len > 0 && at == sc_.warsaw()) || (len >= need && len > 0 && stacking_ok_after(occ, at, side, {static_cast<std::int16_t>(u)}))) {
    if (found) found->assign(visited.begin() + 1, visited.end());
    return true;
  }
  if (len >= rule(sc_.rules.max_retreat(), 4) || at == sc_.warsaw()) return false;
  std::vector<Loc> next(sc_.hexes[static_cast<size_t>(at)].nb.begin(), sc_.hexes[static_cast<size_t>(at)].nb.end());
  next.push_back(sc_.warsaw());
  for (Loc to : next) {
    if (to < 0 || !can_retreat_step(u, at, to, visited, occ)) continue;
    visited.push_back(to);
    const bool done = retreat_can_finish(u, to, visited, len + 1, occ, found);
    visited.pop_back();
    if (done) return true;
  }
  return false;
}

// Steps lost on the way: one per enemy-ZOC hex not held by friends, plus one
// per hex short of the result when no path goes on. -1 when the path is illegal.
// `occ` is the board before the retreat (steps, ZOC); `room` is this state's,
// where the other units of the retreat already stand where they end (stacking).
int Rules::retreat_loss_for(int u, const std::vector<Loc>& path, const Occupancy& occ, const Occupancy& room,
                            std::string* why) const {
  const auto& c = s_.combat;
  const int need = c.retreat;
  const int max_len = rule(sc_.rules.max_retreat(), 4);
  const Side side = side_of(u);
  std::vector<Loc> visited{us(u).loc};
  Loc at = us(u).loc;
  int loss = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    const Loc to = path[i];
    if (!can_retreat_step(u, at, to, visited, occ)) {
      if (!why) return -1;
      bool apart = false;
      if (sc_.is_hex(at) && sc_.is_hex(to)) {
        const auto& nb = sc_.hexes[static_cast<size_t>(at)].nb;
        apart = std::find(nb.begin(), nb.end(), to) == nb.end();
      }
      if (std::find(visited.begin(), visited.end(), to) != visited.end()) {
        *why = unit_name(u) + " cannot retreat into " + loc_name(to) + ", where it has been (rule 9).";
      } else if (apart) {
        *why = loc_name(at) + " and " + loc_name(to) + " are not adjacent: a retreat goes one hex at a time.";
      } else {
        *why = unit_name(u) + " cannot retreat into " + loc_name(to) + " (rule 9: not through enemy units, prohibited terrain or off the map).";
      }
      return -1;
    }
    if (to == sc_.warsaw() && i + 1 != path.size()) {
      if (why) *why = "A retreat into Warsaw ends there.";
      return -1;
    }
    if (sc_.is_hex(to) && occ.zoc[static_cast<int>(enemy_of(side))][static_cast<size_t>(to)] &&
        !occ.count[static_cast<int>(side)][static_cast<size_t>(to)]) {
      ++loss;  // 9: a step for each enemy-ZOC hex entered unless friends hold it
    }
    visited.push_back(to);
    at = to;
  }
  const int len = static_cast<int>(path.size());
  if (len < need && !(len > 0 && path.back() == sc_.warsaw())) {  // 6: Warsaw takes a retreat in full
    // Only when no path goes on to a legal end: one that cannot finish the
    // retreat is no retreat, and the unit loses steps instead (9).
    if (retreat_can_finish(u, at, visited, len, room)) {
      if (why) *why = unit_name(u) + " must retreat " + std::to_string(need) + " hexes (rule 9).";
      return -1;
    }
    loss += need - len;
  }
  if (len > need) {
    // 9: a retreat goes on only past hexes already at the stacking limit, four hexes at most.
    if (len > max_len) {
      if (why) *why = "A retreat is at most " + std::to_string(max_len) + " hexes (rule 9).";
      return -1;
    }
    for (int i = std::max(0, need - 1); i + 1 < len; ++i) {
      const Loc h = path[static_cast<size_t>(i)];
      // 7: a hex with room for this unit (a Kampfgruppe's third) ends the retreat.
      if (!sc_.is_hex(h) || stacking_ok_after(room, h, side, {static_cast<std::int16_t>(u)})) {
        if (why) *why = unit_name(u) + " retreats " + std::to_string(need) + " hexes, further only past full hexes (rule 9).";
        return -1;
      }
    }
  }
  return loss;
}

// This state with every unit of the retreat where its path ends.
GameState Rules::after_retreat(const Order& o) const {
  GameState trial = s_;
  for (size_t i = 0; i < o.units.size(); ++i) {
    if (!o.paths[i].empty()) trial.units[static_cast<size_t>(o.units[i])].loc = o.paths[i].back();
  }
  return trial;
}

// 9: the units of a retreat share the room around them: each is judged with
// the others where their paths end, so that a hex one of them fills is full
// for the rest, who go on past it or, with nowhere left to go, lose steps
// instead. The steps each loses, or -1 from the first illegal path on.
std::vector<int> Rules::retreat_losses(const Order& o, std::string* why) const {
  const Occupancy occ = occupancy();
  GameState trial = after_retreat(o);
  std::vector<int> losses(o.units.size(), -1);
  for (size_t i = 0; i < o.units.size(); ++i) {
    const auto u = static_cast<size_t>(o.units[i]);
    trial.units[u].loc = s_.units[u].loc;
    Rules tr(e_, trial, nullptr, nullptr);
    losses[i] = tr.retreat_loss_for(o.units[i], o.paths[i], occ, tr.occupancy(), why);
    if (losses[i] < 0) break;
    if (!o.paths[i].empty()) trial.units[u].loc = o.paths[i].back();
  }
  return losses;
}

std::optional<Rejection> Rules::check_retreat(const Order& o) const {
  const auto& c = s_.combat;
  std::vector<std::int16_t> movers;
  for (auto u : c.defenders) {
    if (us(u).loc == c.target) movers.push_back(u);
  }
  if (o.units.size() != movers.size() || o.paths.size() != o.units.size() ||
      !std::is_permutation(o.units.begin(), o.units.end(), movers.begin(), movers.end())) {
    return reject(game::MALFORMED, "Give a retreat path for every defending unit (rule 9).");
  }
  std::string why;
  const auto losses = retreat_losses(o, &why);
  if (std::find(losses.begin(), losses.end(), -1) != losses.end()) return reject(game::ILLEGAL_PATH, why);
  GameState trial = after_retreat(o);
  Rules tr(e_, trial, nullptr, nullptr);
  const Occupancy tocc = tr.occupancy();
  for (size_t i = 0; i < o.units.size(); ++i) {
    if (o.paths[i].empty()) continue;
    const Loc end = o.paths[i].back();
    if (!tr.stacking_ok_after(tocc, end, side_of(o.units[i]), {}) &&
        static_cast<int>(o.paths[i].size()) < rule(sc_.rules.max_retreat(), 4)) {
      return reject(game::STACKING_LIMIT, "The retreat cannot end over the stacking limit in " + loc_name(end) + ": retreat further (rule 9).");
    }
  }
  return std::nullopt;
}

void Rules::do_retreat(const Order& o) {
  auto& c = s_.combat;
  const std::vector<int> losses = retreat_losses(o, nullptr);
  for (size_t i = 0; i < o.units.size(); ++i) {
    const int u = o.units[i];
    const auto& path = o.paths[i];
    const Loc from = us(u).loc;
    if (!path.empty()) {
      place(u, path.back());
      s_.set(u, kRetreated);
      c.retreated = std::max(c.retreated, static_cast<std::uint8_t>(path.size()));
      std::vector<Loc> full{from};
      full.insert(full.end(), path.begin(), path.end());
      std::string route;
      for (Loc l : full) route += (route.empty() ? "" : " → ") + loc_name(l);
      // 7: the unit may end below the top of a stack: the others read the route, not who.
      const std::string hexes = " retreats " + std::to_string(path.size()) + " hex" + (path.size() > 1 ? "es" : "") + ": " + route + ".";
      log_path(game::Event::RETREATED, unit_name(u) + hexes, full, owner_only(side_of(u)));
      log_path(game::Event::RETREATED, std::string("A ") + side_name(side_of(u)) + " unit" + hexes, full, all_but(side_of(u)));
    }
    for (int k = 0; k < losses[i] && on_board(u); ++k) lose_step(u, path.size() < c.retreat ? "no retreat path" : "retreat through enemy ZOC");
    // 7: a retreat that still ends over the stacking limit after four hexes costs the unit.
    if (on_board(u) && !stacking_ok_after(occupancy(), us(u).loc, side_of(u), {})) {
      while (on_board(u)) lose_step(u, "no room at the end of its retreat");
    }
  }
  c.defender_gone = std::none_of(s_.units.begin(), s_.units.end(), [&](const UnitState& x) { return x.loc == c.target; });
  c.stage = CombatStage::Advance;
  next_combat_stage();
}

// ---------------------------------------------------------------------------
// Advance after combat (9, 11)
// ---------------------------------------------------------------------------

int Rules::max_advance() const {
  const auto& c = s_.combat;
  if (c.overrun) return 1;
  // 11: after D2 or more that eliminated the defender or drove it back more than a hex.
  const bool eliminated = c.retreated == 0;
  if (c.defender_steps >= 2 && (eliminated || c.retreated > 1)) return std::max<int>(1, eliminated ? c.retreat : c.retreated);
  return 1;
}

std::optional<Rejection> Rules::check_advance(const Order& o) const {
  const auto& c = s_.combat;
  if (o.path.empty()) return std::nullopt;  // no advance
  if (o.units.empty()) return reject(game::MALFORMED, "Name the advancing units.");
  for (auto u : o.units) {
    if (std::find(c.attackers.begin(), c.attackers.end(), u) == c.attackers.end() || !on_board(u)) {
      return reject(game::NOT_ALLOWED, unit_name(u) + " did not take part in this attack (rule 9).");
    }
    if (std::count(o.units.begin(), o.units.end(), u) > 1) return reject(game::MALFORMED, unit_name(u) + " is named twice.");
    if (!sc_.is_hex(us(u).loc)) return reject(game::NOT_ALLOWED, unit_name(u) + " cannot advance from " + loc_name(us(u).loc) + ".");
  }
  if (o.path[0] != c.target) return reject(game::ILLEGAL_PATH, "The first hex of an advance is the one the defender left (rule 11).");
  if (static_cast<int>(o.path.size()) > max_advance()) {
    return reject(game::ILLEGAL_PATH, "The advance is at most " + std::to_string(max_advance()) + " hex" + (max_advance() > 1 ? "es" : "") + " here (rules 9, 11).");
  }
  const Occupancy occ = occupancy();
  const Side side = side_of(o.units[0]);
  const int enemy = static_cast<int>(enemy_of(side));
  for (size_t i = 0; i < o.path.size(); ++i) {
    const Loc to = o.path[i];
    if (!sc_.is_hex(to) || occ.count[enemy][static_cast<size_t>(to)]) return reject(game::ILLEGAL_PATH, "No advance into " + loc_name(to) + ".");
    if (sc_.terrain[sc_.hexes[static_cast<size_t>(to)].terrain].prohibited) return reject(game::PROHIBITED_TERRAIN, loc_name(to) + " is prohibited terrain.");
    if (i > 0) {
      const auto& nb = sc_.hexes[static_cast<size_t>(o.path[i - 1])].nb;
      if (std::find(nb.begin(), nb.end(), to) == nb.end()) return reject(game::ILLEGAL_PATH, "The advance must follow adjacent hexes.");
      if (std::find(o.path.begin(), o.path.begin() + static_cast<long>(i), to) != o.path.begin() + static_cast<long>(i)) {
        return reject(game::ILLEGAL_PATH, "The advance cannot enter a hex twice.");
      }
    }
    if (occ.zoc[enemy][static_cast<size_t>(to)] && i + 1 < o.path.size()) {
      return reject(game::MUST_STOP_IN_ZOC, "The advance stops in an enemy ZOC (rule 11).");
    }
    // 13: the armored train advances only along connected railway hexes.
    for (auto u : o.units) {
      if (is_train(u) && !can_step(u, i == 0 ? us(u).loc : o.path[i - 1], to, occ)) {
        return reject(game::ILLEGAL_PATH, "The armored train advances only along connected railway hexes (rule 13).");
      }
    }
  }
  if (!stacking_ok_after(occ, o.path.back(), side, o.units)) return reject(game::STACKING_LIMIT, "Too many units would end in " + loc_name(o.path.back()) + " (rule 7).");
  return std::nullopt;
}

void Rules::do_advance(const Order& o) {
  if (!o.path.empty()) {
    for (auto it = o.units.rbegin(); it != o.units.rend(); ++it) place(*it, o.path.back());
    std::string names, route;
    for (auto u : o.units) names += (names.empty() ? "" : ", ") + unit_name(u);
    for (Loc l : o.path) route += (route.empty() ? "" : " → ") + loc_name(l);
    log_path(game::Event::ADVANCED, names + " advance" + (o.units.size() == 1 ? "s" : "") + ": " + route + ".", o.path, owner_only(side_of(o.units[0])));
    const std::string side = side_name(side_of(o.units[0]));
    log_path(game::Event::ADVANCED, in_number(o.units.size(), "A " + side + " unit advances: ", side + " units advance: ", side + " units advance: ") + route + ".", o.path,
             side_of(o.units[0]) == Side::Soviet ? game::AUDIENCE_ALL_BUT_SOVIET : game::AUDIENCE_ALL_BUT_GERMAN);
  }
  end_combat();
}

// ---------------------------------------------------------------------------
// 12 FM Model
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_use_model(const Order& o) const {
  if (s_.phase_side() != Side::German) return reject(game::NOT_ALLOWED, "FM Model commands the German side (rule 12).");
  if (!model_available()) return reject(game::LIMIT_REACHED, "FM Model is not available this turn (rule 12: one effect per turn).");
  switch (o.effect) {
    case game::UseModel::NON_ADJACENT_ATTACK:
      if (s_.step != Step::Combat) return reject(game::WRONG_ORDER_KIND, "Model's coordination is used in the combat step.");
      return std::nullopt;
    case game::UseModel::REACTIVATE: {
      if (s_.step != Step::Movement) return reject(game::WRONG_ORDER_KIND, "Model reactivates a stack in the movement step.");
      if (o.units.empty()) return reject(game::MALFORMED, "Name the stack to reactivate.");
      for (auto u : o.units) {
        if (side_of(u) != Side::German || !on_board(u) || us(u).loc != us(o.units[0]).loc) return reject(game::NOT_ALLOWED, "Name German units in one location.");
        if (!(us(u).flags & kMoved) || (us(u).flags & kActedThisPhase)) return reject(game::NOT_ALLOWED, unit_name(u) + " was not activated in an earlier phase (rule 12).");
      }
      return std::nullopt;
    }
    case game::UseModel::EXTRA_DIVISION:
      if (!option(kLimitedGermanActivation) || s_.step != Step::Movement) return reject(game::NOT_ALLOWED, "Model's extra division applies with limited German activation, in movement (rule 12).");
      return std::nullopt;
    case game::UseModel::REROLL:
      return reject(game::WRONG_ORDER_KIND, "Model's re-roll is offered after a combat's die is rolled (rule 12).");
    default:
      return reject(game::MALFORMED, "Name one of Model's effects.");
  }
}

void Rules::do_use_model(const Order& o) {
  s_.model_used = true;
  s_.model_turn = static_cast<std::int8_t>(s_.turn + 1);  // 12: Model moves on along the turn track
  switch (o.effect) {
    case game::UseModel::NON_ADJACENT_ATTACK:
      s_.model_noncontiguous = true;
      log(game::Event::EVENT_PLAYED, "FM Model coordinates the next attack: its units need not be adjacent to each other.");
      break;
    case game::UseModel::REACTIVATE:
      for (auto u : o.units) {
        s_.set(u, kMoved, false);
        s_.set(u, kReactivated);
        us(u).mp_used = 0;
      }
      log(game::Event::EVENT_PLAYED, "FM Model sends the stack at " + loc_name(us(o.units[0]).loc) + " into action again.");
      break;
    case game::UseModel::EXTRA_DIVISION:
      s_.model_extra_division = true;
      log(game::Event::EVENT_PLAYED, "FM Model: one more division may activate in this phase.");
      break;
    default:
      break;
  }
}

}  // namespace counterattack
