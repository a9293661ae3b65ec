#include "hexgrid.h"

#include <cstdlib>

namespace counterattack {
namespace {

// Axial coordinates: q = column, r = row shifted so that straight lines stay straight.
struct Axial {
  int q, r;
};

Axial to_axial(HexCoord c) {
  // Column 1 is "odd" and sits high; even columns sit half a hex lower.
  const int q = c.col - 1;
  return {q, (c.row - 1) - (q - (q & 1)) / 2};
}

HexCoord from_axial(Axial a) {
  const int col0 = a.q;
  return {col0 + 1, a.r + (col0 - (col0 & 1)) / 2 + 1};
}

constexpr std::array<Axial, kDirs> kAxialDirs = {{
    {0, -1},   // N
    {1, -1},   // NE
    {1, 0},    // SE
    {0, 1},    // S
    {-1, 1},   // SW
    {-1, 0},   // NW
}};

}  // namespace

HexCoord neighbour(HexCoord c, Dir d) {
  const Axial a = to_axial(c);
  const Axial step = kAxialDirs[static_cast<int>(d)];
  return from_axial({a.q + step.q, a.r + step.r});
}

int hex_distance(HexCoord a, HexCoord b) {
  const Axial x = to_axial(a), y = to_axial(b);
  const int dq = x.q - y.q, dr = x.r - y.r;
  return (std::abs(dq) + std::abs(dr) + std::abs(dq + dr)) / 2;
}

std::optional<Dir> direction_to(HexCoord a, HexCoord b) {
  for (int d = 0; d < kDirs; ++d) {
    if (neighbour(a, static_cast<Dir>(d)) == b) return static_cast<Dir>(d);
  }
  return std::nullopt;
}

std::string format_hex(int id) {
  std::string s = std::to_string(id);
  while (s.size() < 4) s.insert(s.begin(), '0');
  return s;
}

std::optional<int> parse_hex(const std::string& text) {
  if (text.size() < 3 || text.size() > 4) return std::nullopt;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
  }
  const int id = std::stoi(text);
  if (id % 100 == 0 || id / 100 == 0) return std::nullopt;
  return id;
}

}  // namespace counterattack
