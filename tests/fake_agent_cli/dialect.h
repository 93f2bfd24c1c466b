#pragma once

// The output formats the fake agent CLI speaks: one Dialect per real CLI, each writing that CLI's
// stdout (lines, events, fields) as the agent CLI format reference
// (agent-cli-formats.md) describes it.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fake_agent_cli {

// Writes stdout a line at a time, flushed at once (a reader sees each event as it happens), with
// a non-JSON debug line after each one when asked to.
class Output {
public:
  explicit Output(bool junk_lines) : m_junk_lines(junk_lines) {}
  void event(const nlohmann::ordered_json& event); // keys in the order the CLI prints them
  void text(std::string_view line);

private:
  bool m_junk_lines;
  int m_count = 0;
};

struct Tokens {
  std::int64_t input = 100;
  std::int64_t output = 20;
  std::int64_t cached = 0;
};

// A shell command the fake ran for real.
struct ShellRun {
  std::string command;
  std::string out; // stdout
  std::string err; // stderr
  int exit_code = 0;
};

// A file the fake wrote.
struct FileWrite {
  std::string path;     // absolute
  std::string relative; // as the script named it
  std::string content;
  bool existed = false;
};

// What the terminal event reports.
struct Ending {
  std::string final_text; // the last "say"
  std::string error;      // the error message of a failed run
  Tokens tokens;
  std::optional<double> cost; // reported where the format has a cost
  int steps = 0;
};

class Dialect {
public:
  virtual ~Dialect() = default;
  // What a run starts with (Claude's system/init, Codex's thread.started, …).
  virtual void start(const std::string& cwd, const std::string& prompt) = 0;
  virtual void say(const std::string& text) = 0;
  virtual void shell(const ShellRun& run) = 0;
  virtual void write(const FileWrite& write) = 0;
  // A non-fatal error or warning; formats without such an event write it to stderr.
  virtual void notice(const std::string& text) = 0;
  // One valid line that is not terminal, for "chatter".
  virtual void tick() = 0;
  virtual void finish_ok(const Ending& ending) = 0;
  virtual void finish_error(const Ending& ending) = 0;
};

// The formats there is a Dialect for.
inline constexpr std::string_view k_formats[] = {"claude", "codex",    "gemini",
                                                 "goose",  "opencode", "aider"};

// A fresh session id in the style of `format`'s CLI (a UUID; opencode's `ses_…`).
std::string new_session_id(std::string_view format);

// The dialect named `format` (one of k_formats), or null when there is none. `session` is the
// session id to report.
std::unique_ptr<Dialect> make_dialect(std::string_view format, Output& out, std::string session);

} // namespace fake_agent_cli
