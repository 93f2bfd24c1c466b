#include "verify/schema_uri.h"

#include <gtest/gtest.h>

namespace ralph::verify {
namespace {

TEST(SchemaUri, ResolvesTheRfc3986Examples) {
  const std::string base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> examples[] = {
      {"g:h", "g:h"},
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../g", "http://a/g"},
      {"../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {"g/../h", "http://a/b/c/h"},
  };
  for (const auto& [reference, expected] : examples) {
    EXPECT_EQ(resolve_uri(base, reference), expected) << reference;
  }
}

TEST(SchemaUri, LeavesReferencesRelativeWithoutABase) {
  EXPECT_EQ(resolve_uri("", "#/definitions/a"), "#/definitions/a");
  EXPECT_EQ(resolve_uri("", "node"), "node");
  EXPECT_EQ(resolve_uri("http://localhost:1234/", "folder/"), "http://localhost:1234/folder/");
}

TEST(SchemaUri, SplitsFragmentsAndDecodesPercentEscapes) {
  EXPECT_EQ(split_fragment("http://x/y#/a/b"),
            (std::pair<std::string, std::string>{"http://x/y", "/a/b"}));
  EXPECT_EQ(split_fragment("http://x/y"), (std::pair<std::string, std::string>{"http://x/y", ""}));
  EXPECT_EQ(percent_decode("/per%25cent%2Fx"), "/per%cent/x");
  EXPECT_EQ(percent_decode("%zz"), std::nullopt);
  EXPECT_EQ(percent_decode("a%2"), std::nullopt);
}

} // namespace
} // namespace ralph::verify
