#include "cli/line_editor.h"

#include <cerrno>
#include <cstdio>
#include <histedit.h>
#include <stdexcept>
#include <unistd.h>

namespace ralph::cli {
namespace {

constexpr int k_history_size = 1000;
constexpr wchar_t k_replacement = 0xFFFD;

// How many continuation bytes follow a UTF-8 lead byte; -1 for a byte that cannot lead.
int utf8_extra(unsigned char lead) {
  if (lead < 0x80) {
    return 0;
  }
  if ((lead >> 5) == 6) {
    return 1;
  }
  if ((lead >> 4) == 14) {
    return 2;
  }
  return (lead >> 3) == 30 ? 3 : -1;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string to_utf8(const wchar_t* text, std::size_t size) {
  std::string out;
  out.reserve(size);
  for (std::size_t i = 0; i < size; ++i) {
    append_utf8(out, static_cast<char32_t>(text[i]));
  }
  return out;
}

// Malformed sequences become U+FFFD, one per bad byte.
std::wstring from_utf8(std::string_view text) {
  std::wstring out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int extra = utf8_extra(lead);
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size()) {
      out += k_replacement;
      ++i;
      continue;
    }
    char32_t c = extra == 0 ? lead : lead & (0x3F >> extra);
    bool valid = true;
    for (int k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      valid = valid && (next & 0xC0) == 0x80;
      c = (c << 6) | (next & 0x3F);
    }
    if (!valid) {
      out += k_replacement;
      ++i;
      continue;
    }
    out += static_cast<wchar_t>(c);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return out;
}

} // namespace

struct LineEditor::Impl {
  int in_fd;
  std::function<bool()> ready;
  FILE* in = nullptr;
  FILE* out = nullptr;
  EditLine* editor = nullptr;
  HistoryW* history = nullptr;
  std::wstring prompt;

  // One byte of input: 1, or 0 at the end of input, or -1 when told to stop.
  int next_byte(unsigned char& byte) {
    for (;;) {
      if (!ready()) {
        return -1;
      }
      const ssize_t got = ::read(in_fd, &byte, 1);
      if (got == 1) {
        return 1;
      }
      if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        return 0; // EIO: the terminal hung up
      }
    }
  }

  // libedit's wide-character reader, replaced so that a wait can be stopped and UTF-8 decoded
  // without depending on the locale.
  int read_char(wchar_t& out_char) {
    unsigned char lead = 0;
    const int status = next_byte(lead);
    if (status != 1) {
      return status;
    }
    const int extra = utf8_extra(lead);
    if (extra < 0) {
      out_char = k_replacement;
      return 1;
    }
    std::string bytes(1, static_cast<char>(lead));
    for (int k = 0; k < extra; ++k) {
      unsigned char next = 0;
      const int more = next_byte(next);
      if (more != 1) {
        return more;
      }
      bytes += static_cast<char>(next);
    }
    const std::wstring decoded = from_utf8(bytes);
    out_char = decoded.size() == 1 ? decoded[0] : k_replacement;
    return 1;
  }
};

namespace {

LineEditor::Impl* impl_of(EditLine* editor) {
  void* data = nullptr;
  el_wget(editor, EL_CLIENTDATA, &data);
  return static_cast<LineEditor::Impl*>(data);
}

extern "C" int read_char_callback(EditLine* editor, wchar_t* out) {
  try {
    return impl_of(editor)->read_char(*out);
  } catch (...) { // nothing may cross into C
    return -1;
  }
}

extern "C" wchar_t* prompt_callback(EditLine* editor) {
  return impl_of(editor)->prompt.data();
}

} // namespace

LineEditor::LineEditor(int in_fd, int out_fd, std::function<bool()> ready)
    : m_impl(std::make_unique<Impl>()) {
  Impl& impl = *m_impl;
  impl.in_fd = in_fd;
  impl.ready = std::move(ready);
  // libedit writes through a FILE of its own; duplicates keep the caller's descriptors theirs.
  impl.in = fdopen(dup(in_fd), "r");
  impl.out = fdopen(dup(out_fd), "w");
  if (impl.in == nullptr || impl.out == nullptr) {
    throw std::runtime_error("cannot open the terminal for line editing");
  }
  impl.editor = el_init("ralph", impl.in, impl.out, impl.out);
  impl.history = history_winit();
  if (impl.editor == nullptr || impl.history == nullptr) {
    throw std::runtime_error("cannot start the line editor");
  }
  HistEventW event{};
  history_w(impl.history, &event, H_SETSIZE, k_history_size);
  history_w(impl.history, &event, H_SETUNIQUE, 1);
  el_wset(impl.editor, EL_CLIENTDATA, &impl);
  el_wset(impl.editor, EL_EDITOR, L"emacs");
  el_wset(impl.editor, EL_PROMPT, prompt_callback);
  el_wset(impl.editor, EL_GETCFN, read_char_callback);
  el_wset(impl.editor, EL_HIST, history_w, impl.history);
  // Characters U+0080 to U+00FF go through libedit's key map, where only a locale that calls them
  // printable makes them text; the rest (U+0100 up) are always text. Bound here, "ü" is typed in
  // any locale (it shows right in a UTF-8 one).
  for (wchar_t key = 0x80; key <= 0xFF; ++key) {
    const wchar_t keys[] = {key, L'\0'};
    const wchar_t* bind[] = {L"bind", keys, L"ed-insert", nullptr};
    el_wparse(impl.editor, 3, bind);
  }
  // A Ctrl-C makes the terminal discard the output it still holds just after it sends SIGINT, and
  // with it what the chat prints at once in answer (the "^C", the turn's end): noflsh keeps it,
  // at the prompt and in the mode libedit gives back between lines.
  for (const wchar_t* mode : {L"-d", L"-x"}) {
    const wchar_t* setty[] = {L"setty", mode, L"+noflsh", nullptr};
    el_wparse(impl.editor, 3, setty);
  }
  // No EL_SIGNAL: ralph's own handlers (InterruptPipe) keep SIGINT and SIGTERM; libedit picks up
  // a new window size at the start of each line anyway.
}

LineEditor::~LineEditor() {
  if (m_impl->editor != nullptr) {
    el_end(m_impl->editor); // gives the terminal back in the mode it was found in
  }
  if (m_impl->history != nullptr) {
    history_wend(m_impl->history);
  }
  if (m_impl->in != nullptr) {
    std::fclose(m_impl->in);
  }
  if (m_impl->out != nullptr) {
    std::fclose(m_impl->out);
  }
}

std::optional<std::string> LineEditor::read(std::string_view prompt) {
  m_impl->prompt = from_utf8(prompt);
  // Raw mode before the prompt shows: el_wgets would show it first, and a key typed in between
  // would reach the terminal's line discipline (a Ctrl-D there is lost).
  el_wset(m_impl->editor, EL_PREP_TERM, 1);
  int count = 0;
  const wchar_t* line = el_wgets(m_impl->editor, &count);
  // And raw mode until the next read: el_wgets gives back the cooked mode, in which a key typed
  // while the caller works on this line (a Ctrl-D just after a turn ends) would be the line
  // discipline's, not the next read's. The destructor gives the terminal back as it was found.
  el_wset(m_impl->editor, EL_PREP_TERM, 1);
  if (line == nullptr || count <= 0) {
    return std::nullopt;
  }
  auto size = static_cast<std::size_t>(count);
  if (line[size - 1] == L'\n') {
    --size;
  }
  return to_utf8(line, size);
}

void LineEditor::add_history(std::string_view line) {
  HistEventW event{};
  const std::wstring wide = from_utf8(line);
  history_w(m_impl->history, &event, H_ENTER, wide.c_str());
}

} // namespace ralph::cli
