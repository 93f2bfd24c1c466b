// The outer loop on a scripted stand-in model (no network, no key): the built-in agent writes a
// file and says it is done, a command verifier finds it wrong, the failure goes back as feedback,
// and the second attempt fixes it. Prints each verdict and the final status; exits 0 only when
// the run completed.
#include "ralph/loop/outer_loop.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/clock.h"
#include "ralph/llm/scripted_provider.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/command_verifier.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr const char* k_goal = "Write 'Hello, world!' to hello.txt.";

constexpr const char* k_script = R"json({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "write_file",
                   "arguments": {"path": "hello.txt", "content": "hello world\n"}}]},
  {"text": "Done."},
  {"tool_calls": [{"name": "write_file",
                   "arguments": {"path": "hello.txt", "content": "Hello, world!\n"}}]},
  {"text": "Fixed: hello.txt now holds the greeting exactly."}
]})json";

// The run as it happens: here only the verdicts, one line each.
class PrintVerdicts final : public ralph::EventSink {
public:
  void on_event(const ralph::Event& event) override {
    if (const auto* verdict = event.get<ralph::event::VerdictGiven>()) {
      std::printf("attempt %d: %s %s %s\n", event.iteration, verdict->verifier.c_str(),
                  ralph::to_string(verdict->result), verdict->category.c_str());
    }
  }
};

} // namespace

int main() {
  auto provider = ralph::llm::ScriptedProvider::from_text(k_script, "example script");
  if (!provider) {
    std::fprintf(stderr, "%s\n", provider.error().message.c_str());
    return 1;
  }
  std::string dir = (std::filesystem::temp_directory_path() / "ralph-example-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::filesystem::path workspace = std::filesystem::canonical(dir);

  ralph::CancelToken cancel;
  ralph::SystemClock clock;
  ralph::tools::PosixProcessRunner runner;
  const ralph::tools::Registry tools = ralph::tools::make_builtin_registry({}, runner);
  ralph::agent::ReactAgent agent(**provider, tools, {.workspace = workspace, .cancel = cancel},
                                 {ralph::llm::ProviderKind::scripted, "example"},
                                 ralph::AgentSettings{});

  std::vector<ralph::loop::VerifierEntry> verifiers;
  auto check = ralph::verify::make_command_verifier("grep -qx 'Hello, world!' hello.txt",
                                                    ralph::VerifySettings{}, runner);
  if (!check) {
    std::fprintf(stderr, "%s\n", check.error().message.c_str());
    return 1;
  }
  verifiers.push_back({.verifier = std::move(*check)});

  ralph::loop::OuterLoop loop(agent, std::move(verifiers), {.goal = k_goal, .workspace = workspace},
                              clock);
  std::vector<ralph::Message> conversation{{.role = ralph::Role::user, .content = k_goal}};
  PrintVerdicts events;
  const ralph::loop::LoopResult result = loop.run(conversation, cancel, events);
  std::printf("ralph %s: %s after %zu attempt(s)\n", RALPH_VERSION, ralph::to_string(result.status),
              result.attempts.size());
  std::filesystem::remove_all(workspace);
  return result.status == ralph::Status::completed ? 0 : 1;
}
