#include "check_command.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fnmatch.h>

namespace ralph::verify {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

// Operators longest first, so `&&` is not read as two `&`.
constexpr std::array<std::string_view, 12> k_operators = {"2>&1", "&&", "||", ">>", ">&", "<<",
                                                          ";",    "|",  "&",  "(",  ")",  ">"};

std::optional<std::string_view> operator_at(std::string_view rest) {
  for (const std::string_view op : k_operators) {
    if (rest.starts_with(op)) {
      return op;
    }
  }
  if (rest.starts_with('<')) {
    return rest.substr(0, 1);
  }
  return std::nullopt;
}

// `NAME=value`, as the shell reads it before a command.
bool is_assignment(const ShellToken& token) {
  if (token.is_operator) {
    return false;
  }
  const std::size_t equals = token.text.find('=');
  if (equals == 0 || equals == std::string::npos) {
    return false;
  }
  const auto name = std::string_view(token.text).substr(0, equals);
  return !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

bool is_word(const ShellToken& token, std::string_view text) {
  return !token.is_operator && token.text == text;
}

} // namespace

std::optional<std::vector<ShellToken>> tokenize_shell(std::string_view line) {
  std::vector<ShellToken> tokens;
  std::string word;
  bool in_word = false;
  const auto end_word = [&] {
    if (in_word) {
      tokens.push_back({std::move(word), false});
      word.clear();
      in_word = false;
    }
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '`' || (c == '$' && i + 1 < line.size() && line[i + 1] == '(')) {
      return std::nullopt; // a command substitution runs something else
    }
    if (is_blank(c)) {
      end_word();
      continue;
    }
    if (c == '#' && !in_word) {
      break; // a comment to the end of the line
    }
    // Inside a word a '2' is the word's, not the start of "2>&1".
    if (const auto op = in_word && c == '2' ? std::nullopt : operator_at(line.substr(i))) {
      end_word();
      tokens.push_back({std::string(*op), true});
      i += op->size() - 1;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i < line.size()) {
        word += line[i];
      }
      continue;
    }
    if (c == '\'') {
      const std::size_t close = line.find('\'', i + 1);
      if (close == std::string_view::npos) {
        return std::nullopt;
      }
      word.append(line.substr(i + 1, close - i - 1));
      i = close;
      continue;
    }
    if (c == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '`' || (line[j] == '$' && j + 1 < line.size() && line[j + 1] == '(')) {
          return std::nullopt;
        }
        if (line[j] == '\\' && j + 1 < line.size() &&
            std::string_view("\"\\$`").find(line[j + 1]) != std::string_view::npos) {
          ++j;
        }
        word += line[j];
      }
      if (j >= line.size()) {
        return std::nullopt;
      }
      i = j;
      continue;
    }
    word += c;
  }
  end_word();
  return tokens;
}

namespace {

// `bash -lc LINE`, `sh -c LINE` and the like: a shell whose exit status is LINE's (Codex runs
// every command so).
bool is_shell_running_one_line(const std::vector<ShellToken>& tokens) {
  if (tokens.size() != 3 || tokens[0].is_operator || tokens[1].is_operator ||
      tokens[2].is_operator) {
    return false;
  }
  const std::string_view shell = tokens[0].text;
  const std::string_view name = shell.substr(shell.rfind('/') + 1);
  const std::string_view flags = tokens[1].text;
  return (name == "sh" || name == "bash" || name == "dash" || name == "zsh") &&
         (flags == "-c" || flags == "-lc" || flags == "-cl");
}

} // namespace

std::optional<std::vector<ShellToken>> checked_tokens(std::string_view line) {
  auto tokens = tokenize_shell(line);
  if (!tokens) {
    return std::nullopt;
  }
  if (is_shell_running_one_line(*tokens)) {
    return checked_tokens((*tokens)[2].text);
  }
  auto first = tokens->begin();
  // `cd DIR &&` steps: moving first does not change whose status the line ends with.
  while (std::distance(first, tokens->end()) >= 3 && is_word(first[0], "cd") &&
         !first[1].is_operator && first[2].is_operator && first[2].text == "&&") {
    first += 3;
  }
  while (first != tokens->end() && is_assignment(*first)) {
    ++first;
  }
  auto last = tokens->end();
  if (last != first && last[-1].is_operator && last[-1].text == "2>&1") {
    --last;
  }
  return std::vector<ShellToken>(first, last);
}

std::string inner_command_line(std::string_view line) {
  const auto tokens = tokenize_shell(line);
  if (tokens && is_shell_running_one_line(*tokens)) {
    return inner_command_line((*tokens)[2].text);
  }
  return std::string(line);
}

bool runs_command(std::string_view line, std::string_view command) {
  const auto ran = checked_tokens(line);
  const auto wanted = checked_tokens(command);
  return ran && wanted && !wanted->empty() && *ran == *wanted;
}

bool matches_check_pattern(std::string_view line, std::string_view pattern) {
  const auto ran = checked_tokens(line);
  if (!ran || ran->empty()) {
    return false;
  }
  std::string joined;
  for (const ShellToken& token : *ran) {
    if (token.is_operator) {
      return false;
    }
    joined += joined.empty() ? "" : " ";
    joined += token.text;
  }
  // The pattern's own spacing does not matter: `pytest  -q*` is `pytest -q*`.
  std::string normal;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (is_blank(pattern[i])) {
      if (!normal.empty() && normal.back() != ' ') {
        normal += ' ';
      }
      continue;
    }
    normal += pattern[i];
  }
  while (!normal.empty() && normal.back() == ' ') {
    normal.pop_back();
  }
  return !normal.empty() && ::fnmatch(normal.c_str(), joined.c_str(), 0) == 0;
}

} // namespace ralph::verify
