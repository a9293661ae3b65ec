// 7 Visibility: what each viewer may see. The only way a game leaves the engine.
#include <algorithm>

#include "rules/rules.h"
#include "view_delta.h"

namespace counterattack {
namespace {

game::Side to_proto_side(Side s) { return s == Side::Soviet ? game::SOVIET : game::GERMAN; }

game::ViewerKind to_proto_viewer(Viewer v) {
  switch (v) {
    case Viewer::Soviet: return game::VIEWER_SOVIET;
    case Viewer::German: return game::VIEWER_GERMAN;
    case Viewer::Spectator: return game::VIEWER_SPECTATOR;
    case Viewer::Omniscient: return game::VIEWER_OMNISCIENT;
  }
  return game::VIEWER_UNSPECIFIED;
}

const char* marker_state(MarkerState m) {
  switch (m) {
    case MarkerState::NotArrived: return "not arrived";
    case MarkerState::Ready: return "ready";
    case MarkerState::Used: return "used";
    case MarkerState::Removed: return "removed";
  }
  return "?";
}

// An enemy stack at `l` may be inspected (7): one of the viewer's units is
// next to it. `here` has bit 0 set where the viewer has a unit.
bool next_to_own(const Scenario& sc, const std::vector<std::uint8_t>& here, Loc l) {
  if (sc.is_hex(l)) {
    for (Loc nb : sc.hexes[static_cast<size_t>(l)].nb) {
      if (nb >= 0 && (here[static_cast<size_t>(nb)] & 1)) return true;
    }
  } else if (l == sc.warsaw()) {
    for (const auto& b : sc.praga_bridges) {
      if (here[static_cast<size_t>(b.hex)] & 1) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<Loc> Engine::inspected_enemy_stacks(const GameState& s, Side viewer) const {
  const Scenario& sc = *sc_;
  std::vector<std::uint8_t> here(static_cast<size_t>(sc.location_count()), 0);
  for (size_t u = 0; u < s.units.size(); ++u) {
    if (sc.units[u].side == viewer && sc.on_board(s.units[u].loc)) here[static_cast<size_t>(s.units[u].loc)] |= 1;
  }
  std::vector<Loc> out;
  for (size_t u = 0; u < s.units.size(); ++u) {
    const Loc l = s.units[u].loc;
    if (sc.units[u].side != viewer && sc.on_board(l) && next_to_own(sc, here, l)) out.push_back(l);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The canonical order of stacks: each location's rank among all locations,
// hexes by number, then the others by name (as stack_before orders names).
std::vector<int> location_ranks(const Scenario& sc) {
  std::vector<std::string> names;
  std::vector<Loc> order;
  for (Loc l = 0; l < static_cast<Loc>(sc.location_count()); ++l) {
    names.push_back(sc.location_name(l));
    order.push_back(l);
  }
  std::sort(order.begin(), order.end(), [&](Loc a, Loc b) {
    return location_before(names[static_cast<size_t>(a)], names[static_cast<size_t>(b)]);
  });
  std::vector<int> rank(order.size());
  for (size_t i = 0; i < order.size(); ++i) rank[static_cast<size_t>(order[i])] = static_cast<int>(i);
  return rank;
}

ViewModel Engine::view_model(const GameState& s, Viewer viewer) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const Scenario& sc = *sc_;
  const bool omniscient = viewer == Viewer::Omniscient;
  const bool player = viewer == Viewer::Soviet || viewer == Viewer::German;
  const Side me = viewer == Viewer::German ? Side::German : Side::Soviet;
  auto sees_all_of = [&](Side side) { return omniscient || (player && side == me); };

  ViewModel v;
  v.viewer = viewer;

  // On-board units, stack by stack in the canonical order, top first.
  struct Placed {
    int rank;
    std::uint32_t seq;
    int unit;
  };
  std::vector<Placed> placed;
  placed.reserve(s.units.size());
  // Per location: bit 0, a unit of the viewer's; bit 1, a Soviet unit.
  std::vector<std::uint8_t> here(static_cast<size_t>(sc.location_count()), 0);
  for (size_t u = 0; u < s.units.size(); ++u) {
    const Loc l = s.units[u].loc;
    if (!sc.on_board(l)) continue;
    placed.push_back({location_rank_[static_cast<size_t>(l)], s.units[u].stack_seq, static_cast<int>(u)});
    if (player && sc.units[u].side == me) here[static_cast<size_t>(l)] |= 1;
    if (sc.units[u].side == Side::Soviet) here[static_cast<size_t>(l)] |= 2;
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.seq > b.seq;
  });

  auto& h = v.header;
  h.turn = s.turn;
  h.phase = r.phase_name();
  h.step = s.step;
  h.active_corps = s.active_corps;
  h.corps_done = s.corps_done;
  h.forty_seventh_activated = s.forty_seventh_phase >= 0;
  h.soviet_vp = r.victory_points(Side::Soviet);
  h.german_vp = r.victory_points(Side::German);
  h.soviet_bonus_vp = s.soviet_bonus_vp;
  h.uprising = s.uprising;
  h.uprising_box = s.uprising_box;
  h.jozefow_bridge_intact = s.jozefow != 2;
  h.model_turn = s.model_turn;
  h.options = s.options;
  h.result = s.result;
  h.result_reason = s.result_reason;
  h.soviet_cup = static_cast<int>(s.sides[0].cup.size());
  h.german_cup = static_cast<int>(s.sides[1].cup.size());
  for (const auto& vl : sc.victory) {
    for (Loc hx : vl.hexes) v.victory_soviet.push_back(sc.on_board(hx) && (here[static_cast<size_t>(hx)] & 2));
  }

  // Whose decision; the options only for the one who decides.
  Decision d = r.decision();
  auto& dv = v.decision;
  dv.kind = d.kind;
  dv.has_side = d.kind != game::Decision::GAME_OVER;
  if (dv.has_side) dv.side = d.side;
  dv.prompt = std::move(d.prompt);
  dv.count = d.count;
  if (sees_all_of(d.side)) {
    dv.candidates = std::move(d.candidates);
    // 10: the markers that may fire; worked out here, not in every decision() an order's check asks for.
    if (d.kind == game::Decision::BARRAGE) {
      for (int m : r.barrage_markers(d.side)) dv.candidates.push_back(-1 - m);
    }
    if (dv.has_side) dv.takebacks = static_cast<int>(s.takeback.before.size());
  }

  // Stacks. An enemy stack shows its top unit and height; the rest only while
  // one of the viewer's units is adjacent (7).
  v.stacks.reserve(placed.size());
  v.units.reserve(placed.size());
  for (size_t i = 0; i < placed.size();) {
    const Loc l = s.units[static_cast<size_t>(placed[i].unit)].loc;
    size_t end = i;
    while (end < placed.size() && placed[end].rank == placed[i].rank) ++end;
    for (Side side : {Side::Soviet, Side::German}) {
      const bool inspected = sees_all_of(side) || (player && next_to_own(sc, here, l));
      StackSight st;
      st.loc = l;
      st.side = side;
      st.inspected = inspected;
      st.first = static_cast<std::uint16_t>(v.units.size());
      for (size_t k = i; k < end; ++k) {
        const int u = placed[k].unit;
        if (sc.units[static_cast<size_t>(u)].side != side) continue;
        UnitSight& us_out = v.units.emplace_back();
        if (!inspected && v.units.size() - st.first > 1) continue;  // hidden: no id, no values to track it by
        const auto& us = s.units[static_cast<size_t>(u)];
        us_out.unit = u;
        us_out.steps = static_cast<int>(sc.units[static_cast<size_t>(u)].steps.size()) - us.hits;
        us_out.combat = combat_value(s, u);
        us_out.movement = movement_half(s, u) / 2;
        us_out.moved = us.flags & kMoved;
        us_out.disorganized = us.flags & kDisorganized;
        us_out.out_of_supply = us.flags & kOutOfSupply;
        us_out.prepared_defense = us.flags & kPreparedDefense;
        us_out.reserve = us.reserve != 0;
        us_out.chit_bonus = us.bonus;
        if (sees_all_of(side) && (us.flags & kMoving)) us_out.movement_left_half = movement_half(s, u) - us.mp_used;
      }
      st.height = static_cast<std::uint16_t>(v.units.size() - st.first);
      if (st.height) v.stacks.push_back(st);
    }
    i = end;
  }

  for (Side side : {Side::Soviet, Side::German}) {
    const auto& ss = s.sides[static_cast<int>(side)];
    auto& hv = v.hands[static_cast<int>(side)];
    hv.held = static_cast<int>(ss.hand.size());
    if (sees_all_of(side)) hv.chits.assign(ss.hand.begin(), ss.hand.end());
  }
  v.artillery.assign(s.artillery.begin(), s.artillery.end());
  v.stukas.assign(s.stukas.begin(), s.stukas.end());
  for (size_t u = 0; u < s.units.size(); ++u) {
    if (s.units[u].loc == kEliminated) v.eliminated.push_back(static_cast<int>(u));
    if (s.units[u].loc == kWithdrawn) v.withdrawn.push_back(static_cast<int>(u));
  }
  return v;
}

game::View Engine::view(const GameState& s, Viewer viewer) const { return to_proto(view_model(s, viewer)); }

// ---------------------------------------------------------------------------
// The wire form
// ---------------------------------------------------------------------------

namespace {

void header_proto(const Scenario& sc, const HeaderSight& h, game::Header& out) {
  out.set_turn(h.turn);
  out.set_phase(h.phase);
  out.set_step(step_name(h.step));
  if (h.active_corps >= 0) out.set_active_corps(sc.formations[static_cast<size_t>(h.active_corps)].id);
  for (size_t f = 0; f < sc.formations.size(); ++f) {
    if (h.corps_done & (1u << f)) out.add_activated_corps(sc.formations[f].id);
  }
  out.set_forty_seventh_activated(h.forty_seventh_activated);
  out.set_soviet_vp(h.soviet_vp);
  out.set_german_vp(h.german_vp);
  out.set_soviet_bonus_vp(h.soviet_bonus_vp);
  switch (h.uprising) {
    case Uprising::None: out.set_uprising("not started"); break;
    case Uprising::Triggered: out.set_uprising("Warsaw will rise next turn"); break;
    case Uprising::Rising: out.set_uprising("Warsaw rises"); break;
    case Uprising::Ongoing:
      out.set_uprising(h.uprising_box >= 0 ? sc.uprising_boxes[static_cast<size_t>(h.uprising_box)].label : "ongoing");
      break;
  }
  out.set_uprising_box(h.uprising_box);
  out.set_jozefow_bridge_intact(h.jozefow_bridge_intact);
  out.set_model_turn(h.model_turn);
  for (const auto& o : sc.optional_rules) {
    if (h.options & option_bit(o.key)) out.add_options(o.key);
  }
  switch (h.result) {
    case Result::Ongoing: break;
    case Result::SovietWin: out.set_result("Soviet victory"); break;
    case Result::GermanWin: out.set_result("German victory"); break;
    case Result::Draw: out.set_result("Draw"); break;
  }
  out.set_result_reason(h.result_reason);
  out.set_soviet_cup(h.soviet_cup);
  out.set_german_cup(h.german_cup);
}

void victory_proto(const Scenario& sc, const std::vector<bool>& soviet, google::protobuf::RepeatedPtrField<std::string>& out) {
  size_t i = 0;
  for (const auto& vl : sc.victory) {
    for (Loc hx : vl.hexes) *out.Add() = sc.location_name(hx) + "=" + (soviet[i++] ? "SOVIET" : "GERMAN");
  }
}

void decision_proto(const Scenario& sc, const DecisionSight& d, game::Decision& out) {
  out.set_kind(d.kind);
  if (d.has_side) out.set_side(to_proto_side(d.side));
  out.set_prompt(d.prompt);
  out.set_count(d.count);
  out.set_takebacks(d.takebacks);
  for (int c : d.candidates) {
    if (d.kind == game::Decision::CHOOSE_CORPS) {
      out.add_candidates(sc.formations[static_cast<size_t>(c)].id);
    } else if (c >= 0) {
      out.add_candidates(sc.units[static_cast<size_t>(c)].id);
    } else {
      const int m = -1 - c;
      out.add_candidates(m < static_cast<int>(sc.artillery.size()) ? sc.artillery[static_cast<size_t>(m)].id
                                                                   : sc.stukas[static_cast<size_t>(m) - sc.artillery.size()].id);
    }
  }
}

void hands_proto(const Scenario& sc, const HandSight (&hands)[2],
                 google::protobuf::RepeatedPtrField<game::HandView>& out) {
  for (Side side : {Side::Soviet, Side::German}) {
    const auto& hs = hands[static_cast<int>(side)];
    auto* hv = out.Add();
    hv->set_side(to_proto_side(side));
    hv->set_held(hs.held);
    for (int c : hs.chits) hv->add_chits(sc.events[static_cast<size_t>(c)].id);
  }
}

template <typename Def>
void markers_proto(const std::vector<Def>& defs, const std::vector<MarkerState>& states,
                   google::protobuf::RepeatedPtrField<game::MarkerView>& out) {
  for (size_t a = 0; a < defs.size(); ++a) {
    auto* m = out.Add();
    m->set_id(defs[a].id);
    m->set_state(marker_state(states[a]));
  }
}

void units_proto(const Scenario& sc, const std::vector<int>& units, google::protobuf::RepeatedPtrField<std::string>& out) {
  for (int u : units) out.Add(std::string(sc.units[static_cast<size_t>(u)].id));
}

}  // namespace

game::StackView Engine::stack_proto(const ViewModel& v, const StackSight& st) const {
  const Scenario& sc = *sc_;
  game::StackView out;
  out.set_location(sc.location_name(st.loc));
  out.set_side(to_proto_side(st.side));
  out.set_height(st.height);
  out.set_inspected(st.inspected);
  for (int i = st.first; i < st.first + st.height; ++i) {
    const UnitSight& us = v.units[static_cast<size_t>(i)];
    auto* uv = out.add_units();
    if (us.unit < 0) {
      uv->set_hidden(true);
      continue;
    }
    uv->set_id(sc.units[static_cast<size_t>(us.unit)].id);
    uv->set_steps(us.steps);
    uv->set_combat(us.combat);
    uv->set_movement(us.movement);
    uv->set_moved(us.moved);
    uv->set_disorganized(us.disorganized);
    uv->set_out_of_supply(us.out_of_supply);
    uv->set_prepared_defense(us.prepared_defense);
    uv->set_reserve(us.reserve);
    uv->set_movement_left_half(us.movement_left_half);
    if (us.chit_bonus) uv->add_markers((us.chit_bonus > 0 ? "+" : "") + std::to_string(us.chit_bonus) + " attack bonus (event chit)");
  }
  return out;
}

game::View Engine::to_proto(const ViewModel& v) const {
  const Scenario& sc = *sc_;
  game::View out;
  out.set_viewer(to_proto_viewer(v.viewer));
  header_proto(sc, v.header, *out.mutable_header());
  decision_proto(sc, v.decision, *out.mutable_decision());
  for (const auto& st : v.stacks) *out.add_stacks() = stack_proto(v, st);
  hands_proto(sc, v.hands, *out.mutable_hands());
  markers_proto(sc.artillery, v.artillery, *out.mutable_artillery());
  markers_proto(sc.stukas, v.stukas, *out.mutable_stukas());
  units_proto(sc, v.eliminated, *out.mutable_eliminated());
  units_proto(sc, v.withdrawn, *out.mutable_withdrawn());
  victory_proto(sc, v.victory_soviet, *out.mutable_victory_control());
  return out;
}

game::ViewDelta Engine::delta(const ViewModel& before, const ViewModel& after) const {
  const Scenario& sc = *sc_;
  game::ViewDelta d;
  if (before.header != after.header) header_proto(sc, after.header, *d.mutable_header());
  if (before.decision != after.decision) decision_proto(sc, after.decision, *d.mutable_decision());
  // Both list stacks in the canonical order: walk them side by side.
  auto key_before = [&](const StackSight& a, const StackSight& b) {
    const int ra = location_rank_[static_cast<size_t>(a.loc)], rb = location_rank_[static_cast<size_t>(b.loc)];
    return ra != rb ? ra < rb : a.side < b.side;
  };
  size_t i = 0, j = 0;
  const size_t n = before.stacks.size(), m = after.stacks.size();
  while (i < n || j < m) {
    if (j == m || (i < n && key_before(before.stacks[i], after.stacks[j]))) {
      d.add_removed_stacks(stack_key(sc.location_name(before.stacks[i].loc), to_proto_side(before.stacks[i].side)));
      ++i;
    } else if (i == n || key_before(after.stacks[j], before.stacks[i])) {
      *d.add_stacks() = stack_proto(after, after.stacks[j++]);
    } else {
      const StackSight &b = before.stacks[i], &a = after.stacks[j];
      const bool same = a.inspected == b.inspected && a.height == b.height &&
                        std::equal(after.units.begin() + a.first, after.units.begin() + a.first + a.height,
                                   before.units.begin() + b.first);
      if (!same) *d.add_stacks() = stack_proto(after, a);
      ++i;
      ++j;
    }
  }
  if (before.hands[0] != after.hands[0] || before.hands[1] != after.hands[1]) {
    d.set_hands_changed(true);
    hands_proto(sc, after.hands, *d.mutable_hands());
  }
  if (before.artillery != after.artillery || before.stukas != after.stukas) {
    d.set_markers_changed(true);
    markers_proto(sc.artillery, after.artillery, *d.mutable_artillery());
    markers_proto(sc.stukas, after.stukas, *d.mutable_stukas());
  }
  if (before.eliminated != after.eliminated || before.withdrawn != after.withdrawn) {
    d.set_boxes_changed(true);
    units_proto(sc, after.eliminated, *d.mutable_eliminated());
    units_proto(sc, after.withdrawn, *d.mutable_withdrawn());
  }
  if (before.victory_soviet != after.victory_soviet) {
    d.set_victory_changed(true);
    victory_proto(sc, after.victory_soviet, *d.mutable_victory_control());
  }
  return d;
}

}  // namespace counterattack
