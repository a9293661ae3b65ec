// The scenario data files compiled into the program (generated at build time).
#pragma once

#include <map>
#include <string>

namespace counterattack {

// scenario name -> file stem -> text
const std::map<std::string, std::map<std::string, std::string>>& embedded_scenarios();

}  // namespace counterattack
