#include "support/temp_dir.h"

#include "ralph/rlm/mapped_document.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace ralph::rlm {
namespace {

using namespace std::string_literals;

TEST(MappedDocument, MapsTheFileBytesAsTheyAre) {
  const ralph::testing::TempDir dir;
  const std::string content = "line one\r\nline two\n\xff\xfe raw bytes\0 after nul"s;
  const auto path = dir.write("doc.txt", content);
  auto doc = MappedDocument::open(path);
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->size(), 42U);
  EXPECT_EQ(doc->text(), content);
  EXPECT_EQ(doc->path(), path);
}

TEST(MappedDocument, MissingFileIsAnIoErrorNamingThePath) {
  const ralph::testing::TempDir dir;
  const auto path = dir.path() / "no-such-file.txt";
  auto doc = MappedDocument::open(path);
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().kind, ErrorKind::io);
  EXPECT_NE(doc.error().message.find(path.string()), std::string::npos) << doc.error().message;
  EXPECT_NE(doc.error().message.find("No such file"), std::string::npos) << doc.error().message;
  EXPECT_EQ(doc.error().file, path.string());
}

TEST(MappedDocument, DirectoryIsAnIoError) {
  const ralph::testing::TempDir dir;
  auto doc = MappedDocument::open(dir.path());
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().kind, ErrorKind::io);
  EXPECT_NE(doc.error().message.find(dir.path().string()), std::string::npos);
}

TEST(MappedDocument, EmptyFileIsAnEmptyDocument) {
  const ralph::testing::TempDir dir;
  auto doc = MappedDocument::open(dir.write("empty.txt", ""));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->size(), 0U);
  EXPECT_TRUE(doc->text().empty());
}

TEST(MappedDocument, MovesKeepTheMappingAlive) {
  const ralph::testing::TempDir dir;
  auto first = MappedDocument::open(dir.write("a.txt", "alpha"));
  auto second = MappedDocument::open(dir.write("b.txt", "beta"));
  ASSERT_TRUE(first && second);
  MappedDocument moved(std::move(*first));
  EXPECT_EQ(moved.text(), "alpha");
  EXPECT_EQ(first->size(), 0U); // NOLINT(bugprone-use-after-move): the moved-from state is empty
  moved = std::move(*second);
  EXPECT_EQ(moved.text(), "beta");
  EXPECT_EQ(moved.path(), dir.path() / "b.txt");
}

TEST(MappedDocument, OutlivesTheFileBeingRemoved) {
  const ralph::testing::TempDir dir;
  const auto path = dir.write("gone.txt", "still readable");
  auto doc = MappedDocument::open(path);
  ASSERT_TRUE(doc);
  std::filesystem::remove(path);
  EXPECT_EQ(doc->text(), "still readable");
}

} // namespace
} // namespace ralph::rlm
