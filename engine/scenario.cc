#include "scenario.h"

namespace counterattack {

const char* side_name(Side s) { return s == Side::Soviet ? "Soviet" : "German"; }

Loc Scenario::hex_at(HexCoord c) const {
  if (c.col < 1 || c.col > columns || c.row < 1 || c.row > rows) return -1;
  return cell[static_cast<size_t>((c.col - 1) * rows + (c.row - 1))];
}

int Scenario::distance(Loc a, Loc b) const {
  return hex_distance(coord_of(hexes[static_cast<size_t>(a)].id), coord_of(hexes[static_cast<size_t>(b)].id));
}

int Scenario::off_map_node(Loc l) const {
  if (l == warsaw()) return static_cast<int>(entry_points.size());
  if (is_entry(l)) return entry_index(l);
  return -1;
}

std::uint32_t option_bit(const std::string& key) {
  if (key == "limited_german_activation") return kLimitedGermanActivation;
  if (key == "red_army_flexibility") return kRedArmyFlexibility;
  if (key == "limited_bonus") return kLimitedBonus;
  if (key == "red_army_elastic_defense") return kRedArmyElasticDefense;
  return 0;
}

std::uint32_t revision_bits(int revision) {
  std::uint32_t bits = 0;
  if (revision >= 2) bits |= kChaChaDice | kSupportAskedWhenChitsHeld;
  if (revision >= 3) bits |= kWholeCorpsSupplyCheck | kChitUnitClasses | kSurpriseAtPhaseStart;
  if (revision >= 4) bits |= kClearerTexts;
  if (revision >= 5) bits |= kTurnDates | kStacksSplitInMotion | kReservesEnterAtTheirEntry;
  if (revision >= 6) bits |= kReaderTexts | kKesselNeedsElasticDefense;
  return bits;
}

Prng::Kind dice_kind(std::uint32_t options) {
  return (options & kChaChaDice) ? Prng::Kind::ChaCha20 : Prng::Kind::Xoshiro256;
}

std::string Scenario::location_name(Loc l) const {
  if (is_hex(l)) return format_hex(hexes[static_cast<size_t>(l)].id);
  if (l == warsaw()) return "WARSAW";
  if (is_entry(l)) return entry_points[static_cast<size_t>(entry_index(l))].id;
  if (l == kEliminated) return "eliminated";
  if (l == kWithdrawn) return "Magnuszew";
  return "calendar";
}

std::optional<Loc> Scenario::parse_location(const std::string& text) const {
  if (auto hex = parse_hex(text)) {
    const Loc l = hex_by_id(*hex);
    if (l >= 0) return l;
    return std::nullopt;
  }
  std::string upper;
  for (char ch : text) upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  if (upper == "WARSAW" || upper == "WAW") return warsaw();
  for (size_t i = 0; i < entry_points.size(); ++i) {
    if (entry_points[i].id == text || entry_points[i].id == upper) return entry_loc(static_cast<int>(i));
  }
  return std::nullopt;
}

namespace {
template <typename M>
std::optional<int> find_in(const M& m, const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return it->second;
}
}  // namespace

std::string Scenario::turn_date(int turn) const {
  if (turn <= 0) return "";
  const int day = first_turn_day + turn - 1;  // a day of July 1944, past 31 into August
  return day <= 31 ? std::to_string(day) + " July 1944" : std::to_string(day - 31) + " August 1944";
}

std::string withdrawal_words(data::WithdrawalType type, WithdrawalWords form) {
  const bool brief = form == WithdrawalWords::Short, chart = form == WithdrawalWords::Chart;
  switch (type) {
    case data::WITHDRAW_ARMORED:
      return brief ? "armored" : chart ? "an armored unit (armor, mechanized, antitank)"
                                       : "an armored unit (armor, mechanized or antitank)";
    case data::WITHDRAW_INFANTRY:
      return brief ? "infantry" : chart ? "an infantry unit (any other class)"
                                        : "an infantry unit (infantry, motorized, cavalry, recon or engineer)";
    case data::WITHDRAW_ARTILLERY: return brief ? "artillery" : "an artillery marker";
    case data::WITHDRAW_PLANE: return brief ? "Stuka" : "a Stuka";
    default: return brief ? "item" : "an item";
  }
}

std::string Scenario::magnuszew_words(int turn, WithdrawalWords form) const {
  const auto it = magnuszew.find(turn);
  if (it == magnuszew.end()) return "nothing";
  const auto& need = it->second;
  std::string out;
  for (size_t i = 0; i < need.size(); ++i) {
    if (i > 0) {
      out += form == WithdrawalWords::Short  ? " + "
             : form == WithdrawalWords::Chart ? ", "
             : i + 1 == need.size()           ? " and "
                                              : ", ";
    }
    out += withdrawal_words(need[i], form);
  }
  return out;
}

std::optional<int> Scenario::unit_index(const std::string& key) const { return find_in(unit_by_id, key); }
std::optional<int> Scenario::formation_index(const std::string& key) const { return find_in(formation_by_id, key); }
std::optional<int> Scenario::event_index(const std::string& key) const { return find_in(event_by_id, key); }

}  // namespace counterattack
