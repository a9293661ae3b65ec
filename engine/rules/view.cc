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

}  // namespace

game::View Engine::view(const GameState& s, Viewer viewer) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const Scenario& sc = *sc_;
  const bool omniscient = viewer == Viewer::Omniscient;
  const bool player = viewer == Viewer::Soviet || viewer == Viewer::German;
  const Side me = viewer == Viewer::German ? Side::German : Side::Soviet;
  auto sees_all_of = [&](Side side) { return omniscient || (player && side == me); };

  game::View v;
  v.set_viewer(to_proto_viewer(viewer));
  auto* h = v.mutable_header();
  h->set_turn(s.turn);
  h->set_phase(r.phase_name());
  h->set_step(step_name(s.step));
  if (s.active_corps >= 0) h->set_active_corps(sc.formations[static_cast<size_t>(s.active_corps)].id);
  for (size_t f = 0; f < sc.formations.size(); ++f) {
    if (s.corps_done & (1u << f)) h->add_activated_corps(sc.formations[f].id);
  }
  h->set_forty_seventh_activated(s.forty_seventh_phase >= 0);
  h->set_soviet_vp(r.victory_points(Side::Soviet));
  h->set_german_vp(r.victory_points(Side::German));
  h->set_soviet_bonus_vp(s.soviet_bonus_vp);
  switch (s.uprising) {
    case Uprising::None: h->set_uprising("not started"); break;
    case Uprising::Triggered: h->set_uprising("Warsaw will rise next turn"); break;
    case Uprising::Rising: h->set_uprising("Warsaw rises"); break;
    case Uprising::Ongoing:
      h->set_uprising(s.uprising_box >= 0 ? sc.uprising_boxes[static_cast<size_t>(s.uprising_box)].label : "ongoing");
      break;
  }
  h->set_uprising_box(s.uprising_box);
  h->set_jozefow_bridge_intact(s.jozefow != 2);
  h->set_model_turn(s.model_turn);
  for (const auto& o : sc.optional_rules) {
    const std::uint32_t bit = o.key == "limited_german_activation" ? kLimitedGermanActivation
                              : o.key == "red_army_flexibility"    ? kRedArmyFlexibility
                              : o.key == "limited_bonus"           ? kLimitedBonus
                              : o.key == "red_army_elastic_defense" ? kRedArmyElasticDefense
                                                                    : 0u;
    if (s.options & bit) h->add_options(o.key);
  }
  switch (s.result) {
    case Result::Ongoing: break;
    case Result::SovietWin: h->set_result("Soviet victory"); break;
    case Result::GermanWin: h->set_result("German victory"); break;
    case Result::Draw: h->set_result("Draw"); break;
  }
  h->set_result_reason(s.result_reason);
  h->set_soviet_cup(static_cast<int>(s.sides[0].cup.size()));
  h->set_german_cup(static_cast<int>(s.sides[1].cup.size()));
  for (const auto& vl : sc.victory) {
    for (Loc hx : vl.hexes) {
      bool soviet = false;
      for (size_t u = 0; u < s.units.size(); ++u) soviet |= s.units[u].loc == hx && sc.units[u].side == Side::Soviet;
      h->add_victory_control(sc.location_name(hx) + "=" + (soviet ? "SOVIET" : "GERMAN"));
    }
  }

  // Whose decision; the options only for the one who decides.
  const Decision d = r.decision();
  auto* dv = v.mutable_decision();
  dv->set_kind(d.kind);
  if (d.kind != game::Decision::GAME_OVER) dv->set_side(to_proto_side(d.side));
  dv->set_prompt(d.prompt);
  dv->set_count(d.count);
  if (sees_all_of(d.side)) {
    for (int c : d.candidates) {
      if (d.kind == game::Decision::CHOOSE_CORPS) {
        dv->add_candidates(sc.formations[static_cast<size_t>(c)].id);
      } else if (c >= 0) {
        dv->add_candidates(sc.units[static_cast<size_t>(c)].id);
      } else {
        const int m = -1 - c;
        dv->add_candidates(m < static_cast<int>(sc.artillery.size()) ? sc.artillery[static_cast<size_t>(m)].id
                                                                     : sc.stukas[static_cast<size_t>(m) - sc.artillery.size()].id);
      }
    }
  }

  // Stacks, top first. An enemy stack shows its top unit and height; the rest
  // only while one of the viewer's units is adjacent (7).
  const Occupancy occ = r.occupancy();
  std::vector<std::vector<int>> at(static_cast<size_t>(sc.location_count()));
  for (size_t u = 0; u < s.units.size(); ++u) {
    if (sc.on_board(s.units[u].loc)) at[static_cast<size_t>(s.units[u].loc)].push_back(static_cast<int>(u));
  }
  for (Loc l = 0; l < static_cast<Loc>(at.size()); ++l) {
    auto& units = at[static_cast<size_t>(l)];
    if (units.empty()) continue;
    std::sort(units.begin(), units.end(), [&](int a, int b) {
      return s.units[static_cast<size_t>(a)].stack_seq > s.units[static_cast<size_t>(b)].stack_seq;
    });
    for (Side side : {Side::Soviet, Side::German}) {
      std::vector<int> mine;
      for (int u : units) {
        if (sc.units[static_cast<size_t>(u)].side == side) mine.push_back(u);
      }
      if (mine.empty()) continue;
      bool inspected = sees_all_of(side);
      if (!inspected && player) {
        const int viewer_side = static_cast<int>(me);
        if (sc.is_hex(l)) {
          for (Loc nb : sc.hexes[static_cast<size_t>(l)].nb) inspected |= nb >= 0 && occ.count[viewer_side][static_cast<size_t>(nb)];
        } else if (l == sc.warsaw()) {
          for (const auto& b : sc.praga_bridges) inspected |= occ.count[viewer_side][static_cast<size_t>(b.hex)] != 0;
        }
      }
      auto* st = v.add_stacks();
      st->set_location(sc.location_name(l));
      st->set_side(to_proto_side(side));
      st->set_height(static_cast<int>(mine.size()));
      st->set_inspected(inspected);
      for (size_t i = 0; i < mine.size(); ++i) {
        const int u = mine[i];
        auto* uv = st->add_units();
        if (!inspected && i > 0) {
          uv->set_hidden(true);  // no id, no values: nothing to track it by
          continue;
        }
        const auto& us = s.units[static_cast<size_t>(u)];
        uv->set_id(sc.units[static_cast<size_t>(u)].id);
        uv->set_steps(static_cast<int>(sc.units[static_cast<size_t>(u)].steps.size()) - us.hits);
        uv->set_combat(combat_value(s, u));
        uv->set_movement(movement_half(s, u) / 2);
        uv->set_moved(us.flags & kMoved);
        uv->set_disorganized(us.flags & kDisorganized);
        uv->set_out_of_supply(us.flags & kOutOfSupply);
        uv->set_prepared_defense(us.flags & kPreparedDefense);
        uv->set_reserve(us.reserve != 0);
        if (sees_all_of(side) && (us.flags & kMoving)) uv->set_movement_left_half(movement_half(s, u) - us.mp_used);
      }
    }
  }

  std::sort(v.mutable_stacks()->begin(), v.mutable_stacks()->end(), stack_before);

  for (Side side : {Side::Soviet, Side::German}) {
    const auto& ss = s.sides[static_cast<int>(side)];
    auto* hv = v.add_hands();
    hv->set_side(to_proto_side(side));
    hv->set_held(static_cast<int>(ss.hand.size()));
    if (sees_all_of(side)) {
      for (auto c : ss.hand) hv->add_chits(sc.events[c].id);
    }
  }
  for (size_t a = 0; a < sc.artillery.size(); ++a) {
    auto* m = v.add_artillery();
    m->set_id(sc.artillery[a].id);
    m->set_state(marker_state(s.artillery[a]));
  }
  for (size_t k = 0; k < sc.stukas.size(); ++k) {
    auto* m = v.add_stukas();
    m->set_id(sc.stukas[k].id);
    m->set_state(marker_state(s.stukas[k]));
  }
  for (size_t u = 0; u < s.units.size(); ++u) {
    if (s.units[u].loc == kEliminated) v.add_eliminated(sc.units[u].id);
    if (s.units[u].loc == kWithdrawn) v.add_withdrawn(sc.units[u].id);
  }
  return v;
}

}  // namespace counterattack
