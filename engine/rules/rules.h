// The rules, as one object over (scenario, state, dice, event log). Internal to
// the engine: each file under rules/ implements the sections it is named after.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine.h"

namespace counterattack {

// Where units stand, built once per order: counts per location and ZOC per hex.
struct Occupancy {
  std::vector<std::uint8_t> count[2];  // units of a side per location
  std::vector<std::uint8_t> zoc[2];    // hex lies in the ZOC of a side's unit (6)
  Side owner(Loc l) const;             // meaningful only when occupied
  bool occupied(Loc l, Side side) const { return count[static_cast<int>(side)][static_cast<size_t>(l)] != 0; }
};

struct StepCost {
  int cost_half = 0;
  bool enters_zoc = false;
  game::RejectCode error = game::REJECT_UNSPECIFIED;
  std::string why;
  bool ok() const { return error == game::REJECT_UNSPECIFIED; }
};

class Rules {
 public:
  Rules(const Engine& e, GameState& s, Prng* rng, std::vector<game::Event>* log)
      : e_(e), sc_(*e.sc_), s_(s), rng_(rng), log_(log) {}

  // --- 5 Sequence of play (sequence.cc) ---
  void start_game(std::uint32_t options);
  Decision decision() const;
  std::optional<Rejection> check(Side who, const Order& o) const;
  void execute(const Order& o);
  void finish_mover();
  void end_step();
  void start_activation_phase();
  void end_activation_phase();
  void end_turn();
  void administrative_phase();
  void after_recovery();
  void after_uprising();
  void start_magnuszew();
  void check_decisive_victory();
  void end_game();

  // --- 6-8, 13, 14, 17 Movement (movement.cc) ---
  Occupancy occupancy() const;
  StepCost step_cost(const std::vector<std::int16_t>& group, Loc from, Loc to, const Occupancy& occ) const;
  std::optional<Rejection> check_move(const Order& o) const;
  bool neighbours(Loc a, Loc b) const;  // true unless both are hexes of the map and not next to each other
  std::string not_where_the_path_starts(const std::vector<std::int16_t>& units, bool continuing, Loc first) const;
  void do_move(const Order& o);
  std::vector<std::int16_t> break_contact_candidates(Loc entered, const Occupancy& occ) const;
  bool break_contact_destination_ok(int unit, Loc to, const Occupancy& occ) const;
  bool can_step(int unit, Loc from, Loc to, const Occupancy& occ) const;  // one hex, by terrain and enemy
  std::optional<Rejection> check_break_contact(const Order& o) const;
  void do_break_contact(const Order& o);
  std::optional<Rejection> check_group_start(const std::vector<std::int16_t>& units, bool reserves_step) const;
  bool can_activate(int unit) const;
  void note_activation(int unit);
  std::vector<Loc> entry_hexes(Loc entry, const Occupancy& occ) const;
  // Cheapest reachable locations for a group this activation, with the path to each.
  std::vector<std::pair<Loc, std::vector<Loc>>> reachable(const std::vector<std::int16_t>& group) const;
  bool stacking_ok_after(const Occupancy& occ, Loc l, Side side, const std::vector<std::int16_t>& arriving) const;
  void place(int unit, Loc l);

  // --- 15 Supply (supply.cc) ---
  std::vector<std::uint8_t> supply_map(Side side, const Occupancy& occ) const;  // per hex
  bool traced_supply(int unit, const std::vector<std::uint8_t>& map) const;
  void supply_check(bool whole_side);

  // --- 16, 18, 19 Administrative choices (admin.cc) ---
  std::vector<int> recovery_candidates(Side side) const;
  bool recovery_location_ok(int unit, Loc l, const Occupancy& occ, const std::vector<std::uint8_t>& supply) const;
  std::optional<Rejection> check_recover(Side side, int unit, Loc l) const;
  void do_recover(int unit, Loc l);
  std::vector<int> german_units_in_warsaw(bool exclude_moved, bool exclude_reserve) const;
  std::optional<Rejection> check_choose_units(const Order& o) const;
  void do_choose_units(const Order& o);
  void roll_uprising(int deployed);
  bool withdrawal_matches(data::WithdrawalType t, int item) const;  // item: unit or marker
  std::vector<int> magnuszew_items() const;  // units >= 0, markers as -1 - index
  int magnuszew_best(const std::vector<int>& items) const;
  // The units named are the stack in motion, or (revision 5) some of it: the move goes on.
  bool continues_mover(const std::vector<std::int16_t>& units) const;
  // This turn's Magnuszew withdrawal in words, and the items of `items` that fit any of it, named.
  std::string magnuszew_need() const;
  std::string magnuszew_fitting(const std::vector<int>& items) const;

  // --- 20 Events (events.cc) ---
  void draw_event(Side side);
  std::optional<Rejection> check_play_event(Side who, const Order& o) const;
  void do_play_event(const Order& o);

  // --- 9-12 Combat (combat.cc) ---
  std::optional<Rejection> check_overrun(const Order& o) const;
  void do_overrun(const Order& o);
  std::optional<Rejection> check_barrage(Side who, int marker, Loc target, bool air_strike) const;
  void do_barrage(int marker, Loc target, bool air_strike);
  std::optional<Rejection> check_attack(const Order& o) const;
  void do_attack(const Order& o);
  std::optional<Rejection> check_defensive_support(const Order& o) const;
  void do_defensive_support(const Order& o);
  std::optional<Rejection> check_take_losses(const Order& o) const;
  void do_take_losses(const Order& o);
  std::optional<Rejection> check_retreat(const Order& o) const;
  void do_retreat(const Order& o);
  std::optional<Rejection> check_advance(const Order& o) const;
  void do_advance(const Order& o);
  std::optional<Rejection> check_use_model(const Order& o) const;
  void do_use_model(const Order& o);
  void do_reroll(bool reroll);
  bool support_ok(int marker, const std::vector<std::int16_t>& units, Side side) const;
  std::vector<int> defensive_markers() const;
  bool model_available() const;
  void resolve_combat();
  void roll_combat();
  void apply_combat_result();
  void next_combat_stage();
  void end_combat();
  int retreat_loss_for(int unit, const std::vector<Loc>& path, const Occupancy& occ, const Occupancy& room, std::string* why) const;
  std::vector<int> retreat_losses(const Order& o, std::string* why) const;
  GameState after_retreat(const Order& o) const;
  bool can_retreat_step(int unit, Loc from, Loc to, const std::vector<Loc>& visited, const Occupancy& occ) const;
  // With `found`, the hexes of the first such retreat (after `visited`'s first).
  bool retreat_can_finish(int unit, Loc at, std::vector<Loc>& visited, int len, const Occupancy& occ,
                          std::vector<Loc>* found = nullptr) const;
  int elastic_allowed() const;
  int survivors(const std::vector<std::int16_t>& units) const;
  std::vector<std::vector<Loc>> retreat_paths(int unit, int length) const;
  int max_advance() const;
  std::string marker_name(int marker) const;
  std::string support_word(int marker) const;
  Side combat_defender() const;
  // Legal orders of the combat rules (combat_legal.cc).
  void legal_overruns(Side me, std::vector<Order>& out) const;
  void legal_barrages(Side me, std::vector<Order>& out) const;
  std::vector<int> barrage_markers(Side me) const;
  void legal_attacks(Side me, std::vector<Order>& out) const;
  void legal_combat_answers(const Decision& d, std::vector<Order>& out) const;
  // 9: the losses of the attacker or the defender, with `elastic` and
  // `desperate` exchanges: one step a unit in turn (or all of a unit's steps
  // before the next, `concentrate`), from the first unit named (or the last).
  Order loss_order(bool defender, int elastic, int desperate, bool last_first, bool concentrate) const;
  // 9: the defenders that retreat now, the paths each may take, and a legal
  // retreat that gives each, in turn, the first of its paths that leaves room
  // where it ends (none when the others took the room: it loses steps instead).
  std::vector<std::int16_t> retreating_units() const;
  std::vector<std::vector<std::vector<Loc>>> retreat_options(const std::vector<std::int16_t>& movers) const;
  Order roomy_retreat(const std::vector<std::int16_t>& movers, const std::vector<std::vector<std::vector<Loc>>>& options) const;

  // --- 3 Victory ---
  int victory_points(Side side) const;

  // --- Helpers ---
  void log(game::Event::Kind kind, std::string text, game::Audience audience = game::AUDIENCE_ALL);
  void log_path(game::Event::Kind kind, std::string text, const std::vector<Loc>& path,
                game::Audience audience = game::AUDIENCE_ALL);
  std::string unit_name(int u) const { return sc_.units[static_cast<size_t>(u)].id; }
  std::string loc_name(Loc l) const { return sc_.location_name(l); }
  const UnitDef& def(int u) const { return sc_.units[static_cast<size_t>(u)]; }
  UnitState& us(int u) { return s_.units[static_cast<size_t>(u)]; }
  const UnitState& us(int u) const { return s_.units[static_cast<size_t>(u)]; }
  const UnitStep& face(int u) const;
  Side side_of(int u) const { return def(u).side; }
  bool on_board(int u) const { return sc_.on_board(us(u).loc); }
  bool is_train(int u) const { return def(u).unit_class == UnitClass::ArmoredTrain; }
  const Formation& formation(int u) const { return sc_.formations[static_cast<size_t>(def(u).formation)]; }
  void lose_step(int u, const std::string& why);
  // Units of one side as the others read them (7): "A Soviet unit at 0905", "Soviet units at 0905, 0906".
  std::string unnamed(const std::vector<std::int16_t>& units) const;
  std::string phase_name() const;
  bool option(std::uint32_t bit) const { return (s_.options & bit) != 0; }
  // A word for `n` things: in number from revision 4; games begun before keep `before`, whatever n.
  std::string in_number(size_t n, std::string one, std::string many, std::string before) const {
    return !option(kClearerTexts) ? before : n == 1 ? one : many;
  }
  int rule(int value, int fallback) const { return value > 0 ? value : fallback; }

  const Engine& e_;
  const Scenario& sc_;
  GameState& s_;
  Prng* rng_;
  std::vector<game::Event>* log_;
};

Rejection reject(game::RejectCode code, std::string reason);
// 7: what a side's own log says, and what the others read of it.
inline game::Audience owner_only(Side s) { return s == Side::Soviet ? game::AUDIENCE_SOVIET : game::AUDIENCE_GERMAN; }
inline game::Audience all_but(Side s) { return s == Side::Soviet ? game::AUDIENCE_ALL_BUT_SOVIET : game::AUDIENCE_ALL_BUT_GERMAN; }
// The rank of each location in the canonical order of stacks (view.cc).
std::vector<int> location_ranks(const Scenario& sc);

}  // namespace counterattack
