#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/common/units.h"

using namespace hiremate;

TEST(Units, PlainBytes) { EXPECT_EQ(parse_budget("41688", 46319), 41688); }

TEST(Units, FractionIsCeilOfBaseline) {
  EXPECT_EQ(parse_budget("0.9", 46319), 41688);
  EXPECT_EQ(parse_budget("0.8", 46319), 37056);
  EXPECT_EQ(parse_budget("0.7", 46319), 32424);
  EXPECT_EQ(parse_budget("90%", 46319), 41688);
  EXPECT_EQ(parse_budget("1.0", 46319), 46319);
  // exact: no floating-point rounding pushes an integer product up by one
  EXPECT_EQ(parse_budget("0.8", 38059356160), 30447484928);
  EXPECT_EQ(parse_budget("0.9", 13484795520), 12136315968);
}

TEST(Units, Units) {
  EXPECT_EQ(parse_budget("1.5GiB", 1), 1610612736);
  EXPECT_EQ(parse_budget("800MB", 1), 800000000);
  EXPECT_EQ(parse_budget("64KiB", 1), 65536);
  EXPECT_EQ(parse_budget("10B", 1), 10);
}

TEST(Units, BadBudgets) {
  for (const char* bad : {"", "0", "-5", "abc", "1.2", "5XB", "1..2", "0.0", "150%"}) {
    try {
      parse_budget(bad, 100);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const BadInput& e) {
      EXPECT_NE(std::string(e.what()).find("bad budget"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, FormatBytes) {
  EXPECT_EQ(format_bytes(812), "812 B");
  EXPECT_EQ(format_bytes(1610612736), "1.50 GiB");
}
