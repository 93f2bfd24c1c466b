#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_command.h"
#include "cli/run_view.h"

#include "ralph/core/try.h"
#include "ralph/llm/scripted_provider.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ralph::cli {
namespace {

constexpr const char* k_goal =
    "Write a shell function greet in greet.sh that greets a name (or the world), with a test.";

constexpr const char* k_verify_command = "sh test_greet.sh";

// What the stand-in model "says". Like real models often do, it claims success before running
// the test; ralph runs the test itself, feeds the failure back, and the second attempt fixes it.
constexpr const char* k_script = R"json({
  "model": "scripted-demo",
  "turns": [
    {"text": "I'll write the function and a test for it.",
     "tool_calls": [{"name": "write_file", "arguments": {"path": "greet.sh",
       "content": "#!/bin/sh\n# Prints a greeting for the name given, or for the world.\ngreet() {\n  printf 'Hello %s\\n' \"${1:-world}\"\n}\n"}}]},
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "test_greet.sh",
       "content": "#!/bin/sh\n. ./greet.sh\nfail=0\ncheck() {\n  if [ \"$1\" = \"$2\" ]; then echo \"ok: $3\"; else echo \"FAIL: $3: expected '$2', got '$1'\"; fail=1; fi\n}\ncheck \"$(greet Ada)\" 'Hello, Ada!' 'greets by name'\ncheck \"$(greet)\" 'Hello, world!' 'greets the world by default'\nexit $fail\n"}}]},
    {"text": "Done: greet.sh defines greet(), and test_greet.sh tests it."},
    {"text": "The test shows the greeting lacks its comma and exclamation mark. Fixing greet().",
     "tool_calls": [{"name": "edit_file", "arguments": {"path": "greet.sh",
       "old_text": "printf 'Hello %s\\n'", "new_text": "printf 'Hello, %s!\\n'"}}]},
    {"tool_calls": [{"name": "shell", "arguments": {"command": "sh test_greet.sh"}}]},
    {"text": "Fixed: greet() prints \"Hello, NAME!\", or \"Hello, world!\" without a name. I ran `sh test_greet.sh`: both checks pass."}
  ]
})json";

std::filesystem::path make_demo_workspace() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ralph-demo-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return {};
  }
  return std::filesystem::canonical(pattern);
}

} // namespace

Result<int> demo_command(const RunArgs& args) {
  TRY_ASSIGN(std::unique_ptr<llm::ScriptedProvider> provider,
             llm::ScriptedProvider::from_text(k_script, "built-in demo script"));
  const std::filesystem::path workspace = make_demo_workspace();
  if (workspace.empty()) {
    return fail(ErrorKind::io, "cannot create a temporary workspace");
  }
  session::SessionRequest request{
      .goal = k_goal, .workspace = workspace, .outputs = outputs_of(args)};
  request.config.model = "scripted/demo";
  request.config.verify.commands = {k_verify_command};
  const std::string banner = fmt::format(
      "ralph demo · model: scripted stand-in (replays a fixed script; not a real LLM, no key, "
      "no network)\nworkspace: {}\ngoal: {}\nverify: `{}` must pass (run by ralph, not by "
      "the model)",
      workspace.string(), k_goal, k_verify_command);
  session::Runtime runtime;
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  const session::Hosting hosting{.model =
                                     session::Model{.provider = provider.get(),
                                                    .spec = {llm::ProviderKind::scripted, "demo"}}};
  Result<int> code = [&]() -> Result<int> {
    TRY_ASSIGN(auto session,
               session::Session::prepare(runtime, std::move(request), hosting, cancel));
    return run_shown(runtime, *session, args, banner);
  }();
  if (!args.quiet) {
    std::fprintf(stderr, "the files are in %s\n", workspace.c_str());
  }
  return code;
}

} // namespace ralph::cli
