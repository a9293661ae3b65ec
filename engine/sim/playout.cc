#include "playout.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

namespace counterattack {
namespace {

template <typename T>
const T& pick(const std::vector<T>& v, Prng& rng) {
  return v[rng.below(static_cast<std::uint32_t>(v.size()))];
}

}  // namespace

std::string die_line_problem(const std::string& line, int limit) {
  try {
    const auto die = line.rfind(": die ");
    const auto net_at = die == std::string::npos ? die : line.find(' ', die + 6);
    if (net_at == std::string::npos) return "no die in the line";
    const int net = std::stoi(line.substr(net_at + 1));
    std::string list;
    if (const auto open = line.find(" (", net_at); open != std::string::npos) list = line.substr(open + 2, line.size() - open - 4);
    bool limited = false, bound = false;
    if (const auto semi = list.find("; limited to "); semi != std::string::npos) {
      limited = true;
      if (std::stoi(list.substr(semi + 13)) != net) return "the limit named is not the net";
      list.resize(semi);
    }
    int sum = 0;
    for (size_t at = 0; at < list.size();) {
      const auto end = std::min(list.find(", ", at), list.size());
      std::string item = list.substr(at, end - at);
      for (const std::string way : {" or more", " or less"}) {
        if (item.size() <= way.size() || item.compare(item.size() - way.size(), way.size(), way) != 0) continue;
        if ((way == " or more") != (net > 0)) return "a bound away from the limit";
        bound = true;
        item.resize(item.size() - way.size());
      }
      sum += std::stoi(item.substr(item.rfind(' ') + 1));
      at = end + 2;
    }
    if (bound != limited) return limited ? "the limit without the units' bound" : "a bound without the limit";
    if (std::abs(net) == limit && !limited) return "a net at the limit that does not say so";
    if (sum != net) return "the modifiers named add up to " + std::to_string(sum);
    return "";
  } catch (const std::exception&) {
    return "a die line that does not read as one";
  }
}

Order random_order(const Engine& engine, const GameState& s, Prng& rng) {
  using K = Order::Kind;
  const Decision d = engine.decision(s);
  if (d.kind != game::Decision::MOVEMENT && d.kind != game::Decision::RESERVES) {
    auto all = engine.legal_orders(s);
    return all.empty() ? Order::done() : pick(all, rng);
  }
  const Scenario& sc = engine.scenario();
  const bool reserves = d.kind == game::Decision::RESERVES;
  // Candidate actions: keep moving, start a unit or stack, or end the step.
  std::vector<std::vector<std::int16_t>> groups;
  if (!s.mover.empty() && !s.mover_stopped) groups.push_back(s.mover);
  std::map<Loc, std::vector<std::int16_t>> at;
  for (size_t i = 0; i < s.units.size(); ++i) {
    const auto u = static_cast<std::int16_t>(i);
    if (sc.units[i].side != d.side || !sc.on_board(s.units[i].loc)) continue;
    if ((s.units[i].flags & kMoving) || !engine.unit_active(s, u)) continue;
    if (reserves != (s.units[i].reserve != 0)) continue;
    groups.push_back({u});
    at[s.units[i].loc].push_back(u);
  }
  for (auto& [loc, units] : at) {
    if (units.size() >= 2 && std::none_of(units.begin(), units.end(), [&](auto u) {
          return sc.units[static_cast<size_t>(u)].unit_class == UnitClass::ArmoredTrain;
        })) {
      groups.push_back(units);
    }
  }
  // Overrun now and then when one is possible (9).
  if (rng.below(3) == 0) {
    auto overruns = engine.legal_overruns(s);
    if (!overruns.empty()) return pick(overruns, rng);
  }
  // End the step now and then; otherwise act.
  const std::uint32_t choices = static_cast<std::uint32_t>(groups.size()) + 2;
  const std::uint32_t c = rng.below(choices);
  if (c < groups.size()) {
    const auto& group = groups[c];
    auto dests = engine.destinations(s, group);
    // Mostly move; sometimes dig in or go to reserve instead.
    if (!dests.empty() && rng.below(8) != 0) {
      const auto& [to, path] = pick(dests, rng);
      return Order::of(K::Move, group, path);
    }
    if (!reserves && !(s.units[static_cast<size_t>(group[0])].flags & kMoving)) {
      Order o = Order::of(rng.below(2) ? K::PreparedDefense : K::PlaceReserve, group);
      GameState trial = s;
      Prng dummy = Prng::from_seed(0);
      if (engine.apply(trial, d.side, o, dummy).accepted) return o;
    }
  }
  if (c == groups.size() && !reserves) {
    // Play an event when one is playable.
    auto all = engine.legal_orders(s);
    std::vector<Order> events;
    for (auto& o : all) {
      if (o.kind == K::PlayEvent) events.push_back(o);
    }
    if (!events.empty()) return pick(events, rng);
  }
  return Order::done();
}

// Event chits: a different hand of the same size from hand + cup.
void perturb_hand(GameState& s, Side side, Prng& rng) {
  auto& ss = s.sides[static_cast<int>(side)];
  std::vector<std::uint8_t> pool = ss.hand;
  pool.insert(pool.end(), ss.cup.begin(), ss.cup.end());
  for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[rng.below(static_cast<std::uint32_t>(i))]);
  ss.hand.assign(pool.begin(), pool.begin() + static_cast<long>(ss.hand.size()));
  ss.cup.assign(pool.begin() + static_cast<long>(ss.hand.size()), pool.end());
  std::sort(ss.hand.begin(), ss.hand.end());
  std::sort(ss.cup.begin(), ss.cup.end());
}

void perturb_hidden(const Engine& engine, GameState& s, Side side, Prng& rng) {
  const Scenario& sc = engine.scenario();
  perturb_hand(s, side, rng);
  // Units below the top of stacks no enemy is adjacent to.
  std::vector<std::uint8_t> enemy_near(static_cast<size_t>(sc.location_count()), 0);
  for (size_t u = 0; u < s.units.size(); ++u) {
    const Loc l = s.units[u].loc;
    if (sc.units[u].side == side || !sc.is_hex(l)) continue;
    for (Loc nb : sc.hexes[static_cast<size_t>(l)].nb) {
      if (nb >= 0) enemy_near[static_cast<size_t>(nb)] = 1;
    }
    for (const auto& b : sc.praga_bridges) {
      if (b.hex == l) enemy_near[static_cast<size_t>(sc.warsaw())] = 1;
    }
  }
  auto busy = [&](int u) {
    return std::find(s.mover.begin(), s.mover.end(), u) != s.mover.end() ||
           std::find(s.pending_break.eligible.begin(), s.pending_break.eligible.end(), u) != s.pending_break.eligible.end();
  };
  for (Loc l = 0; l < sc.location_count(); ++l) {
    if (enemy_near[static_cast<size_t>(l)]) continue;
    auto stack = engine.units_at(s, l);
    std::erase_if(stack, [&](int u) { return sc.units[static_cast<size_t>(u)].side != side; });
    if (stack.size() < 2 || std::any_of(stack.begin(), stack.end(), busy)) continue;
    // Shuffle the order below the top, and what those counters show.
    std::vector<std::uint32_t> seqs;
    for (size_t i = 1; i < stack.size(); ++i) seqs.push_back(s.units[static_cast<size_t>(stack[i])].stack_seq);
    for (size_t i = seqs.size(); i > 1; --i) std::swap(seqs[i - 1], seqs[rng.below(static_cast<std::uint32_t>(i))]);
    for (size_t i = 1; i < stack.size(); ++i) {
      auto& us = s.units[static_cast<size_t>(stack[i])];
      us.stack_seq = seqs[i - 1];
      const auto steps = sc.units[static_cast<size_t>(stack[i])].steps.size();
      us.hits = static_cast<std::uint8_t>(rng.below(static_cast<std::uint32_t>(steps)));
      us.flags = static_cast<std::uint16_t>(us.flags ^ (rng.below(2) ? kDisorganized : 0) ^ (rng.below(2) ? kPreparedDefense : 0));
    }
  }
}

void check_state(const Engine& engine, const GameState& s, std::vector<std::string>& problems) {
  const Scenario& sc = engine.scenario();
  // The state survives a serialisation round trip with the same hash.
  GameState back;
  const std::string bytes = encode_state(s);
  if (!decode_state(sc, bytes, back) || !(back == s) || state_hash(back) != state_hash(s)) {
    problems.push_back("state does not survive an encode/decode round trip");
  }
  // Stacking (7) and who may be where (6).
  std::vector<int> sides(static_cast<size_t>(sc.location_count()), 0);
  for (size_t u = 0; u < s.units.size(); ++u) {
    const Loc l = s.units[u].loc;
    if (!sc.on_board(l)) continue;
    sides[static_cast<size_t>(l)] |= 1 << static_cast<int>(sc.units[u].side);
    if (sc.units[u].side == Side::Soviet && l == sc.warsaw()) problems.push_back(sc.units[u].id + " is in Warsaw");
    if (sc.is_entry(l) && sc.entry_points[static_cast<size_t>(sc.entry_index(l))].side != sc.units[u].side) {
      problems.push_back(sc.units[u].id + " stands at an enemy entry point");
    }
    if (s.units[u].hits >= sc.units[u].steps.size()) problems.push_back(sc.units[u].id + " has no steps left but is in play");
  }
  std::vector<int> height(static_cast<size_t>(sc.location_count()), 0);
  for (const auto& u : s.units) {
    if (sc.on_board(u.loc)) height[static_cast<size_t>(u.loc)]++;
  }
  for (Loc l = 0; l < sc.hex_count(); ++l) {
    if (sides[static_cast<size_t>(l)] == 3) problems.push_back("both sides in hex " + sc.location_name(l));
    if (height[static_cast<size_t>(l)] <= 2) continue;
    for (Side side : {Side::Soviet, Side::German}) {
      if ((sides[static_cast<size_t>(l)] & (1 << static_cast<int>(side))) && !engine.stacking_ok(s, l, side) &&
          !(s.mover.size() && s.units[static_cast<size_t>(s.mover[0])].loc == l)) {
        problems.push_back(std::string("stacking limit exceeded in ") + sc.location_name(l));
      }
    }
  }
  if (s.step == Step::GameOver && s.result == Result::Ongoing) problems.push_back("game over without a result");
}

// The same position, whatever may still be taken back.
bool same_position(GameState a, GameState b) {
  a.takeback = {};
  b.takeback = {};
  return a == b;
}

void check_views(const Engine& engine, const GameState& s, Prng& rng, std::vector<std::string>& problems) {
  // What keeps an order for taking back is what the view shows inspected (7).
  for (Side side : {Side::Soviet, Side::German}) {
    std::vector<Loc> shown;
    for (const auto& st : engine.view_model(s, viewer_of(side)).stacks) {
      if (st.side != side && st.inspected) shown.push_back(st.loc);
    }
    std::sort(shown.begin(), shown.end());
    shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
    if (shown != engine.inspected_enemy_stacks(s, side)) {
      problems.push_back(std::string("the stacks the ") + side_name(side) + " view shows inspected are not those takebacks judge by");
    }
  }
  for (Side hider : {Side::Soviet, Side::German}) {
    GameState other = s;
    perturb_hidden(engine, other, hider, rng);
    for (Viewer v : {viewer_of(enemy_of(hider)), Viewer::Spectator}) {
      if (engine.view(s, v).SerializeAsString() != engine.view(other, v).SerializeAsString()) {
        problems.push_back(std::string("the ") + side_name(hider) + " side's hidden information changed the " +
                           (v == Viewer::Spectator ? "spectator's" : side_name(enemy_of(hider))) + " view");
      }
    }
  }
}

game::StandingOrders every_standing_order() {
  game::StandingOrders all;
  all.set_stand_fast(true);
  all.set_no_support(true);
  all.set_keep_die(true);
  all.set_take_losses(true);
  all.set_retreat(true);
  return all;
}

void play_one(const Engine& engine, std::uint64_t game_seed, const PlayoutOptions& opt, PlayoutStats& stats) {
  const std::uint32_t bits = opt.options | revision_bits(opt.revision);
  Prng dice(Prng::from_seed(game_seed).state(), dice_kind(bits));
  Prng choices = Prng::from_seed(game_seed ^ 0x5DEECE66Dull);
  GameState s = engine.new_game(bits, dice);
  stats.games++;
  std::vector<std::string> problems;
  auto note = [&](const std::string& where) {
    for (auto& p : problems) {
      stats.invariant_violations++;
      if (stats.violations.size() < 20) stats.violations.push_back("seed " + std::to_string(game_seed) + " " + where + ": " + p);
    }
    problems.clear();
  };
  check_state(engine, s, problems);
  note("start");
  long orders = 0;
  const game::StandingOrders every_order = every_standing_order();
  while (s.step != Step::GameOver && orders < opt.max_orders) {
    const Decision d = engine.decision(s);
    // A game never waits for an order no one can give: every decision has a
    // legal answer (9: a unit that cannot retreat loses steps instead). A
    // movement step can always be ended, and listing its moves costs much.
    if (d.kind != game::Decision::MOVEMENT && d.kind != game::Decision::RESERVES && engine.legal_orders(s).empty()) {
      problems.push_back(std::string("no legal order answers the decision: ") + game::Decision::Kind_Name(d.kind));
    }
    // Standing orders: with every one set, each decision they cover gets an
    // answer, one the rules accept and that owes nothing to the other side's secrets.
    const auto answer = engine.standing_answer(s, every_order);
    const bool covered = s.in_activation() && d.side != s.phase_side() &&
                         (d.kind == game::Decision::BREAK_CONTACT || d.kind == game::Decision::DEFENSIVE_SUPPORT ||
                          d.kind == game::Decision::MODEL_REROLL || d.kind == game::Decision::DEFENDER_LOSSES ||
                          d.kind == game::Decision::BARRAGE_LOSS || d.kind == game::Decision::RETREAT);
    if (covered != answer.has_value()) {
      problems.push_back(std::string(covered ? "a decision standing orders cover was left to the player: "
                                             : "standing orders answered a decision they do not cover: ") +
                         game::Decision::Kind_Name(d.kind));
    }
    if (answer) {
      stats.standing_answers++;
      GameState trial = s;
      Prng trial_dice = dice;
      const Outcome r = engine.apply(trial, d.side, *answer, trial_dice);
      if (!r.accepted) problems.push_back("a standing answer was rejected: " + r.rejection.reason);
      if (opt.view_check_every > 0) {
        GameState other = s;
        Prng hide = Prng::from_seed(game_seed ^ static_cast<std::uint64_t>(orders));
        perturb_hidden(engine, other, enemy_of(d.side), hide);
        const auto again = engine.standing_answer(other, every_order);
        if (!again || !(*again == *answer)) problems.push_back("a standing answer owed something to the other side's secrets");
      }
    }
    // Now and then the player takes back an order, when one may be taken back.
    const Order o = !s.takeback.empty() && choices.below(10) == 0 ? Order::of(Order::Kind::Undo)
                                                                   : random_order(engine, s, choices);
    const GameState before = s;
    const Prng dice_before = dice;
    const Outcome out = engine.apply(s, d.side, o, dice);
    ++orders;
    if (!out.accepted) {
      problems.push_back("a legal order was rejected: " + engine.to_proto(o).ShortDebugString() + ": " + out.rejection.reason);
      note("turn " + std::to_string(s.turn));
      s = before;
      // Fall back to ending the step so that the game goes on.
      if (!engine.apply(s, d.side, Order::done(), dice).accepted) break;
      continue;
    }
    if (o.kind == Order::Kind::Move) stats.moves++;
    if (o.kind == Order::Kind::BreakContact && !o.units.empty()) stats.break_contacts++;
    if (o.kind == Order::Kind::PlayEvent) stats.events_played++;
    if (o.chit >= 0) stats.chits_played[engine.scenario().events[static_cast<size_t>(o.chit)].id]++;
    if (o.kind == Order::Kind::Recover) stats.recoveries++;
    for (const auto& e : out.events) {
      const bool redacted = e.audience() == game::AUDIENCE_ALL_BUT_SOVIET || e.audience() == game::AUDIENCE_ALL_BUT_GERMAN;
      if (redacted) continue;
      if ((s.options & kClearerTexts) && e.kind() == game::Event::DIE_ROLLED && e.text().find(" against ") != std::string::npos) {
        const int limit = engine.scenario().rules.max_modifier();  // as the rules read it: unset is 6
        const auto why = die_line_problem(e.text(), limit > 0 ? limit : 6);
        if (!why.empty()) problems.push_back(why + ": " + e.text());
      }
      switch (e.kind()) {
        case game::Event::COMBAT:
          if (!e.result().empty()) {
            stats.combats++;
            if (e.overrun()) stats.overruns++;
            stats.crt_columns[e.column()]++;
          }
          break;
        case game::Event::BARRAGE: stats.barrages++; break;
        case game::Event::RETREATED: stats.retreats++; break;
        case game::Event::ADVANCED: stats.advances++; break;
        case game::Event::STEP_LOST: stats.steps_lost++; break;
        default: break;
      }
    }
    // A rejected order changes nothing.
    {
      GameState trial = s;
      Prng dummy = Prng::from_seed(1);
      const Order bogus = Order::of(Order::Kind::Move);
      const auto rej = engine.apply(trial, engine.decision(s).side, bogus, dummy);
      if (rej.accepted || !(trial == s)) problems.push_back("an empty move was accepted or changed the state");
      const Side wrong = enemy_of(engine.decision(s).side);
      if (s.step != Step::GameOver && engine.apply(trial, wrong, Order::done(), dummy).accepted) {
        problems.push_back("the side not to decide had an order accepted");
      }
    }
    // Taking back: exactly the state before the order, or refused with nothing changed.
    const bool kept = o.kind != Order::Kind::Undo && !s.takeback.empty();
    if (o.kind == Order::Kind::Undo) {
      stats.takebacks++;
      if (before.takeback.empty() || !same_position(s, *before.takeback.before.back())) {
        problems.push_back("an undo did not restore the state before the order it took back");
      }
    } else {
      GameState trial = s;
      Prng dummy = Prng::from_seed(1);
      const auto undo = engine.apply(trial, d.side, Order::of(Order::Kind::Undo), dummy);
      if (undo.accepted != kept) {
        problems.push_back(kept ? "an order kept for taking back could not be taken back: " + undo.rejection.reason
                                : "an order not kept for taking back was taken back");
      } else if (kept ? !same_position(trial, before) : !(trial == s)) {
        problems.push_back(kept ? "taking back did not restore the state before the order" : "a refused take-back changed the state");
      }
      if (kept && !(dummy.state() == Prng::from_seed(1).state())) problems.push_back("taking back rolled a die");
    }
    // Whether an order is kept for taking back, and what its player then sees,
    // owe nothing to the other side's secrets: every move that may be taken
    // back (moves are what come next to enemy stacks), and other orders now and then.
    const bool kept_move = kept && o.kind == Order::Kind::Move;
    if (o.kind != Order::Kind::Undo && opt.view_check_every > 0 && (kept_move || orders % opt.view_check_every == 0)) {
      GameState other = before;
      perturb_hidden(engine, other, enemy_of(d.side), choices);
      Prng same_dice = dice_before;
      if (!engine.apply(other, d.side, o, same_dice).accepted) {
        problems.push_back("an order was refused once the other side's secrets were different");
      } else if (kept != !other.takeback.empty()) {
        problems.push_back("the other side's secrets decided whether an order may be taken back");
      } else if (kept && engine.view(s, viewer_of(d.side)).SerializeAsString() !=
                             engine.view(other, viewer_of(d.side)).SerializeAsString()) {
        problems.push_back("an order that may be taken back showed its player the other side's secrets");
      }
    }
    // Since revision 2, which chits the other side holds (their number is public)
    // decides nothing its opponent sees next, the next question included (7, 20):
    // every attack, where the defender may be asked about support, and other orders now and then.
    if ((bits & kSupportAskedWhenChitsHeld) && o.kind != Order::Kind::Undo && opt.view_check_every > 0 &&
        (o.kind == Order::Kind::Attack || o.kind == Order::Kind::Overrun || orders % opt.view_check_every == 0)) {
      GameState other = before;
      perturb_hand(other, enemy_of(d.side), choices);
      Prng same_dice = dice_before;
      if (!engine.apply(other, d.side, o, same_dice).accepted) {
        problems.push_back("an order was refused once the other side held other chits");
      } else if (engine.view(s, viewer_of(d.side)).SerializeAsString() != engine.view(other, viewer_of(d.side)).SerializeAsString()) {
        problems.push_back(std::string("which chits the other side holds changed what the player saw after an order of kind ") +
                           std::to_string(static_cast<int>(o.kind)) + ", next: " +
                           game::Decision::Kind_Name(engine.decision(s).kind) + " / " + game::Decision::Kind_Name(engine.decision(other).kind));
      }
    }
    check_state(engine, s, problems);
    // 15: right after a supply check, the markers match a trace made now.
    // 5 (revision 3): after the first two Soviet phases, those of the corps activated.
    if ((s.options & kWholeCorpsSupplyCheck) && (before.activation == 0 || before.activation == 2) &&
        s.activation == before.activation + 1 && before.in_activation() && s.turn == before.turn) {
      const auto supplied = engine.units_in_supply(s, Side::Soviet);
      for (size_t u = 0; u < s.units.size(); ++u) {
        const auto& def = engine.scenario().units[u];
        const bool army = engine.scenario().formations[static_cast<size_t>(def.formation)].kind == data::ARMY;
        const bool activated = def.formation == before.active_corps || def.formation == before.extra_corps ||
                               (army && before.forty_seventh_phase == before.activation);
        if (def.side != Side::Soviet || !activated || !engine.scenario().on_board(s.units[u].loc)) continue;
        if (((s.units[u].flags & kOutOfSupply) != 0) == supplied[u]) {
          problems.push_back("supply marker of " + def.id + " disagrees with its supply line after its corps' phase");
        }
      }
    }
    if (before.activation == 4 && s.activation == 5 && before.in_activation()) {
      const auto supplied = engine.units_in_supply(s, Side::Soviet);
      for (size_t u = 0; u < s.units.size(); ++u) {
        if (engine.scenario().units[u].side != Side::Soviet || !engine.scenario().on_board(s.units[u].loc)) continue;
        if (((s.units[u].flags & kOutOfSupply) != 0) == supplied[u]) {
          problems.push_back("supply marker of " + engine.scenario().units[u].id + " disagrees with its supply line");
        }
      }
    }
    if (before.activation == 5 && before.in_activation() && s.turn != before.turn) {
      const auto supplied = engine.units_in_supply(before, Side::German);
      for (size_t u = 0; u < s.units.size(); ++u) {
        if (engine.scenario().units[u].side != Side::German || !engine.scenario().on_board(before.units[u].loc)) continue;
        if (((s.units[u].flags & kOutOfSupply) != 0) == supplied[u]) {
          problems.push_back("supply marker of " + engine.scenario().units[u].id + " disagrees with its supply line");
        }
      }
    }
    if (opt.view_check_every > 0 && orders % opt.view_check_every == 0) check_views(engine, s, choices, problems);
    note("turn " + std::to_string(s.turn) + " " + engine.phase_name(s));
  }
  stats.orders += orders;
  if (s.step != Step::GameOver) return;
  stats.completed++;
  if (s.result == Result::SovietWin) stats.soviet_wins++;
  if (s.result == Result::GermanWin) stats.german_wins++;
  if (s.result == Result::Draw) stats.draws++;
}

}  // namespace counterattack
