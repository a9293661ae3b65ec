// 4 Game preparation, 5 Sequence of play, 3 Victory conditions.
#include <algorithm>

#include "rules/rules.h"

namespace counterattack {

Rejection reject(game::RejectCode code, std::string reason) { return {code, std::move(reason)}; }

Engine::Engine(std::shared_ptr<const Scenario> scenario)
    : sc_(std::move(scenario)), location_rank_(location_ranks(*sc_)) {}

GameState Engine::new_game(std::uint32_t options, Prng& rng, std::vector<game::Event>* events) const {
  GameState s;
  std::vector<game::Event> sink;
  Rules r(*this, s, &rng, events ? events : &sink);
  r.start_game(options);
  return s;
}

Decision Engine::decision(const GameState& s) const {
  GameState& mutable_s = const_cast<GameState&>(s);  // Rules is only read here
  Rules r(*this, mutable_s, nullptr, nullptr);
  return r.decision();
}

namespace {

// Orders a player may take back: they reveal nothing by themselves. Whether
// one is kept depends on what it led to (Engine::apply). These rules are part
// of replaying every stored log that has an Undo: keeping fewer orders later
// would refuse such an Undo on replay, so a change needs a new game option.
bool may_take_back(Order::Kind k) {
  using K = Order::Kind;
  switch (k) {
    case K::ActivateCorps:
    case K::Move:
    case K::PreparedDefense:
    case K::LiftPreparedDefense:
    case K::PlaceReserve:
    case K::RemoveReserve:
    case K::Done:
      return true;
    default:
      return false;
  }
}

}  // namespace

Outcome Engine::apply(GameState& s, Side who, const Order& order, Prng& rng) const {
  Outcome out;
  {
    Rules checker(*this, s, nullptr, nullptr);
    if (auto why = checker.check(who, order)) {
      out.rejection = *why;
      return out;
    }
  }
  if (order.kind == Order::Kind::Undo) return take_back(s, who);
  std::shared_ptr<GameState> before;
  if (may_take_back(order.kind)) {
    before = std::make_shared<GameState>(s);
    before->takeback = {};
  }
  Takeback trail = std::move(s.takeback);
  s.takeback = {};
  const Prng::State dice = rng.state();
  Rules r(*this, s, &rng, &out.events);
  r.execute(order);
  out.accepted = true;
  // Kept only while undoing it would hide nothing learnt: no die, no chit, no
  // newly inspected stack, and the other side has not been asked anything;
  // and only within one turn's activation phases, so that a turn's end
  // (reinforcements, the administrative phase) is never undone.
  if (before && rng.state() == dice && s.step != Step::GameOver && s.in_activation() && s.turn == before->turn &&
      decision(s).side == who) {
    const auto inspected = inspected_enemy_stacks(*before, who), now = inspected_enemy_stacks(s, who);
    if (std::includes(inspected.begin(), inspected.end(), now.begin(), now.end())) {
      trail.before.push_back(std::move(before));
      if (trail.before.size() > kMaxTakebacks) trail.before.erase(trail.before.begin());
      s.takeback = std::move(trail);
    }
  }
  return out;
}

// Checked by Rules::check: the decider's, with an order kept to take back.
Outcome Engine::take_back(GameState& s, Side who) const {
  Takeback trail = std::move(s.takeback);
  GameState back = *trail.before.back();
  trail.before.pop_back();
  back.takeback = std::move(trail);
  s = std::move(back);
  Outcome out;
  out.accepted = true;
  game::Event ev;
  ev.set_kind(game::Event::TAKEN_BACK);
  ev.set_audience(game::AUDIENCE_ALL);
  ev.set_text(std::string(side_name(who)) + " takes back an order.");
  out.events.push_back(std::move(ev));
  return out;
}

std::string Engine::phase_name(const GameState& s) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.phase_name();
}

int Engine::victory_points(const GameState& s, Side side) const {
  Rules r(*this, const_cast<GameState&>(s), nullptr, nullptr);
  return r.victory_points(side);
}

const UnitStep& Rules::face(int u) const {
  const auto& steps = def(u).steps;
  const size_t i = std::min<size_t>(us(u).hits, steps.size() - 1);
  return steps[i];
}

void Rules::log(game::Event::Kind kind, std::string text, game::Audience audience) {
  if (!log_) return;
  game::Event ev;
  ev.set_kind(kind);
  ev.set_audience(audience);
  ev.set_text(std::move(text));
  log_->push_back(std::move(ev));
}

void Rules::log_path(game::Event::Kind kind, std::string text, const std::vector<Loc>& path,
                     game::Audience audience) {
  if (!log_) return;
  log(kind, std::move(text), audience);
  for (Loc l : path) log_->back().add_path(loc_name(l));
}

std::string Rules::phase_name() const {
  if (!s_.in_activation()) return "Administrative";
  return std::string(side_name(s_.phase_side())) + " " + std::to_string(s_.activation / 2 + 1);
}

void Rules::place(int unit, Loc l) {
  auto& u = us(unit);
  if (u.loc != l) u.flags = static_cast<std::uint16_t>(u.flags & ~kPreparedDefense);  // 8: leaving lifts it
  u.loc = l;
  u.stack_seq = s_.next_seq++;
}

void Rules::lose_step(int u, const std::string& why) {
  auto& st = us(u);
  const Loc at = st.loc;
  st.hits++;
  if (st.hits >= def(u).steps.size()) {
    st.loc = kEliminated;
    st.flags = 0;
    st.reserve = 0;
    st.bonus = 0;
    log(game::Event::STEP_LOST, unit_name(u) + " is eliminated (" + why + ").");  // the loss track is public
    return;
  }
  // 7: a unit below the top of its stack may be unseen: the others read where, not who.
  const Side side = side_of(u);
  log(game::Event::STEP_LOST, unit_name(u) + " loses a step (" + why + ").",
      side == Side::Soviet ? game::AUDIENCE_SOVIET : game::AUDIENCE_GERMAN);
  log(game::Event::STEP_LOST, std::string("A ") + side_name(side) + " unit at " + loc_name(at) + " loses a step (" + why + ").",
      side == Side::Soviet ? game::AUDIENCE_ALL_BUT_SOVIET : game::AUDIENCE_ALL_BUT_GERMAN);
}

std::string Rules::unnamed(const std::vector<std::int16_t>& units) const {
  std::vector<Loc> at;
  for (auto u : units) {
    if (std::find(at.begin(), at.end(), us(u).loc) == at.end()) at.push_back(us(u).loc);
  }
  std::string where;
  for (Loc l : at) where += (where.empty() ? "" : ", ") + loc_name(l);
  const char* side = side_name(side_of(units[0]));
  return units.size() == 1 ? std::string("A ") + side + " unit at " + where : std::string(side) + " units at " + where;
}

// ---------------------------------------------------------------------------
// 4 Game preparation
// ---------------------------------------------------------------------------

void Rules::start_game(std::uint32_t options) {
  s_ = GameState{};
  s_.options = options;
  s_.units.assign(sc_.units.size(), UnitState{});
  for (const auto& [unit, loc] : sc_.setup) place(unit, loc);
  s_.artillery.assign(sc_.artillery.size(), MarkerState::NotArrived);
  s_.stukas.assign(sc_.stukas.size(), MarkerState::NotArrived);
  for (size_t i = 0; i < sc_.events.size(); ++i) {
    s_.sides[static_cast<int>(sc_.events[i].side)].cup.push_back(static_cast<std::uint8_t>(i));
  }
  s_.model_turn = static_cast<std::int8_t>(sc_.model_arrival_turn);
  // 4: each player draws three event chits.
  for (Side side : {Side::Soviet, Side::German}) {
    for (int k = 0; k < rule(sc_.rules.initial_event_draw(), 3); ++k) draw_event(side);
  }
  s_.turn = 1;
  administrative_phase();
}

// ---------------------------------------------------------------------------
// A - Administrative phase
// ---------------------------------------------------------------------------

void Rules::administrative_phase() {
  // Games begun before revision 5 keep their day of July, past the 31st too.
  const int day = sc_.first_turn_day + s_.turn - 1;
  const std::string date = option(kTurnDates) ? sc_.turn_date(s_.turn) : std::to_string(day) + (day > 31 ? "" : " July");
  log(game::Event::PHASE, "Turn " + std::to_string(s_.turn) + " (" + date + "): administrative phase.");
  s_.step = Step::Recovery;
  s_.activation = 0;
  s_.corps_done = 0;
  s_.forty_seventh_phase = -1;
  s_.bridges_closed = false;
  s_.bridge_extra_half = 0;
  s_.model_used = false;
  // 17: reinforcements reach their entry points (or Warsaw).
  for (const auto& rf : sc_.reinforcements) {
    if (rf.turn != s_.turn) continue;
    std::string names;
    for (int u : rf.units) {
      if (us(u).loc != kNotArrived) continue;
      place(u, rf.entry);
      names += (names.empty() ? "" : ", ") + unit_name(u);
    }
    if (!names.empty()) log(game::Event::ARRIVED, "Reinforcements at " + loc_name(rf.entry) + ": " + names + ".");
  }
  // Moved and Disorganized markers come off; movement counters reset.
  for (auto& u : s_.units) {
    u.flags = static_cast<std::uint16_t>(u.flags & (kOutOfSupply | kPreparedDefense));
    u.mp_used = 0;
  }
  // 20: from the second turn each player draws an event.
  if (s_.turn >= 2) {
    draw_event(Side::Soviet);
    draw_event(Side::German);
  }
  // 10: artillery and Stukas come back ready; a formation gone from play loses its artillery.
  for (size_t i = 0; i < sc_.artillery.size(); ++i) {
    auto& m = s_.artillery[i];
    if (m == MarkerState::Removed) continue;
    if (sc_.artillery[i].arrival_turn > s_.turn) continue;
    bool present = false;
    for (size_t u = 0; u < sc_.units.size() && !present; ++u) {
      present = sc_.units[u].formation == sc_.artillery[i].formation &&
                (sc_.on_board(s_.units[u].loc) || s_.units[u].loc == kNotArrived);
    }
    if (!present && m != MarkerState::NotArrived) {
      m = MarkerState::Removed;
      log(game::Event::MARKER, "Artillery " + sc_.artillery[i].id + " is removed: its formation is gone.");
      continue;
    }
    m = MarkerState::Ready;
  }
  for (size_t i = 0; i < sc_.stukas.size(); ++i) {
    if (s_.stukas[i] != MarkerState::Removed && sc_.stukas[i].arrival_turn <= s_.turn) s_.stukas[i] = MarkerState::Ready;
  }
  // 16: from the second turn the German may recover one step.
  if (s_.turn >= 2 && !recovery_candidates(Side::German).empty()) {
    s_.step = Step::Recovery;
    return;
  }
  after_recovery();
}

void Rules::after_recovery() {
  // 18 Warsaw Uprising
  if (s_.uprising == Uprising::Triggered) {
    s_.uprising = Uprising::Rising;
    s_.bridges_closed = true;
    log(game::Event::UPRISING, "Warsaw rises! The bridges are closed and Warsaw is no supply source this turn.");
    if (!german_units_in_warsaw(false, false).empty()) {
      s_.step = Step::UprisingStepLoss;
      s_.uprising_pending = 1;
      return;
    }
    s_.soviet_bonus_vp++;
    log(game::Event::VICTORY_POINTS, "No German unit in Warsaw can take the uprising's loss: +1 VP Soviet.");
  } else if (s_.uprising == Uprising::Rising || s_.uprising == Uprising::Ongoing) {
    s_.uprising = Uprising::Ongoing;
    if (!german_units_in_warsaw(true, true).empty()) {
      s_.step = Step::UprisingSuppression;
      return;
    }
    roll_uprising(0);
    if (s_.step == Step::UprisingStepLoss || s_.step == Step::UprisingUnitsMoved) return;
  }
  after_uprising();
}

void Rules::after_uprising() {
  s_.uprising_pending = 0;
  start_magnuszew();
}

void Rules::start_magnuszew() {
  // 19: from the sixth turn the German sends units from Warsaw to Magnuszew.
  auto it = sc_.magnuszew.find(s_.turn);
  if (s_.turn >= rule(sc_.rules.magnuszew_from_turn(), 6) && it != sc_.magnuszew.end() && !it->second.empty()) {
    if (magnuszew_best(magnuszew_items()) > 0) {
      s_.step = Step::Magnuszew;
      return;
    }
    s_.soviet_bonus_vp++;
    log(game::Event::VICTORY_POINTS, "The German cannot send the units Magnuszew demands: +1 VP Soviet.");
  }
  s_.activation = 0;
  start_activation_phase();
}

// ---------------------------------------------------------------------------
// B - Activation phases
// ---------------------------------------------------------------------------

void Rules::start_activation_phase() {
  s_.active_corps = -1;
  s_.extra_corps = -1;
  s_.divisions_this_phase = 0;
  s_.extra_division_unit = -1;
  s_.no_break_contact = false;
  s_.mover.clear();
  s_.mover_stopped = false;
  for (auto& side : s_.sides) side.events_this_phase = 0;
  s_.attacked_hexes.clear();
  s_.barraged_hexes.clear();
  s_.stuka_hexes.clear();
  s_.model_noncontiguous = false;
  s_.model_extra_division = false;
  for (auto& u : s_.units) {
    u.flags = static_cast<std::uint16_t>(u.flags & ~(kMoving | kIgnoreZoc | kActedThisPhase | kReactivated | kAttacked | kRetreated));
    u.mp_used = 0;
  }
  // The step is still the administrative phase's here: from revision 6 the phase is named by its number.
  const std::string name = option(kReaderTexts)
                               ? std::string(side_name(s_.phase_side())) + " " + std::to_string(s_.activation / 2 + 1)
                               : phase_name();
  log(game::Event::PHASE, name + " activation phase.");
  if (s_.phase_side() == Side::Soviet) {
    bool any = false;
    for (size_t f = 0; f < sc_.formations.size(); ++f) {
      any |= sc_.formations[f].kind == data::CORPS && !(s_.corps_done & (1u << f));
    }
    s_.step = any ? Step::ChooseCorps : Step::Movement;
  } else {
    s_.step = Step::Movement;
  }
}

void Rules::finish_mover() {
  for (auto u : s_.mover) {
    if (is_train(u)) continue;  // 13: the train is always active
    s_.set(u, kMoved);
  }
  s_.mover.clear();
  s_.mover_stopped = false;
}

void Rules::end_step() {
  finish_mover();
  switch (s_.step) {
    case Step::Movement: s_.step = Step::Barrage; break;
    case Step::Barrage: s_.step = Step::Combat; break;
    case Step::Combat: s_.step = Step::Reserves; break;
    case Step::Reserves: end_activation_phase(); return;
    default: return;
  }
  log(game::Event::PHASE, phase_name() + ": " + step_name(s_.step) + ".");
}

void Rules::end_activation_phase() {
  // 5 step 5: supply of the units activated in this phase; after the third
  // phase of a side, of all its units.
  supply_check(s_.activation >= 4);
  if (s_.phase_side() == Side::Soviet) {
    // 5: the corps has been activated as a whole, moved or not.
    for (size_t u = 0; u < s_.units.size(); ++u) {
      const int f = sc_.units[u].formation;
      // 14: reserves may still be used in a later phase of the side (5: turn 1 note).
      if ((f == s_.active_corps || f == s_.extra_corps) && !s_.units[u].reserve) s_.units[u].flags |= kMoved;
    }
  }
  if (s_.activation == 5) {
    end_turn();
    return;
  }
  s_.activation++;
  start_activation_phase();
}

void Rules::end_turn() {
  if (s_.jozefow == 1) {
    s_.jozefow = 2;
    log(game::Event::MARKER, "The Józefów bridge is destroyed.");
  }
  // 18: a Soviet unit within range of a Praga victory hex at the end of a turn.
  if (s_.uprising == Uprising::None) {
    const int range = rule(sc_.rules.uprising_distance(), 6);
    bool near = false;
    for (size_t u = 0; u < s_.units.size() && !near; ++u) {
      if (sc_.units[u].side != Side::Soviet || !sc_.is_hex(s_.units[u].loc)) continue;
      for (const auto& b : sc_.praga_bridges) near |= sc_.distance(s_.units[u].loc, b.hex) <= range;
    }
    if (near) {
      s_.uprising = Uprising::Triggered;
      log(game::Event::UPRISING, "Soviet troops are near Praga: Warsaw will rise next turn.");
    }
  }
  if (s_.turn >= rule(sc_.rules.turns(), 10)) {
    end_game();
    return;
  }
  s_.turn++;
  administrative_phase();
}

int Rules::victory_points(Side side) const {
  // 3: the Soviet holds a victory hex while a Soviet unit occupies it; the German holds the rest.
  std::vector<std::uint8_t> soviet_here(static_cast<size_t>(sc_.location_count()), 0);
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (sc_.units[u].side == Side::Soviet && sc_.on_board(s_.units[u].loc)) soviet_here[static_cast<size_t>(s_.units[u].loc)] = 1;
  }
  int soviet = s_.soviet_bonus_vp, german = 0;
  for (const auto& v : sc_.victory) {
    for (Loc h : v.hexes) {
      const bool held = sc_.on_board(h) && soviet_here[static_cast<size_t>(h)];
      (held ? soviet : german) += v.points_per_hex;
    }
  }
  return side == Side::Soviet ? soviet : german;
}

void Rules::end_game() {
  finish_mover();
  const int sv = victory_points(Side::Soviet), gv = victory_points(Side::German);
  s_.result = sv > gv ? Result::SovietWin : gv > sv ? Result::GermanWin : Result::Draw;
  s_.result_reason = "Victory points after the last turn: Soviet " + std::to_string(sv) + ", German " + std::to_string(gv) + ".";
  s_.step = Step::GameOver;
  s_.pending_break = {};
  log(game::Event::GAME_OVER, s_.result_reason);
}

void Rules::check_decisive_victory() {
  // 3: a decisive victory when no enemy units remain in play.
  if (s_.result != Result::Ongoing) return;
  int alive[2] = {0, 0};
  for (size_t u = 0; u < s_.units.size(); ++u) {
    if (sc_.on_board(s_.units[u].loc) || s_.units[u].loc == kNotArrived) alive[static_cast<int>(sc_.units[u].side)]++;
  }
  if (alive[0] && alive[1]) return;
  s_.result = alive[0] ? Result::SovietWin : Result::GermanWin;
  s_.result_reason = std::string("Decisive victory: no ") + (alive[0] ? "German" : "Soviet") + " units remain in play.";
  s_.step = Step::GameOver;
  s_.pending_break = {};
  s_.mover.clear();
  log(game::Event::GAME_OVER, s_.result_reason);
}

// ---------------------------------------------------------------------------
// Decisions, checking and execution
// ---------------------------------------------------------------------------

Decision Rules::decision() const {
  Decision d;
  if (s_.step == Step::GameOver) {
    d.kind = game::Decision::GAME_OVER;
    d.prompt = "The game is over. " + s_.result_reason;
    return d;
  }
  if (!s_.pending_break.eligible.empty()) {
    d.kind = game::Decision::BREAK_CONTACT;
    d.side = side_of(s_.pending_break.eligible.front());
    // "Next to", not "in the ZOC of": the armored train has none, yet may break contact (13).
    d.prompt = "Enemy units entered " + loc_name(s_.pending_break.entered) +
               ", next to your units: break contact (move eligible units one hex away) or stand fast.";
    d.candidates.assign(s_.pending_break.eligible.begin(), s_.pending_break.eligible.end());
    return d;
  }
  if (s_.combat.stage != CombatStage::None) {
    const auto& c = s_.combat;
    const Side attacker = s_.phase_side(), defender = enemy_of(attacker);
    const std::string where = loc_name(c.target);
    auto units = [&](const std::vector<std::int16_t>& v) {
      for (auto u : v) {
        if (on_board(u)) d.candidates.push_back(u);
      }
    };
    switch (c.stage) {
      case CombatStage::DefensiveSupport:
        d.kind = game::Decision::DEFENSIVE_SUPPORT;
        d.side = defender;
        // Stukas are the German's only (10). The prompt reaches both players: whether a
        // marker may support is told by the candidates, which only the defender reads.
        d.prompt = where + " is attacked: commit tactical support (" + std::string(defender == Side::German ? "artillery or Stuka" : "artillery") +
                   ", -1 to the die) or a chit, or none.";
        for (int m : defensive_markers()) d.candidates.push_back(-1 - m);
        break;
      case CombatStage::ModelReroll: {
        d.kind = game::Decision::MODEL_REROLL;
        d.side = Side::German;
        // The result the roll gives, which the re-roll would replace: public, as the die and the column are.
        const int rows = static_cast<int>(sc_.crt.size());
        const int row = std::clamp(c.die + c.modifier - sc_.crt_min_roll, 0, rows - 1);
        d.prompt = "Combat at " + where + ": die " + std::to_string(c.die) + (c.modifier >= 0 ? " +" : " ") + std::to_string(c.modifier) +
                   " on " + sc_.crt_columns[static_cast<size_t>(c.column)] + " gives " +
                   sc_.crt[static_cast<size_t>(row)][static_cast<size_t>(c.column)].text + ". Use FM Model to re-roll?";
        break;
      }
      case CombatStage::AttackerLosses:
        d.kind = game::Decision::ATTACKER_LOSSES;
        d.side = attacker;
        d.count = c.attacker_steps;
        d.prompt = "The attack on " + where + " costs " + std::to_string(c.attacker_steps) + in_number(c.attacker_steps, " step", " steps", " step(s)") +
                   in_number(c.attacker_steps, ": choose the unit that loses it.", ": choose the units that lose them.",
                             ": choose the units that lose them.");
        units(c.attackers);
        break;
      case CombatStage::DefenderLosses:
        d.kind = game::Decision::DEFENDER_LOSSES;
        d.side = defender;
        d.count = c.defender_steps;
        d.prompt = "At " + where + ": lose " + std::to_string(c.defender_steps) + in_number(c.defender_steps, " step", " steps", " step(s)") +
                   " and retreat " + std::to_string(c.retreat) + in_number(c.retreat, " hex", " hexes", " hex(es)") +
                   (elastic_allowed() ? "; elastic defense may turn steps into retreat" : "") +
                   (c.retreat ? "; desperate defense may turn retreat into steps" : "") + ".";
        units(c.defenders);
        break;
      case CombatStage::Retreat:
        d.kind = game::Decision::RETREAT;
        d.side = defender;
        d.count = c.retreat;
        d.prompt = "Retreat the units at " + where + " " + std::to_string(c.retreat) + in_number(c.retreat, " hex", " hexes", " hex(es)") + " (rule 9).";
        for (auto u : c.defenders) {
          if (us(u).loc == c.target) d.candidates.push_back(u);
        }
        break;
      case CombatStage::Advance:
        d.kind = game::Decision::ADVANCE;
        d.side = attacker;
        d.count = max_advance();
        d.prompt = where + " is clear: advance into it (up to " + std::to_string(max_advance()) + in_number(static_cast<size_t>(max_advance()), " hex", " hexes", " hex(es)") + ") or stay.";
        units(c.attackers);
        break;
      case CombatStage::BarrageLoss:
        d.kind = game::Decision::BARRAGE_LOSS;
        d.side = side_of(c.defenders.front());
        d.count = 1;
        d.prompt = std::string("The barrage on ") + where + " hits: choose the unit that " + (c.barrage_result == 2 ? "loses a step." : "is disorganized.");
        units(c.defenders);
        break;
      case CombatStage::None:
        break;
    }
    return d;
  }
  d.side = s_.in_activation() ? s_.phase_side() : Side::German;
  switch (s_.step) {
    case Step::Recovery:
      d.kind = game::Decision::RECOVERY;
      d.prompt = "Recover one step of a supplied unit, or bring an eliminated unit back reduced (or pass).";
      d.candidates = recovery_candidates(Side::German);
      break;
    case Step::UprisingSuppression:
      d.kind = game::Decision::UPRISING_SUPPRESSION;
      d.prompt = "Deploy units in Warsaw against the uprising: +1 to the die for every " +
                 std::to_string(sc_.uprising_units_per_drm) + " units; they count as Moved.";
      d.candidates = german_units_in_warsaw(true, true);
      break;
    case Step::UprisingStepLoss:
      d.kind = game::Decision::UPRISING_STEP_LOSS;
      d.count = 1;
      d.prompt = "The uprising strikes: choose a unit in Warsaw to lose a step.";
      d.candidates = german_units_in_warsaw(false, false);
      break;
    case Step::UprisingUnitsMoved:
      d.kind = game::Decision::UPRISING_UNITS_MOVED;
      d.count = s_.uprising_pending;
      d.prompt = "The uprising pins units: choose " + std::to_string(s_.uprising_pending) +
                 in_number(s_.uprising_pending, " unit", " units", " units") + " in Warsaw to mark Moved.";
      d.candidates = german_units_in_warsaw(true, false);
      break;
    case Step::Magnuszew: {
      d.kind = game::Decision::MAGNUSZEW;
      // The prompt reaches both players: it names what the track asks, never the units that fit
      // (the refusal of a wrong choice, which only the German reads, does).
      d.prompt = "Send to the Magnuszew bridgehead, from Warsaw: " + magnuszew_need() + ".";
      d.candidates = magnuszew_items();
      break;
    }
    case Step::ChooseCorps:
      d.kind = game::Decision::CHOOSE_CORPS;
      d.prompt = "Choose the corps to activate in this phase (and whether the 47th Army goes with it).";
      for (size_t f = 0; f < sc_.formations.size(); ++f) {
        if (sc_.formations[f].kind == data::CORPS && !(s_.corps_done & (1u << f))) d.candidates.push_back(static_cast<int>(f));
      }
      break;
    case Step::Movement:
      d.kind = game::Decision::MOVEMENT;
      d.prompt = "Move units, build prepared defenses, place reserves, play an event, or end movement.";
      break;
    case Step::Barrage:
      d.kind = game::Decision::BARRAGE;
      d.prompt = "Barrage fire, or end the barrage step.";
      break;
    case Step::Combat:
      d.kind = game::Decision::COMBAT;
      d.prompt = "Coordinated combat, or end the combat step.";
      break;
    case Step::Reserves:
      d.kind = game::Decision::RESERVES;
      d.prompt = "Move units in reserve, or end the phase.";
      break;
    case Step::GameOver:
      break;
  }
  return d;
}

std::optional<Rejection> Rules::check(Side who, const Order& o) const {
  using K = Order::Kind;
  if (s_.step == Step::GameOver) return reject(game::GAME_OVER, "The game is over.");
  const Decision d = decision();
  if (who != d.side) {
    // Named both ways: the sender learns which side they hold in this game.
    return reject(game::NOT_YOUR_DECISION, std::string("You play the ") + side_name(who) + " side; it is the " +
                                               side_name(d.side) + " player's decision now.");
  }
  for (auto u : o.units) {
    if (u < 0 || static_cast<size_t>(u) >= sc_.units.size()) return reject(game::UNKNOWN_UNIT, "Unknown unit.");
  }
  auto off_board = [&](const std::vector<Loc>& path) {
    return std::any_of(path.begin(), path.end(), [&](Loc l) { return !sc_.on_board(l); });
  };
  if (off_board(o.path) || std::any_of(o.paths.begin(), o.paths.end(), off_board)) {
    return reject(game::UNKNOWN_LOCATION, "Unknown location.");
  }
  // Indices into the scenario's tables: every rule below may look them up.
  const auto marker_count = sc_.artillery.size() + sc_.stukas.size();
  for (auto m : o.markers) {
    if (m < 0 || static_cast<size_t>(m) >= marker_count) return reject(game::MALFORMED, "Unknown artillery or Stuka marker.");
  }
  if (o.chit >= 0 && static_cast<size_t>(o.chit) >= sc_.events.size()) return reject(game::MALFORMED, "Unknown event chit.");
  if (o.kind == K::Undo) {
    if (!s_.takeback.empty()) return std::nullopt;
    return reject(game::NOT_ALLOWED,
                  "There is no order to take back: a die, a chit, an inspected enemy stack or the other "
                  "side's decision since fixes what came before.");
  }
  auto wrong = [&](const char* expected) {
    return reject(game::WRONG_ORDER_KIND,
                  std::string("That order does not answer the decision asked of the ") + side_name(d.side) + " player: " + expected + ".");
  };
  switch (d.kind) {
    case game::Decision::BREAK_CONTACT:
      if (o.kind != K::BreakContact) return wrong("break contact or stand fast");
      return check_break_contact(o);
    case game::Decision::DEFENSIVE_SUPPORT:
      if (o.kind != K::DefensiveSupport) return wrong("tactical support, or none");
      return check_defensive_support(o);
    case game::Decision::MODEL_REROLL:
      if (o.kind != K::Reroll) return wrong("re-roll with FM Model, or not");
      return std::nullopt;
    case game::Decision::ATTACKER_LOSSES:
    case game::Decision::DEFENDER_LOSSES:
      if (o.kind != K::TakeLosses) return wrong("the units that lose steps");
      return check_take_losses(o);
    case game::Decision::RETREAT:
      if (o.kind != K::Retreat) return wrong("the retreat paths");
      return check_retreat(o);
    case game::Decision::ADVANCE:
      if (o.kind != K::Advance) return wrong("advance, or stay");
      return check_advance(o);
    case game::Decision::BARRAGE_LOSS:
      if (o.kind != K::ChooseUnits) return wrong("the unit the barrage hits");
      return check_choose_units(o);
    case game::Decision::RECOVERY:
      if (o.kind == K::Done) return std::nullopt;
      if (o.kind != K::Recover || o.units.size() != 1) return wrong("recover one unit, or pass");
      return check_recover(Side::German, o.units[0], o.path.empty() ? Loc{-1} : o.path[0]);
    case game::Decision::UPRISING_SUPPRESSION:
      if (o.kind == K::Done) return std::nullopt;
      if (o.kind != K::SuppressUprising) return wrong("deploy units against the uprising, or pass");
      return check_choose_units(o);
    case game::Decision::UPRISING_STEP_LOSS:
    case game::Decision::UPRISING_UNITS_MOVED:
    case game::Decision::MAGNUSZEW:
      if (o.kind != K::ChooseUnits) return wrong("choose units");
      return check_choose_units(o);
    case game::Decision::CHOOSE_CORPS: {
      if (o.kind != K::ActivateCorps) return wrong("choose a corps");
      if (o.corps < 0 || static_cast<size_t>(o.corps) >= sc_.formations.size() ||
          sc_.formations[static_cast<size_t>(o.corps)].kind != data::CORPS) {
        std::string corps;
        for (const auto& f : sc_.formations) {
          if (f.kind == data::CORPS) corps += (corps.empty() ? "" : ", ") + f.id;
        }
        return reject(game::NOT_ALLOWED, "That is not a Soviet corps: the corps are " + corps + ".");
      }
      if (s_.corps_done & (1u << o.corps)) return reject(game::NOT_ALLOWED, sc_.formations[static_cast<size_t>(o.corps)].id + " has already been activated this turn.");
      if (o.with_47th && s_.forty_seventh_phase >= 0) return reject(game::LIMIT_REACHED, "The 47th Army has already been activated this turn.");
      return std::nullopt;
    }
    case game::Decision::MOVEMENT:
    case game::Decision::RESERVES:
    case game::Decision::BARRAGE:
    case game::Decision::COMBAT: {
      const bool movement = d.kind == game::Decision::MOVEMENT, reserves = d.kind == game::Decision::RESERVES;
      switch (o.kind) {
        case K::Done: return std::nullopt;
        case K::Move:
          if (!movement && !reserves) return reject(game::WRONG_ORDER_KIND, "Units move in the movement and reserves steps.");
          return check_move(o);
        case K::PlayEvent:
          return check_play_event(who, o);
        case K::Overrun:
          if (!movement && !reserves) return reject(game::WRONG_ORDER_KIND, "Overruns are made while moving (rule 9).");
          return check_overrun(o);
        case K::Barrage:
          if (d.kind != game::Decision::BARRAGE) {
            return reject(game::WRONG_ORDER_KIND, movement ? "Barrage fire comes after movement, in the barrage step (rule 10)."
                                                           : "The barrage step of this phase is over (rule 10).");
          }
          if (o.markers.size() != 1 || o.path.size() != 1) return reject(game::MALFORMED, "Name the marker and the target hex.");
          return check_barrage(who, o.markers[0], o.path[0], false);
        case K::Attack:
          if (d.kind != game::Decision::COMBAT) {
            return reject(game::WRONG_ORDER_KIND, reserves ? "The combat step of this phase is over: in the reserves step units only move (rule 11)."
                                                           : "Coordinated combat comes after barrage, in the combat step (rule 11).");
          }
          return check_attack(o);
        case K::UseModel:
          return check_use_model(o);
        case K::PreparedDefense: {
          if (!movement) return reject(game::WRONG_ORDER_KIND, "Prepared defenses are built during movement.");
          if (o.units.empty()) return reject(game::MALFORMED, "Name the units.");
          for (auto u : o.units) {
            if (side_of(u) != who) return reject(game::NOT_ALLOWED, unit_name(u) + " is not yours.");
            if (!sc_.is_hex(us(u).loc)) return reject(game::NOT_ALLOWED, unit_name(u) + " is not on the map.");
            if (!can_activate(u) || (us(u).flags & kMoving) || us(u).reserve) {
              return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " cannot be activated now (rule 8: prepared defense costs a unit's whole activation).");
            }
          }
          return std::nullopt;
        }
        case K::LiftPreparedDefense:
          if (!movement) return reject(game::WRONG_ORDER_KIND, "Prepared defenses are lifted during movement.");
          for (auto u : o.units) {
            if (side_of(u) != who || !(us(u).flags & kPreparedDefense)) return reject(game::NOT_ALLOWED, unit_name(u) + " has no prepared defense of yours.");
          }
          return o.units.empty() ? std::optional(reject(game::MALFORMED, "Name the units.")) : std::nullopt;
        case K::PlaceReserve: {
          if (!movement) return reject(game::WRONG_ORDER_KIND, "Reserves are placed during movement (rule 14).");
          if (o.units.empty()) return reject(game::MALFORMED, "Name the units.");
          const Loc at = us(o.units[0]).loc;
          int used = 0;
          std::uint32_t markers = 0;
          for (size_t u = 0; u < s_.units.size(); ++u) {
            if (sc_.units[u].side == who && s_.units[u].reserve) markers |= 1u << s_.units[u].reserve;
          }
          for (std::uint32_t m = markers; m; m &= m - 1) ++used;
          if (used >= rule(sc_.rules.reserve_markers(), 3)) return reject(game::LIMIT_REACHED, "All your reserve markers are in use (rule 14).");
          for (auto u : o.units) {
            if (side_of(u) != who) return reject(game::NOT_ALLOWED, unit_name(u) + " is not yours.");
            if (us(u).loc != at) return reject(game::NOT_ALLOWED, "A reserve marker covers units in one location.");
            if (!can_activate(u) || (us(u).flags & kMoving) || us(u).reserve || is_train(u)) {
              return reject(game::UNIT_NOT_ACTIVE, unit_name(u) + " is not an active unit that has not moved (rule 14).");
            }
          }
          if (!sc_.is_hex(at) && static_cast<int>(o.units.size()) > rule(sc_.rules.reserve_offmap_units_per_marker(), 2)) {
            return reject(game::LIMIT_REACHED, "Off the map or in Warsaw a reserve marker covers at most two units (rule 14).");
          }
          return std::nullopt;
        }
        case K::RemoveReserve:
          if (!movement) return reject(game::WRONG_ORDER_KIND, "Reserve markers are moved during movement.");
          for (auto u : o.units) {
            if (side_of(u) != who || !us(u).reserve) return reject(game::NOT_ALLOWED, unit_name(u) + " is not one of your reserves.");
          }
          return o.units.empty() ? std::optional(reject(game::MALFORMED, "Name the units.")) : std::nullopt;
        case K::ActivateCorps:
          if (who != Side::Soviet) return reject(game::WRONG_ORDER_KIND, "Only the Soviet player activates corps (rule 5).");
          return reject(game::WRONG_ORDER_KIND, std::string("A corps is chosen as a Soviet phase begins; this phase's ") +
                                                    step_name(s_.step) + " step is under way.");
        default:
          return reject(game::WRONG_ORDER_KIND, std::string("That order does not fit the ") + step_name(s_.step) + " step.");
      }
    }
    case game::Decision::GAME_OVER:
    default:
      return reject(game::GAME_OVER, "The game is over.");
  }
}

void Rules::execute(const Order& o) {
  using K = Order::Kind;
  const Step before = s_.step;
  switch (o.kind) {
    case K::ActivateCorps: {
      s_.active_corps = static_cast<std::int8_t>(o.corps);
      s_.corps_done |= 1u << o.corps;
      std::string text = sc_.formations[static_cast<size_t>(o.corps)].id + " activates";
      if (o.with_47th) {
        s_.forty_seventh_phase = static_cast<std::int8_t>(s_.activation);
        text += ", with the 47th Army";
        bool any = false;  // the activation holds for the turn even while none of its units has come
        for (size_t u = 0; u < s_.units.size() && !any; ++u) {
          any = formation(static_cast<int>(u)).kind == data::ARMY && sc_.on_board(s_.units[u].loc);
        }
        if (!any) text += " (none of its units is on the map yet)";
      }
      log(game::Event::PHASE, text + ".");
      s_.step = Step::Movement;
      break;
    }
    case K::Move: do_move(o); break;
    case K::BreakContact: do_break_contact(o); break;
    case K::PreparedDefense:
      finish_mover();
      for (auto u : o.units) {
        note_activation(u);
        s_.set(u, kPreparedDefense);
        s_.set(u, kMoved);
        s_.set(u, kActedThisPhase);
      }
      log(game::Event::MARKER, "Prepared defense at " + loc_name(us(o.units[0]).loc) + ".");
      break;
    case K::LiftPreparedDefense:
      for (auto u : o.units) s_.set(u, kPreparedDefense, false);
      log(game::Event::MARKER, "Prepared defense lifted at " + loc_name(us(o.units[0]).loc) + ".");
      break;
    case K::PlaceReserve: {
      finish_mover();
      std::uint32_t used = 0;
      const Side who = side_of(o.units[0]);
      for (size_t u = 0; u < s_.units.size(); ++u) {
        if (sc_.units[u].side == who && s_.units[u].reserve) used |= 1u << s_.units[u].reserve;
      }
      std::uint8_t marker = 1;
      while (used & (1u << marker)) ++marker;
      for (auto u : o.units) {
        note_activation(u);
        us(u).reserve = marker;
        s_.set(u, kActedThisPhase);
      }
      log(game::Event::MARKER, "Reserve marker placed at " + loc_name(us(o.units[0]).loc) + ".");
      break;
    }
    case K::RemoveReserve:
      for (auto u : o.units) us(u).reserve = 0;
      log(game::Event::MARKER, "Reserve marker removed at " + loc_name(us(o.units[0]).loc) + ".");
      break;
    case K::PlayEvent: do_play_event(o); break;
    case K::Recover:
      do_recover(o.units[0], o.path.empty() ? Loc{-1} : o.path[0]);
      after_recovery();
      break;
    case K::SuppressUprising:
    case K::ChooseUnits: do_choose_units(o); break;
    case K::Overrun: do_overrun(o); break;
    case K::Barrage: do_barrage(o.markers[0], o.path[0], false); break;
    case K::Attack: do_attack(o); break;
    case K::DefensiveSupport: do_defensive_support(o); break;
    case K::TakeLosses: do_take_losses(o); break;
    case K::Retreat: do_retreat(o); break;
    case K::Advance: do_advance(o); break;
    case K::UseModel: do_use_model(o); break;
    case K::Reroll: do_reroll(o.yes); break;
    case K::Undo: break;  // Engine::apply takes back instead of executing
    case K::Done:
      if (before == Step::Recovery) {
        after_recovery();
      } else if (before == Step::UprisingSuppression) {
        roll_uprising(0);
        if (s_.step == Step::UprisingSuppression) after_uprising();
      } else {
        end_step();
      }
      break;
  }
  check_decisive_victory();
}

}  // namespace counterattack
