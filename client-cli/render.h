// What the player sees in the terminal: the map window, the tracks, the hand,
// the decision and the game log, drawn from a View and the public scenario data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "game.pb.h"
#include "scenario.h"

namespace counterattack::cli {

struct RenderOptions {
  bool colour = true;
  int center_hex = 0;  // CCRR; 0 picks the viewer's own units, or the map's middle
  int width = 120;     // terminal columns
  int hex_rows = 12;   // hex rows in the window
  bool full = false;   // the whole map at a small scale, every stack listed
  int log_lines = 12;  // the latest events shown; 0 for all
  // How the player asks for the whole log where they are: `log` in the shell.
  std::string whole_log = "type log for all";
  // The index among the events shown of the first since the player last looked,
  // marked with a line before it; -1: no mark (nothing new, or not known).
  std::ptrdiff_t new_from = -1;
  // Parallel to the events given to render_events: the version of each event's order and
  // its time (Unix seconds): each order's time begins its first line, the date on a line of
  // its own when it changes. Empty (or not parallel): no times.
  std::vector<std::int64_t> event_versions = {}, event_times = {};
  // Who reads the log. A finished game's log holds both sides' own lines ("You draw the event ..."):
  // one for a side that is not the reader's (a spectator's: either side's) is led by that side's name.
  // Unspecified: the lines as given.
  game::ViewerKind reader = game::VIEWER_UNSPECIFIED;
};

// The window of the map: which columns and rows it shows.
struct Window {
  int col0 = 1, row0 = 1, cols = 0, rows = 0;
  bool contains(int hex) const;
};
Window map_window(const Scenario& sc, const game::View& v, const RenderOptions& o);

// The map window: hex numbers, terrain, roads, rivers and streams, victory
// hexes and stacks (side, height, markers, hidden units), with a legend.
std::string render_map(const Scenario& sc, const game::View& v, const RenderOptions& o);
// The whole map, two characters a hex.
std::string render_full_map(const Scenario& sc, const game::View& v, const RenderOptions& o);
// The stacks in the window (all with o.full), off-map locations included.
std::string render_stacks(const Scenario& sc, const game::View& v, const RenderOptions& o);
// Turn, phase, step, VP, Warsaw Uprising, Magnuszew, Model, markers, loss boxes.
std::string render_tracks(const Scenario& sc, const game::View& v, const RenderOptions& o);
// The viewer's event chits (the opponent's count only).
std::string render_hands(const Scenario& sc, const game::View& v, const RenderOptions& o);
// Whose decision it is, what is asked and the candidates, with the notation to answer.
std::string render_decision(const game::View& v, const RenderOptions& o);
// The game log in words.
std::string render_events(const std::vector<game::Event>& events, const RenderOptions& o);
// What is seen at a location ("2021", WARSAW, an entry point), every unit listed;
// "Nothing seen at X." when nothing is; nothing when `where` names no location.
std::optional<std::string> render_stack_at(const Scenario& sc, const game::View& v, const std::string& where,
                                           const RenderOptions& o);
// A side's units on the board (`side`: the player's, which a finished game's full
// view does not name), one a line, with their strength (combat-movement, steps left), the MP
// left to a unit in motion, and their state (reduced, activated this turn, reserve...).
std::string render_units(const Scenario& sc, const game::View& v, game::Side side);
// Movement points counted in halves, as the charts write them: 7 as "3.5", 4 as "2".
std::string mp_text(int halves);
// Everything above, as one screen.
std::string render_screen(const Scenario& sc, const game::View& v,
                          const std::vector<game::Event>& events, const RenderOptions& o);

// A hex number as typed ("2708"), when it lies inside the map's frame (a window can centre there).
std::optional<int> parse_map_hex(const Scenario& sc, const std::string& text);
// The side a view belongs to (a player's), or SIDE_UNSPECIFIED.
game::Side viewer_side(const game::View& v);
// The viewer's own units on the board, by id.
std::vector<std::string> own_units(const game::View& v);
// The order words that answer a decision, as a hint ("corps CORPS [+47]").
std::string decision_hint(const game::View& v);
// A time in UTC to the minute: "2026-11-27 08:14".
std::string utc_minute(std::int64_t unix_seconds);
// "Soviet victory: The German player resigned": a result and its reason, with no full stop at the end
// (an ellipsis, "!" or "?" of the reason stays). A reason that names its result ("Aborted by the
// server's operator: ...") is said alone, so that the result is not said twice.
std::string result_with_reason(const std::string& result, const std::string& reason);
// `text` ended as a sentence: a full stop, unless it ends in one already ("...", "!", "?").
std::string end_sentence(std::string text);
// Columns a text takes on the terminal: colour codes take none, UTF-8 counts by code point
// (a character of two columns is counted as one).
int visible_len(const std::string& s);
// Rows `text` takes on a terminal `width` columns wide, as the terminal wraps its lines (a line
// longer than the width takes as many rows as it fills); width 0 (not known): a row a line.
std::size_t terminal_rows(const std::string& text, std::size_t width);

}  // namespace counterattack::cli
