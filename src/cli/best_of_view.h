#pragma once

#include "ralph/app/best_of/best_of.h"
#include "ralph/app/best_of/best_of_report.h"
#include "ralph/core/redactor.h"

#include <cstdio>
#include <string>

namespace ralph::cli {

// Best of N on the terminal: where the attempts are (a banner naming `agent`), each attempt's
// progress as lines on stderr tagged with its number (its attempts, verdicts and end; each line
// one write, from any attempt's thread), and an interruption while the workspaces were made.
// `quiet` keeps the banner and the progress lines back.
class BestOfView final : public app::BestOfObserver {
public:
  BestOfView(const Redactor& redactor, std::string agent, bool quiet)
      : m_redactor(redactor), m_agent(std::move(agent)), m_quiet(quiet) {}

  void on_start(const app::BestOfStart& start) override;
  void on_interrupted_making_workspaces(const std::filesystem::path& attempts_dir) override;
  void on_event(int attempt, const Event& event) override;

private:
  const Redactor& m_redactor;
  std::string m_agent;
  bool m_quiet;
};

// The `--json` result: one line on `out`.
void print_best_of_json(std::FILE* out, const app::BestOfReport& report);

// For a person: which attempt won and why, then one line per attempt.
std::string best_of_table(const app::BestOfReport& report);

} // namespace ralph::cli
