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

TEST(Units, UnitsAreCaseInsensitive) {
  EXPECT_EQ(parse_budget("1.5gb", 1), 1500000000);
  EXPECT_EQ(parse_budget("1.5gib", 1), 1610612736);
  EXPECT_EQ(parse_budget("800Mb", 1), 800000000);
  EXPECT_EQ(parse_budget("64kib", 1), 65536);
  EXPECT_EQ(parse_budget("10b", 1), 10);
}

TEST(Units, GroupDigitsAndSeconds) {
  EXPECT_EQ(group_digits(0), "0");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(7616524), "7,616,524");
  EXPECT_EQ(group_digits(-1234), "-1,234");
  EXPECT_EQ(group_digits(INT64_MIN), "-9,223,372,036,854,775,808");
  EXPECT_EQ(format_seconds(4.3993006900000005), "4.4 s");
  EXPECT_EQ(format_seconds(0.25), "0.25 s");
  EXPECT_EQ(format_seconds(0.0032), "3.2 ms");
  EXPECT_EQ(format_seconds(0.0000069), "7 µs");
  EXPECT_EQ(tidy_numbers("autograd needs 49283072 bytes, node 123456"), "autograd needs 49,283,072 bytes, node 123456");
  EXPECT_EQ(format_quantity(4.3993006900000005), "4.3993");
  EXPECT_EQ(format_quantity(1.02784e+13), "10,278,400,000,000");
  EXPECT_EQ(tidy_numbers("time limit of 4.3993006900000005 s reached, cost 1.02784e+13, gap 2.50 %"),
            "time limit of 4.399 s reached, cost 10,278,400,000,000, gap 2.50 %");
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
