#include "ralph/agent/react_agent.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/command_verifier.h"

#include <cstdio>
#include <cstdlib>

int main() {
  using namespace ralph;
  const char* key = std::getenv("OPENAI_API_KEY");
  llm::ProviderConfig model{.spec = {llm::ProviderKind::openai, "gpt-4.1"},
                            .api_key = key ? key : ""};
  http::CurlGlobal curl;
  http::CurlTransport transport;
  SystemClock clock;
  auto provider = llm::make_provider(model, transport, clock);
  if (!provider) {
    std::fprintf(stderr, "%s\n", provider.error().message.c_str());
    return 2;
  }
  const std::filesystem::path workspace = std::filesystem::current_path();
  tools::PosixProcessRunner runner;
  const tools::Registry tools = tools::make_builtin_registry({}, runner);
  agent::ReactAgent agent(**provider, tools, {.workspace = workspace}, model.spec, {});

  std::vector<loop::VerifierEntry> verifiers;
  auto check = verify::make_command_verifier("make check", {}, runner);
  verifiers.push_back({.verifier = std::move(check.value())}); // value() throws on a bad command
  const std::string goal = "make the failing test pass";
  loop::OuterLoop loop(agent, std::move(verifiers), {.goal = goal, .workspace = workspace}, clock);

  std::vector<Message> conversation{{.role = Role::user, .content = goal}};
  NullEventSink events;
  const loop::LoopResult result = loop.run(conversation, CancelToken(), events);
  std::printf("%s: %s\n", to_string(result.status), result.answer.c_str());
  return exit_code(result.status);
}
