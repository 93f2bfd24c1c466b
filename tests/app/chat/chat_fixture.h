#pragma once

// A chat as a library: real sessions on scripted models, real verify commands, a real SQLite
// store, and a fake clock, with an observer that keeps what the chat said and may act on an
// event (hold the goal, change its verifiers) while the goal runs.
#include "support/fake_clock.h"
#include "support/temp_dir.h"

#include "ralph/app/chat/chat.h"
#include "ralph/app/chat/chat_observer.h"
#include "ralph/engine/io.h"
#include "ralph/store/sqlite_session_store.h"
#include "ralph/tools/process_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ralph::app {

// Real child processes and transports, time from a fake clock.
class FakeClockIo final : public engine::Io {
public:
  explicit FakeClockIo(Clock& clock) : m_clock(clock) {}
  Clock& clock() override { return m_clock; }
  tools::ProcessRunner& runner() override { return m_runner; }
  Waiter& waiter() override { return m_real.waiter(); }
  std::unique_ptr<http::Transport> make_transport() override { return m_real.make_transport(); }

private:
  Clock& m_clock;
  tools::PosixProcessRunner m_runner;
  engine::BlockingIo m_real;
};

// A store that can refuse to update sessions, as a full disk would; everything else is the
// inner store's.
class RefusingStore final : public store::SessionStore {
public:
  explicit RefusingStore(store::SessionStore& inner) : m_inner(inner) {}
  std::atomic<bool> refuse_updates{false};

  Result<void> update_session(const store::SessionRow& session) override {
    if (refuse_updates) {
      return fail(ErrorKind::store, "database or disk is full");
    }
    return m_inner.update_session(session);
  }
  Result<void> create_session(const store::SessionRow& session) override {
    return m_inner.create_session(session);
  }
  Result<std::optional<store::SessionRow>> find_session(const std::string& id) override {
    return m_inner.find_session(id);
  }
  Result<std::vector<store::SessionRow>> list_sessions() override {
    return m_inner.list_sessions();
  }
  Result<std::optional<store::SessionRecord>> load(const std::string& id) override {
    return m_inner.load(id);
  }
  Result<bool> remove_session(const std::string& id) override { return m_inner.remove_session(id); }
  Result<std::vector<std::string>> prune(const std::string& cutoff) override {
    return m_inner.prune(cutoff);
  }
  Result<void> save_attempt(const store::AttemptRow& attempt) override {
    return m_inner.save_attempt(attempt);
  }
  Result<void> finish_attempt(const store::AttemptRow& attempt,
                              const std::vector<store::VerdictRow>& verdicts,
                              const store::SessionRow& session) override {
    return m_inner.finish_attempt(attempt, verdicts, session);
  }
  Result<void> add_model_call(const store::ModelCallRow& call,
                              const store::SessionRow& session) override {
    return m_inner.add_model_call(call, session);
  }
  Result<void> add_tool_call(const store::ToolCallRow& call) override {
    return m_inner.add_tool_call(call);
  }

private:
  store::SessionStore& m_inner;
};

// Keeps everything the chat says; `on_each` runs on every event, on the thread running the work.
class ChatRecorder final : public ChatObserver {
public:
  void on_event(const Event& event) override {
    events.push_back(event);
    if (on_each) {
      on_each(event);
    }
  }
  void on_warning(const std::string& warning) override { warnings.push_back(warning); }
  void on_goal_goes_on_with_changes() override { ++goes_on; }
  void on_record_failed(const Error& error) override { record_failures.push_back(error.message); }

  // The verifiers that gave a verdict on attempt `iteration`, in order.
  std::vector<std::string> verifiers_of(int iteration) const {
    std::vector<std::string> out;
    for (const Event& event : events) {
      if (const auto* verdict = event.get<event::VerdictGiven>();
          verdict != nullptr && event.iteration == iteration) {
        out.push_back(verdict->verifier);
      }
    }
    return out;
  }
  template <typename T> int count() const {
    int n = 0;
    for (const Event& event : events) {
      n += event.get<T>() != nullptr ? 1 : 0;
    }
    return n;
  }

  std::function<void(const Event&)> on_each;
  std::vector<Event> events;
  std::vector<std::string> warnings;
  int goes_on = 0;
  std::vector<std::string> record_failures;
};

struct ChatFixture {
  testing::TempDir dir;
  std::filesystem::path workspace = dir.path() / "work";
  session::Runtime runtime{session::Environment::of({})};
  testing::FakeClock clock;
  FakeClockIo io{clock};
  std::unique_ptr<store::SessionStore> store;
  ChatRecorder observer;

  ChatFixture() {
    std::filesystem::create_directories(workspace);
    auto opened = store::SqliteSessionStore::open(workspace / ".ralph" / "ralph.db");
    EXPECT_TRUE(opened) << opened.error().message;
    if (opened) {
      store = std::move(*opened);
    }
  }

  // "scripted/FILE" for a script of model turns written to FILE.
  std::string model(const std::string& name, const std::string& turns) const {
    return "scripted/" +
           dir.write(name, R"({"model": "scripted", "turns": [)" + turns + "]}").string();
  }

  // A new chat's request on the model `turns` play.
  ChatRequest request(const std::string& turns) const {
    ChatRequest request{.workspace = workspace};
    request.config.model = model("agent.json", turns);
    return request;
  }

  Result<std::unique_ptr<Chat>> open(ChatRequest request) {
    return Chat::open(runtime, std::move(request), {.io = &io, .store = store.get()}, observer,
                      CancelToken());
  }

  store::SessionRecord record(const std::string& id) const {
    auto loaded = store->load(id);
    EXPECT_TRUE(loaded && *loaded) << id;
    return loaded && *loaded ? **loaded : store::SessionRecord{};
  }

  ChatState state_of(const std::string& chat_id) const {
    auto state = chat_state_from_json(record(chat_id).session.resume_json, "chat");
    EXPECT_TRUE(state) << state.error().message;
    return state ? *state : ChatState{};
  }
};

// Model turns, as the scripted provider takes them.
inline std::string text_turn(const std::string& text) {
  return R"({"text": ")" + text + R"("})";
}
inline std::string write_turn(const std::string& path, const std::string& content) {
  return R"({"tool_calls": [{"name": "write_file", "arguments": {"path": ")" + path +
         R"(", "content": ")" + content + R"("}}]})";
}
inline std::string shell_turn(const std::string& command) {
  return R"({"tool_calls": [{"name": "shell", "arguments": {"command": ")" + command + R"("}}]})";
}
// A claim of completion, with the marker on a line of its own.
inline std::string claim_turn(const std::string& text) {
  return text_turn(text + R"(\n<promise>DONE</promise>)");
}

} // namespace ralph::app
