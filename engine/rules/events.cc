// 20 Events: chits drawn in secret and played at the owner's choice.
#include <algorithm>
#include <cctype>

#include "rules/rules.h"

namespace counterattack {
namespace {

// "armor", "antitank": a class as the refusals name it.
std::string class_name(UnitClass c) {
  std::string name = data::UnitClass_Name(static_cast<data::UnitClass>(static_cast<int>(c) + 1));
  for (auto& ch : name) ch = ch == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name;
}

}  // namespace

void Rules::draw_event(Side side) {
  auto& st = s_.sides[static_cast<int>(side)];
  if (st.cup.empty()) return;
  const auto k = rng_->below(static_cast<std::uint32_t>(st.cup.size()));
  const auto chit = st.cup[k];
  st.cup.erase(st.cup.begin() + k);
  st.hand.push_back(chit);
  std::sort(st.hand.begin(), st.hand.end());  // a hand is a set: its order tells nothing
  log(game::Event::EVENT_DRAWN, std::string("You draw the event ") + sc_.events[chit].name + ".",
      side == Side::Soviet ? game::AUDIENCE_SOVIET : game::AUDIENCE_GERMAN);
  log(game::Event::EVENT_DRAWN, std::string(side_name(side)) + " draws an event chit.",
      side == Side::Soviet ? game::AUDIENCE_ALL_BUT_SOVIET : game::AUDIENCE_ALL_BUT_GERMAN);
}

std::optional<Rejection> Rules::check_play_event(Side who, const Order& o) const {
  const auto& st = s_.sides[static_cast<int>(who)];
  if (o.chit < 0 || static_cast<size_t>(o.chit) >= sc_.events.size() ||
      std::find(st.hand.begin(), st.hand.end(), static_cast<std::uint8_t>(o.chit)) == st.hand.end()) {
    return reject(game::NOT_ALLOWED, "That event chit is not in your hand.");
  }
  if (st.events_this_phase >= rule(sc_.rules.events_per_phase(), 1)) {
    return reject(game::LIMIT_REACHED, "You have already played an event in this phase (rule 20).");
  }
  const auto& chit = sc_.events[static_cast<size_t>(o.chit)];
  if (who != s_.phase_side()) return reject(game::NOT_ALLOWED, "Event chits are played in your own activation phase.");
  if (chit.effect == data::AIR_STRIKE) {
    if (o.path.size() != 1) return reject(game::MALFORMED, chit.name + " needs a target hex.");
    return check_barrage(who, -1, o.path[0], true);
  }
  if (chit.effect == data::COMBAT_DRM || chit.effect == data::NO_ELASTIC_DEFENSE) {
    return reject(game::NOT_ALLOWED, chit.name + " is played on an attack, or in defense (rule 11).");
  }
  if (s_.step != Step::Movement && !(chit.effect == data::EXTRA_STUKA && s_.step == Step::Barrage)) {
    return reject(game::NOT_ALLOWED, chit.name + " is played in your own movement step.");
  }
  // 16, 20 (revision 3): a chit whose text names the classes it is played on takes no other.
  auto of_its_classes = [&](int u) -> std::optional<Rejection> {
    const auto& classes = chit.classes;
    if (!option(kChitUnitClasses) || classes.empty() ||
        std::find(classes.begin(), classes.end(), def(u).unit_class) != classes.end()) {
      return std::nullopt;
    }
    std::string names;
    for (size_t i = 0; i < classes.size(); ++i) {
      names += (i == 0 ? "" : i + 1 == classes.size() ? " or " : ", ") + class_name(classes[i]);
    }
    return reject(game::NOT_ALLOWED, chit.name + " is played on " + names + " units only: " + unit_name(u) + " is " +
                                         class_name(def(u).unit_class) + " (rule 20).");
  };
  auto own_units_one_place = [&]() -> std::optional<Rejection> {
    if (o.units.empty()) return reject(game::MALFORMED, chit.name + " is played on units: name them.");
    for (auto u : o.units) {
      if (side_of(u) != who || !on_board(u)) return reject(game::NOT_ALLOWED, unit_name(u) + " is not one of your units in play.");
      if (us(u).loc != us(o.units[0]).loc) return reject(game::NOT_ALLOWED, chit.name + " is played on units in one location.");
    }
    return std::nullopt;
  };
  switch (chit.effect) {
    case data::EXTRA_CORPS_ACTIVATION:
      if (who != Side::Soviet) return reject(game::NOT_ALLOWED, "Only a Soviet corps can be activated by this event.");
      if (s_.extra_corps >= 0) return reject(game::LIMIT_REACHED, "A second corps is already active in this phase.");
      if (o.corps < 0 || static_cast<size_t>(o.corps) >= sc_.formations.size() ||
          sc_.formations[static_cast<size_t>(o.corps)].kind != data::CORPS || o.corps == s_.active_corps) {
        return reject(game::NOT_ALLOWED, "Name another Soviet corps to activate.");
      }
      // 5: a corps activates once per turn; the chit brings in one not yet activated.
      if (s_.corps_done & (1u << o.corps)) {
        return reject(game::NOT_ALLOWED, sc_.formations[static_cast<size_t>(o.corps)].id + " has already been activated this turn.");
      }
      return std::nullopt;
    case data::IGNORE_ZOC:
      if (auto why = own_units_one_place()) return why;
      if (o.units.size() != 1) return reject(game::MALFORMED, chit.name + " is played on one unit.");
      if (!can_activate(o.units[0]) || (us(o.units[0]).flags & kMoving)) return reject(game::UNIT_NOT_ACTIVE, unit_name(o.units[0]) + " must be an active unit that has not moved.");
      return std::nullopt;
    case data::NO_BREAK_CONTACT:
      // 20 (revision 3): "at the start of a Soviet activation phase": before any unit of the phase acts.
      if (option(kSurpriseAtPhaseStart)) {
        bool begun = !s_.mover.empty();
        for (size_t u = 0; u < s_.units.size() && !begun; ++u) {
          begun = sc_.units[u].side == who && (s_.units[u].flags & kActedThisPhase);
        }
        if (begun) return reject(game::NOT_ALLOWED, chit.name + " is played at the start of the phase, before any of your units acts (rule 20).");
      }
      return std::nullopt;
    case data::BRIDGE_REPAIR:
      if (s_.jozefow == 0) return reject(game::NOT_ALLOWED, "The Józefów bridge is intact.");
      return std::nullopt;
    case data::REACTIVATE_STACK:
      if (auto why = own_units_one_place()) return why;
      for (auto u : o.units) {
        if (!(us(u).flags & kMoved)) return reject(game::NOT_ALLOWED, unit_name(u) + " has not been activated yet.");
      }
      return std::nullopt;
    case data::SUPPLY_DROP:
      return own_units_one_place();
    case data::RECOVER_STEP: {
      if (o.units.size() != 1) return reject(game::MALFORMED, chit.name + " recovers one unit.");
      if (side_of(o.units[0]) == who) {
        if (auto why = of_its_classes(o.units[0])) return why;
      }
      return check_recover(who, o.units[0], o.path.empty() ? Loc{-1} : o.path[0]);
    }
    case data::UNIT_BONUS:
      if (auto why = own_units_one_place()) return why;
      if (o.units.size() != 1) return reject(game::MALFORMED, chit.name + " is placed on one unit.");
      return of_its_classes(o.units[0]);
    case data::EXTRA_STUKA:
      if (who != Side::German) return reject(game::NOT_ALLOWED, "Stukas are German.");
      if (std::find(s_.stukas.begin(), s_.stukas.end(), MarkerState::Used) == s_.stukas.end()) {
        return reject(game::NOT_ALLOWED, "No Stuka has flown yet this turn: nothing to send up again.");
      }
      return std::nullopt;
    default:
      return reject(game::NOT_ALLOWED, chit.name + " is played during combat (9-11).");
  }
}

void Rules::do_play_event(const Order& o) {
  const auto& chit = sc_.events[static_cast<size_t>(o.chit)];
  const Side who = chit.side;
  auto& st = s_.sides[static_cast<int>(who)];
  st.hand.erase(std::find(st.hand.begin(), st.hand.end(), static_cast<std::uint8_t>(o.chit)));
  st.events_this_phase++;
  std::string text = std::string(side_name(who)) + " plays " + chit.name;
  int on = -1;  // the unit the chit is played on, named to its owner only
  switch (chit.effect) {
    case data::EXTRA_CORPS_ACTIVATION:
      s_.extra_corps = static_cast<std::int8_t>(o.corps);
      s_.corps_done |= 1u << o.corps;
      text += ": " + sc_.formations[static_cast<size_t>(o.corps)].id + " activates too";
      break;
    case data::IGNORE_ZOC:
      s_.set(o.units[0], kIgnoreZoc);
      on = o.units[0];
      break;
    case data::NO_BREAK_CONTACT:
      s_.no_break_contact = true;
      break;
    case data::BRIDGE_REPAIR:
      s_.jozefow = 0;
      break;
    case data::REACTIVATE_STACK:
      for (auto u : o.units) {
        s_.set(u, kMoved, false);
        s_.set(u, kMoving, false);
        s_.set(u, kReactivated);
        us(u).mp_used = 0;
      }
      text += " at " + loc_name(us(o.units[0]).loc);
      break;
    case data::SUPPLY_DROP:
      for (auto u : o.units) {
        s_.set(u, kSupplyDrop);
        s_.set(u, kOutOfSupply, false);
      }
      text += " at " + loc_name(us(o.units[0]).loc);
      break;
    case data::RECOVER_STEP:
      log(game::Event::EVENT_PLAYED, text + ".");
      do_recover(o.units[0], o.path.empty() ? Loc{-1} : o.path[0]);
      return;
    case data::AIR_STRIKE:
      log(game::Event::EVENT_PLAYED, text + " on " + loc_name(o.path[0]) + ".");
      do_barrage(-1, o.path[0], true);
      return;
    case data::UNIT_BONUS:
      us(o.units[0]).bonus = static_cast<std::int8_t>(us(o.units[0]).bonus + chit.amount);
      on = o.units[0];
      break;
    case data::EXTRA_STUKA:
      *std::find(s_.stukas.begin(), s_.stukas.end(), MarkerState::Used) = MarkerState::Ready;
      text += ": a Stuka flies again";
      break;
    default:
      break;
  }
  if (on >= 0) {
    // 7: the unit may be below the top of its stack: the others read where, not who.
    log(game::Event::EVENT_PLAYED, text + " on " + unit_name(on) + ".", owner_only(who));
    log(game::Event::EVENT_PLAYED, text + " on a unit at " + loc_name(us(on).loc) + ".", all_but(who));
    return;
  }
  log(game::Event::EVENT_PLAYED, text + ".");
}

}  // namespace counterattack
