#include "cli/chat_input.h"

#include "cli/line_editor.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <poll.h>
#include <sys/eventfd.h>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace ralph::cli {
namespace {

using Kind = InputEvent::Kind;

constexpr std::size_t k_history_size = 1000;

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t wrote = ::write(fd, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote <= 0) {
      return; // the terminal is gone: there is nothing left to tidy
    }
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

} // namespace

ChatInput::ChatInput(const std::filesystem::path& history, int in_fd, int out_fd)
    : m_in_fd(in_fd), m_out_fd(out_fd), m_history(history) {
  m_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (m_wake_fd < 0) {
    throw std::system_error(errno, std::generic_category(), "cannot make an eventfd");
  }
  if (isatty(in_fd) != 1) {
    return;
  }
  m_editor = std::make_unique<LineEditor>(in_fd, out_fd, [this] {
    const auto ready = wait_for(true, -1);
    if (ready == Kind::line) {
      if (m_before_typing) {
        m_before_typing();
      }
      return true;
    }
    m_stopped_by = ready;
    return false;
  });
  for (const auto& line : m_history.load(k_history_size)) {
    m_editor->add_history(line);
  }
}

ChatInput::~ChatInput() {
  m_editor.reset(); // before the descriptors its callback polls
  ::close(m_wake_fd);
}

std::optional<Kind> ChatInput::wait_for(bool with_input, int timeout_ms) {
  std::array<pollfd, 3> fds{{
      {.fd = m_signals.fd(), .events = POLLIN, .revents = 0},
      {.fd = m_wake_fd, .events = POLLIN, .revents = 0},
      {.fd = m_in_fd, .events = POLLIN, .revents = 0},
  }};
  for (;;) {
    const int ready = ::poll(fds.data(), with_input ? 3 : 2, timeout_ms);
    if (ready < 0 && errno == EINTR) {
      continue; // the signal's byte is in the pipe now
    }
    if (ready < 0) {
      throw std::system_error(errno, std::generic_category(), "cannot wait for the chat's input");
    }
    if (ready == 0) {
      return std::nullopt;
    }
    if (fds[0].revents != 0) {
      if (const auto signal = m_signals.take()) {
        return *signal == SIGINT ? Kind::interrupt : Kind::terminate;
      }
    }
    if (fds[1].revents != 0) {
      std::uint64_t wakes = 0;
      if (::read(m_wake_fd, &wakes, sizeof wakes) > 0) {
        return Kind::woken;
      }
    }
    if (with_input && fds[2].revents != 0) {
      return Kind::line; // POLLHUP and POLLERR too: the read that follows sees the end
    }
  }
}

InputEvent ChatInput::read(std::string_view prompt) {
  // What already waits wins over input, and shows no prompt.
  if (const auto ready = wait_for(false, 0)) {
    return InputEvent{.kind = *ready};
  }
  return m_editor != nullptr ? read_terminal(prompt) : read_script();
}

InputEvent ChatInput::wait() {
  return InputEvent{.kind = wait_for(false, -1).value_or(Kind::woken)};
}

void ChatInput::wake() {
  const std::uint64_t one = 1;
  (void)!::write(m_wake_fd, &one, sizeof one); // fails only when 2^64 wakes are pending
}

void ChatInput::remember(const std::string& line) {
  if (line.find_first_not_of(" \t") == std::string::npos) {
    return; // nothing worth recalling
  }
  if (m_editor != nullptr) {
    m_editor->add_history(line);
  }
  m_history.append(line);
}

InputEvent ChatInput::read_terminal(std::string_view prompt) {
  m_stopped_by.reset();
  auto line = m_editor->read(prompt);
  if (line) {
    return InputEvent{.kind = Kind::line, .text = std::move(*line)};
  }
  if (m_before_typing) {
    m_before_typing(); // the "^C" shows on the screen too
  }
  // libedit leaves the cursor after the prompt or the dropped text; what follows (the next
  // prompt, the chat's output) starts a line of its own.
  write_all(m_out_fd, m_stopped_by == Kind::interrupt ? "^C\n" : "\n");
  return InputEvent{.kind = m_stopped_by.value_or(Kind::end)};
}

InputEvent ChatInput::read_script() {
  for (;;) {
    const auto newline = m_buffer.find('\n');
    if (newline != std::string::npos) {
      std::string line = m_buffer.substr(0, newline);
      m_buffer.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      return InputEvent{.kind = Kind::line, .text = std::move(line)};
    }
    if (m_input_ended) {
      if (m_buffer.empty()) {
        return InputEvent{.kind = Kind::end};
      }
      return InputEvent{.kind = Kind::line, .text = std::exchange(m_buffer, {})};
    }
    const auto ready = wait_for(true, -1);
    if (ready != Kind::line) {
      return InputEvent{.kind = ready.value_or(Kind::woken)};
    }
    char chunk[4096];
    const ssize_t got = ::read(m_in_fd, chunk, sizeof chunk);
    if (got > 0) {
      m_buffer.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      m_input_ended = true;
    }
  }
}

} // namespace ralph::cli
