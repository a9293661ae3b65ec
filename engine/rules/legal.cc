// Legal orders for the decider: what random players, bots and tests draw from.
// Every order listed here must be accepted by Engine::apply.
#include <algorithm>
#include <map>

#include "rules/rules.h"

namespace counterattack {

std::vector<Order> Engine::legal_orders(const GameState& s) const {
  using K = Order::Kind;
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const Scenario& sc = *sc_;
  const Decision d = r.decision();
  std::vector<Order> out;
  auto add = [&](Order o) { out.push_back(std::move(o)); };
  auto choose = [&](K kind, std::vector<std::int16_t> units) {
    Order o;
    o.kind = kind;
    o.units = std::move(units);
    add(std::move(o));
  };
  switch (d.kind) {
    case game::Decision::GAME_OVER:
      return out;
    case game::Decision::CHOOSE_CORPS:
      for (int c : d.candidates) {
        Order o;
        o.kind = K::ActivateCorps;
        o.corps = static_cast<std::int16_t>(c);
        add(o);
        if (s.forty_seventh_phase < 0) {
          o.with_47th = true;
          add(o);
        }
      }
      return out;
    case game::Decision::BREAK_CONTACT: {
      add(Order::of(K::BreakContact, {}, {}));  // stand fast
      const Occupancy occ = r.occupancy();
      for (auto u : s.pending_break.eligible) {
        for (Loc to : sc.hexes[static_cast<size_t>(s.units[static_cast<size_t>(u)].loc)].nb) {
          if (to < 0 || !r.break_contact_destination_ok(u, to, occ)) continue;
          Order o = Order::of(K::BreakContact, {u}, {to});
          if (!r.check(d.side, o)) add(o);
        }
      }
      return out;
    }
    case game::Decision::RECOVERY: {
      add(Order::done());
      const Occupancy occ = r.occupancy();
      const auto supply = r.supply_map(Side::German, occ);
      for (int u : d.candidates) {
        if (r.on_board(u)) {
          add(Order::of(K::Recover, {static_cast<std::int16_t>(u)}, {}));
          continue;
        }
        int found = 0;
        if (r.recovery_location_ok(u, sc.warsaw(), occ, supply)) {
          add(Order::of(K::Recover, {static_cast<std::int16_t>(u)}, {sc.warsaw()}));
          ++found;
        }
        for (Loc h = 0; h < sc.hex_count() && found < 3; ++h) {
          if (!r.recovery_location_ok(u, h, occ, supply)) continue;
          add(Order::of(K::Recover, {static_cast<std::int16_t>(u)}, {h}));
          ++found;
        }
      }
      return out;
    }
    case game::Decision::UPRISING_SUPPRESSION: {
      add(Order::done());
      std::vector<std::int16_t> units;
      for (int c : d.candidates) {
        units.push_back(static_cast<std::int16_t>(c));
        if (units.size() % 2 == 0) choose(K::SuppressUprising, units);
      }
      return out;
    }
    case game::Decision::UPRISING_STEP_LOSS:
    case game::Decision::UPRISING_UNITS_MOVED: {
      const auto& c = d.candidates;
      const size_t need = static_cast<size_t>(d.count);
      for (size_t start = 0; start + need <= c.size(); ++start) {
        std::vector<std::int16_t> units;
        for (size_t k = 0; k < need; ++k) units.push_back(static_cast<std::int16_t>(c[start + k]));
        choose(K::ChooseUnits, units);
      }
      return out;
    }
    case game::Decision::MAGNUSZEW: {
      // The greedy choice, and the same with every alternative for the first slot.
      const auto& need = sc.magnuszew.at(s.turn);
      auto build = [&](size_t skip_first) {
        Order o;
        o.kind = K::ChooseUnits;
        std::vector<bool> used(d.candidates.size(), false);
        for (size_t t = 0; t < need.size(); ++t) {
          size_t skipped = 0;
          for (size_t i = 0; i < d.candidates.size(); ++i) {
            if (used[i] || !r.withdrawal_matches(need[t], d.candidates[i])) continue;
            if (t == 0 && skipped++ < skip_first) continue;
            used[i] = true;
            const int item = d.candidates[i];
            if (item >= 0) {
              o.units.push_back(static_cast<std::int16_t>(item));
            } else {
              o.markers.push_back(static_cast<std::int16_t>(-1 - item));
            }
            break;
          }
        }
        return o;
      };
      for (size_t skip = 0; skip < d.candidates.size(); ++skip) {
        Order o = build(skip);
        if (!r.check(d.side, o) && std::find(out.begin(), out.end(), o) == out.end()) add(o);
      }
      if (out.empty()) add(build(0));
      return out;
    }
    case game::Decision::BARRAGE:
      add(Order::done());
      r.legal_barrages(d.side, out);
      return out;
    case game::Decision::COMBAT:
      add(Order::done());
      r.legal_attacks(d.side, out);
      return out;
    case game::Decision::DEFENSIVE_SUPPORT:
    case game::Decision::MODEL_REROLL:
    case game::Decision::ATTACKER_LOSSES:
    case game::Decision::DEFENDER_LOSSES:
    case game::Decision::RETREAT:
    case game::Decision::ADVANCE:
    case game::Decision::BARRAGE_LOSS:
      r.legal_combat_answers(d, out);
      return out;
    case game::Decision::MOVEMENT:
    case game::Decision::RESERVES:
      break;
    default:
      return out;
  }

  // Movement and reserves.
  add(Order::done());
  const Side me = d.side;
  const bool reserves = d.kind == game::Decision::RESERVES;
  auto moves_for = [&](const std::vector<std::int16_t>& group) {
    for (auto& [to, path] : r.reachable(group)) add(Order::of(K::Move, group, path));
  };
  if (!s.mover.empty() && !s.mover_stopped) moves_for(s.mover);
  r.legal_overruns(me, out);
  std::map<Loc, std::vector<std::int16_t>> startable;
  for (size_t i = 0; i < s.units.size(); ++i) {
    const auto u = static_cast<std::int16_t>(i);
    if (r.side_of(u) != me || !r.on_board(u)) continue;
    if ((s.units[i].flags & kMoving) || !r.can_activate(u)) continue;
    if (reserves != (s.units[i].reserve != 0)) continue;
    startable[s.units[i].loc].push_back(u);
  }
  for (auto& [loc, units] : startable) {
    for (auto u : units) {
      moves_for({u});
      if (!reserves && sc.is_hex(loc)) add(Order::of(K::PreparedDefense, {u}, {}));
    }
    std::vector<std::int16_t> together;
    for (auto u : units) {
      if (!r.is_train(u)) together.push_back(u);
    }
    if (together.size() >= 2) moves_for(together);
    if (!reserves) {
      Order o = Order::of(K::PlaceReserve, {units[0]});
      if (!r.check(me, o)) add(o);
    }
  }
  if (!reserves) {
    // Event chits, each with a first valid target.
    const Occupancy occ = r.occupancy();
    std::vector<std::uint8_t> supply;
    for (auto chit : s.sides[static_cast<int>(me)].hand) {
      Order o = Order::of(K::PlayEvent);
      o.chit = static_cast<std::int16_t>(chit);
      auto try_add = [&](const Order& candidate) {
        if (r.check(me, candidate)) return false;
        add(candidate);
        return true;
      };
      switch (sc.events[chit].effect) {
        case data::NO_BREAK_CONTACT:
        case data::BRIDGE_REPAIR:
          try_add(o);
          break;
        case data::EXTRA_CORPS_ACTIVATION:
          for (size_t f = 0; f < sc.formations.size(); ++f) {
            o.corps = static_cast<std::int16_t>(f);
            if (sc.formations[f].kind == data::CORPS && try_add(o)) break;
          }
          break;
        case data::EXTRA_STUKA:
          try_add(o);
          break;
        case data::IGNORE_ZOC:
        case data::REACTIVATE_STACK:
        case data::SUPPLY_DROP:
        case data::UNIT_BONUS:
          for (size_t i = 0; i < s.units.size(); ++i) {
            if (sc.units[i].side != me || !sc.on_board(s.units[i].loc)) continue;
            o.units = {static_cast<std::int16_t>(i)};
            if (try_add(o)) break;
          }
          break;
        case data::RECOVER_STEP:
          if (supply.empty()) supply = r.supply_map(me, occ);
          for (int u : r.recovery_candidates(me)) {
            o.units = {static_cast<std::int16_t>(u)};
            o.path.clear();
            if (!r.on_board(u)) {
              for (Loc h = 0; h < sc.hex_count() && o.path.empty(); ++h) {
                if (r.recovery_location_ok(u, h, occ, supply)) o.path = {h};
              }
            }
            if (try_add(o)) break;
          }
          break;
        default:
          break;  // combat chits are played on attacks and defenses, air strikes in the barrage step
      }
    }
  }
  return out;
}

}  // namespace counterattack
