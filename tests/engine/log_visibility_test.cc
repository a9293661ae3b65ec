// 7 Visibility in the game log: an event names a unit only to a reader who may
// see that unit, over random complete games on the real map.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "playout.h"
#include "view_delta.h"

namespace counterattack {
namespace {

const char* viewer_name(Viewer v) {
  switch (v) {
    case Viewer::Soviet: return "Soviet";
    case Viewer::German: return "German";
    case Viewer::Spectator: return "spectator";
    case Viewer::Omniscient: return "omniscient";
  }
  return "?";
}

// What a viewer's view shows: per unit, whether its id is there (on the map,
// eliminated or withdrawn); and the decision's prompt, also text it reads.
struct Sight {
  std::vector<bool> ids;
  std::string prompt;
};

Sight sight(const Engine& engine, const GameState& s, Viewer v) {
  ViewModel m = engine.view_model(s, v);
  Sight out{std::vector<bool>(s.units.size(), false), std::move(m.decision.prompt)};
  for (const auto& u : m.units) {
    if (u.unit >= 0) out.ids[static_cast<size_t>(u.unit)] = true;
  }
  for (int u : m.eliminated) out.ids[static_cast<size_t>(u)] = true;
  for (int u : m.withdrawn) out.ids[static_cast<size_t>(u)] = true;
  return out;
}

bool id_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '/' || c == '-';
}

// The units a text names, by whole ids: "3TC/50" is not read inside "3TC/501",
// nor "5SS/Germania-I" inside "5SS/Germania-II".
std::vector<int> units_named(const std::map<std::string, int>& by_id, const std::string& text) {
  std::vector<int> out;
  for (size_t i = 0; i < text.size();) {
    if (!id_char(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && id_char(text[end])) ++end;
    if (auto it = by_id.find(text.substr(i, end - i)); it != by_id.end()) out.push_back(it->second);
    i = end;
  }
  return out;
}

// random_order, except that now and then in its movement step a player plays a
// unit bonus chit (20) on a random unit of its own: legal_orders offers none.
Order next_order(const Engine& engine, const GameState& s, Prng& rng) {
  const Scenario& sc = engine.scenario();
  const Decision d = engine.decision(s);
  if (d.kind == game::Decision::MOVEMENT && rng.below(4) == 0) {
    for (auto chit : s.sides[static_cast<int>(d.side)].hand) {
      if (sc.events[chit].effect != data::UNIT_BONUS) continue;
      std::vector<std::int16_t> own;
      for (size_t u = 0; u < s.units.size(); ++u) {
        if (sc.units[u].side == d.side && sc.on_board(s.units[u].loc)) own.push_back(static_cast<std::int16_t>(u));
      }
      if (own.empty()) break;
      Order o = Order::of(Order::Kind::PlayEvent, {own[rng.below(static_cast<std::uint32_t>(own.size()))]});
      o.chit = static_cast<std::int16_t>(chit);
      GameState trial = s;
      Prng dummy = Prng::from_seed(0);
      if (engine.apply(trial, d.side, o, dummy).accepted) return o;
    }
  }
  return random_order(engine, s, rng);
}

// Every order of random complete games, read by each player and a spectator:
// each unit that an event (or the decision's prompt) names must be one the
// reader owns, or whose id its view shows before or after the order (the loss
// track and the Magnuszew box are public), or a reinforcement arriving by the
// public calendar (17).
TEST(LogProperty, Rule7_NoEventNamesAUnitItsReaderMayNotSee) {
  const Engine engine(default_scenario());
  const Scenario& sc = engine.scenario();
  std::map<std::string, int> by_id;
  for (size_t u = 0; u < sc.units.size(); ++u) {
    for (char c : sc.units[u].id) ASSERT_TRUE(id_char(c)) << "units_named cannot read the id " << sc.units[u].id;
    by_id[sc.units[u].id] = static_cast<int>(u);
  }
  const Viewer viewers[] = {Viewer::Soviet, Viewer::German, Viewer::Spectator};
  long orders = 0, names_read = 0, leaks = 0;
  // What the games must reach for the test to mean anything. "Unseen": hidden
  // from the enemy or the spectator just before.
  int dis = 0, dis_chosen = 0, dis_unseen = 0, ignore_zoc = 0, unit_bonus = 0, chits_unseen = 0;
  int attacks = 0, attacks_unseen = 0;
  std::map<std::string, int> leaks_by_kind;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    const auto options = static_cast<std::uint32_t>(seed * 2654435761u) & 0xF;  // every game its optional rules
    SCOPED_TRACE("seed " + std::to_string(seed));
    Prng dice = Prng::from_seed(seed);
    Prng choices = Prng::from_seed(seed ^ 0x5DEECE66Dull);
    GameState s = engine.new_game(options, dice);
    Sight seen[3];
    for (size_t i = 0; i < 3; ++i) seen[i] = sight(engine, s, viewers[i]);
    for (long n = 0; s.step != Step::GameOver; ++n) {
      ASSERT_LT(n, 200000) << "the game does not end";
      const Decision d = engine.decision(s);
      const Order o = next_order(engine, s, choices);
      const GameState before = s;
      const Outcome out = engine.apply(s, d.side, o, dice);
      ASSERT_TRUE(out.accepted) << engine.to_proto(o).ShortDebugString() << ": " << out.rejection.reason;
      ++orders;
      Sight now[3];
      for (size_t i = 0; i < 3; ++i) now[i] = sight(engine, s, viewers[i]);

      auto unseen = [&](int u) {
        const size_t enemy = sc.units[static_cast<size_t>(u)].side == Side::Soviet ? 1 : 0;
        return !seen[enemy].ids[static_cast<size_t>(u)] || !seen[2].ids[static_cast<size_t>(u)];
      };
      for (size_t u = 0; u < s.units.size(); ++u) {
        if ((s.units[u].flags & kDisorganized) && !(before.units[u].flags & kDisorganized)) {
          ++dis;
          dis_unseen += unseen(static_cast<int>(u));
          dis_chosen += o.kind == Order::Kind::ChooseUnits && before.combat.stage == CombatStage::BarrageLoss;
        }
      }
      if (o.kind == Order::Kind::PlayEvent) {
        const auto effect = sc.events[static_cast<size_t>(o.chit)].effect;
        ignore_zoc += effect == data::IGNORE_ZOC;
        unit_bonus += effect == data::UNIT_BONUS;
        if (effect == data::IGNORE_ZOC || effect == data::UNIT_BONUS) chits_unseen += unseen(o.units[0]);
      }
      if (o.kind == Order::Kind::Attack || o.kind == Order::Kind::Overrun) {
        ++attacks;
        attacks_unseen += std::any_of(o.units.begin(), o.units.end(), unseen);
      }

      for (size_t i = 0; i < 3; ++i) {
        const Viewer v = viewers[i];
        auto check = [&](const std::string& text, const std::string& what) {
          for (int u : units_named(by_id, text)) {
            const auto k = static_cast<size_t>(u);
            if (v != Viewer::Spectator && viewer_of(sc.units[k].side) == v) continue;
            ++names_read;
            if (seen[i].ids[k] || now[i].ids[k]) continue;
            if (before.units[k].loc == kNotArrived) continue;  // 17: the calendar is public
            ++leaks;
            ++leaks_by_kind[what];
            if (leaks <= 10) {
              ADD_FAILURE() << "the " << viewer_name(v) << " reads " << sc.units[k].id << ", hidden from it, in: \"" << text
                            << "\" (turn " << static_cast<int>(before.turn) << ", " << engine.phase_name(before) << ", after "
                            << engine.to_proto(o).ShortDebugString() << ")";
            }
          }
        };
        for (const auto& e : events_for(out.events, v)) check(e.text(), game::Event::Kind_Name(e.kind()) + " events");
        check(now[i].prompt, "prompts");
        seen[i] = std::move(now[i]);
      }
    }
  }
  for (const auto& [what, count] : leaks_by_kind) ADD_FAILURE() << count << " leak(s) in " << what;
  EXPECT_EQ(leaks, 0);
  std::printf("%ld orders, %ld names of other units read; barrage DIS %d (%d chosen by the owner, %d on unseen units); "
              "IGNORE_ZOC %d, UNIT_BONUS %d (%d on unseen units); attacks and overruns %d (%d with unseen units)\n",
              orders, names_read, dis, dis_chosen, dis_unseen, ignore_zoc, unit_bonus, chits_unseen, attacks, attacks_unseen);
  EXPECT_GT(names_read, 1000);
  EXPECT_GT(dis_chosen, 0);
  EXPECT_GT(dis_unseen, 0);
  EXPECT_GT(ignore_zoc, 0);
  EXPECT_GT(unit_bonus, 0);
  EXPECT_GT(chits_unseen, 0);
  EXPECT_GT(attacks_unseen, 0);
}

}  // namespace
}  // namespace counterattack
