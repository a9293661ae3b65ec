// Wire orders (protobuf, with names) to engine orders (indices), and back.
#include "rules/rules.h"

namespace counterattack {

namespace {
// "; next to it on the map: 1707, 1807" for a hex number off the map, so that any
// client's player can find a hex that exists; "" when no neighbour is on the map.
std::string hexes_next_to(const Scenario& sc, const std::string& text) {
  const auto id = parse_hex(text);
  if (!id) return "";
  std::string out;
  for (int d = 0; d < 6; ++d) {
    const std::string name = format_hex(hex_id(neighbour(coord_of(*id), static_cast<Dir>(d))));
    if (sc.parse_location(name)) out += (out.empty() ? "; next to it on the map: " : ", ") + name;
  }
  return out;
}
}  // namespace

bool Engine::from_proto(const game::Order& in, Order& out, Rejection& why) const {
  const Scenario& sc = *sc_;
  out = Order{};
  auto units = [&](const auto& names) {
    for (const auto& name : names) {
      auto u = sc.unit_index(name);
      if (!u) {
        why = reject(game::UNKNOWN_UNIT, "There is no unit '" + name + "'.");
        return false;
      }
      out.units.push_back(static_cast<std::int16_t>(*u));
    }
    return true;
  };
  auto location = [&](const std::string& text) {
    auto l = sc.parse_location(text);
    if (!l) {
      why = reject(game::UNKNOWN_LOCATION,
                   text.size() == 4 && text.find_first_not_of("0123456789") == std::string::npos
                       ? "There is no hex " + text + " on the map: its edges are irregular" + hexes_next_to(sc, text) + "."
                       : "There is no location '" + text + "' (a hex like 3546, WARSAW, or an entry point such as S3).");
      return false;
    }
    out.path.push_back(*l);
    return true;
  };
  auto marker = [&](const std::string& name) {
    for (size_t a = 0; a < sc.artillery.size(); ++a) {
      if (sc.artillery[a].id == name) {
        out.markers.push_back(static_cast<std::int16_t>(a));
        return true;
      }
    }
    for (size_t k = 0; k < sc.stukas.size(); ++k) {
      if (sc.stukas[k].id == name) {
        out.markers.push_back(static_cast<std::int16_t>(sc.artillery.size() + k));
        return true;
      }
    }
    why = reject(game::NOT_ALLOWED, "There is no artillery or Stuka marker '" + name + "'.");
    return false;
  };
  auto chit = [&](const std::string& id) {
    auto c = sc.event_index(id);
    if (!c) {
      why = reject(game::NOT_ALLOWED, "There is no event chit '" + id + "'.");
      return false;
    }
    out.chit = static_cast<std::int16_t>(*c);
    return true;
  };
  using K = Order::Kind;
  switch (in.kind_case()) {
    case game::Order::kActivateCorps: {
      out.kind = K::ActivateCorps;
      auto f = sc.formation_index(in.activate_corps().corps());
      if (!f) {
        why = reject(game::NOT_ALLOWED, "There is no corps '" + in.activate_corps().corps() + "'.");
        return false;
      }
      out.corps = static_cast<std::int16_t>(*f);
      out.with_47th = in.activate_corps().with_47th();
      return true;
    }
    case game::Order::kMove:
      out.kind = K::Move;
      if (!units(in.move().units())) return false;
      for (const auto& p : in.move().path()) {
        if (!location(p)) return false;
      }
      return true;
    case game::Order::kPreparedDefense:
      out.kind = K::PreparedDefense;
      return units(in.prepared_defense().units());
    case game::Order::kLiftPreparedDefense:
      out.kind = K::LiftPreparedDefense;
      return units(in.lift_prepared_defense().units());
    case game::Order::kPlaceReserve:
      out.kind = K::PlaceReserve;
      return units(in.place_reserve().units());
    case game::Order::kRemoveReserve:
      out.kind = K::RemoveReserve;
      return units(in.remove_reserve().units());
    case game::Order::kBreakContact:
      out.kind = K::BreakContact;
      for (const auto& step : in.break_contact().moves()) {
        if (!units(std::vector<std::string>{step.unit()}) || !location(step.to())) return false;
      }
      return true;
    case game::Order::kPlayEvent: {
      out.kind = K::PlayEvent;
      const auto& p = in.play_event();
      auto c = sc.event_index(p.chit());
      if (!c) {
        why = reject(game::NOT_ALLOWED, "There is no event chit '" + p.chit() + "'.");
        return false;
      }
      out.chit = static_cast<std::int16_t>(*c);
      if (!p.corps().empty()) {
        auto f = sc.formation_index(p.corps());
        if (!f) {
          why = reject(game::NOT_ALLOWED, "There is no corps '" + p.corps() + "'.");
          return false;
        }
        out.corps = static_cast<std::int16_t>(*f);
      }
      if (!p.location().empty() && !location(p.location())) return false;
      return units(p.units());
    }
    case game::Order::kRecover:
      out.kind = K::Recover;
      if (!units(std::vector<std::string>{in.recover().unit()})) return false;
      return in.recover().location().empty() || location(in.recover().location());
    case game::Order::kSuppressUprising:
      out.kind = K::SuppressUprising;
      return units(in.suppress_uprising().units());
    case game::Order::kChooseUnits:
      out.kind = K::ChooseUnits;
      for (const auto& name : in.choose_units().units()) {
        bool is_marker = false;
        for (size_t a = 0; a < sc.artillery.size(); ++a) {
          if (sc.artillery[a].id == name) {
            out.markers.push_back(static_cast<std::int16_t>(a));
            is_marker = true;
          }
        }
        for (size_t k = 0; k < sc.stukas.size(); ++k) {
          if (sc.stukas[k].id == name) {
            out.markers.push_back(static_cast<std::int16_t>(sc.artillery.size() + k));
            is_marker = true;
          }
        }
        if (!is_marker && !units(std::vector<std::string>{name})) return false;
      }
      return true;
    case game::Order::kDone:
      out.kind = K::Done;
      return true;
    case game::Order::kOverrun:
      out.kind = K::Overrun;
      return units(in.overrun().units()) && location(in.overrun().target());
    case game::Order::kBarrage:
      out.kind = K::Barrage;
      return marker(in.barrage().marker()) && location(in.barrage().target());
    case game::Order::kAttack:
      out.kind = K::Attack;
      if (!in.attack().support().empty() && !marker(in.attack().support())) return false;
      if (!in.attack().chit().empty() && !chit(in.attack().chit())) return false;
      return units(in.attack().units()) && location(in.attack().target());
    case game::Order::kDefensiveSupport:
      out.kind = K::DefensiveSupport;
      if (!in.defensive_support().chit().empty() && !chit(in.defensive_support().chit())) return false;
      return in.defensive_support().marker().empty() || marker(in.defensive_support().marker());
    case game::Order::kTakeLosses:
      out.kind = K::TakeLosses;
      if (in.take_losses().elastic() < 0 || in.take_losses().elastic() > 9 || in.take_losses().desperate() < 0 ||
          in.take_losses().desperate() > 9) {
        why = reject(game::MALFORMED, "Elastic and desperate defense count a few hexes.");
        return false;
      }
      out.elastic = static_cast<std::int8_t>(in.take_losses().elastic());
      out.desperate = static_cast<std::int8_t>(in.take_losses().desperate());
      return units(in.take_losses().steps());
    case game::Order::kRetreat:
      out.kind = K::Retreat;
      for (const auto& p : in.retreat().paths()) {
        if (!units(std::vector<std::string>{p.unit()})) return false;
        out.path.clear();
        for (const auto& l : p.path()) {
          if (!location(l)) return false;
        }
        out.paths.push_back(out.path);
      }
      out.path.clear();
      return true;
    case game::Order::kAdvance:
      out.kind = K::Advance;
      if (!units(in.advance().units())) return false;
      for (const auto& l : in.advance().path()) {
        if (!location(l)) return false;
      }
      return true;
    case game::Order::kUseModel:
      out.kind = K::UseModel;
      // An open enum carries any number: one out of range must not wrap onto a real effect.
      if (!game::UseModel::Effect_IsValid(in.use_model().effect())) {
        why = reject(game::MALFORMED, "Name one of Model's effects.");
        return false;
      }
      out.effect = static_cast<std::int8_t>(in.use_model().effect());
      return units(in.use_model().units());
    case game::Order::kReroll:
      out.kind = K::Reroll;
      out.yes = in.reroll().reroll();
      return true;
    case game::Order::kUndo:
      out.kind = K::Undo;
      return true;
    case game::Order::KIND_NOT_SET:
      break;
  }
  why = reject(game::MALFORMED, "The order is empty.");
  return false;
}

game::Order Engine::to_proto(const Order& in) const {
  const Scenario& sc = *sc_;
  game::Order out;
  auto name = [&](int u) { return sc.units[static_cast<size_t>(u)].id; };
  auto loc = [&](Loc l) { return sc.location_name(l); };
  auto marker_id = [&](int m) {
    return m < static_cast<int>(sc.artillery.size()) ? sc.artillery[static_cast<size_t>(m)].id
                                                     : sc.stukas[static_cast<size_t>(m) - sc.artillery.size()].id;
  };
  using K = Order::Kind;
  switch (in.kind) {
    case K::ActivateCorps: {
      auto* a = out.mutable_activate_corps();
      a->set_corps(sc.formations[static_cast<size_t>(in.corps)].id);
      a->set_with_47th(in.with_47th);
      break;
    }
    case K::Move: {
      auto* m = out.mutable_move();
      for (auto u : in.units) m->add_units(name(u));
      for (auto l : in.path) m->add_path(loc(l));
      break;
    }
    case K::PreparedDefense:
      for (auto u : in.units) out.mutable_prepared_defense()->add_units(name(u));
      break;
    case K::LiftPreparedDefense:
      for (auto u : in.units) out.mutable_lift_prepared_defense()->add_units(name(u));
      break;
    case K::PlaceReserve:
      for (auto u : in.units) out.mutable_place_reserve()->add_units(name(u));
      break;
    case K::RemoveReserve:
      for (auto u : in.units) out.mutable_remove_reserve()->add_units(name(u));
      break;
    case K::BreakContact: {
      auto* b = out.mutable_break_contact();
      for (size_t i = 0; i < in.units.size(); ++i) {
        auto* st = b->add_moves();
        st->set_unit(name(in.units[i]));
        st->set_to(loc(in.path[i]));
      }
      break;
    }
    case K::PlayEvent: {
      auto* p = out.mutable_play_event();
      p->set_chit(sc.events[static_cast<size_t>(in.chit)].id);
      for (auto u : in.units) p->add_units(name(u));
      if (in.corps >= 0) p->set_corps(sc.formations[static_cast<size_t>(in.corps)].id);
      if (!in.path.empty()) p->set_location(loc(in.path[0]));
      break;
    }
    case K::Recover:
      out.mutable_recover()->set_unit(name(in.units[0]));
      if (!in.path.empty()) out.mutable_recover()->set_location(loc(in.path[0]));
      break;
    case K::SuppressUprising:
      for (auto u : in.units) out.mutable_suppress_uprising()->add_units(name(u));
      break;
    case K::ChooseUnits:
      for (auto u : in.units) out.mutable_choose_units()->add_units(name(u));
      for (auto m : in.markers) {
        out.mutable_choose_units()->add_units(m < static_cast<int>(sc.artillery.size())
                                                  ? sc.artillery[static_cast<size_t>(m)].id
                                                  : sc.stukas[static_cast<size_t>(m) - sc.artillery.size()].id);
      }
      break;
    case K::Done:
      out.mutable_done();
      break;
    case K::Overrun:
      for (auto u : in.units) out.mutable_overrun()->add_units(name(u));
      out.mutable_overrun()->set_target(loc(in.path[0]));
      break;
    case K::Barrage:
      out.mutable_barrage()->set_marker(marker_id(in.markers[0]));
      out.mutable_barrage()->set_target(loc(in.path[0]));
      break;
    case K::Attack: {
      auto* a = out.mutable_attack();
      for (auto u : in.units) a->add_units(name(u));
      a->set_target(loc(in.path[0]));
      if (!in.markers.empty()) a->set_support(marker_id(in.markers[0]));
      if (in.chit >= 0) a->set_chit(sc.events[static_cast<size_t>(in.chit)].id);
      break;
    }
    case K::DefensiveSupport: {
      auto* d = out.mutable_defensive_support();
      if (!in.markers.empty()) d->set_marker(marker_id(in.markers[0]));
      if (in.chit >= 0) d->set_chit(sc.events[static_cast<size_t>(in.chit)].id);
      break;
    }
    case K::TakeLosses: {
      auto* t = out.mutable_take_losses();
      for (auto u : in.units) t->add_steps(name(u));
      t->set_elastic(in.elastic);
      t->set_desperate(in.desperate);
      break;
    }
    case K::Retreat: {
      auto* r = out.mutable_retreat();
      for (size_t i = 0; i < in.units.size(); ++i) {
        auto* p = r->add_paths();
        p->set_unit(name(in.units[i]));
        if (i < in.paths.size()) {
          for (auto l : in.paths[i]) p->add_path(loc(l));
        }
      }
      break;
    }
    case K::Advance: {
      auto* a = out.mutable_advance();
      for (auto u : in.units) a->add_units(name(u));
      for (auto l : in.path) a->add_path(loc(l));
      break;
    }
    case K::UseModel: {
      auto* m = out.mutable_use_model();
      m->set_effect(static_cast<game::UseModel::Effect>(in.effect));
      for (auto u : in.units) m->add_units(name(u));
      break;
    }
    case K::Reroll:
      out.mutable_reroll()->set_reroll(in.yes);
      break;
    case K::Undo:
      out.mutable_undo();
      break;
  }
  return out;
}

}  // namespace counterattack
