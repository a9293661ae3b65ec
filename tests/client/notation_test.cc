// The order notation a player types, parsed into protocol orders.
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "notation.h"

namespace counterattack::cli {
namespace {

const Scenario& sc() {
  return *default_scenario();
}

// The order a line parses to, in one-line protobuf text format.
std::string parsed(const std::string& line) {
  auto r = parse_order(line, sc());
  if (!r.ok()) return "ERROR: " + r.error;
  google::protobuf::TextFormat::Printer p;
  p.SetSingleLineMode(true);
  std::string out;
  p.PrintToString(*r.order, &out);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string error_of(const std::string& line) {
  auto r = parse_order(line, sc());
  EXPECT_FALSE(r.ok()) << line << " parsed";
  return r.error;
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Notation, Move) {
  EXPECT_EQ(parsed("move 3TC/50 1708 1709 1809"),
            R"(move { units: "3TC/50" path: "1708" path: "1709" path: "1809" })");
}

TEST(Notation, MoveSeveralUnitsTogether) {
  EXPECT_EQ(parsed("move 3TC/50 3TC/51 1708 1709"),
            R"(move { units: "3TC/50" units: "3TC/51" path: "1708" path: "1709" })");
}

TEST(Notation, NamesMatchWithoutCaseAndHexesGetFourDigits) {
  EXPECT_EQ(parsed("MOVE 3tc/50 hg/ii-pz 817 warsaw"),
            R"(move { units: "3TC/50" units: "HG/II-Pz" path: "0817" path: "WARSAW" })");
}

TEST(Notation, MoveToAnEntryPoint) {
  EXPECT_EQ(parsed("move 19Pz/I-27 A"), R"(move { units: "19Pz/I-27" path: "A" })");
}

TEST(Notation, MoveErrorsSayWhatWasExpected) {
  EXPECT_TRUE(mentions(error_of("move"), "Name at least one unit")) << error_of("move");
  EXPECT_TRUE(mentions(error_of("move 3TC/50"), "Expected a hex")) << error_of("move 3TC/50");
  EXPECT_TRUE(mentions(error_of("move 1708 1709"), "Expected a unit"))
      << error_of("move 1708 1709");
  // A name of the right form that is no unit: the units of that formation, to pick from.
  EXPECT_TRUE(mentions(error_of("move 3TC/5 1708"), "There is no unit 3TC/5: the units of 3TC are 3TC/"))
      << error_of("move 3TC/5 1708");
  EXPECT_TRUE(mentions(error_of("move 3TC/50 XYZ/1 1708"), "'XYZ/1' is not a unit")) << error_of("move 3TC/50 XYZ/1 1708");
  EXPECT_TRUE(mentions(error_of("play SOV-NOSUCH"), "'SOV-NOSUCH' is not an event chit; the chits are SOV-"))
      << error_of("play SOV-NOSUCH");
  EXPECT_FALSE(mentions(error_of("play SOV-NOSUCH"), "GER-")) << "only the chits of that side";
  EXPECT_TRUE(mentions(error_of("move 3TC/50 1708 3TC/51"), "out of place"))
      << error_of("move 3TC/50 1708 3TC/51");
  EXPECT_TRUE(mentions(error_of("move 3TC/50 9999"), "9999 is not a hex"))
      << error_of("move 3TC/50 9999");
  // Every error ends with the usage of the order.
  EXPECT_TRUE(mentions(error_of("move"), "Usage: move UNIT... HEX..."));
}

TEST(Notation, Done) {
  EXPECT_EQ(parsed("done"), "done { }");
  EXPECT_TRUE(mentions(error_of("done now"), "Unexpected 'now'"));
}

TEST(Notation, Corps) {
  EXPECT_EQ(parsed("corps 3TC"), R"(activate_corps { corps: "3TC" })");
  EXPECT_EQ(parsed("corps 3tc +47"), R"(activate_corps { corps: "3TC" with_47th: true })");
  EXPECT_TRUE(mentions(error_of("corps"), "Name the corps"));
  EXPECT_TRUE(mentions(error_of("corps 99TC"), "not a corps"));
  EXPECT_TRUE(mentions(error_of("corps 3TC +48"), "Expected +47"));
}

TEST(Notation, PreparedDefenseLiftReserveUnreserve) {
  EXPECT_EQ(parsed("pd 73ID/186 73ID/213"),
            R"(prepared_defense { units: "73ID/186" units: "73ID/213" })");
  EXPECT_EQ(parsed("lift 73ID/186"), R"(lift_prepared_defense { units: "73ID/186" })");
  EXPECT_EQ(parsed("reserve 3TC/50 3TC/51"),
            R"(place_reserve { units: "3TC/50" units: "3TC/51" })");
  EXPECT_EQ(parsed("unreserve 3TC/50"), R"(remove_reserve { units: "3TC/50" })");
  EXPECT_TRUE(mentions(error_of("pd"), "Name at least one unit"));
  EXPECT_TRUE(mentions(error_of("reserve 3TC/50 1708"), "1708 is not a hex of the map"));
}

TEST(Notation, BreakContactAndStand) {
  EXPECT_EQ(parsed("break 19Pz/I-27 1816"),
            R"(break_contact { moves { unit: "19Pz/I-27" to: "1816" } })");
  EXPECT_EQ(
      parsed("break 19Pz/I-27 1816 19Pz/II-27 1817"),
      R"(break_contact { moves { unit: "19Pz/I-27" to: "1816" } moves { unit: "19Pz/II-27" to: "1817" } })");
  EXPECT_EQ(parsed("stand"), "break_contact { }");
  EXPECT_TRUE(mentions(error_of("break 19Pz/I-27"), "Expected a hex"));
  EXPECT_TRUE(mentions(error_of("break"), "or type stand"));
}

TEST(Notation, PlayEvent) {
  EXPECT_EQ(parsed("play SOV-GHOST"), R"(play_event { chit: "SOV-GHOST" })");
  EXPECT_EQ(parsed("play sov-guards 3TC/50 3TC/51"),
            R"(play_event { chit: "SOV-GUARDS" units: "3TC/50" units: "3TC/51" })");
  EXPECT_EQ(parsed("play SOV-SURPRISE corps 8GTC"),
            R"(play_event { chit: "SOV-SURPRISE" corps: "8GTC" })");
  EXPECT_EQ(parsed("play SOV-REPLACE 3TC/50 at 2021"),
            R"(play_event { chit: "SOV-REPLACE" units: "3TC/50" location: "2021" })");
  EXPECT_TRUE(mentions(error_of("play XYZ"), "not an event chit"));
  EXPECT_TRUE(mentions(error_of("play SOV-REPLACE 3TC/50 2021"), "Write 'at 2021'"));
  EXPECT_TRUE(mentions(error_of("play SOV-REPLACE at"), "Expected a hex"));
}

TEST(Notation, Recover) {
  EXPECT_EQ(parsed("recover HG/I-1"), R"(recover { unit: "HG/I-1" })");
  EXPECT_EQ(parsed("recover HG/I-1 WARSAW"), R"(recover { unit: "HG/I-1" location: "WARSAW" })");
  EXPECT_EQ(parsed("recover HG/I-1 1816"), R"(recover { unit: "HG/I-1" location: "1816" })");
  EXPECT_TRUE(mentions(error_of("recover HG/I-1 1816 1817"), "Unexpected '1817'"));
}

TEST(Notation, SuppressAndChoose) {
  EXPECT_EQ(parsed("suppress HG/I-1 HG/II-1"),
            R"(suppress_uprising { units: "HG/I-1" units: "HG/II-1" })");
  EXPECT_EQ(parsed("choose HG/I-1 art-hg stuka-1"),
            R"(choose_units { units: "HG/I-1" units: "ART-HG" units: "Stuka-1" })");
  EXPECT_TRUE(mentions(error_of("choose"), "Name the units or markers"));
  EXPECT_TRUE(mentions(error_of("choose 1816"), "neither a unit nor"));
}

TEST(Notation, Overrun) {
  EXPECT_EQ(parsed("overrun 3TC/50 3TC/51 1816"),
            R"(overrun { units: "3TC/50" units: "3TC/51" target: "1816" })");
  EXPECT_TRUE(mentions(error_of("overrun 3TC/50"), "Expected a hex"));
  EXPECT_TRUE(mentions(error_of("overrun 3TC/50 1816 1817"), "Unexpected '1817'"));
}

TEST(Notation, Barrage) {
  EXPECT_EQ(parsed("barrage ART-HG 1816"), R"(barrage { marker: "ART-HG" target: "1816" })");
  EXPECT_EQ(parsed("barrage stuka-2 1816"), R"(barrage { marker: "Stuka-2" target: "1816" })");
  EXPECT_TRUE(mentions(error_of("barrage 3TC/50 1816"), "not an artillery or Stuka marker"));
  EXPECT_TRUE(mentions(error_of("barrage ART-HG"), "Expected a hex"));
}

TEST(Notation, Attack) {
  EXPECT_EQ(parsed("attack 3TC/50 3TC/51 1816"),
            R"(attack { units: "3TC/50" units: "3TC/51" target: "1816" })");
  EXPECT_EQ(parsed("attack 3TC/50 1816 with ART-3TC"),
            R"(attack { units: "3TC/50" target: "1816" support: "ART-3TC" })");
  EXPECT_EQ(
      parsed("attack 19Pz/I-27 1816 with Stuka-1 chit ger-kessel"),
      R"(attack { units: "19Pz/I-27" target: "1816" support: "Stuka-1" chit: "GER-KESSEL" })");
  EXPECT_TRUE(
      mentions(error_of("attack 3TC/50 1816 ART-3TC"), "Expected 'with MARKER', 'chit CHIT'"));
  EXPECT_TRUE(mentions(error_of("attack 3TC/50 1816 chit"), "Name the event chit"));
  EXPECT_TRUE(mentions(error_of("attack 3TC/50 1816 with"), "Name the support marker"));
  EXPECT_TRUE(mentions(error_of("attack 1816"), "Expected a unit"));
}

TEST(Notation, DefensiveSupport) {
  EXPECT_EQ(parsed("support ART-HG"), R"(defensive_support { marker: "ART-HG" })");
  EXPECT_EQ(parsed("support ART-HG chit GER-WERFER"),
            R"(defensive_support { marker: "ART-HG" chit: "GER-WERFER" })");
  EXPECT_EQ(parsed("support chit GER-WERFER"), R"(defensive_support { chit: "GER-WERFER" })");
  EXPECT_EQ(parsed("nosupport"), "defensive_support { }");
  EXPECT_TRUE(mentions(error_of("support ART-HG GER-WERFER"), "Expected 'chit CHIT'"));
  EXPECT_TRUE(mentions(error_of("support"), "or type nosupport"));
}

TEST(Notation, Losses) {
  EXPECT_EQ(parsed("losses 19Pz/I-27 19Pz/I-27"),
            R"(take_losses { steps: "19Pz/I-27" steps: "19Pz/I-27" })");
  EXPECT_EQ(parsed("losses 19Pz/I-27 elastic 1"),
            R"(take_losses { steps: "19Pz/I-27" elastic: 1 })");
  EXPECT_EQ(parsed("losses 3TC/50 desperate 2"), R"(take_losses { steps: "3TC/50" desperate: 2 })");
  EXPECT_EQ(parsed("losses elastic 1"), R"(take_losses { elastic: 1 })");
  EXPECT_TRUE(mentions(error_of("losses"), "Name the units"));
  EXPECT_TRUE(mentions(error_of("losses 3TC/50 elastic"), "Expected a number"));
  EXPECT_TRUE(mentions(error_of("losses 3TC/50 elastic x"), "Expected a number, not 'x'"));
}

TEST(Notation, Retreat) {
  EXPECT_EQ(parsed("retreat 19Pz/I-27 1816 1716"),
            R"(retreat { paths { unit: "19Pz/I-27" path: "1816" path: "1716" } })");
  EXPECT_EQ(
      parsed("retreat 19Pz/I-27 1816 19Pz/II-27 1817"),
      R"(retreat { paths { unit: "19Pz/I-27" path: "1816" } paths { unit: "19Pz/II-27" path: "1817" } })");
  EXPECT_TRUE(mentions(error_of("retreat 19Pz/I-27"), "Expected a hex"));
  EXPECT_TRUE(mentions(error_of("retreat 1816"), "'1816' is not a unit") ||
              mentions(error_of("retreat 1816"), "1816 is not a hex"));
}

TEST(Notation, Advance) {
  EXPECT_EQ(parsed("advance 3TC/50 1816"), R"(advance { units: "3TC/50" path: "1816" })");
  EXPECT_EQ(parsed("advance 3TC/50 3TC/51 1816 1817"),
            R"(advance { units: "3TC/50" units: "3TC/51" path: "1816" path: "1817" })");
  EXPECT_EQ(parsed("advance"), "advance { }");
  EXPECT_TRUE(mentions(error_of("advance 3TC/50"), "Expected a hex"));
}

TEST(Notation, Model) {
  EXPECT_EQ(parsed("model reactivate 19Pz/I-27 19Pz/II-27"),
            R"(use_model { effect: REACTIVATE units: "19Pz/I-27" units: "19Pz/II-27" })");
  EXPECT_EQ(parsed("model noncontiguous"), "use_model { effect: NON_ADJACENT_ATTACK }");
  EXPECT_EQ(parsed("model division"), "use_model { effect: EXTRA_DIVISION }");
  EXPECT_TRUE(mentions(error_of("model"), "Name the effect"));
  EXPECT_TRUE(mentions(error_of("model fly"), "not one of FM Model's effects"));
  EXPECT_TRUE(mentions(error_of("model reactivate"), "Name at least one unit"));
}

TEST(Notation, RerollAnswer) {
  EXPECT_EQ(parsed("reroll"), "reroll { reroll: true }");
  EXPECT_EQ(parsed("noreroll"), "reroll { }");
  EXPECT_TRUE(mentions(error_of("reroll 3"), "Unexpected '3'"));
}

// README and `order --help` name FM Model's re-roll with the other effects: it is the same
// answer to the re-roll decision, not an effect the rules refuse.
TEST(Notation, ModelRerollAndModelNorerollAnswerTheRerollDecision) {
  EXPECT_EQ(parsed("model reroll"), parsed("reroll"));
  EXPECT_EQ(parsed("model noreroll"), parsed("noreroll"));
  EXPECT_EQ(parsed("MODEL ReRoll"), "reroll { reroll: true }");
  EXPECT_TRUE(mentions(error_of("model reroll 3"), "Unexpected '3'"));
  EXPECT_TRUE(mentions(order_usage("reroll"), "model reroll")) << order_usage("reroll");
}

// `move HG/II-Pz HG/I-2 WARSAW 1225` from Warsaw: the rules' refusal names the off-map chart
// ("no route from WARSAW to WARSAW"), so the client says what it says for a hex.
TEST(Notation, APathBeginningOffTheMapWhereItsUnitsStandIsToldAsForAHex) {
  game::View v;
  auto* st = v.add_stacks();
  st->set_location("WARSAW");
  st->set_side(game::GERMAN);
  st->add_units()->set_id("HG/II-Pz");
  st->add_units()->set_id("HG/I-2");
  auto* hex = v.add_stacks();
  hex->set_location("1225");
  hex->add_units()->set_id("HG/I-1");
  const auto from_warsaw = parse_order("move HG/II-Pz HG/I-2 WARSAW 1225", sc());
  ASSERT_TRUE(from_warsaw.ok()) << from_warsaw.error;
  EXPECT_EQ(location_in_view(v, "HG/I-2"), "WARSAW");
  EXPECT_EQ(path_start_hint(*from_warsaw.order, location_in_view(v, "HG/II-Pz")),
            "WARSAW is named where the units already are: a path lists only the locations entered.");
  // Leaving Warsaw as written, a hex (the rules' own words), another order: nothing to add.
  EXPECT_EQ(path_start_hint(*parse_order("move HG/II-Pz 1225", sc()).order, "WARSAW"), "");
  EXPECT_EQ(path_start_hint(*parse_order("move HG/I-1 1225 1226", sc()).order, location_in_view(v, "HG/I-1")), "");
  EXPECT_EQ(path_start_hint(*parse_order("recover HG/I-1 WARSAW", sc()).order, "WARSAW"), "");
  EXPECT_EQ(location_in_view(v, "3TC/50"), "");
}

TEST(Notation, Undo) {
  EXPECT_EQ(parsed("undo"), "undo { }");
  EXPECT_TRUE(mentions(error_of("undo 2"), "Unexpected '2'"));
}

TEST(Notation, UnknownWordsListTheOrders) {
  const std::string e = error_of("fly 3TC/50 1708");
  EXPECT_TRUE(mentions(e, "'fly' is not an order")) << e;
  EXPECT_TRUE(mentions(e, "move")) << e;
  EXPECT_TRUE(mentions(error_of(""), "Type an order"));
}

TEST(Notation, AMistypedOrderWordSuggestsTheNearestOrder) {
  const std::string e = error_of("corp 3TC");
  EXPECT_TRUE(mentions(e, "'corp' is not an order")) << e;
  EXPECT_TRUE(mentions(e, "Did you mean `corps`?")) << e;
  EXPECT_FALSE(mentions(error_of("frobnicate 3TC"), "Did you mean")) << "nothing near it";
}

TEST(Notation, ASwapOfTwoAdjacentLettersIsOneEdit) {
  EXPECT_EQ(cli::edit_distance("mvoe", "move"), 1u);
  EXPECT_EQ(cli::edit_distance("mvoe", "mute"), 2u);
  EXPECT_EQ(cli::edit_distance("stak", "stack"), 1u);
  EXPECT_EQ(cli::edit_distance("abc", "ca"), 3u) << "no letter is edited twice";
  EXPECT_TRUE(mentions(error_of("mvoe 3TC/1818 4740"), "Did you mean `move`?"));
}

TEST(Notation, EveryOrderWritesBackToTheSameOrder) {
  for (const char* line : {"move 3TC/50 3TC/51 1708 1709",
                           "done",
                           "corps 3TC +47",
                           "pd 73ID/186",
                           "lift 73ID/186",
                           "reserve 3TC/50",
                           "unreserve 3TC/50",
                           "break 19Pz/I-27 1816",
                           "stand",
                           "play SOV-REPLACE 3TC/50 corps 3TC at 2021",
                           "recover HG/I-1 WARSAW",
                           "suppress HG/I-1",
                           "choose HG/I-1 ART-HG",
                           "overrun 3TC/50 1816",
                           "barrage ART-HG 1816",
                           "attack 3TC/50 1816 with ART-3TC",
                           "support ART-HG",
                           "support ART-HG chit GER-WERFER",
                           "support chit GER-WERFER",
                           "nosupport",
                           "reroll",
                           "noreroll",
                           "attack 19Pz/I-27 1816 with Stuka-1 chit GER-KESSEL",
                           "losses 3TC/50 elastic 1 desperate 1",
                           "retreat 19Pz/I-27 1816 1716",
                           "advance 3TC/50 1816",
                           "advance",
                           "model reroll",
                           "model noreroll",
                           "model reactivate 19Pz/I-27",
                           "model noncontiguous",
                           "model division",
                           "undo"}) {
    auto r = parse_order(line, sc());
    ASSERT_TRUE(r.ok()) << line << ": " << r.error;
    auto again = parse_order(format_order(*r.order), sc());
    ASSERT_TRUE(again.ok()) << format_order(*r.order) << ": " << again.error;
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*r.order, *again.order)) << line;
  }
}

TEST(Notation, EveryOrderWordHasUsage) {
  for (const auto& w : order_words()) EXPECT_FALSE(order_usage(w).empty()) << w;
}

}  // namespace
}  // namespace counterattack::cli
