#include "support/temp_dir.h"

#include "ralph/core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ralph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// The error of applying `text` as file "cfg.toml".
Error config_error(const std::string& text) {
  Config config;
  const auto applied = apply_config_toml(config, text, "cfg.toml");
  EXPECT_FALSE(applied) << text;
  return applied ? Error{} : applied.error();
}

TEST(NotifyConfig, ReadsWebhooksAndCommandsInOrderWithTheirLines) {
  Config config;
  const auto applied = apply_config_toml(config, R"(model = "openai/gpt-4.1"

[[notify]]
url = "https://hooks.example.com/ralph?token=abc"
events = ["completed", "budget_warning", "batch_finished"]
secret_env = "RALPH_HOOK_SECRET"
timeout = "30s"
headers = { Authorization = "Bearer from-the-file", X-Team = "qa" }

[[notify]]
command = ["notify-send", "ralph"]
)",
                                         "cfg.toml");
  ASSERT_TRUE(applied) << applied.error().message;
  ASSERT_EQ(config.notify.size(), 2U);
  const NotifyTarget& hook = config.notify[0];
  EXPECT_EQ(hook.url, "https://hooks.example.com/ralph?token=abc");
  EXPECT_THAT(hook.events, ElementsAre(NotifyEvent::completed, NotifyEvent::budget_warning,
                                       NotifyEvent::batch_finished));
  EXPECT_EQ(hook.secret_env, "RALPH_HOOK_SECRET");
  EXPECT_EQ(hook.timeout, std::chrono::seconds(30));
  EXPECT_THAT(hook.headers,
              ElementsAre(Pair("Authorization", "Bearer from-the-file"), Pair("X-Team", "qa")));
  EXPECT_EQ(hook.origin, "cfg.toml:3");
  const NotifyTarget& program = config.notify[1];
  EXPECT_THAT(program.command, ElementsAre("notify-send", "ralph"));
  EXPECT_TRUE(program.url.empty());
  EXPECT_EQ(program.origin, "cfg.toml:10");
  // By default the ends a person waits for and a batch's end; not warnings, not Ctrl-C.
  EXPECT_TRUE(program.wants(NotifyEvent::completed));
  EXPECT_TRUE(program.wants(NotifyEvent::failed));
  EXPECT_TRUE(program.wants(NotifyEvent::blocked));
  EXPECT_TRUE(program.wants(NotifyEvent::stalled));
  EXPECT_TRUE(program.wants(NotifyEvent::budget_exhausted));
  EXPECT_TRUE(program.wants(NotifyEvent::batch_finished));
  EXPECT_FALSE(program.wants(NotifyEvent::budget_warning));
  EXPECT_FALSE(program.wants(NotifyEvent::interrupted));
  EXPECT_EQ(program.timeout, std::chrono::seconds(10));
}

TEST(NotifyConfig, EveryFileAddsItsEntries) {
  testing::TempDir dir;
  dir.write("user.toml", "[[notify]]\ncommand = [\"a\"]\n");
  dir.write("ws.toml", "[[notify]]\nurl = \"http://127.0.0.1:9/x\"\n");
  Config config;
  ASSERT_TRUE(apply_config_file(config, dir.path() / "user.toml", false));
  ASSERT_TRUE(apply_config_file(config, dir.path() / "ws.toml", false));
  ASSERT_EQ(config.notify.size(), 2U);
  EXPECT_EQ(config.notify[0].origin, (dir.path() / "user.toml").string() + ":1");
  EXPECT_EQ(config.notify[1].url, "http://127.0.0.1:9/x");
}

TEST(NotifyConfig, MistakesNameTheFileTheLineAndTheField) {
  struct Case {
    std::string text;
    int line;
    std::string says;
  };
  const Case cases[] = {
      {"[[notify]]\nevents = [\"completed\"]\n", 1, "notify: give either url or command"},
      {"[[notify]]\nurl = \"http://a/\"\ncommand = [\"x\"]\n", 1, "give either url or command"},
      {"[[notify]]\nurl = \"ftp://host/x\"\n", 2, "notify.url: expected an http:// or https://"},
      {"[[notify]]\nurl = \"https://\"\n", 2, "notify.url: the URL has no host"},
      {"[[notify]]\ncommand = \"notify-send ralph\"\n", 2,
       "notify.command: expected a list of strings, the program and its arguments (run without "
       "a shell)"},
      {"[[notify]]\ncommand = []\n", 2, "notify.command: expected a list of strings"},
      {"\n[[notify]]\nurl = \"http://a/\"\nevents = [\"completed\", \"finished\"]\n", 4,
       "notify.events: unknown event 'finished' (one of completed, failed, blocked, stalled, "
       "budget_exhausted, interrupted, budget_warning, batch_finished)"},
      {"[[notify]]\nurl = \"http://a/\"\nevents = []\n", 3, "notify.events: expected a list"},
      {"[[notify]]\nurl = \"http://a/\"\nsecret_env = \"s3cr3t value!\"\n", 3,
       "notify.secret_env: expected the name of an environment variable"},
      {"[[notify]]\ncommand = [\"x\"]\nsecret_env = \"KEY\"\n", 3,
       "notify.secret_env: signs webhooks only"},
      {"[[notify]]\nurl = \"http://a/\"\nheaders = { X-Ralph-Event = \"x\" }\n", 3,
       "notify.headers: X-Ralph-Event is set by ralph"},
      {"[[notify]]\nurl = \"http://a/\"\nheaders = { \"Bad Name\" = \"x\" }\n", 3,
       "notify.headers: 'Bad Name' is not a header name"},
      {"[[notify]]\nurl = \"http://a/\"\ntimeout = \"0s\"\n", 3,
       "notify.timeout: expected a duration from 1s to 5m"},
      {"[[notify]]\nurl = \"http://a/\"\nretries = 3\n", 3,
       "notify.retries: unknown field (a [[notify]] entry has url, command, events, secret_env, "
       "headers, timeout)"},
      {"[notify]\nurl = \"http://a/\"\n", 1, "notify: expected [[notify]] entries"},
      {"notify = \"http://a/\"\n", 1, "notify: expected [[notify]] entries"},
  };
  for (const Case& c : cases) {
    const Error error = config_error(c.text);
    EXPECT_EQ(error.kind, ErrorKind::config) << c.text;
    EXPECT_EQ(error.file, "cfg.toml") << c.text;
    EXPECT_EQ(error.line, c.line) << c.text << error.message;
    EXPECT_THAT(error.message, HasSubstr("cfg.toml:" + std::to_string(c.line) + ": ")) << c.text;
    EXPECT_THAT(error.message, HasSubstr(c.says)) << c.text;
  }
}

TEST(NotifyConfig, IsNeverRecordedWithASession) {
  Config config;
  ASSERT_TRUE(apply_config_toml(config, "[[notify]]\nurl = \"https://h/T0/B0/tok3n\"\n", "c"));
  const std::string json = config_to_json(config);
  EXPECT_THAT(json, ::testing::Not(HasSubstr("tok3n")));
  Config back;
  ASSERT_TRUE(apply_config_json(back, json, "record"));
  EXPECT_TRUE(back.notify.empty());
}

} // namespace
} // namespace ralph
