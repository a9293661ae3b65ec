// Standing orders: the answer a player gave in advance to a decision that the
// other side's play asks of them (6 break contact, 9 losses and retreats,
// 10 tactical support, 12 FM Model's re-roll). Decisions in the player's own
// phase are always asked.
#include "rules/rules.h"

namespace counterattack {

std::optional<Order> Engine::standing_answer(const GameState& s, const game::StandingOrders& standing) const {
  using K = Order::Kind;
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const Decision d = r.decision();
  if (d.kind == game::Decision::GAME_OVER || !s.in_activation() || d.side == s.phase_side()) return std::nullopt;
  std::optional<Order> answer;
  // For a chosen answer the rules refuse (a unit that can only be eliminated,
  // say): the first legal answer that this accepts.
  bool (*fallback)(const Order&) = nullptr;
  switch (d.kind) {
    case game::Decision::BREAK_CONTACT:
      if (standing.stand_fast()) answer = Order::of(K::BreakContact);
      break;
    case game::Decision::DEFENSIVE_SUPPORT:
      if (standing.no_support()) answer = Order::of(K::DefensiveSupport);
      break;
    case game::Decision::MODEL_REROLL:
      if (standing.keep_die()) answer = Order::of(K::Reroll);
      break;
    case game::Decision::DEFENDER_LOSSES:
      if (!standing.take_losses()) break;
      answer = r.loss_order(true, 0, 0, false, false);
      fallback = [](const Order& o) { return o.kind == K::TakeLosses && o.elastic == 0 && o.desperate == 0; };
      break;
    case game::Decision::BARRAGE_LOSS:
      if (standing.take_losses() && !d.candidates.empty()) {
        answer = Order::of(K::ChooseUnits, {static_cast<std::int16_t>(d.candidates.front())});
      }
      break;
    case game::Decision::RETREAT: {
      if (!standing.retreat()) break;
      const auto movers = r.retreating_units();
      answer = r.roomy_retreat(movers, r.retreat_options(movers));
      fallback = [](const Order& o) { return o.kind == K::Retreat; };
      break;
    }
    default:
      break;
  }
  if (!answer || !r.check(d.side, *answer)) return answer;
  // Refused now: the fallback's first legal answer (each legal order is one
  // the rules accept), or else the player is asked.
  if (fallback) {
    for (auto& o : legal_orders(s)) {
      if (fallback(o)) return o;
    }
  }
  return std::nullopt;
}

}  // namespace counterattack
