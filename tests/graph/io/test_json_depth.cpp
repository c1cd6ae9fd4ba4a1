// The nesting limit of parse_json_text counts brackets outside strings only.
#include <gtest/gtest.h>

#include <string>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/graph/io/json_reader.h"

using namespace hiremate;

TEST(JsonDepth, BracketsInsideStringsDoNotCount) {
  std::string name = std::string(200, '[') + "\\\"" + std::string(200, '{');  // an escaped quote too
  std::string text = R"({"format": "hiremate-graph", "version": 1, "name": ")" + name +
                     R"(", "data": [{"name": "a", "kind": "data", "bytes": 8}],
      "compute": [{"name": "a", "kind": "forward", "time": 1, "deps": [], "outputs": ["a"]}]})";
  Graph g = parse_graph(text, "t.json");
  EXPECT_EQ(g.name, std::string(200, '[') + "\"" + std::string(200, '{'));
}

TEST(JsonDepth, TheLimitIsExact) {
  auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_NO_THROW(io::parse_json_text(nested(io::kMaxJsonDepth), "t.json"));
  try {
    io::parse_json_text(nested(io::kMaxJsonDepth + 1), "t.json");
    ADD_FAILURE() << "accepted";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: JSON nested deeper than 64 levels at line 1"), std::string::npos)
        << e.what();
  }
}
