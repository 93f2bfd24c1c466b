#include "support/temp_dir.h"

#include "ralph/core/text.h"
#include "ralph/store/memory_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <thread>
#include <vector>

namespace ralph::store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string block(int n, std::string_view text) {
  return "## Iter " + std::to_string(n) + " - T\n" + std::string(text) + "\n";
}

// The memory after appending blocks 1..count with `text`, one at a time.
std::string appended(int count, std::string_view text, std::size_t budget) {
  std::string memory;
  for (int n = 1; n <= count; ++n) {
    memory = append_memory_block(memory, n, "T", text, budget);
  }
  return memory;
}

int occurrences(std::string_view text, std::string_view what) {
  int count = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos;
       at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

TEST(MemoryFile, EmptyMemoryGetsOneBlock) {
  EXPECT_EQ(append_memory_block("", 1, "2026-01-01T00:00:00.000Z", "learned x\n\n"),
            "## Iter 1 - 2026-01-01T00:00:00.000Z\nlearned x\n");
}

TEST(MemoryFile, BlocksUnderTheBudgetAreSeparatedByABlankLine) {
  EXPECT_EQ(appended(3, "abc", 1500),
            block(1, "abc") + "\n" + block(2, "abc") + "\n" + block(3, "abc"));
}

TEST(MemoryFile, TrimsOldestBlocksFirstBehindOneCountLine) {
  const std::string kept =
      "[trimmed 2 older block(s)]\n\n" + block(3, "abc") + "\n" + block(4, "abc");
  // The count line counts toward the budget: exactly its length keeps two blocks...
  EXPECT_EQ(appended(4, "abc", kept.size()), kept);
  // ...and one less trims one more.
  EXPECT_EQ(appended(4, "abc", kept.size() - 1),
            "[trimmed 3 older block(s)]\n\n" + block(4, "abc"));
}

TEST(MemoryFile, ExactlyTheBudgetIsNotTrimmed) {
  const std::string both = block(1, "abc") + "\n" + block(2, "abc");
  EXPECT_EQ(append_memory_block(block(1, "abc"), 2, "T", "abc", both.size()), both);
  EXPECT_EQ(append_memory_block(block(1, "abc"), 2, "T", "abc", both.size() - 1),
            "[trimmed 1 older block(s)]\n\n" + block(2, "abc"));
}

TEST(MemoryFile, NewestBlockIsKeptWholeEvenOverTheBudget) {
  const std::string huge(500, 'h');
  EXPECT_EQ(append_memory_block("", 1, "T", huge, 10), block(1, huge));
  const std::string before = appended(3, "abc", 1500);
  EXPECT_EQ(append_memory_block(before, 4, "T", huge, 10),
            "[trimmed 3 older block(s)]\n\n" + block(4, huge));
}

TEST(MemoryFile, RepeatedTrimsAccumulateTheCountInOneLine) {
  std::string memory;
  for (int n = 1; n <= 30; ++n) {
    memory = append_memory_block(memory, n, "T", "some finding", 120);
    EXPECT_LE(utf8_length(memory), 120u);
    const int blocks = occurrences(memory, "## Iter ");
    const int trimmed = n - blocks;
    if (trimmed == 0) {
      EXPECT_EQ(occurrences(memory, "[trimmed"), 0);
      continue;
    }
    // One count line, at the top, never counted as a block, holding every block trimmed.
    EXPECT_EQ(occurrences(memory, "[trimmed"), 1) << memory;
    EXPECT_TRUE(memory.starts_with("[trimmed " + std::to_string(trimmed) + " older block(s)]\n\n"))
        << memory;
    EXPECT_TRUE(memory.ends_with(block(n, "some finding")));
  }
  EXPECT_GT(occurrences(memory, "## Iter "), 1);
}

TEST(MemoryFile, BudgetCountsCodePointsNotBytes) {
  const std::string accents = "éééééééééé"; // 10 code points, 20 bytes
  const std::string both = block(1, accents) + "\n" + block(2, accents);
  ASSERT_GT(both.size(), utf8_length(both));
  EXPECT_EQ(appended(2, accents, utf8_length(both)), both);
  EXPECT_EQ(appended(2, accents, utf8_length(both) - 1),
            "[trimmed 1 older block(s)]\n\n" + block(2, accents));
}

TEST(MemoryFile, HandEditedFileKeepsItsPreambleAndMovesTheCountToTheTop) {
  // A note before the blocks, a count line moved below it, extra lines inside a block, CRLF.
  const std::string edited = "My notes: always run make check.\n"
                             "[trimmed 4 older blocks]\n"
                             "\n\n"
                             "## Iter 5 - T\r\n"
                             "old finding\r\n"
                             "added by hand\n"
                             "\n"
                             "## Iter 6 - T\n"
                             "kept\n";
  const std::string preamble = "My notes: always run make check.\n";
  const std::string result = "[trimmed 5 older block(s)]\n\n" + preamble + "\n" + block(6, "kept") +
                             "\n" + block(7, "new");
  EXPECT_EQ(append_memory_block(edited, 7, "T", "new", utf8_length(result)), result);
  // The preamble counts toward the budget but is never trimmed.
  EXPECT_EQ(append_memory_block(edited, 7, "T", "new", 0),
            "[trimmed 6 older block(s)]\n\n" + preamble + "\n" + block(7, "new"));
  // Under the budget the preamble and the blocks stay as they were.
  EXPECT_EQ(append_memory_block("notes\n\n" + block(1, "a"), 2, "T", "b"),
            "notes\n\n" + block(1, "a") + "\n" + block(2, "b"));
}

TEST(MemoryFile, AHugeCountSaturatesInsteadOfWrapping) {
  const std::string top = "[trimmed 18446744073709551615 older block(s)]\n\n";
  EXPECT_EQ(append_memory_block(top + block(1, "a"), 2, "T", "b", 0), top + block(2, "b"));
}

TEST(MemoryFile, TextThatLooksLikeAHeaderOrACountStaysInsideItsBlock) {
  const std::string memory =
      append_memory_block("", 1, "T", "first\n## Iter 9 - fake\n[trimmed 50 older block(s)]");
  EXPECT_THAT(memory, HasSubstr("\\## Iter 9 - fake\n"));
  EXPECT_EQ(occurrences(memory, "\n## Iter "), 0);
  // Trimmed as one block, and its count-like line adds nothing.
  EXPECT_EQ(append_memory_block(memory, 2, "T", "next", 0),
            "[trimmed 1 older block(s)]\n\n" + block(2, "next"));
}

TEST(MemoryFile, AppendingToAMissingFileCreatesItAndReturnsTheText) {
  testing::TempDir dir;
  const fs::path path = dir.path() / "out" / "context.md";
  const auto first = append_memory_file(path, 1, "T", "one");
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, block(1, "one"));
  const auto second = append_memory_file(path, 2, "T", "two", block(2, "two").size());
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, "[trimmed 1 older block(s)]\n\n" + block(2, "two"));
  EXPECT_EQ(dir.read("out/context.md"), *second);
}

TEST(MemoryFile, FileIsReplacedAtomicallyKeepingItsMode) {
  testing::TempDir dir;
  const fs::path path = dir.write("context.md", "notes\n");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(append_memory_file(path, 1, "T", "one"));
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  // Only the file and its lock remain: no temporary left behind.
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(dir.path())) {
    names.push_back(item.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{".context.md.lock", "context.md"}));
}

TEST(MemoryFile, ConcurrentAppendsKeepEveryBlock) {
  testing::TempDir dir;
  const fs::path path = dir.path() / "context.md";
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        EXPECT_TRUE(append_memory_file(path, 10 * t + i, "T", "x", 100000));
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  const std::string memory = dir.read("context.md");
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(occurrences(memory, block(10 * t + i, "x")), 1) << t << " " << i;
    }
  }
}

TEST(MemoryFile, UnreadableFileIsAnError) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "context.md"); // a folder where the file should be
  const auto result = append_memory_file(dir.path() / "context.md", 1, "T", "x");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::io);
}

} // namespace
} // namespace ralph::store
