// Deltas between two views of one viewer: the only form in which a game's
// changes travel. A delta is computed from views, never from states, so it can
// carry nothing the newer view does not already show.
#pragma once

#include <vector>

#include "engine.h"
#include "game.pb.h"

namespace counterattack {

// The canonical order of stacks in a view: hexes by number, then other
// locations by name; at one location the Soviet stack first.
bool location_before(const std::string& a, const std::string& b);
bool stack_before(const game::StackView& a, const game::StackView& b);
// How a delta names a stack it removes: "1708/GERMAN".
std::string stack_key(const std::string& location, game::Side side);

game::ViewDelta diff_views(const game::View& before, const game::View& after);
// Applies a delta; false when it does not fit (a stack removed that is not there).
bool apply_delta(game::View& view, const game::ViewDelta& delta);
// The same, taking the delta's parts instead of copying them; the delta is left unspecified.
bool apply_delta(game::View& view, game::ViewDelta&& delta);
// True when the delta changes nothing (events aside).
bool delta_is_empty(const game::ViewDelta& delta);
// The events of one accepted order that a viewer may read.
std::vector<game::Event> events_for(const std::vector<game::Event>& events, Viewer viewer);

}  // namespace counterattack
