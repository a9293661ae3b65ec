// 2 Components: the hex grid the map is printed with.
#include <gtest/gtest.h>

#include "hexgrid.h"

namespace counterattack {
namespace {

TEST(HexGrid, Rule2_OddColumnNeighbours) {
  const HexCoord c{5, 5};
  EXPECT_EQ(hex_id(neighbour(c, Dir::N)), 504);
  EXPECT_EQ(hex_id(neighbour(c, Dir::NE)), 604);
  EXPECT_EQ(hex_id(neighbour(c, Dir::SE)), 605);
  EXPECT_EQ(hex_id(neighbour(c, Dir::S)), 506);
  EXPECT_EQ(hex_id(neighbour(c, Dir::SW)), 405);
  EXPECT_EQ(hex_id(neighbour(c, Dir::NW)), 404);
}

TEST(HexGrid, Rule2_EvenColumnsSitHalfAHexLower) {
  const HexCoord c{4, 5};
  EXPECT_EQ(hex_id(neighbour(c, Dir::N)), 404);
  EXPECT_EQ(hex_id(neighbour(c, Dir::NE)), 505);
  EXPECT_EQ(hex_id(neighbour(c, Dir::SE)), 506);
  EXPECT_EQ(hex_id(neighbour(c, Dir::S)), 406);
  EXPECT_EQ(hex_id(neighbour(c, Dir::SW)), 306);
  EXPECT_EQ(hex_id(neighbour(c, Dir::NW)), 305);
}

TEST(HexGrid, Rule2_NeighbourhoodIsSymmetric) {
  for (int col = 2; col < 9; ++col) {
    for (int row = 2; row < 9; ++row) {
      for (int d = 0; d < kDirs; ++d) {
        const HexCoord a{col, row};
        const HexCoord b = neighbour(a, static_cast<Dir>(d));
        EXPECT_EQ(neighbour(b, opposite(static_cast<Dir>(d))), a);
        EXPECT_EQ(hex_distance(a, b), 1);
        EXPECT_EQ(direction_to(a, b), static_cast<Dir>(d));
      }
    }
  }
}

TEST(HexGrid, Rule2_DistanceCountsHexes) {
  EXPECT_EQ(hex_distance({5, 5}, {5, 5}), 0);
  EXPECT_EQ(hex_distance({5, 5}, {5, 9}), 4);   // straight down a column
  EXPECT_EQ(hex_distance({1, 1}, {7, 4}), 6);   // diagonal: one hex per column
  EXPECT_EQ(hex_distance({1, 1}, {7, 1}), 6);
  EXPECT_EQ(hex_distance({1, 1}, {7, 8}), 10);
}

TEST(HexGrid, Rule2_HexNumbersAreWrittenWithFourDigits) {
  EXPECT_EQ(format_hex(708), "0708");
  EXPECT_EQ(parse_hex("0708"), 708);
  EXPECT_EQ(parse_hex("1708"), 1708);
  EXPECT_FALSE(parse_hex("17a8").has_value());
  EXPECT_FALSE(parse_hex("1700").has_value());
  EXPECT_FALSE(parse_hex("12345").has_value());
}

}  // namespace
}  // namespace counterattack
