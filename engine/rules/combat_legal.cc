// Legal combat orders (9-12): what random players and bots draw from. Every
// order listed is checked by the same code that checks a player's order.
#include <algorithm>
#include <optional>
#include <set>

#include "rules/rules.h"

namespace counterattack {

namespace {
using K = Order::Kind;
}

std::vector<Order> Engine::legal_overruns(const GameState& s) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  std::vector<Order> out;
  const Decision d = r.decision();
  if (d.kind == game::Decision::MOVEMENT || d.kind == game::Decision::RESERVES) r.legal_overruns(d.side, out);
  return out;
}

void Rules::legal_overruns(Side me, std::vector<Order>& out) const {
  const Occupancy occ = occupancy();
  const int enemy = static_cast<int>(enemy_of(me));
  auto try_group = [&](const std::vector<std::int16_t>& group) {
    const Loc at = us(group[0]).loc;
    if (!sc_.is_hex(at)) return;
    for (Loc nb : sc_.hexes[static_cast<size_t>(at)].nb) {
      if (nb < 0 || !occ.count[enemy][static_cast<size_t>(nb)]) continue;
      Order o = Order::of(K::Overrun, group, {nb});
      if (!check(me, o)) out.push_back(o);
    }
  };
  if (!s_.mover.empty()) try_group(s_.mover);
  // 9 Sudden attack: single units next to the enemy that have not moved.
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (sc_.units[u].side != me || !sc_.is_hex(s_.units[u].loc) || (s_.units[u].flags & kMoving)) continue;
    if (!occ.zoc[enemy][static_cast<size_t>(s_.units[u].loc)]) continue;
    try_group({static_cast<std::int16_t>(u)});
  }
}

void Rules::legal_barrages(Side me, std::vector<Order>& out) const {
  const Occupancy occ = occupancy();
  const int enemy = static_cast<int>(enemy_of(me));
  const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
  for (Loc h = 0; h < sc_.hex_count(); ++h) {
    if (!occ.count[enemy][static_cast<size_t>(h)]) continue;
    for (int m = 0; m < markers; ++m) {
      Order o = Order::of(K::Barrage, {}, {h});
      o.markers = {static_cast<std::int16_t>(m)};
      if (!check(me, o)) out.push_back(o);
    }
    for (auto chit : s_.sides[static_cast<int>(me)].hand) {
      if (sc_.events[chit].effect != data::AIR_STRIKE) continue;
      Order o = Order::of(K::PlayEvent, {}, {h});
      o.chit = static_cast<std::int16_t>(chit);
      if (!check(me, o)) out.push_back(o);
    }
  }
  // A Stuka that has flown may be sent up again before the next barrage.
  for (auto chit : s_.sides[static_cast<int>(me)].hand) {
    if (sc_.events[chit].effect != data::EXTRA_STUKA) continue;
    Order o = Order::of(K::PlayEvent);
    o.chit = static_cast<std::int16_t>(chit);
    if (!check(me, o)) out.push_back(o);
  }
}

// 10: the artillery and Stuka markers that may fire now, each at some enemy hex.
std::vector<int> Rules::barrage_markers(Side me) const {
  std::vector<int> out;
  const Occupancy occ = occupancy();
  const int enemy = static_cast<int>(enemy_of(me));
  const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
  const int artillery = static_cast<int>(sc_.artillery.size());
  for (int m = 0; m < markers; ++m) {
    // The cheap test first.
    const MarkerState state = m < artillery ? s_.artillery[static_cast<size_t>(m)] : s_.stukas[static_cast<size_t>(m - artillery)];
    if (state != MarkerState::Ready) continue;
    for (Loc h = 0; h < sc_.hex_count(); ++h) {
      if (!occ.count[enemy][static_cast<size_t>(h)] || check_barrage(me, m, h, false)) continue;
      out.push_back(m);
      break;
    }
  }
  return out;
}

void Rules::legal_attacks(Side me, std::vector<Order>& out) const {
  const Occupancy occ = occupancy();
  const int enemy = static_cast<int>(enemy_of(me));
  const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
  for (Loc h = 0; h < sc_.hex_count(); ++h) {
    if (!occ.count[enemy][static_cast<size_t>(h)]) continue;
    // Everyone who may attack it, and each attacking hex on its own.
    std::vector<std::int16_t> all;
    std::vector<std::vector<std::int16_t>> by_hex;
    for (Loc nb : sc_.hexes[static_cast<size_t>(h)].nb) {
      if (nb < 0 || !occ.count[static_cast<int>(me)][static_cast<size_t>(nb)]) continue;
      std::vector<std::int16_t> here;
      for (size_t u = 0; u < s_.units.size(); ++u) {
        if (s_.units[u].loc != nb || sc_.units[u].side != me) continue;
        const auto flags = s_.units[u].flags;
        if ((flags & kAttacked) || s_.units[u].reserve) continue;
        if (!(flags & kActedThisPhase) && !can_activate(static_cast<int>(u))) continue;
        here.push_back(static_cast<std::int16_t>(u));
      }
      if (here.empty()) continue;
      all.insert(all.end(), here.begin(), here.end());
      by_hex.push_back(here);
    }
    if (all.empty()) continue;
    std::vector<std::vector<std::int16_t>> groups{all};
    if (by_hex.size() > 1) groups.insert(groups.end(), by_hex.begin(), by_hex.end());
    for (const auto& g : groups) {
      Order o = Order::of(K::Attack, g, {h});
      if (check(me, o)) continue;
      out.push_back(o);
      for (int m = 0; m < markers; ++m) {
        o.markers = {static_cast<std::int16_t>(m)};
        if (!check(me, o)) {
          out.push_back(o);
          break;
        }
      }
      // The same attack with each chit that may be played on it (11).
      o.markers.clear();
      for (auto chit : s_.sides[static_cast<int>(me)].hand) {
        o.chit = static_cast<std::int16_t>(chit);
        if (!check(me, o)) out.push_back(o);
      }
    }
  }
  if (me == Side::German && model_available() && !s_.model_noncontiguous) {
    Order o = Order::of(K::UseModel);
    o.effect = game::UseModel::NON_ADJACENT_ATTACK;
    if (!check(me, o)) out.push_back(o);
  }
}

void Rules::legal_combat_answers(const Decision& d, std::vector<Order>& out) const {
  const auto& c = s_.combat;
  auto keep = [&](const Order& o) {
    if (!check(d.side, o) && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  };
  switch (d.kind) {
    case game::Decision::DEFENSIVE_SUPPORT: {
      keep(Order::of(K::DefensiveSupport));
      for (int m : defensive_markers()) {
        Order o = Order::of(K::DefensiveSupport);
        o.markers = {static_cast<std::int16_t>(m)};
        keep(o);
      }
      for (auto chit : s_.sides[static_cast<int>(d.side)].hand) {
        Order o = Order::of(K::DefensiveSupport);
        o.chit = static_cast<std::int16_t>(chit);
        keep(o);
      }
      return;
    }
    case game::Decision::MODEL_REROLL: {
      Order o = Order::of(K::Reroll);
      keep(o);
      o.yes = true;
      keep(o);
      return;
    }
    case game::Decision::ATTACKER_LOSSES:
    case game::Decision::DEFENDER_LOSSES: {
      const bool defender = d.kind == game::Decision::DEFENDER_LOSSES;
      std::vector<std::pair<int, int>> options{{0, 0}};  // (elastic, desperate)
      if (defender) {
        for (int e = 1; e <= elastic_allowed(); ++e) options.push_back({e, 0});
        for (int k = 1; k <= c.retreat; ++k) options.push_back({0, k});
      }
      for (auto [e, k] : options) {
        for (int variant = 0; variant < 4; ++variant) keep(loss_order(defender, e, k, variant % 2 == 1, variant >= 2));
      }
      return;
    }
    case game::Decision::RETREAT: {
      const auto movers = retreating_units();
      const auto options = retreat_options(movers);
      for (size_t k = 0; k < 24 && out.size() < 6; ++k) {
        Order o = Order::of(K::Retreat, movers);
        for (size_t i = 0; i < movers.size(); ++i) o.paths.push_back(options[i][(k * (i + 1) + i) % options[i].size()]);
        keep(o);
      }
      keep(roomy_retreat(movers, options));
      // 9: a unit with no retreat that can finish stays and loses steps.
      Order stay = Order::of(K::Retreat, movers);
      stay.paths.assign(movers.size(), {});
      keep(stay);
      return;
    }
    case game::Decision::ADVANCE: {
      keep(Order::of(K::Advance));
      std::vector<std::int16_t> alive;
      for (auto u : c.attackers) {
        if (on_board(u) && sc_.is_hex(us(u).loc)) alive.push_back(u);
      }
      keep(Order::of(K::Advance, alive, {c.target}));
      for (auto u : alive) {
        keep(Order::of(K::Advance, {u}, {c.target}));
        for (Loc nb : sc_.hexes[static_cast<size_t>(c.target)].nb) {
          if (nb >= 0) keep(Order::of(K::Advance, {u}, {c.target, nb}));
        }
      }
      return;
    }
    case game::Decision::BARRAGE_LOSS:
      for (int u : d.candidates) keep(Order::of(K::ChooseUnits, {static_cast<std::int16_t>(u)}));
      return;
    default:
      return;
  }
}

Order Rules::loss_order(bool defender, int elastic, int desperate, bool last_first, bool concentrate) const {
  const auto& c = s_.combat;
  const auto& units = defender ? c.defenders : c.attackers;
  const int need = (defender ? c.defender_steps : c.attacker_steps) - elastic + desperate;
  std::vector<std::int16_t> order(units.begin(), units.end());
  if (last_first) std::reverse(order.begin(), order.end());
  std::vector<int> left;
  for (auto u : order) left.push_back(on_board(u) ? static_cast<int>(def(u).steps.size()) - us(u).hits : 0);
  Order o = Order::of(Order::Kind::TakeLosses);
  o.elastic = static_cast<std::int8_t>(elastic);
  o.desperate = static_cast<std::int8_t>(desperate);
  int remaining = need;
  bool progress = true;
  while (remaining > 0 && progress) {
    progress = false;
    for (size_t i = 0; i < order.size() && remaining > 0; ++i) {
      if (left[i] == 0) continue;
      const int take = concentrate ? std::min(left[i], remaining) : 1;
      for (int t = 0; t < take; ++t) o.units.push_back(order[i]);
      left[i] -= take;
      remaining -= take;
      progress = true;
    }
  }
  return o;
}

std::vector<std::int16_t> Rules::retreating_units() const {
  std::vector<std::int16_t> movers;
  for (auto u : s_.combat.defenders) {
    if (us(u).loc == s_.combat.target) movers.push_back(u);
  }
  return movers;
}

std::vector<std::vector<std::vector<Loc>>> Rules::retreat_options(const std::vector<std::int16_t>& movers) const {
  std::vector<std::vector<std::vector<Loc>>> options;
  const int max_len = rule(sc_.rules.max_retreat(), 4);
  for (auto u : movers) {
    std::vector<std::vector<Loc>> opts;
    for (int len = s_.combat.retreat; len >= 0 && opts.empty(); --len) opts = retreat_paths(u, len);
    for (int len = s_.combat.retreat + 1; len <= max_len; ++len) {
      auto longer = retreat_paths(u, len);
      opts.insert(opts.end(), longer.begin(), longer.begin() + std::min<long>(8, static_cast<long>(longer.size())));
    }
    if (opts.empty()) opts.push_back({});
    options.push_back(std::move(opts));
  }
  return options;
}

Order Rules::roomy_retreat(const std::vector<std::int16_t>& movers,
                           const std::vector<std::vector<std::vector<Loc>>>& options) const {
  // One unit after the other, each where those before it left room (9): the
  // first of its paths that is legal and ends with room, else any retreat that
  // can finish, else none (it stays and loses steps). Each choice stays legal
  // whatever the later units do, as they only fill hexes.
  const Occupancy occ = occupancy();
  Order o = Order::of(Order::Kind::Retreat, movers);
  GameState tstate = s_;
  for (size_t i = 0; i < movers.size(); ++i) {
    Rules tr(e_, tstate, nullptr, nullptr);
    const Occupancy room = tr.occupancy();
    const Side side = side_of(movers[i]);
    std::optional<std::vector<Loc>> chosen;
    for (const auto& p : options[i]) {
      if (tr.retreat_loss_for(movers[i], p, occ, room, nullptr) < 0) continue;
      if (p.empty() || tr.stacking_ok_after(room, p.back(), side, {movers[i]})) {
        chosen = p;
        break;
      }
    }
    if (!chosen) {
      std::vector<Loc> visited{us(movers[i]).loc}, found;
      chosen = tr.retreat_can_finish(movers[i], visited.front(), visited, 0, room, &found) ? found : std::vector<Loc>{};
    }
    if (!chosen->empty()) tstate.units[static_cast<size_t>(movers[i])].loc = chosen->back();
    o.paths.push_back(*chosen);
  }
  return o;
}

}  // namespace counterattack
