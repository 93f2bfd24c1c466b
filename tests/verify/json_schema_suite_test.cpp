// Runs the official JSON-Schema-Test-Suite (Debian's json-schema-test-suite package, installed by
// scripts/install-deps.sh, never copied here) for draft 7 through JsonSchema.
#include "ralph/verify/json_schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::verify {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path k_suite = "/usr/share/json-schema-test-suite";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The suite's remote documents, under the address its tests give them.
SchemaDocuments remotes() {
  SchemaDocuments documents;
  const fs::path root = k_suite / "remotes";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      const std::string relative = fs::relative(entry.path(), root).generic_string();
      documents.emplace("http://localhost:1234/" + relative, read_text(entry.path()));
    }
  }
  return documents;
}

struct Tally {
  int cases = 0;
  std::vector<std::string> failures;
};

void run_file(const fs::path& path, const SchemaDocuments& documents, Tally& tally) {
  const json groups = json::parse(read_text(path));
  for (const json& group : groups) {
    const std::string name =
        path.filename().string() + ": " + group.at("description").get<std::string>();
    const auto schema = JsonSchema::compile(group.at("schema").dump(), documents);
    for (const json& test : group.at("tests")) {
      ++tally.cases;
      const std::string label = name + " / " + test.at("description").get<std::string>();
      if (!schema) {
        tally.failures.push_back(label + ": refused: " + schema.error().message);
        continue;
      }
      const std::vector<std::string> errors = schema->validate(test.at("data"));
      const bool expected = test.at("valid").get<bool>();
      if (errors.empty() != expected) {
        tally.failures.push_back(
            label + (expected ? ": rejected: " + errors.front() : ": accepted, expected invalid"));
      }
    }
  }
}

// Every case of the suite's files under `folder` (recursively or not), but `skipped` (paths
// relative to the draft 7 folder, each with its reason).
void run_suite(const std::string& label, const fs::path& folder, bool recursive,
               const std::map<std::string, std::string>& skipped) {
  if (!fs::is_directory(folder)) {
    GTEST_SKIP() << folder << " is missing: install the Debian package json-schema-test-suite "
                 << "(scripts/install-deps.sh does)";
  }
  const fs::path draft7 = k_suite / "tests" / "draft7";
  std::set<fs::path> files;
  const auto add = [&](const fs::directory_entry& entry) {
    const std::string relative = fs::relative(entry.path(), draft7).generic_string();
    if (entry.is_regular_file() && entry.path().extension() == ".json" &&
        skipped.count(relative) == 0) {
      files.insert(entry.path());
    }
  };
  if (recursive) {
    std::for_each(fs::recursive_directory_iterator(folder), fs::recursive_directory_iterator(),
                  add);
  } else {
    std::for_each(fs::directory_iterator(folder), fs::directory_iterator(), add);
  }
  ASSERT_FALSE(files.empty());
  const SchemaDocuments documents = remotes();
  Tally tally;
  for (const fs::path& file : files) {
    run_file(file, documents, tally);
  }
  std::ostringstream failures;
  for (const std::string& failure : tally.failures) {
    failures << "\n  " << failure;
  }
  std::cout << label << ": " << tally.cases - static_cast<int>(tally.failures.size()) << " of "
            << tally.cases << " cases pass in " << files.size() << " files\n";
  EXPECT_TRUE(tally.failures.empty()) << tally.failures.size() << " cases fail:" << failures.str();
}

TEST(JsonSchemaSuite, PassesEveryDraft7Case) {
  run_suite("draft7", k_suite / "tests" / "draft7", false, {});
}

TEST(JsonSchemaSuite, PassesTheOptionalDraft7CasesForWhatItChecks) {
  // The README says why these two are not checked.
  const std::map<std::string, std::string> skipped = {
      {"optional/content.json", "contentMediaType and contentEncoding are annotations"},
      {"optional/format/idn-hostname.json", "the format is refused: it needs the IDNA tables"},
  };
  run_suite("draft7/optional", k_suite / "tests" / "draft7" / "optional", true, skipped);
}

TEST(JsonSchemaSuite, RefusesTheFormatItCannotCheck) {
  const auto schema = JsonSchema::compile(R"({"format": "idn-hostname"})");
  ASSERT_FALSE(schema);
  EXPECT_NE(schema.error().message.find("/format: ralph cannot check the format \"idn-hostname\""),
            std::string::npos)
      << schema.error().message;
}

} // namespace
} // namespace ralph::verify
