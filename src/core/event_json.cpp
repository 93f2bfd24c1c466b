#include "ralph/core/event_json.h"

#include "ralph/core/json.h"
#include "ralph/core/time.h"

#include <nlohmann/json.hpp>

namespace ralph {
namespace {

// Adds each field only when it says something, so a line holds what the event is about.
class Fields {
public:
  explicit Fields(nlohmann::json& out) : m_out(out) {}

  void text(const char* key, const std::string& value) {
    if (!value.empty()) {
      m_out[key] = value;
    }
  }
  void number(const char* key, std::int64_t value) {
    if (value != 0) {
      m_out[key] = value;
    }
  }
  void ms(const char* key, std::chrono::milliseconds value) { number(key, value.count()); }
  void flag(const char* key, bool value) {
    if (value) {
      m_out[key] = true;
    }
  }
  void exit_code(const std::optional<int>& code) {
    if (code) {
      m_out["exit_code"] = *code;
    }
  }
  void usage(const Usage& usage) {
    if (usage.total_tokens() > 0) {
      m_out["usage"] = {{"input_tokens", usage.input_tokens},
                        {"output_tokens", usage.output_tokens}};
      if (usage.estimated) {
        m_out["usage"]["estimated"] = true;
      }
    }
  }
  void call(const ToolCall& call) {
    text("name", call.name);
    text("tool_call_id", call.id);
  }

  void operator()(const event::AttemptStarted& e) { number("max_iterations", e.max_iterations); }
  void operator()(const event::ModelStarted& e) { text("agent", e.agent); }
  void operator()(const event::TextDelta& e) { text("text", e.text); }
  void operator()(const event::ThinkingDelta& e) { text("text", e.text); }
  void operator()(const event::ModelFinished& e) {
    text("model", e.model);
    text("stop_reason", e.stop_reason);
    usage(e.usage);
    if (e.requests != 1) {
      number("requests", e.requests);
    }
  }
  void operator()(const event::ToolStarted& e) {
    call(e.call);
    text("arguments", e.call.arguments);
  }
  void operator()(const event::ToolProgress& e) {
    text("name", e.tool);
    text("tool_call_id", e.call_id);
    m_out["progress"] = e.progress;
    if (e.total) {
      m_out["total"] = *e.total;
    }
    text("message", e.message);
  }
  void operator()(const event::ToolFinished& e) {
    call(e.call);
    text("result", e.result);
    flag("is_error", e.is_error);
    exit_code(e.exit_code);
    ms("duration_ms", e.duration);
  }
  void operator()(const event::Retry& e) {
    text("reason", e.reason);
    number("attempt", e.attempt);
    ms("delay_ms", e.delay);
  }
  void operator()(const event::Warning& e) { text("text", e.text); }
  void operator()(const event::AgentLimitWait& e) {
    text("agent", e.agent);
    text("message", e.message);
    m_out["resets_at"] = iso8601_utc(e.resets_at);
    ms("wait_ms", e.wait);
  }
  void operator()(const event::Failure& e) {
    m_out["kind"] = to_string(e.kind);
    text("message", e.message);
  }
  void operator()(const event::AgentFinished& e) {
    text("answer", e.answer);
    text("stop", e.stop);
    number("steps", e.steps);
    usage(e.usage);
    text("agent_session", e.agent_session);
  }
  void operator()(const event::AttemptFinished& e) {
    text("answer", e.answer);
    text("stop", e.stop);
    ms("duration_ms", e.duration);
    usage(e.usage);
  }
  void operator()(const event::VerificationSkipped& e) { text("reason", e.reason); }
  void operator()(const event::VerifierStarted& e) { text("verifier", e.verifier); }
  void operator()(const event::VerdictGiven& e) {
    text("verifier", e.verifier);
    m_out["result"] = to_string(e.result);
    text("category", e.category);
    text("feedback", e.feedback);
    if (e.policy) {
      m_out["policy"] = to_string(*e.policy);
    }
    exit_code(e.exit_code);
    ms("duration_ms", e.duration);
    usage(e.usage);
    if (e.tests) {
      nlohmann::json& tests = m_out["tests"];
      tests = {{"runner", e.tests->runner},
               {"failed", e.tests->failed},
               {"passed", int_or_null(e.tests->passed)},
               {"total", int_or_null(e.tests->total)}};
      if (e.tests->failed_before) {
        tests["failed_before"] = *e.tests->failed_before;
      }
    }
  }
  void operator()(const event::FeedbackGiven& e) {
    m_out["mode"] = to_string(e.mode);
    text("text", e.text);
  }
  void operator()(const event::BudgetWarning& e) {
    m_out["budget"] = to_string(e.budget);
    m_out["percent"] = e.percent;
    m_out["used"] = e.used;
    m_out["limit"] = e.limit;
  }
  void operator()(const event::RunEnded& e) {
    m_out["status"] = to_string(e.status);
    text("reason", e.reason);
    m_out["verified"] = e.verified;
    number("attempts", e.attempts);
    usage(e.usage);
    ms("duration_ms", e.duration);
  }
  void operator()(const event::AttemptsRanked& e) {
    number("winner", e.winner);
    text("winner_session", e.winner_session);
    number("best", e.best);
    text("why", e.why);
    m_out["applied"] = e.applied;
  }

private:
  nlohmann::json& m_out;
};

} // namespace

nlohmann::json event_to_json(const Event& event) {
  nlohmann::json out = {{"type", event.name()}};
  Fields fields(out);
  fields.number("iteration", event.iteration);
  fields.number("step", event.step);
  std::visit(fields, event.payload);
  return out;
}

} // namespace ralph
