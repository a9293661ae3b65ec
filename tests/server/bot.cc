#include "bot.h"

namespace counterattack::server::testing {

Bot::Bot(game::Side side, std::shared_ptr<const Scenario> sc, int moves_per_step, int take_back_every)
    : side_(side), sc_(std::move(sc)), moves_per_step_(moves_per_step), take_back_every_(take_back_every) {}

std::optional<game::Order> Bot::pick_move(const game::View& v) {
  // Every (own unit on a hex, neighbouring hex) pair; the n-th try takes a spread-out one.
  std::vector<std::pair<std::string, std::string>> options;
  for (const auto& st : v.stacks()) {
    if (st.side() != side_) continue;
    auto at = sc_->parse_location(st.location());
    if (!at) continue;
    // From a hex to a neighbour; from an entry point onto its hexes.
    std::vector<Loc> next;
    if (sc_->is_hex(*at)) {
      for (Loc nb : sc_->hexes[static_cast<size_t>(*at)].nb) next.push_back(nb);
    } else if (sc_->is_entry(*at)) {
      next = sc_->entry_points[static_cast<size_t>(sc_->entry_index(*at))].hexes;
    }
    for (const auto& u : st.units()) {
      if (u.id().empty() || u.moved()) continue;
      for (Loc nb : next) {
        if (nb >= 0) options.emplace_back(u.id(), sc_->location_name(nb));
      }
    }
  }
  if (options.empty()) return std::nullopt;
  const auto& [unit, to] = options[(static_cast<size_t>(tries_) * 7919 + static_cast<size_t>(moves_made_) * 104729) % options.size()];
  game::Order o;
  o.mutable_move()->add_units(unit);
  o.mutable_move()->add_path(to);
  return o;
}

std::optional<game::Order> Bot::pick_barrage(const game::View& v) {
  // Our ready markers against enemy hexes (the rules check range and activation); dice get rolled.
  const Side me = side_ == game::SOVIET ? Side::Soviet : Side::German;
  std::vector<std::string> markers;
  for (const auto& m : v.artillery()) {
    for (const auto& a : sc_->artillery) {
      if (a.id == m.id() && m.state() == "ready" && sc_->formations[static_cast<size_t>(a.formation)].side == me) {
        markers.push_back(m.id());
      }
    }
  }
  for (const auto& m : v.stukas()) {
    if (me == Side::German && m.state() == "ready") markers.push_back(m.id());
  }
  std::vector<std::string> targets;
  for (const auto& st : v.stacks()) {
    auto at = sc_->parse_location(st.location());
    if (st.side() != side_ && at && sc_->is_hex(*at)) targets.push_back(st.location());
  }
  if (markers.empty() || targets.empty()) return std::nullopt;
  const size_t n = static_cast<size_t>(tries_);
  game::Order o;
  o.mutable_barrage()->set_marker(markers[n % markers.size()]);
  o.mutable_barrage()->set_target(targets[(n * 31 + static_cast<size_t>(moves_made_)) % targets.size()]);
  return o;
}

std::optional<game::Order> Bot::next(const game::View& v) {
  const auto& d = v.decision();
  if (d.kind() == game::Decision::GAME_OVER || d.side() != side_) return std::nullopt;
  const std::string key = std::to_string(v.header().turn()) + "/" + v.header().phase() + "/" + v.header().step() + "/" +
                          std::to_string(d.kind()) + "/" + d.prompt();
  if (key != key_) {
    key_ = key;
    tries_ = 0;
    moved_here_ = 0;
    barrages_here_ = 0;
    kept_.clear();
    cursor_ = -1;
  }
  last_was_move_ = false;
  last_was_barrage_ = false;
  last_was_undo_ = false;
  game::Order o;
  if (undo_next_) {
    undo_next_ = false;
    if (d.kind() == game::Decision::MOVEMENT && d.takebacks() > 0) {
      last_was_undo_ = true;
      o.mutable_undo();
      return o;
    }
  }
  auto first = [&](int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n && i < d.candidates_size(); ++i) out.push_back(d.candidates((i + tries_) % d.candidates_size()));
    return out;
  };
  switch (d.kind()) {
    case game::Decision::CHOOSE_CORPS:
      if (d.candidates_size() == 0) break;
      o.mutable_activate_corps()->set_corps(d.candidates(tries_ % d.candidates_size()));
      return o;
    case game::Decision::MOVEMENT:
      if (moved_here_ < moves_per_step_ && tries_ < 8) {
        if (auto m = pick_move(v)) {
          last_was_move_ = true;
          return m;
        }
      }
      o.mutable_done();
      return o;
    case game::Decision::BARRAGE:
      if (barrages_here_ < 1 && tries_ < 10) {
        if (auto b = pick_barrage(v)) {
          last_was_barrage_ = true;
          return b;
        }
      }
      o.mutable_done();
      return o;
    case game::Decision::BARRAGE_LOSS:
      for (auto& u : first(1)) o.mutable_choose_units()->add_units(u);
      return o;
    case game::Decision::BREAK_CONTACT:
      o.mutable_break_contact();  // stand fast
      return o;
    case game::Decision::UPRISING_STEP_LOSS:
    case game::Decision::UPRISING_UNITS_MOVED:
      for (auto& u : first(std::max(1, d.count()))) o.mutable_choose_units()->add_units(u);
      return o;
    case game::Decision::MAGNUSZEW: {
      // Greedy: keep each item whose addition the rules call too little, drop those that do not fit.
      auto* c = o.mutable_choose_units();
      for (auto& k : kept_) c->add_units(k);
      tried_.clear();
      if (cursor_ >= 0 && cursor_ < d.candidates_size()) {
        tried_ = d.candidates(cursor_);
        c->add_units(tried_);
      }
      return o;
    }
    case game::Decision::DEFENSIVE_SUPPORT:
      o.mutable_defensive_support();
      return o;
    case game::Decision::MODEL_REROLL:
      o.mutable_reroll()->set_reroll(false);
      return o;
    case game::Decision::ADVANCE:
      o.mutable_advance();
      return o;
    case game::Decision::ATTACKER_LOSSES:
    case game::Decision::DEFENDER_LOSSES:
      for (int i = 0; i < std::max(1, d.count()) && d.candidates_size() > 0; ++i) {
        o.mutable_take_losses()->add_steps(d.candidates((i + tries_) % d.candidates_size()));
      }
      return o;
    default:
      break;
  }
  // Recovery, uprising suppression, the combat steps and anything else: pass.
  if (tries_ % 2 == 0) {
    o.mutable_done();
  } else {
    for (auto& u : first(d.count())) o.mutable_choose_units()->add_units(u);
  }
  return o;
}

void Bot::result(bool accepted, const std::string& reason) {
  if (accepted) {
    if (last_was_move_) {
      ++moved_here_;
      ++moves_made_;
      undo_next_ = take_back_every_ > 0 && moves_made_ % take_back_every_ == 0;
    }
    if (last_was_undo_) {
      --moved_here_;
      ++takebacks_;
    }
    if (last_was_barrage_) {
      ++barrages_here_;
      ++barrages_made_;
    }
    tries_ = 0;
    return;
  }
  ++tries_;
  ++rejections_;
  if (cursor_ >= -1 && !key_.empty()) {
    if (!tried_.empty() && reason.find("mandatory") != std::string::npos) kept_.push_back(tried_);
    ++cursor_;
  }
}

}  // namespace counterattack::server::testing
