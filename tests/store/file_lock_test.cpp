#include "store/file_lock.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace ralph::store {
namespace {

std::string content_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FileLock, TryAcquireFindsAHeldLockAndTakesItOnceReleased) {
  testing::TempDir dir;
  const auto path = dir.path() / "heartbeat.lock";
  auto first = FileLock::try_acquire(path);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(first->has_value());
  ASSERT_TRUE((*first)->write_holder("4242\n"));
  EXPECT_EQ(content_of(path), "4242\n");

  // Its own open file description: held even within one process.
  auto second = FileLock::try_acquire(path);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->has_value());

  first->reset();
  EXPECT_EQ(content_of(path), "") << "a released lock names no holder";
  auto third = FileLock::try_acquire(path);
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->has_value());
}

TEST(FileLock, TryAcquireInAMissingFolderIsAnErrorNamingThePath) {
  testing::TempDir dir;
  const auto path = dir.path() / "no-such" / "x.lock";
  auto lock = FileLock::try_acquire(path);
  ASSERT_FALSE(lock);
  EXPECT_NE(lock.error().message.find(path.string()), std::string::npos) << lock.error().message;
}

} // namespace
} // namespace ralph::store
