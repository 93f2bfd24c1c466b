#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ralph::testing {

// The lines a terminal shows after `bytes` were written to it, from the top, as a person would
// read them: carriage return, newline, backspace and erase-to-end-of-line (ESC [ K) are applied;
// other escape sequences (colours, cursor keys) are dropped; a UTF-8 character is one column.
// Enough of a terminal for ralph's status line and libedit's echo, not a general emulator.
std::vector<std::string> terminal_screen(std::string_view bytes);

} // namespace ralph::testing
