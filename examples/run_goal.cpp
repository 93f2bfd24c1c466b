// Runs a goal as `ralph run` does, through the library: the configuration loaded like the CLI's
// (.ralph/config.toml, RALPH_* variables), a verify command that must pass, a judge from another
// model family, the session recorded in .ralph/ralph.db (`ralph sessions show` reads it), and
// each verdict printed as it comes. Usage: run_goal GOAL [VERIFY_COMMAND], in the workspace.
#include "ralph/session/session.h"
#include "ralph/session/settings.h"

#include <cstdio>

// What happens, as it happens: here each verdict.
class PrintVerdicts final : public ralph::EventSink {
public:
  void on_event(const ralph::Event& event) override {
    if (const auto* verdict = event.get<ralph::event::VerdictGiven>()) {
      std::printf("attempt %d: %s %s %s\n", event.iteration, verdict->verifier.c_str(),
                  ralph::to_string(verdict->result), verdict->category.c_str());
    }
  }
};

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_goal GOAL [VERIFY_COMMAND]\n");
    return 2;
  }
  ralph::session::Runtime runtime; // this process's environment: keys, RALPH_* settings
  auto workspace = ralph::session::resolve_workspace(".");
  auto config =
      ralph::session::load_settings({.workspace = workspace.value_or(".")}, runtime.environment());
  if (!workspace || !config) {
    std::fprintf(stderr, "%s\n", (!workspace ? workspace.error() : config.error()).message.c_str());
    return 2;
  }
  config->verify.commands.push_back(argc > 2 ? argv[2] : "make test");
  if (config->judge.model.empty()) {
    config->judge.model = "anthropic/claude-sonnet-4-5"; // the agent's default model is OpenAI's
  }
  PrintVerdicts events;
  const auto report = ralph::session::run_goal(
      runtime, {.goal = argv[1], .workspace = *workspace, .config = *config}, {}, events,
      ralph::CancelToken());
  if (!report) {
    std::fprintf(stderr, "%s\n", report.error().message.c_str());
    return 2;
  }
  std::printf("%s%s after %d attempt(s) · session %s\n%s\n", ralph::to_string(report->status),
              report->verified ? ", verified" : "", report->iterations, report->session_id.c_str(),
              report->answer.c_str());
  return ralph::exit_code(report->status);
}
