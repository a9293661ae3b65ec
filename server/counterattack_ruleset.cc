// The ruleset interface for Model's Counterattack, on top of engine/.
#include <algorithm>
#include <cstring>

#include "engine.h"
#include "ruleset.h"
#include "view_delta.h"

namespace counterattack::server {
namespace {

Viewer to_viewer(game::ViewerKind v) {
  switch (v) {
    case game::VIEWER_SOVIET: return Viewer::Soviet;
    case game::VIEWER_GERMAN: return Viewer::German;
    case game::VIEWER_OMNISCIENT: return Viewer::Omniscient;
    default: return Viewer::Spectator;
  }
}

// The seed bytes are the four generator words, little-endian.
Prng::State state_of(const Seed& seed) {
  Prng::State s{};
  for (size_t w = 0; w < 4; ++w) {
    std::uint64_t x = 0;
    for (size_t b = 0; b < 8; ++b) x |= static_cast<std::uint64_t>(seed[w * 8 + b]) << (8 * b);
    s[w] = x;
  }
  return s;
}

std::string bytes_of(const Prng::State& s) {
  std::string out(32, '\0');
  for (size_t w = 0; w < 4; ++w) {
    for (size_t b = 0; b < 8; ++b) out[w * 8 + b] = static_cast<char>((s[w] >> (8 * b)) & 0xFF);
  }
  return out;
}

class CounterattackSeatView final : public SeatView {
 public:
  CounterattackSeatView(std::shared_ptr<const Engine> engine, ViewModel m) : engine_(std::move(engine)), model_(std::move(m)) {}
  game::View proto() const override { return engine_->to_proto(model_); }
  const ViewModel& model() const { return model_; }

 private:
  std::shared_ptr<const Engine> engine_;
  ViewModel model_;
};

class CounterattackMatch final : public Match {
 public:
  CounterattackMatch(std::shared_ptr<const Engine> engine, GameState state, Prng dice)
      : engine_(std::move(engine)), state_(std::move(state)), dice_(dice) {}

  Applied apply(game::Side side, const game::Order& order) override {
    Applied out;
    if (side != game::SOVIET && side != game::GERMAN) {
      out.rejection.set_code(game::MALFORMED);
      out.rejection.set_reason("Orders come from the Soviet or the German player.");
      return out;
    }
    Order o;
    Rejection why;
    if (!engine_->from_proto(order, o, why)) {
      out.rejection.set_code(why.code);
      out.rejection.set_reason(why.reason);
      return out;
    }
    // Applied to a copy: whatever happens inside the rules, the game changes
    // only by a whole accepted order.
    GameState trial = state_;
    Prng dice = dice_;
    Outcome r;
    try {
      r = engine_->apply(trial, side == game::SOVIET ? Side::Soviet : Side::German, o, dice);
    } catch (const std::exception& e) {
      out.rejection.set_code(game::NOT_ALLOWED);
      out.rejection.set_reason(std::string("The rules could not process this order: ") + e.what());
      return out;
    }
    out.accepted = r.accepted;
    if (!r.accepted) {
      out.rejection.set_code(r.rejection.code);
      out.rejection.set_reason(r.rejection.reason);
      return out;
    }
    state_ = std::move(trial);
    dice_ = dice;
    out.events = std::move(r.events);
    return out;
  }

  game::Side decider() const override {
    const Decision d = engine_->decision(state_);
    if (d.kind == game::Decision::GAME_OVER) return game::SIDE_UNSPECIFIED;
    return d.side == Side::Soviet ? game::SOVIET : game::GERMAN;
  }

  game::View view(game::ViewerKind viewer) const override { return engine_->view(state_, to_viewer(viewer)); }
  std::unique_ptr<SeatView> seat_view(game::ViewerKind viewer) const override {
    return std::make_unique<CounterattackSeatView>(engine_, engine_->view_model(state_, to_viewer(viewer)));
  }
  std::string encode_state() const override { return counterattack::encode_state(state_); }
  std::string encode_dice() const override { return bytes_of(dice_.state()); }
  std::uint64_t state_hash() const override { return counterattack::state_hash(state_); }
  bool over() const override { return state_.result != Result::Ongoing || state_.step == Step::GameOver; }

  std::string result() const override {
    switch (state_.result) {
      case Result::SovietWin: return "Soviet victory";
      case Result::GermanWin: return "German victory";
      case Result::Draw: return "Draw";
      case Result::Ongoing: break;
    }
    return "";
  }
  std::string result_reason() const override { return state_.result_reason; }
  int turn() const override { return state_.turn; }

  std::optional<game::Order> standing_answer(const game::StandingOrders& standing) const override {
    auto o = engine_->standing_answer(state_, standing);
    if (!o) return std::nullopt;
    return engine_->to_proto(*o);
  }

 private:
  std::shared_ptr<const Engine> engine_;
  GameState state_;
  Prng dice_;
};

class CounterattackRuleset final : public Ruleset {
 public:
  explicit CounterattackRuleset(std::shared_ptr<const Scenario> sc) : engine_(std::make_shared<const Engine>(sc)) {}

  std::string name() const override { return "counterattack"; }

  std::shared_ptr<const data::ScenarioData> scenario_data() const override { return engine_->scenario().data; }

  std::string check_options(const std::vector<std::string>& options) const override {
    std::vector<std::string> seen;
    for (const auto& key : options) {
      const auto& defs = engine_->scenario().optional_rules;
      const bool known = option_bit(key) != 0 &&
                         std::any_of(defs.begin(), defs.end(), [&](const OptionalRuleDef& d) { return d.key == key; });
      if (!known) {
        std::string list;
        for (const auto& d : defs) list += (list.empty() ? "" : ", ") + d.key;
        return "Unknown optional rule '" + key + "' (known: " + list + ").";
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) return "Optional rule '" + key + "' is named twice.";
      seen.push_back(key);
    }
    return "";
  }

  std::string check_standing_orders(game::Side side, const game::StandingOrders& standing) const override {
    if (standing.keep_die() && side != game::GERMAN) return "FM Model is the German's: only the German player keeps his die.";
    return "";
  }

  int latest_revision() const override { return kLatestRevision; }

  std::unique_ptr<Match> create(const std::vector<std::string>& options, const Seed& seed, int revision,
                                std::vector<game::Event>* events) const override {
    std::uint32_t bits = revision_bits(revision);
    for (const auto& key : options) bits |= option_bit(key);
    Prng dice(state_of(seed), dice_kind(bits));
    GameState s = engine_->new_game(bits, dice, events);
    return std::make_unique<CounterattackMatch>(engine_, std::move(s), dice);
  }

  std::unique_ptr<Match> restore(const std::string& state, const std::string& dice) const override {
    GameState s;
    if (dice.size() != 32 || !decode_state(engine_->scenario(), state, s)) return nullptr;
    Seed raw{};
    std::memcpy(raw.data(), dice.data(), raw.size());
    const auto kind = dice_kind(s.options);
    return std::make_unique<CounterattackMatch>(engine_, std::move(s), Prng(state_of(raw), kind));
  }

  game::ViewDelta diff(const SeatView& before, const SeatView& after) const override {
    return engine_->delta(static_cast<const CounterattackSeatView&>(before).model(),
                          static_cast<const CounterattackSeatView&>(after).model());
  }

  std::vector<game::Event> events_for(const std::vector<game::Event>& events, game::ViewerKind viewer) const override {
    return counterattack::events_for(events, to_viewer(viewer));
  }

 private:
  std::shared_ptr<const Engine> engine_;
};

}  // namespace

std::shared_ptr<const Ruleset> make_counterattack_ruleset() {
  return std::make_shared<const CounterattackRuleset>(default_scenario());
}

}  // namespace counterattack::server
