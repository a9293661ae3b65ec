// Random complete games: every order checked against the invariants.
#include <gtest/gtest.h>

#include <ostream>

#include "playout.h"

namespace counterattack {
namespace {

const Engine& engine() {
  static const Engine e(default_scenario());
  return e;
}

// Plays the games of seeds first..last and reports every invariant broken.
PlayoutStats play_games(std::uint64_t first, std::uint64_t last, const PlayoutOptions& opt) {
  PlayoutStats stats;
  for (std::uint64_t seed = first; seed <= last; ++seed) play_one(engine(), seed, opt, stats);
  for (const auto& v : stats.violations) ADD_FAILURE() << v;
  EXPECT_EQ(stats.invariant_violations, 0);
  return stats;
}

TEST(Playout, RandomGamesCompleteWithoutInvariantViolations) {
  PlayoutOptions opt;
  opt.view_check_every = 10;
  const PlayoutStats stats = play_games(1, 6, opt);
  EXPECT_EQ(stats.completed, 6);
  EXPECT_EQ(stats.soviet_wins + stats.german_wins + stats.draws, 6);
  EXPECT_GT(stats.moves, 0);
  EXPECT_GT(stats.standing_answers, 0);  // each checked: accepted, and blind to the other side's secrets
}

// The random players draw every order from the legal ones, so each chit they
// play shows that the list offers it: each is played in three games, but the
// bridge repair, which waits for the Jozefow bridge to be blown first.
// Kessel needs the optional Red Army elastic defense, without which it would do nothing (revision 6).
TEST(Playout, Rule20_RandomPlayersPlayEveryEventChit) {
  PlayoutOptions opt;
  opt.view_check_every = 0;
  opt.options = kRedArmyElasticDefense;
  PlayoutStats stats = play_games(1, 3, opt);
  for (const auto& chit : engine().scenario().events) {
    if (chit.effect == data::BRIDGE_REPAIR) continue;
    EXPECT_GT(stats.chits_played[chit.id], 0) << chit.id << " (" << data::EventEffect_Name(chit.effect) << ")";
  }
}

// 20: without Red Army elastic defense the list no longer offers Kessel, which would do
// nothing; games of revision 5 still play it.
TEST(Playout, Rule20_WithoutRedArmyElasticDefenseRandomPlayersNeverPlayKessel) {
  PlayoutOptions opt;
  opt.view_check_every = 0;
  EXPECT_EQ(play_games(1, 3, opt).chits_played["GER-KESSEL"], 0);
  opt.revision = 5;
  EXPECT_GT(play_games(1, 3, opt).chits_played["GER-KESSEL"], 0);
}

// Games begun before revision 2 go on by the rules they began with.
TEST(Playout, RandomGamesOfRevision1) {
  PlayoutOptions opt;
  opt.revision = 1;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(200, 202, opt).completed, 3);
}

// And those begun before revision 3 by revision 2's.
TEST(Playout, RandomGamesOfRevision2) {
  PlayoutOptions opt;
  opt.revision = 2;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(300, 302, opt).completed, 3);
}

// And those begun before revision 4 by revision 3's.
TEST(Playout, RandomGamesOfRevision3) {
  PlayoutOptions opt;
  opt.revision = 3;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(400, 402, opt).completed, 3);
}

// And those begun before revision 5 by revision 4's.
TEST(Playout, RandomGamesOfRevision4) {
  PlayoutOptions opt;
  opt.revision = 4;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(500, 502, opt).completed, 3);
}

// And those begun before revision 6 by revision 5's.
TEST(Playout, RandomGamesOfRevision5) {
  PlayoutOptions opt;
  opt.revision = 5;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(500, 502, opt).completed, 3);
}

// 9: the playouts' check of revision 4's die lines finds a list that does not add
// up to the net, a limit misnamed or unbounded, a net at the limit that tells the
// units' bonuses exactly, and a line that does not read.
TEST(Playout, Rule9_TheDieLineCheckFindsWhatDoesNotAddUp) {
  const std::string head = "12 against 4 (3:1), 1 column to the defender: die ";
  EXPECT_EQ(die_line_problem(head + "4 +1 (unit bonuses +2, woods -1).", 6), "");
  EXPECT_EQ(die_line_problem(head + "4 +0.", 6), "");
  EXPECT_EQ(die_line_problem(head + "3 +6 (unit bonuses +5 or more, German artillery +1; limited to +6).", 6), "");
  EXPECT_EQ(die_line_problem(head + "3 -6 (unit bonuses -4 or less, prepared defense -1, Soviet artillery -1; limited to -6).", 6), "");
  EXPECT_EQ(die_line_problem(head + "4 +2 (unit bonuses +2, woods -1).", 6), "the modifiers named add up to 1");
  EXPECT_EQ(die_line_problem(head + "3 +6 (unit bonuses +5 or more, German artillery +1; limited to +5).", 6), "the limit named is not the net");
  EXPECT_EQ(die_line_problem(head + "3 +6 (unit bonuses +5, German artillery +1; limited to +6).", 6), "the limit without the units' bound");
  EXPECT_EQ(die_line_problem(head + "3 +6 (unit bonuses +5 or more, German artillery +1).", 6), "a bound without the limit");
  EXPECT_EQ(die_line_problem(head + "3 -6 (unit bonuses -4 or more, Soviet artillery -2; limited to -6).", 6), "a bound away from the limit");
  EXPECT_EQ(die_line_problem(head + "3 +6 (unit bonuses +5, German artillery +1).", 6), "a net at the limit that does not say so");
  EXPECT_EQ(die_line_problem("12 against 4 (3:1).", 6), "no die in the line");
  EXPECT_EQ(die_line_problem(head + "4 +1 (unit bonuses +x).", 6), "a die line that does not read as one");
}

// Games begun under an earlier revision replay as they were played, byte for
// byte: four random games of each earlier revision keep every event's audience
// and text, and their final state hash, as the engine before revision 6 gave them.
// A change here means stored games would no longer replay, and needs a revision,
// unless it is the playouts' own picking of orders (random_order) that changed.
struct Fingerprint {
  int revision = 0;
  std::uint64_t seed = 0;
  long orders = 0;
  std::uint64_t texts = 0, state = 0;
  bool operator==(const Fingerprint&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Fingerprint& f) {
  return os << "{" << f.revision << ", " << f.seed << ", " << f.orders << ", 0x" << std::hex << f.texts << "ull, 0x" << f.state << "ull}"
            << std::dec;
}

// One random game, played as the playouts play it: every event's audience and
// text folded into one number (FNV-1a), and the last state's hash.
Fingerprint fingerprint(int revision, std::uint64_t seed) {
  const std::uint32_t bits = revision_bits(revision);
  Prng dice(Prng::from_seed(seed).state(), dice_kind(bits));
  Prng choices = Prng::from_seed(seed ^ 0x5DEECE66Dull);
  GameState s = engine().new_game(bits, dice);
  Fingerprint f{revision, seed, 0, 1469598103934665603ull, 0};
  auto fold = [&](const std::string& bytes) {
    for (const unsigned char ch : bytes) f.texts = (f.texts ^ ch) * 1099511628211ull;
  };
  while (s.step != Step::GameOver && f.orders < 200000) {
    const Decision d = engine().decision(s);
    Outcome out = engine().apply(s, d.side, random_order(engine(), s, choices), dice);
    if (!out.accepted) out = engine().apply(s, d.side, Order::done(), dice);
    ++f.orders;
    for (const auto& e : out.events) fold(std::to_string(e.audience()) + ":" + e.text() + "\n");
  }
  f.state = state_hash(s);
  return f;
}

TEST(Playout, GamesOfEarlierRevisionsReplayWithTheirTextsAndStateHashes) {
  const Fingerprint pinned[] = {
      {1, 11, 681, 0x1d1dd6d720da6f87ull, 0x6aba51591b5281eeull}, {1, 12, 724, 0x7d75a746d6c34ea8ull, 0x7c7d9968dc86c610ull},
      {1, 13, 696, 0xf51702819e8de51bull, 0xaa7a08a0e32fbc60ull}, {1, 14, 697, 0x5d86a77174fd97eeull, 0xd4a38295c1b802aaull},
      {2, 11, 644, 0x4b278ca9cded925dull, 0x567267da6e7477f7ull}, {2, 12, 648, 0x536a789b0baf8fb7ull, 0x2fdabc4a947615dfull},
      {2, 13, 661, 0xbf3df5d0a07f3ac6ull, 0x2f012fb9c8855e4cull}, {2, 14, 705, 0x67be1f62b3858652ull, 0x2119bde802fc849eull},
      {3, 11, 647, 0xfc1bffe6307d6714ull, 0xc911170d2da55efaull}, {3, 12, 631, 0x29500268eeae68caull, 0x67d540bdc5ab5170ull},
      {3, 13, 663, 0x77d40046fa885e48ull, 0xbce64f7fe59d81fbull}, {3, 14, 682, 0xb375b91d70b6f384ull, 0xc11b4ec1a82c2e0cull},
      {4, 11, 647, 0xaf21d9fc734e6de1ull, 0xd8b5e56dec373ddeull}, {4, 12, 631, 0x5b41c95480906d33ull, 0x82d010c9648836f2ull},
      {4, 13, 663, 0x5cce3af81ca16cb3ull, 0xa5d6c054a3e6d1b2ull}, {4, 14, 682, 0xd3ca80065aa9fb81ull, 0xcd2fc1fe702b8921ull},
      {5, 11, 647, 0xafa4a722c5c17bf7ull, 0x43fe46242613ea28ull}, {5, 12, 610, 0x8e112eeda9625e3bull, 0xcc871c342d355ca4ull},
      {5, 13, 677, 0xfbadaa245807ac03ull, 0x728f1955f0f66802ull}, {5, 14, 682, 0x63e3418f90f4da58ull, 0x6b726dd3b9bad467ull},
  };
  for (const auto& f : pinned) EXPECT_EQ(fingerprint(f.revision, f.seed), f);
}

TEST(Playout, RandomGamesWithEveryOptionalRule) {
  PlayoutOptions opt;
  opt.options = kLimitedGermanActivation | kRedArmyFlexibility | kLimitedBonus | kRedArmyElasticDefense;
  EXPECT_EQ(play_games(100, 103, opt).completed, 4);
}

}  // namespace
}  // namespace counterattack
