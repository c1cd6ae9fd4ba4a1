// Every malformed file in tests/bad_inputs is rejected with BadInput and a message that names the
// problem. The manifest EXPECTED.tsv (<file> TAB <fragment>) is the single list: the CLI tests read
// it too, and this test checks that it names every file in the folder and nothing else. Files named
// schedule_* are schedules for examples/unet-dag.json: rejected when read or found invalid by simulate().
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/schedule/simulate.h"

using namespace hiremate;

namespace {

const std::string kBadDir = std::string(HIREMATE_SOURCE_DIR) + "/tests/bad_inputs";

struct Case {
  std::string file, fragment;
};

std::vector<Case> manifest() {
  std::ifstream in(kBadDir + "/EXPECTED.tsv");
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;  // as the CLI test reads it
    size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      ADD_FAILURE() << "EXPECTED.tsv line without a tab: " << line;
      continue;
    }
    cases.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return cases;
}

}  // namespace

TEST(Validation, ManifestListsEveryBadFile) {
  std::set<std::string> listed, present;
  for (const Case& c : manifest()) EXPECT_TRUE(listed.insert(c.file).second) << c.file << " listed twice";
  for (const auto& entry : std::filesystem::directory_iterator(kBadDir))
    if (entry.path().filename() != "EXPECTED.tsv") present.insert(entry.path().filename().string());
  EXPECT_EQ(listed, present);
  EXPECT_GE(listed.size(), 85u);
}

TEST(Validation, EveryBadScheduleIsRejectedWithItsMessage) {
  Graph g = load_graph(std::string(HIREMATE_SOURCE_DIR) + "/examples/unet-dag.json");
  int schedules = 0;
  for (const Case& c : manifest()) {
    if (c.file.rfind("schedule_", 0) != 0) continue;
    SCOPED_TRACE(c.file);
    ++schedules;
    std::string msg;
    try {
      SimResult r = simulate(g, load_schedule(g, kBadDir + "/" + c.file));
      EXPECT_FALSE(r.valid) << c.file << " was accepted";
      msg = r.reason;
    } catch (const BadInput& e) {
      msg = e.what();
      EXPECT_NE(msg.find(c.file), std::string::npos) << "the message does not name the file: " << msg;
    }
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << "message: " << msg << "\nexpected: " << c.fragment;
  }
  EXPECT_GE(schedules, 8);
}

TEST(Validation, EveryBadFileIsRejectedWithItsMessage) {
  for (const Case& c : manifest()) {
    if (c.file.rfind("schedule_", 0) == 0) continue;
    SCOPED_TRACE(c.file);
    std::string path = kBadDir + "/" + c.file;
    try {
      load_graph(path);
      ADD_FAILURE() << c.file << " was accepted";
    } catch (const BadInput& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(c.fragment), std::string::npos) << "message: " << msg << "\nexpected: " << c.fragment;
      EXPECT_NE(msg.find(c.file), std::string::npos) << "the message does not name the file: " << msg;
    }
  }
}
