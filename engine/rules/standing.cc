// Standing orders: the answer a player gave in advance to a decision that the
// other side's play asks of them (6 break contact, 9 losses and retreats,
// 10 tactical support, 12 FM Model's re-roll).
#include "rules/rules.h"

namespace counterattack {

std::optional<Order> Engine::standing_answer(const GameState& s, const game::StandingOrders& standing) const {
  using K = Order::Kind;
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  const Decision d = r.decision();
  std::optional<Order> answer;
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
      if (standing.take_losses()) answer = r.loss_order(true, 0, 0, false, false);
      break;
    case game::Decision::BARRAGE_LOSS:
      if (standing.take_losses() && !d.candidates.empty()) {
        answer = Order::of(K::ChooseUnits, {static_cast<std::int16_t>(d.candidates.front())});
      }
      break;
    case game::Decision::RETREAT:
      if (standing.retreat()) {
        const auto movers = r.retreating_units();
        answer = r.roomy_retreat(movers, r.retreat_options(movers));
      }
      break;
    default:
      break;
  }
  // An answer the rules would refuse now is left to the player.
  if (answer && r.check(d.side, *answer)) return std::nullopt;
  return answer;
}

}  // namespace counterattack
