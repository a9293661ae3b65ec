// 6 Movement, 7 Stacking, 8 Prepared defense, 13 Armored train, 17 Reinforcements.
#include "fixture.h"

namespace counterattack::testing {
namespace {

class Movement : public ::testing::Test {
 protected:
  void SetUp() override {
    t.clear_board();
    t.begin_phase(0, "1TC");
  }
  Table t;
};

TEST_F(Movement, Rule6_AUnitMayAlwaysMoveOneHex) {
  t.put("1TC/3", "0404");  // movement 3, disorganized: 2 MP
  t.s.set(t.unit("1TC/3"), kDisorganized);
  t.put("1TC/2", "0502");
  // Woods cost 2 MP each: woods, woods, clear, clear (6 MP) is too much for 1TC/2 (5 MP)...
  EXPECT_FALSE(t.move(Side::Soviet, {"1TC/2"}, {"0602", "0603", "0703", "0803"}).accepted);
  // ...and the marsh (3 MP) is more than 1TC/3 has, but one hex is always possible.
  EXPECT_TRUE(t.move(Side::Soviet, {"1TC/3"}, {"0405"}).accepted);
  EXPECT_FALSE(t.move(Side::Soviet, {"1TC/3"}, {"0406"}).accepted);
}

}  // namespace
}  // namespace counterattack::testing
