// An Agent and a Verifier of your own under the outer loop. The agent is no model here: it counts
// the lines of a file, carelessly at first. It reports its model calls and tool calls to the
// loop through agent::AttemptObserver (the loop counts the tokens against the budget and records
// the calls) and shows nothing itself. The verifier checks the answer against the file and says
// what is wrong; its feedback reaches the agent's second attempt. Exits 0 only when the run
// completed and the loop counted the tokens the agent reported.
#include "ralph/agent/agent.h"
#include "ralph/core/clock.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/verify/verifier.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr const char* k_goal = "How many lines does notes.txt have?";

int count_lines(const std::string& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    ++lines;
  }
  return lines;
}

// Guesses first; after feedback, runs its "tool" and answers from it.
class LineCounter final : public ralph::agent::Agent {
public:
  explicit LineCounter(std::string path) : m_path(std::move(path)) {}

  ralph::agent::AgentOutcome run(std::vector<ralph::Message>& conversation,
                                 const ralph::CancelToken& /*cancel*/,
                                 ralph::agent::AttemptObserver& observer,
                                 ralph::EventSink& /*events*/) override {
    ralph::agent::AgentOutcome outcome{.stop = ralph::agent::AgentStop::answered, .steps = 1};
    const bool told_to_look =
        conversation.back().role == ralph::Role::user && conversation.size() > 1;
    if (told_to_look) {
      const ralph::ToolCall call{"call_1", "count_lines", R"({"path": "notes.txt"})"};
      const int lines = count_lines(m_path);
      observer.tool_call_finished(1, call, {.content = std::to_string(lines), .exit_code = 0});
      ++outcome.tool_calls;
      outcome.answer = "notes.txt has " + std::to_string(lines) + " lines.";
    } else {
      outcome.answer = "notes.txt has about 3 lines.";
    }
    // What a model call would cost; the loop prices and budgets it as "example/counter".
    outcome.usage = {.input_tokens = 120, .output_tokens = 12};
    observer.model_call_finished({.step = 1, .model = "example/counter", .usage = outcome.usage});
    conversation.push_back({.role = ralph::Role::assistant, .content = outcome.answer});
    return outcome;
  }

private:
  std::string m_path;
};

// Passes when the answer names the file's exact line count.
class ExactCount final : public ralph::verify::Verifier {
public:
  explicit ExactCount(std::string path) : m_path(std::move(path)) {}

  std::string name() const override { return "exact count"; }
  ralph::verify::Verdict verify(const ralph::verify::Attempt& attempt,
                                const ralph::CancelToken& /*cancel*/) override {
    const std::string expected = std::to_string(count_lines(m_path)) + " lines";
    if (attempt.answer.find(expected) != std::string::npos) {
      return {.verifier = name(), .result = ralph::Outcome::pass};
    }
    return {.verifier = name(),
            .result = ralph::Outcome::fail,
            .category = ralph::verify::Category::incomplete,
            .feedback = "That is not the exact count: count the lines of notes.txt."};
  }

private:
  std::string m_path;
};

} // namespace

int main() {
  const std::string path = "notes.txt";
  std::ofstream(path) << "one\ntwo\nthree\nfour\nfive\n";

  LineCounter agent(path);
  std::vector<ralph::loop::VerifierEntry> verifiers;
  verifiers.push_back({.verifier = std::make_unique<ExactCount>(path)});
  ralph::SystemClock clock;
  ralph::loop::LoopOptions options{.goal = k_goal};
  options.budget.max_tokens = 10'000;
  ralph::loop::OuterLoop loop(agent, std::move(verifiers), options, clock);

  std::vector<ralph::Message> conversation{{.role = ralph::Role::user, .content = k_goal}};
  ralph::NullEventSink events;
  const ralph::loop::LoopResult result = loop.run(conversation, ralph::CancelToken(), events);
  std::printf("%s after %zu attempt(s): %s (%lld tokens counted)\n",
              ralph::to_string(result.status), result.attempts.size(), result.answer.c_str(),
              static_cast<long long>(result.usage.input_tokens + result.usage.output_tokens));
  std::remove(path.c_str());
  return result.status == ralph::Status::completed && result.usage.input_tokens == 240 ? 0 : 1;
}
