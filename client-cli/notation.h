// Orders as a wargamer types them ("move 3TC/50 1708 1709"), parsed into the
// protocol's Order messages, and written back the same way for the log.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "game.pb.h"
#include "scenario.h"

namespace counterattack::cli {

struct ParseResult {
  std::optional<game::Order> order;
  std::string error;  // what was expected, when order is empty
  bool ok() const { return order.has_value(); }
};

// One line of order notation. Unit, chit, corps and marker names are matched
// without regard to case and written as the scenario spells them; hexes are
// written with four digits. Locations are hexes, WARSAW or entry point ids.
ParseResult parse_order(const std::string& line, const Scenario& sc);

// The order words the parser knows, for help and completion.
const std::vector<std::string>& order_words();
// `s` in lower case (ASCII letters): words typed in any case are matched this way.
std::string lower(std::string s);
// Levenshtein distance between two words: a typo is named by the word it is nearest to.
std::size_t edit_distance(const std::string& a, const std::string& b);
// The word of `candidates` nearest to `typed`, two edits at most; of words as near, the first
// listed (callers list first what they prefer). Empty when none is that near.
std::string nearest_word(const std::string& typed, std::initializer_list<const std::vector<std::string>*> candidates);
// A one-line usage for an order word ("move UNIT... HEX..."), empty if unknown.
std::string order_usage(const std::string& word);

// The notation of an order (the inverse of parse_order).
std::string format_order(const game::Order& order);

// A move whose path begins off the map where its units already stand (WARSAW, an entry
// point): the rules refuse it naming the off-map chart, so this says, as they do for a hex,
// that a path lists only the locations entered. Empty for any other order.
std::string path_start_hint(const game::Order& order, const std::string& units_at);
// Where the view shows a unit ("" when it does not).
std::string location_in_view(const game::View& view, const std::string& unit);

// The event chit a word names, in the scenario's spelling, typed in any case.
std::optional<std::string> chit_named(const std::string& typed, const Scenario& sc);

// Splits a line at white space.
std::vector<std::string> split_words(const std::string& line);

}  // namespace counterattack::cli
