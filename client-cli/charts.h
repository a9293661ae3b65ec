// The game's charts and counters as a player reads them beside the map, drawn from the
// scenario's data (the printed charts are reconstructions: engine/scenarios/ keeps each
// table's note of where it comes from).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario.h"

namespace counterattack::cli {

// The charts `chart` shows, each with what it holds.
const std::vector<std::pair<std::string, std::string>>& chart_names();
// One chart by name (any case); nullopt for a name that is none.
std::optional<std::string> render_chart(const Scenario& sc, const std::string& name);
// The list of charts, for `chart` alone or a name that is none.
std::string chart_list();
// A counter's printed values (any case of its id): formation, class, each side's factors
// and bonuses, when and where it arrives, and what its movement lets it do; nullopt for no
// such unit. The counter sheet is public: it tells nothing of where an enemy unit is.
std::optional<std::string> render_unit_card(const Scenario& sc, const std::string& unit);

}  // namespace counterattack::cli
