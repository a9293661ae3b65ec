// 16 Recovery, 18 Warsaw Uprising, 19 Magnuszew bridgehead: the choices of the
// administrative phase.
#include <algorithm>

#include "rules/rules.h"

namespace counterattack {
namespace {

enum Category { kArmored, kInfantry, kArtillery, kPlane, kNoCategory };

Category category_of(data::WithdrawalType t) {
  switch (t) {
    case data::WITHDRAW_ARMORED: return kArmored;
    case data::WITHDRAW_INFANTRY: return kInfantry;
    case data::WITHDRAW_ARTILLERY: return kArtillery;
    case data::WITHDRAW_PLANE: return kPlane;
    default: return kNoCategory;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// 16 Recovery
// ---------------------------------------------------------------------------

bool Rules::recovery_location_ok(int u, Loc l, const Occupancy& occ, const std::vector<std::uint8_t>& supply) const {
  const Side side = side_of(u);
  if (side == Side::German && l == sc_.warsaw()) return true;
  if (!sc_.is_hex(l)) return false;
  if (occ.count[static_cast<int>(enemy_of(side))][static_cast<size_t>(l)]) return false;
  if (sc_.terrain[sc_.hexes[static_cast<size_t>(l)].terrain].prohibited) return false;
  if (!stacking_ok_after(occ, l, side, {static_cast<std::int16_t>(u)})) return false;
  if (side == Side::German && sc_.hexes[static_cast<size_t>(l)].praga_bridge != kNone) return true;  // Praga
  // Next to supplied units of the same formation (Soviet independents: any friendly unit).
  const bool any_friend = side == Side::Soviet && formation(u).kind != data::CORPS;
  for (Loc nb : sc_.hexes[static_cast<size_t>(l)].nb) {
    if (nb < 0 || !occ.count[static_cast<int>(side)][static_cast<size_t>(nb)] || !supply[static_cast<size_t>(nb)]) continue;
    for (size_t v = 0; v < s_.units.size(); ++v) {
      if (s_.units[v].loc == nb && sc_.units[v].side == side && (any_friend || sc_.units[v].formation == def(u).formation)) return true;
    }
  }
  return false;
}

std::vector<int> Rules::recovery_candidates(Side side) const {
  std::vector<int> out;
  const Occupancy occ = occupancy();
  const auto supply = supply_map(side, occ);
  for (size_t i = 0; i < s_.units.size(); ++i) {
    const int u = static_cast<int>(i);
    if (side_of(u) != side || is_train(u)) continue;  // 13: the train never comes back
    if (on_board(u)) {
      if (us(u).hits > 0 && traced_supply(u, supply)) out.push_back(u);
      continue;
    }
    if (us(u).loc != kEliminated) continue;
    bool somewhere = side == Side::German;  // Warsaw always takes an eliminated German unit
    for (Loc h = 0; h < sc_.hex_count() && !somewhere; ++h) somewhere = recovery_location_ok(u, h, occ, supply);
    if (somewhere) out.push_back(u);
  }
  return out;
}

std::optional<Rejection> Rules::check_recover(Side side, int u, Loc l) const {
  if (side_of(u) != side) return reject(game::NOT_ALLOWED, unit_name(u) + " is not yours.");
  if (is_train(u)) return reject(game::NOT_ALLOWED, "The armored train cannot be recovered (rule 13).");
  const Occupancy occ = occupancy();
  const auto supply = supply_map(side, occ);
  if (on_board(u)) {
    if (us(u).hits == 0) return reject(game::NOT_ALLOWED, unit_name(u) + " is at full strength.");
    if (!traced_supply(u, supply)) return reject(game::NOT_ALLOWED, unit_name(u) + " must be in supply to recover (rule 16).");
    if (l >= 0 && l != us(u).loc) return reject(game::NOT_ALLOWED, "A unit on the map recovers where it stands.");
    return std::nullopt;
  }
  if (us(u).loc != kEliminated) return reject(game::NOT_ALLOWED, unit_name(u) + " has not been eliminated.");
  if (l < 0) {
    // The places it may come back at, to choose from (Warsaw first, for the German).
    std::string where = side == Side::German ? loc_name(sc_.warsaw()) : "";
    int listed = 0;
    for (Loc h = 0; h < sc_.hex_count(); ++h) {
      if (!recovery_location_ok(u, h, occ, supply)) continue;
      if (++listed > 24) {
        where += ", ...";
        break;
      }
      where += (where.empty() ? "" : ", ") + loc_name(h);
    }
    return reject(game::MALFORMED, "Say where " + unit_name(u) + " comes back" + (where.empty() ? "" : ": " + where) + " (rule 16).");
  }
  if (!recovery_location_ok(u, l, occ, supply)) {
    return reject(game::NOT_ALLOWED, unit_name(u) + " cannot come back at " + loc_name(l) +
                                         (side == Side::German ? " (rule 16: Warsaw, Praga, or next to supplied units of its formation)."
                                                               : " (rule 16: next to supplied units of its formation)."));
  }
  return std::nullopt;
}

void Rules::do_recover(int u, Loc l) {
  if (on_board(u)) {
    us(u).hits--;
    // 7: the unit may sit unseen in its stack: only its owner reads its name.
    const Side side = side_of(u);
    log(game::Event::STEP_RECOVERED, unit_name(u) + " recovers a step at " + loc_name(us(u).loc) + ".",
        side == Side::Soviet ? game::AUDIENCE_SOVIET : game::AUDIENCE_GERMAN);
    log(game::Event::STEP_RECOVERED, std::string("A ") + side_name(side) + " unit recovers a step at " + loc_name(us(u).loc) + ".",
        side == Side::Soviet ? game::AUDIENCE_ALL_BUT_SOVIET : game::AUDIENCE_ALL_BUT_GERMAN);
    return;
  }
  auto& st = us(u);
  st.hits = static_cast<std::uint8_t>(def(u).steps.size() > 1 ? def(u).steps.size() - 1 : 0);
  st.flags = 0;
  st.reserve = 0;
  st.mp_used = 0;
  place(u, l);
  log(game::Event::STEP_RECOVERED, unit_name(u) + " returns to play, reduced, at " + loc_name(l) + ".");
}

// ---------------------------------------------------------------------------
// 18 Warsaw Uprising
// ---------------------------------------------------------------------------

std::vector<int> Rules::german_units_in_warsaw(bool exclude_moved, bool exclude_reserve) const {
  std::vector<int> out;
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (s_.units[u].loc != sc_.warsaw() || sc_.units[u].side != Side::German) continue;
    if (exclude_moved && (s_.units[u].flags & kMoved)) continue;
    if (exclude_reserve && s_.units[u].reserve) continue;  // 14: reserves in Warsaw cannot suppress
    out.push_back(static_cast<int>(u));
  }
  return out;
}

void Rules::roll_uprising(int deployed) {
  const int die = rng_->d6();
  const int drm = deployed / std::max(1, sc_.uprising_units_per_drm);
  const int roll = die + drm;
  const auto& boxes = sc_.uprising_boxes;
  size_t i = 0;
  while (i + 1 < boxes.size() && boxes[i].roll < roll) ++i;
  const auto& box = boxes[i];
  s_.uprising_box = static_cast<std::int8_t>(i);
  log(game::Event::DIE_ROLLED, "Warsaw Uprising: die " + std::to_string(die) + (drm ? " +" + std::to_string(drm) : "") + " = " +
                                   std::to_string(roll) + ": " + box.label + ".");
  if (log_) log_->back().set_die(die);
  switch (box.effect) {
    case data::NO_MOVE:
      s_.bridges_closed = true;
      break;
    case data::STEP_LOSS:
      if (!german_units_in_warsaw(false, false).empty()) {
        s_.step = Step::UprisingStepLoss;
        s_.uprising_pending = 1;
      } else {
        s_.soviet_bonus_vp++;
        log(game::Event::VICTORY_POINTS, "No German unit in Warsaw can take the loss: +1 VP Soviet.");
      }
      break;
    case data::BRIDGE_COST:
      s_.bridge_extra_half = static_cast<std::int8_t>(2 * box.amount);
      break;
    case data::UNITS_MOVED: {
      const auto avail = german_units_in_warsaw(true, false);
      if (static_cast<int>(avail.size()) > box.amount) {
        s_.step = Step::UprisingUnitsMoved;
        s_.uprising_pending = static_cast<std::uint8_t>(box.amount);
        break;
      }
      for (int u : avail) s_.set(u, kMoved);
      if (static_cast<int>(avail.size()) < box.amount) {
        s_.soviet_bonus_vp++;
        log(game::Event::VICTORY_POINTS, "Too few German units in Warsaw to pin: +1 VP Soviet.");
      }
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------------------
// 19 Magnuszew
// ---------------------------------------------------------------------------

bool Rules::withdrawal_matches(data::WithdrawalType t, int item) const {
  if (item < 0) {
    const int m = -1 - item;
    const bool artillery = m < static_cast<int>(sc_.artillery.size());
    return t == (artillery ? data::WITHDRAW_ARTILLERY : data::WITHDRAW_PLANE);
  }
  switch (def(item).unit_class) {
    case UnitClass::Armor:
    case UnitClass::Mechanized:
    case UnitClass::AntiTank: return t == data::WITHDRAW_ARMORED;
    case UnitClass::ArmoredTrain: return false;
    default: return t == data::WITHDRAW_INFANTRY;
  }
}

std::vector<int> Rules::magnuszew_items() const {
  std::vector<int> out = german_units_in_warsaw(false, false);
  for (size_t a = 0; a < sc_.artillery.size(); ++a) {
    const auto st = s_.artillery[a];
    if (sc_.formations[static_cast<size_t>(sc_.artillery[a].formation)].side == Side::German &&
        (st == MarkerState::Ready || st == MarkerState::Used)) {
      out.push_back(-1 - static_cast<int>(a));
    }
  }
  for (size_t k = 0; k < sc_.stukas.size(); ++k) {
    const auto st = s_.stukas[k];
    if (st == MarkerState::Ready || st == MarkerState::Used) out.push_back(-1 - static_cast<int>(sc_.artillery.size() + k));
  }
  return out;
}

std::string Rules::magnuszew_need() const { return sc_.magnuszew_words(s_.turn, WithdrawalWords::Long); }

std::string Rules::magnuszew_fitting(const std::vector<int>& items) const {
  auto it = sc_.magnuszew.find(s_.turn);
  std::string out;
  for (int item : items) {
    if (it == sc_.magnuszew.end() ||
        std::none_of(it->second.begin(), it->second.end(), [&](auto t) { return withdrawal_matches(t, item); }))
      continue;
    const int m = -1 - item;
    const std::string name = item >= 0 ? unit_name(item)
                             : m < static_cast<int>(sc_.artillery.size())
                                 ? sc_.artillery[static_cast<size_t>(m)].id
                                 : sc_.stukas[static_cast<size_t>(m) - sc_.artillery.size()].id;
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none" : out;
}

int Rules::magnuszew_best(const std::vector<int>& items) const {
  auto it = sc_.magnuszew.find(s_.turn);
  if (it == sc_.magnuszew.end()) return 0;
  int need[kNoCategory] = {}, have[kNoCategory] = {};
  for (auto t : it->second) {
    if (category_of(t) != kNoCategory) need[category_of(t)]++;
  }
  for (int item : items) {
    for (auto t : {data::WITHDRAW_ARMORED, data::WITHDRAW_INFANTRY, data::WITHDRAW_ARTILLERY, data::WITHDRAW_PLANE}) {
      if (withdrawal_matches(t, item)) have[category_of(t)]++;
    }
  }
  int best = 0;
  for (int c = 0; c < kNoCategory; ++c) best += std::min(need[c], have[c]);
  return best;
}

// ---------------------------------------------------------------------------
// Choosing units for the tracks
// ---------------------------------------------------------------------------

std::optional<Rejection> Rules::check_choose_units(const Order& o) const {
  for (size_t i = 0; i < o.units.size(); ++i) {
    if (std::count(o.units.begin(), o.units.end(), o.units[i]) > 1) return reject(game::MALFORMED, unit_name(o.units[i]) + " is named twice.");
  }
  auto all_in = [&](const std::vector<int>& allowed, const char* why) -> std::optional<Rejection> {
    for (auto u : o.units) {
      if (std::find(allowed.begin(), allowed.end(), u) == allowed.end()) return reject(game::NOT_ALLOWED, unit_name(u) + why);
    }
    return std::nullopt;
  };
  if (s_.combat.stage == CombatStage::BarrageLoss) {
    if (o.units.size() != 1 || !o.markers.empty()) return reject(game::MALFORMED, "Name the one unit that takes the barrage result (rule 10).");
    return all_in(std::vector<int>(s_.combat.defenders.begin(), s_.combat.defenders.end()), " is not in the hex under barrage.");
  }
  if (s_.step != Step::Magnuszew && !o.markers.empty()) return reject(game::MALFORMED, "Only Magnuszew takes artillery and Stuka markers.");
  switch (s_.step) {
    case Step::UprisingSuppression:
      return all_in(german_units_in_warsaw(true, true), " is not a German unit in Warsaw free to suppress the uprising (rule 18).");
    case Step::UprisingStepLoss:
      if (o.units.size() != 1) return reject(game::MALFORMED, "Name exactly one unit to lose the step.");
      return all_in(german_units_in_warsaw(false, false), " is not in Warsaw (rule 18).");
    case Step::UprisingUnitsMoved:
      if (o.units.size() != s_.uprising_pending) return reject(game::MALFORMED, "Name exactly " + std::to_string(s_.uprising_pending) + " units.");
      return all_in(german_units_in_warsaw(true, false), " is not an unmoved unit in Warsaw (rule 18).");
    case Step::Magnuszew: {
      const auto allowed = magnuszew_items();
      std::vector<int> chosen(o.units.begin(), o.units.end());
      for (auto m : o.markers) {
        if (m < 0 || m >= static_cast<int>(sc_.artillery.size() + sc_.stukas.size())) return reject(game::MALFORMED, "Unknown marker.");
        chosen.push_back(-1 - m);
      }
      for (int c : chosen) {
        if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
          return reject(game::NOT_ALLOWED, (c >= 0 ? unit_name(c) : std::string("That marker")) + " cannot go to Magnuszew (rule 19: units in Warsaw, artillery, Stukas).");
        }
      }
      const auto& need = sc_.magnuszew.at(s_.turn);
      std::vector<bool> used(chosen.size(), false);
      int filled = 0;
      for (auto t : need) {
        for (size_t i = 0; i < chosen.size(); ++i) {
          if (!used[i] && withdrawal_matches(t, chosen[i])) {
            used[i] = true;
            ++filled;
            break;
          }
        }
      }
      if (std::find(used.begin(), used.end(), false) != used.end())
        return reject(game::NOT_ALLOWED, "Send only what the Magnuszew track asks for this turn: " + magnuszew_need() +
                                             "; of yours, these fit: " + magnuszew_fitting(allowed) + " (rule 19).");
      if (filled < magnuszew_best(allowed))
        return reject(game::NOT_ALLOWED, "The withdrawal is mandatory: send everything the track asks for that you can (" +
                                             magnuszew_need() + "; of yours, these fit: " + magnuszew_fitting(allowed) +
                                             ") (rule 19).");
      return std::nullopt;
    }
    default:
      return reject(game::WRONG_ORDER_KIND, "No units are to be chosen now.");
  }
}

void Rules::do_choose_units(const Order& o) {
  if (s_.combat.stage == CombatStage::BarrageLoss) {
    // 10: L takes a step, DIS disorganizes: the unit chosen by its owner.
    const int u = o.units[0];
    if (s_.combat.barrage_result == 2) {
      lose_step(u, "barrage");
    } else {
      s_.set(u, kDisorganized);
      // 7: the owner may choose a unit below the top: the others read where, not who.
      log(game::Event::MARKER, unit_name(u) + " is disorganized by the barrage.", owner_only(side_of(u)));
      log(game::Event::MARKER, unnamed({static_cast<std::int16_t>(u)}) + " is disorganized by the barrage.", all_but(side_of(u)));
    }
    s_.combat = CombatState{};
    return;
  }
  switch (s_.step) {
    case Step::UprisingSuppression: {
      std::string names;
      for (auto u : o.units) {
        s_.set(u, kMoved);
        names += (names.empty() ? "" : ", ") + unit_name(u);
      }
      // 7: the stack in Warsaw is not open to the Soviet: he learns how many, not which.
      if (!names.empty()) {
        log(game::Event::UPRISING, "Deployed against the uprising: " + names + ".", game::AUDIENCE_GERMAN);
        log(game::Event::UPRISING, std::to_string(o.units.size()) + in_number(o.units.size(), " German unit", " German units", " German unit(s)") + " deployed against the uprising.",
            game::AUDIENCE_ALL_BUT_GERMAN);
      }
      roll_uprising(static_cast<int>(o.units.size()));
      if (s_.step == Step::UprisingSuppression) after_uprising();
      return;
    }
    case Step::UprisingStepLoss:
      lose_step(o.units[0], "Warsaw Uprising");
      after_uprising();
      return;
    case Step::UprisingUnitsMoved: {
      std::string names;
      for (auto u : o.units) {
        s_.set(u, kMoved);
        names += (names.empty() ? "" : ", ") + unit_name(u);
      }
      log(game::Event::UPRISING, "Pinned in Warsaw by the uprising: " + names + ".", game::AUDIENCE_GERMAN);
      log(game::Event::UPRISING, std::to_string(o.units.size()) + in_number(o.units.size(), " German unit", " German units", " German unit(s)") + " pinned in Warsaw by the uprising.",
          game::AUDIENCE_ALL_BUT_GERMAN);
      after_uprising();
      return;
    }
    case Step::Magnuszew: {
      std::string names;
      for (auto u : o.units) {
        us(u).loc = kWithdrawn;
        us(u).flags = 0;
        us(u).reserve = 0;
        names += (names.empty() ? "" : ", ") + unit_name(u);
      }
      for (auto m : o.markers) {
        if (m < static_cast<int>(sc_.artillery.size())) {
          s_.artillery[static_cast<size_t>(m)] = MarkerState::Removed;
          names += (names.empty() ? "" : ", ") + sc_.artillery[static_cast<size_t>(m)].id;
        } else {
          const size_t k = static_cast<size_t>(m) - sc_.artillery.size();
          s_.stukas[k] = MarkerState::Removed;
          names += (names.empty() ? "" : ", ") + sc_.stukas[k].id;
        }
      }
      log(game::Event::WITHDRAWN, "Sent to the Magnuszew bridgehead: " + (names.empty() ? std::string("nothing") : names) + ".");
      const int need = static_cast<int>(sc_.magnuszew.at(s_.turn).size());
      if (static_cast<int>(o.units.size() + o.markers.size()) < need) {
        s_.soviet_bonus_vp++;
        log(game::Event::VICTORY_POINTS, "The Magnuszew withdrawal falls short: +1 VP Soviet (rule 19).");
      }
      s_.activation = 0;
      start_activation_phase();
      return;
    }
    default:
      return;
  }
}

}  // namespace counterattack
