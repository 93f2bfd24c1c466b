#include "support/temp_dir.h"

#include "ralph/store/trace_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ralph::store {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TraceEntry entry(const std::string& id, int iteration,
                 std::string created_at = "2026-01-01T00:00:00.000Z",
                 const std::string& body = "") {
  TraceEntry e;
  e.session_id = id;
  e.goal = "goal of " + id;
  e.created_at = std::move(created_at);
  e.iteration = iteration;
  e.json = json{{"session_id", id}, {"iteration", iteration}, {"body", body}}.dump();
  return e;
}

json read_index(const testing::TempDir& dir) {
  return json::parse(dir.read("traces/session-index.json"));
}

// session id -> iterations, in index order, failing on a repeated id.
std::map<std::string, std::vector<int>> listed(const json& index) {
  std::map<std::string, std::vector<int>> out;
  for (const json& session : index.at("sessions")) {
    std::vector<int> iterations;
    for (const json& item : session.at("iterations")) {
      iterations.push_back(item.at("iteration").get<int>());
    }
    EXPECT_TRUE(out.emplace(session.at("id").get<std::string>(), iterations).second)
        << session.at("id") << " is listed twice";
  }
  return out;
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(folder)) {
    names.push_back(item.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(TraceWriter, WritesArchiveLatestCopyAndIndexWithRelativePaths) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  for (const int iteration : {2, 1}) {
    auto warnings = writer.write(entry("s1", iteration, "2026-01-01T00:00:00.000Z", "b"));
    ASSERT_TRUE(warnings) << warnings.error().message;
    EXPECT_THAT(*warnings, IsEmpty());
  }
  const std::string first = entry("s1", 1, "", "b").json;
  EXPECT_EQ(dir.read("traces/sessions/s1/iter-01.json"), first);
  EXPECT_EQ(dir.read("traces/iter-01.json"), first);
  EXPECT_EQ(dir.read("traces/iter-02.json"), entry("s1", 2, "", "b").json);

  const json index = read_index(dir);
  EXPECT_EQ(index["version"], 1);
  ASSERT_EQ(index["sessions"].size(), 1u);
  const json& session = index["sessions"][0];
  EXPECT_EQ(session["id"], "s1");
  EXPECT_EQ(session["goal"], "goal of s1");
  EXPECT_EQ(session["created_at"], "2026-01-01T00:00:00.000Z");
  EXPECT_TRUE(session["updated_at"].get<std::string>().ends_with("Z"));
  EXPECT_EQ(session["iterations"],
            json::parse(R"([{"iteration": 1, "path": "sessions/s1/iter-01.json"},
                            {"iteration": 2, "path": "sessions/s1/iter-02.json"}])"));
  for (const json& item : session["iterations"]) {
    const fs::path path = item["path"].get<std::string>();
    EXPECT_TRUE(path.is_relative());
    EXPECT_TRUE(fs::exists(dir.path() / "traces" / path));
  }
}

TEST(TraceWriter, IterationNumbersUseTwoDigitsAndMoreWhenNeeded) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  ASSERT_TRUE(writer.write(entry("s", 7)));
  ASSERT_TRUE(writer.write(entry("s", 100)));
  EXPECT_TRUE(fs::exists(dir.path() / "traces/sessions/s/iter-07.json"));
  EXPECT_TRUE(fs::exists(dir.path() / "traces/sessions/s/iter-100.json"));
  EXPECT_EQ(read_index(dir)["sessions"][0]["iterations"][1]["path"], "sessions/s/iter-100.json");
}

TEST(TraceWriter, RewritingAnIterationReplacesItAndListsItOnce) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  ASSERT_TRUE(writer.write(entry("s", 1, "2026-01-01T00:00:00.000Z", "old")));
  const auto again = entry("s", 1, "2026-01-01T00:00:00.000Z", "new");
  ASSERT_TRUE(writer.write(again));
  EXPECT_EQ(dir.read("traces/sessions/s/iter-01.json"), again.json);
  EXPECT_EQ(dir.read("traces/iter-01.json"), again.json);
  EXPECT_EQ(listed(read_index(dir)), (std::map<std::string, std::vector<int>>{{"s", {1}}}));
}

TEST(TraceWriter, SessionsAreOrderedByCreationTimeThenId) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  ASSERT_TRUE(writer.write(entry("late", 1, "2026-03-01T00:00:00.000Z")));
  ASSERT_TRUE(writer.write(entry("b-early", 1, "2026-01-01T00:00:00.000Z")));
  ASSERT_TRUE(writer.write(entry("a-early", 2, "2026-01-01T00:00:00.000Z")));
  ASSERT_TRUE(writer.write(entry("b-early", 2, "2026-01-01T00:00:00.000Z")));
  const json index = read_index(dir);
  std::vector<std::string> order;
  for (const json& session : index["sessions"]) {
    order.push_back(session["id"]);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"a-early", "b-early", "late"}));
  EXPECT_EQ(listed(index)["b-early"], (std::vector<int>{1, 2}));
}

TEST(TraceWriter, RefusesSessionIdsThatAreNotOneFolderName) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  for (const std::string& id : {std::string(), std::string("."), std::string(".."),
                                std::string("../escape"), std::string("a/b"), std::string("/abs"),
                                std::string("a\\b"), std::string("a..b"), std::string("a\0b", 3)}) {
    const auto written = writer.write(entry(id, 1));
    ASSERT_FALSE(written) << id;
    EXPECT_EQ(written.error().kind, ErrorKind::usage);
    EXPECT_THAT(written.error().message, HasSubstr("folder name"));
  }
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{}); // nothing created anywhere
  const auto negative = writer.write(entry("s", -1));
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().kind, ErrorKind::usage);
}

TEST(TraceWriter, MissingIndexIsRebuiltFromTheArchive) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  ASSERT_TRUE(writer.write(entry("s1", 1, "2026-01-01T00:00:00.000Z")));
  ASSERT_TRUE(writer.write(entry("s2", 1, "2026-01-02T00:00:00.000Z")));
  fs::remove(dir.path() / "traces/session-index.json");
  const auto warnings = writer.write(entry("s3", 1, "2026-01-03T00:00:00.000Z"));
  ASSERT_TRUE(warnings) << warnings.error().message;
  ASSERT_EQ(warnings->size(), 1u);
  EXPECT_THAT((*warnings)[0], HasSubstr("missing; rebuilt it from 3 archived trace(s)"));
  const json index = read_index(dir);
  EXPECT_EQ(listed(index),
            (std::map<std::string, std::vector<int>>{{"s1", {1}}, {"s2", {1}}, {"s3", {1}}}));
  EXPECT_EQ(index["sessions"][0]["goal"], "goal of s1");
  EXPECT_EQ(index["sessions"][1]["created_at"], "2026-01-02T00:00:00.000Z");
}

struct Corruption {
  const char* name;
  const char* content;
  const char* reason; // part of the warning
};

class CorruptIndex : public ::testing::TestWithParam<Corruption> {};

TEST_P(CorruptIndex, IsReportedKeptAsACopyAndRebuiltFromTheArchive) {
  testing::TempDir dir;
  TraceWriter writer(dir.path() / "traces");
  ASSERT_TRUE(writer.write(entry("s1", 1, "2026-01-01T00:00:00.000Z")));
  ASSERT_TRUE(writer.write(entry("s1", 2, "2026-01-01T00:00:00.000Z")));
  ASSERT_TRUE(writer.write(entry("s2", 1, "2026-01-02T00:00:00.000Z")));
  dir.write("traces/session-index.json", GetParam().content);

  const auto warnings = writer.write(entry("s3", 4, "2026-01-03T00:00:00.000Z"));
  ASSERT_TRUE(warnings) << warnings.error().message;
  ASSERT_EQ(warnings->size(), 1u);
  EXPECT_THAT((*warnings)[0], HasSubstr("session-index.json was corrupt"));
  EXPECT_THAT((*warnings)[0], HasSubstr(GetParam().reason));
  EXPECT_THAT((*warnings)[0], HasSubstr("rebuilt the index from 4 archived trace(s)"));

  const json index = read_index(dir);
  EXPECT_EQ(listed(index),
            (std::map<std::string, std::vector<int>>{{"s1", {1, 2}}, {"s2", {1}}, {"s3", {4}}}));
  EXPECT_EQ(index["sessions"][0]["goal"], "goal of s1");
  EXPECT_EQ(index["sessions"][0]["created_at"], "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(index["sessions"][0]["iterations"][1]["path"], "sessions/s1/iter-02.json");

  std::vector<std::string> copies;
  for (const std::string& name : names_in(dir.path() / "traces")) {
    if (name.starts_with("session-index.json.corrupt-")) {
      copies.push_back(name);
    }
  }
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_THAT((*warnings)[0], HasSubstr(copies[0]));
  EXPECT_EQ(dir.read("traces/" + copies[0]), GetParam().content);

  // The rebuilt index is healthy: the next write reports nothing.
  const auto next = writer.write(entry("s3", 5, "2026-01-03T00:00:00.000Z"));
  ASSERT_TRUE(next);
  EXPECT_THAT(*next, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    TraceWriter, CorruptIndex,
    ::testing::Values(
        Corruption{"garbage", "\x01\x02 not json at all", "malformed JSON"},
        Corruption{"truncated", R"({"version": 1, "sessions": [{"id": "s1", "go)",
                   "malformed JSON"},
        Corruption{"empty", "", "the file is empty"},
        Corruption{"version_is_a_string", R"({"version": "1", "sessions": []})", "not an integer"},
        Corruption{"newer_version", R"({"version": 2, "sessions": []})", "version 2"},
        Corruption{"sessions_not_a_list", R"({"version": 1, "sessions": {}})", "not a list"},
        Corruption{"not_an_object", "[1, 2]", "not a JSON object"},
        Corruption{"session_without_id", R"({"version": 1, "sessions": [{"goal": "g"}]})",
                   "session #1"},
        Corruption{"escaping_id",
                   R"({"version": 1, "sessions": [{"id": "../x", "goal": "", "created_at": "",
                       "updated_at": "", "iterations": []}]})",
                   "unusable"}),
    [](const auto& test) { return std::string(test.param.name); });

TEST(TraceWriter, RebuildReadsTraceDocumentsWhenSessionRecordsAreMissing) {
  testing::TempDir dir;
  dir.write("traces/sessions/old/iter-01.json",
            R"({"goal": "from the trace", "created_at": "2025-05-05T00:00:00.000Z"})");
  dir.write("traces/sessions/bare/iter-03.json", "not even json");
  // Not traces: a temporary, a foreign file, a hand-made name.
  dir.write("traces/sessions/old/.iter-02.json.tmp-0123456789abcdef", "{}");
  dir.write("traces/sessions/old/notes.txt", "x");
  dir.write("traces/sessions/old/iter-2.json", "{}");
  dir.write("traces/session-index.json", "{");
  TraceWriter writer(dir.path() / "traces");
  const auto warnings = writer.write(entry("new", 1, "2026-01-01T00:00:00.000Z"));
  ASSERT_TRUE(warnings) << warnings.error().message;
  EXPECT_THAT((*warnings)[0], HasSubstr("from 3 archived trace(s)"));
  const json index = read_index(dir);
  EXPECT_EQ(listed(index),
            (std::map<std::string, std::vector<int>>{{"old", {1}}, {"bare", {3}}, {"new", {1}}}));
  EXPECT_EQ(index["sessions"][0]["id"], "old");
  EXPECT_EQ(index["sessions"][0]["goal"], "from the trace");
  for (const json& session : index["sessions"]) {
    if (session["id"] == "bare") {
      EXPECT_EQ(session["goal"], "");
      EXPECT_TRUE(session["created_at"].get<std::string>().ends_with("Z")); // file time
    }
  }
}

// Several processes, each with several threads, write into one folder at once while a reader
// keeps parsing the index: every entry must end up listed exactly once, and no read may ever
// see a half-written file.
TEST(TraceWriter, ConcurrentWritersFromThreadsAndProcessesListEveryEntryOnce) {
  testing::TempDir dir;
  const fs::path traces = dir.path() / "traces";
  constexpr int k_processes = 3; // forked children; the parent writes too
  constexpr int k_threads = 3;
  constexpr int k_iterations = 4;
  const auto write_all = [&](int process) {
    std::vector<std::thread> threads;
    std::atomic<bool> failed{false};
    for (int t = 0; t < k_threads; ++t) {
      threads.emplace_back([&, t] {
        TraceWriter writer(traces);
        const std::string own = "p" + std::to_string(process) + "-t" + std::to_string(t);
        for (int i = 1; i <= k_iterations; ++i) {
          // One session shared by everyone, each writer with its own iterations.
          const int shared = 100 * process + 10 * t + i;
          if (!writer.write(entry(own, i, "2026-01-01T00:00:00.000Z", std::string(2000, 'x'))) ||
              !writer.write(entry("shared", shared, "2026-01-01T00:00:00.000Z"))) {
            failed = true;
          }
        }
      });
    }
    for (auto& thread : threads) {
      thread.join();
    }
    return !failed;
  };

  // Fork before any thread exists in this process.
  std::vector<pid_t> children;
  for (int p = 1; p <= k_processes; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::_exit(write_all(p) ? 0 : 1);
    }
    children.push_back(pid);
  }

  std::atomic<bool> done{false};
  int reads = 0;
  int bad_reads = 0;
  std::thread reader([&] {
    const auto read_once = [&] {
      std::ifstream in(traces / "session-index.json", std::ios::binary);
      if (!in) {
        return; // not created yet
      }
      std::ostringstream content;
      content << in.rdbuf();
      const std::string text = content.str();
      ++reads;
      bad_reads += json::parse(text, nullptr, false).is_discarded() ? 1 : 0;
    };
    while (!done) {
      read_once();
      std::this_thread::yield();
    }
    read_once();
  });
  const bool parent_ok = write_all(0);
  for (const pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  done = true;
  reader.join();
  EXPECT_TRUE(parent_ok);
  EXPECT_GT(reads, 0);
  EXPECT_EQ(bad_reads, 0);

  std::map<std::string, std::vector<int>> expected;
  for (int p = 0; p <= k_processes; ++p) {
    for (int t = 0; t < k_threads; ++t) {
      for (int i = 1; i <= k_iterations; ++i) {
        expected["p" + std::to_string(p) + "-t" + std::to_string(t)].push_back(i);
        expected["shared"].push_back(100 * p + 10 * t + i);
      }
    }
  }
  std::sort(expected["shared"].begin(), expected["shared"].end());
  const json index = read_index(dir);
  EXPECT_EQ(listed(index), expected);
  for (const json& session : index["sessions"]) {
    for (const json& item : session["iterations"]) {
      EXPECT_TRUE(fs::exists(traces / item["path"].get<std::string>())) << item["path"];
    }
  }
  // The latest copies are whole documents too, and no temporary is left anywhere.
  for (const auto& item : fs::recursive_directory_iterator(traces)) {
    const std::string name = item.path().filename().string();
    EXPECT_FALSE(name.find(".tmp-") != std::string::npos) << item.path();
    if (name.ends_with(".json") && item.is_regular_file()) {
      EXPECT_FALSE(
          json::parse(dir.read(fs::relative(item.path(), dir.path()).string()), nullptr, false)
              .is_discarded())
          << item.path();
    }
  }
}

TEST(WriteFileAtomically, ReplacesTheFileKeepsItsModeAndLeavesNoTemporaries) {
  testing::TempDir dir;
  const fs::path path = dir.write("f.txt", "old content");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomically(path, "new"));
  EXPECT_EQ(dir.read("f.txt"), "new");
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_TRUE(write_file_atomically(dir.path() / "g.txt", ""));
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"f.txt", "g.txt"}));
}

TEST(WriteFileAtomically, AMissingFolderIsAnIoErrorNamingThePath) {
  testing::TempDir dir;
  const auto written = write_file_atomically(dir.path() / "missing" / "f.txt", "x");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().kind, ErrorKind::io);
  EXPECT_THAT(written.error().message, HasSubstr("missing/f.txt"));
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{});
}

} // namespace
} // namespace ralph::store
