// Hex geometry (2 Components: the map's hex grid).
// Hexes are flat-topped and numbered CCRR; even columns sit half a hex lower.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace counterattack {

enum class Dir : std::uint8_t { N = 0, NE, SE, S, SW, NW };
constexpr int kDirs = 6;

struct HexCoord {
  int col = 0;  // from 1
  int row = 0;  // from 1
  friend bool operator==(const HexCoord&, const HexCoord&) = default;
};

constexpr int hex_id(HexCoord c) { return c.col * 100 + c.row; }
constexpr HexCoord coord_of(int id) { return {id / 100, id % 100}; }

// The neighbour in a direction (may lie outside the map).
HexCoord neighbour(HexCoord c, Dir d);
// Steps between two hexes on an unbounded grid.
int hex_distance(HexCoord a, HexCoord b);
// The direction from a to an adjacent b, if adjacent.
std::optional<Dir> direction_to(HexCoord a, HexCoord b);
constexpr Dir opposite(Dir d) { return static_cast<Dir>((static_cast<int>(d) + 3) % 6); }
// "0708" style, always four digits.
std::string format_hex(int id);
// Parses "708" or "0708"; nullopt when not a hex number.
std::optional<int> parse_hex(const std::string& text);

}  // namespace counterattack
