#include "tools/remote_url.h"

#include <gtest/gtest.h>

namespace ralph::tools {
namespace {

TEST(RemoteUrl, ShowsAUrlWithoutItsPasswordAndAnHttpUserName) {
  EXPECT_EQ(shown_remote("https://user:tok3n-abc@host/x.git"), "https://***@host/x.git");
  EXPECT_EQ(shown_remote("https://ghp_tok3n@host/x.git"), "https://***@host/x.git");
  EXPECT_EQ(shown_remote("ssh://git:pw-secret@host:22/x"), "ssh://git:***@host:22/x");
  EXPECT_EQ(shown_remote("ssh://git@host/x"), "ssh://git@host/x");
  EXPECT_EQ(shown_remote("git@github.com:o/r.git"), "git@github.com:o/r.git");
  EXPECT_EQ(shown_remote("/srv/git/r@x.git"), "/srv/git/r@x.git");
  EXPECT_EQ(shown_remote("https://host/a@b"), "https://host/a@b"); // '@' in the path
}

TEST(RemoteUrl, MasksTheCredentialsWhereverAMessageQuotesThem) {
  const std::string url = "https://user:p%40ss-w0rd@host/x.git";
  Error error{.kind = ErrorKind::io,
              .message = "fatal: 'https://user:p%40ss-w0rd@host/x.git' failed; password p@ss-w0rd "
                         "for user@host"};
  const Error shown = without_credentials(error, url);
  EXPECT_EQ(shown.kind, ErrorKind::io);
  EXPECT_EQ(shown.message.find("p%40ss-w0rd"), std::string::npos) << shown.message;
  EXPECT_EQ(shown.message.find("p@ss-w0rd"), std::string::npos) << shown.message;
  EXPECT_NE(shown.message.find("'https://***@host/x.git'"), std::string::npos) << shown.message;
}

} // namespace
} // namespace ralph::tools
