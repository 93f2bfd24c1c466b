#include "cli/terminal_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ralph::cli {
namespace {

using testing::HasSubstr;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) {
    text.append(buffer, n);
  }
  return text;
}

// What the person reads of one budget warning on stderr.
std::string warning_line(event::BudgetWarning warning) {
  File out(std::tmpfile());
  File err(std::tmpfile());
  {
    TerminalView view(out.get(), err.get(), {.progress_interval = {}});
    view.on_event({.iteration = 1, .payload = warning});
  }
  return contents(err.get());
}

TEST(TerminalView, ACostBudgetNoticeKeepsTheDigitsThatTellSmallAmountsApart) {
  EXPECT_THAT(
      warning_line({.budget = BudgetKind::cost, .percent = 100, .used = 0.0056, .limit = 0.005}),
      HasSubstr("the cost budget is spent ($0.0056 of $0.005)"));
  EXPECT_THAT(warning_line({.budget = BudgetKind::cost,
                            .percent = event::budget_percent(0.0042, 0.005),
                            .used = 0.0042,
                            .limit = 0.005}),
              HasSubstr("84% of the cost budget used ($0.0042 of $0.005)"));
  EXPECT_THAT(warning_line({.budget = BudgetKind::cost, .percent = 90, .used = 4.5, .limit = 5}),
              HasSubstr("90% of the cost budget used ($4.50 of $5.00)"));
  EXPECT_THAT(warning_line({.budget = BudgetKind::cost, .percent = 83, .used = 12.5, .limit = 15}),
              HasSubstr("83% of the cost budget used ($12.50 of $15.00)"));
  EXPECT_THAT(warning_line({.budget = BudgetKind::cost, .percent = 80, .used = 0.4, .limit = 0.5}),
              HasSubstr("80% of the cost budget used ($0.40 of $0.50)"));
}

// What reaches stdout of two model turns with a tool call between them.
std::string stdout_of_two_turns(bool progress) {
  File out(std::tmpfile());
  File err(std::tmpfile());
  {
    TerminalView view(out.get(), err.get(), {.progress = progress, .progress_interval = {}});
    const ToolCall call{.id = "1", .name = "shell", .arguments = R"({"command":"ls"})"};
    const std::vector<EventPayload> events = {
        event::ModelStarted{},
        event::TextDelta{.text = "Let me look."},
        event::ModelFinished{},
        event::ToolStarted{.call = call},
        event::ToolFinished{.call = call, .result = "a.txt", .exit_code = 0},
        event::ModelStarted{},
        event::TextDelta{.text = "Done."},
        event::ModelFinished{},
        event::AttemptFinished{.answer = "Done."}};
    for (const EventPayload& payload : events) {
      view.on_event({.iteration = 1, .payload = payload});
    }
  }
  return contents(out.get());
}

TEST(TerminalView, TheModelsTurnsStayOnLinesOfTheirOwnWithoutProgress) {
  EXPECT_EQ(stdout_of_two_turns(false), "Let me look.\nDone.\n");
  EXPECT_EQ(stdout_of_two_turns(true), "Let me look.\nDone.\n");
}

} // namespace
} // namespace ralph::cli
