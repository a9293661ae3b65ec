// 15 Supply.
#include <algorithm>
#include <deque>

#include "rules/rules.h"

namespace counterattack {

// Hexes in supply for a side: within range of a road that is connected to a
// source, along paths free of enemy units and of enemy ZOC (unless friends hold the hex).
std::vector<std::uint8_t> Rules::supply_map(Side side, const Occupancy& occ) const {
  const int own = static_cast<int>(side), enemy = static_cast<int>(enemy_of(side));
  const size_t n = static_cast<size_t>(sc_.hex_count());
  const auto& enemy_count = occ.count[enemy];
  const auto& enemy_zoc = occ.zoc[enemy];
  const auto& own_count = occ.count[own];
  auto blocked = [&](Loc h) {
    const auto i = static_cast<size_t>(h);
    return enemy_count[i] || (enemy_zoc[i] && !own_count[i]);
  };
  // Hexes reached, by distance from the connected road net: 0 on it, -1 not reached.
  std::vector<std::int16_t> dist(n, -1);
  std::vector<Loc> queue;  // breadth first: a vector read from the front, never shrunk
  queue.reserve(n);
  auto seed = [&](Loc h) {
    if (blocked(h) || dist[static_cast<size_t>(h)] == 0) return;
    dist[static_cast<size_t>(h)] = 0;
    queue.push_back(h);
  };
  for (const auto& ep : sc_.entry_points) {
    if (ep.side != side || !ep.supply_source) continue;
    for (Loc h : ep.hexes) seed(h);  // a source held by the enemy is lost while held
  }
  // German: Warsaw, through the Praga bridges, unless the uprising cuts it off (18).
  if (side == Side::German && sc_.warsaw_supply_source && !s_.bridges_closed) {
    for (const auto& b : sc_.praga_bridges) seed(b.hex);
  }
  // The road net connected to a source.
  for (size_t head = 0; head < queue.size(); ++head) {
    const auto& hx = sc_.hexes[static_cast<size_t>(queue[head])];
    for (int d = 0; d < kDirs; ++d) {
      const Loc nb = hx.nb[static_cast<size_t>(d)];
      if (nb < 0 || !hx.roads[static_cast<size_t>(d)] || dist[static_cast<size_t>(nb)] == 0 || blocked(nb)) continue;
      dist[static_cast<size_t>(nb)] = 0;
      queue.push_back(nb);
    }
  }
  // Up to supply_range hexes from it: the queue already holds the net, at distance 0.
  const int range = rule(sc_.rules.supply_range(), 5);
  for (size_t head = 0; head < queue.size(); ++head) {
    const Loc h = queue[head];
    const int here = dist[static_cast<size_t>(h)];
    if (here >= range) continue;
    const auto& hx = sc_.hexes[static_cast<size_t>(h)];
    for (int d = 0; d < kDirs; ++d) {
      const Loc nb = hx.nb[static_cast<size_t>(d)];
      if (nb < 0 || dist[static_cast<size_t>(nb)] >= 0 || blocked(nb)) continue;
      const auto st = hx.side[static_cast<size_t>(d)];
      if (st != kNone && sc_.hexside_types[static_cast<size_t>(st)].prohibited && !hx.roads[static_cast<size_t>(d)]) continue;
      dist[static_cast<size_t>(nb)] = static_cast<std::int16_t>(here + 1);
      queue.push_back(nb);
    }
  }
  std::vector<std::uint8_t> out(n, 0);
  for (size_t h = 0; h < n; ++h) out[h] = dist[h] >= 0;
  return out;
}

bool Rules::traced_supply(int u, const std::vector<std::uint8_t>& map) const {
  const Loc l = us(u).loc;
  if (is_train(u) || (us(u).flags & kSupplyDrop)) return true;  // 13: the train is always supplied
  if (l == sc_.warsaw()) return side_of(u) == Side::German && sc_.warsaw_supply_source && !s_.bridges_closed;
  if (sc_.is_entry(l)) return true;
  return sc_.is_hex(l) && map[static_cast<size_t>(l)];
}

bool Engine::in_supply(const GameState& s, int unit) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.traced_supply(unit, r.supply_map(sc_->units[static_cast<size_t>(unit)].side, r.occupancy()));
}

std::vector<bool> Engine::units_in_supply(const GameState& s, Side side) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const auto map = r.supply_map(side, r.occupancy());
  std::vector<bool> out(s.units.size(), false);
  for (size_t u = 0; u < s.units.size(); ++u) {
    out[u] = sc_->units[u].side == side && r.traced_supply(static_cast<int>(u), map);
  }
  return out;
}

std::vector<Loc> Engine::supplied_hexes(const GameState& s, Side side) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const auto map = r.supply_map(side, r.occupancy());
  std::vector<Loc> out;
  for (Loc h = 0; h < static_cast<Loc>(map.size()); ++h) {
    if (map[static_cast<size_t>(h)]) out.push_back(h);
  }
  return out;
}

// 5 step 5: the units activated in this phase, or every unit of the side.
void Rules::supply_check(bool whole_side) {
  const Side side = s_.phase_side();
  // 5 (revision 3): a Soviet corps is activated whole, moved or not, and the 47th Army with it;
  // games begun before check only the units that acted.
  auto activated_whole = [&](size_t u) {
    if (side != Side::Soviet || !option(kWholeCorpsSupplyCheck)) return false;
    const int f = sc_.units[u].formation;
    if (f == s_.active_corps || f == s_.extra_corps) return true;
    return sc_.formations[static_cast<size_t>(f)].kind == data::ARMY && s_.forty_seventh_phase == s_.activation;
  };
  auto checked = [&](size_t u) {
    return sc_.units[u].side == side && sc_.on_board(s_.units[u].loc) &&
           (whole_side || (s_.units[u].flags & kActedThisPhase) || activated_whole(u));
  };
  bool any = false;
  for (size_t u = 0; u < s_.units.size() && !any; ++u) any = checked(u);
  if (!any) return;  // a phase in which nothing acted traces no supply
  const auto map = supply_map(side, occupancy());
  const auto owner = side == Side::Soviet ? game::AUDIENCE_SOVIET : game::AUDIENCE_GERMAN;
  int lost = 0, regained = 0;
  std::string names;
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (!checked(u)) continue;
    const bool supplied = traced_supply(static_cast<int>(u), map);
    const bool was_out = s_.units[u].flags & kOutOfSupply;
    if (supplied == !was_out) continue;
    s_.set(static_cast<int>(u), kOutOfSupply, !supplied);
    (supplied ? regained : lost)++;
    names += (names.empty() ? "" : ", ") + sc_.units[u].id + (supplied ? " (supplied again)" : " (out of supply)");
  }
  if (!names.empty()) log(game::Event::SUPPLY, "Supply check: " + names + ".", owner);
  if (lost || regained) {
    log(game::Event::SUPPLY, std::string(side_name(side)) + " supply check: " + std::to_string(lost) + " out of supply, " +
                                 std::to_string(regained) + " supplied again.",
        side == Side::Soviet ? game::AUDIENCE_ALL_BUT_SOVIET : game::AUDIENCE_ALL_BUT_GERMAN);
  }
}

}  // namespace counterattack
