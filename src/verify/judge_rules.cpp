#include "ralph/verify/judge_rules.h"

#include "ralph/core/text.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>

namespace ralph::verify {
namespace {

constexpr std::string_view k_heartbeat_file = "HEARTBEAT.md";

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

} // namespace

std::vector<std::string> judge_rules_file_names(std::span<const std::string> configured,
                                                bool heartbeat) {
  std::vector<std::string> names;
  if (heartbeat) {
    names.emplace_back(k_heartbeat_file);
  }
  for (const std::string& name : configured) {
    if (name != k_heartbeat_file) {
      names.push_back(name);
    }
  }
  return names;
}

std::vector<JudgeRulesFile> read_judge_rules(const std::filesystem::path& workspace,
                                             std::span<const std::string> names,
                                             std::size_t max_bytes) {
  std::vector<JudgeRulesFile> files;
  if (workspace.empty()) {
    return files;
  }
  for (const std::string& name : names) {
    const std::filesystem::path path = workspace / name;
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (status.type() == std::filesystem::file_type::not_found) {
      continue;
    }
    JudgeRulesFile file;
    file.name = name;
    if (ec) {
      file.error = ec.message();
      files.push_back(std::move(file));
      continue;
    }
    if (!std::filesystem::is_regular_file(status)) {
      // Directories, and FIFOs or devices that could block the read forever.
      file.error = "not a regular file";
      files.push_back(std::move(file));
      continue;
    }
    const std::unique_ptr<std::FILE, FileCloser> stream(std::fopen(path.c_str(), "rb"));
    if (!stream) {
      file.error = std::error_code(errno, std::generic_category()).message();
      files.push_back(std::move(file));
      continue;
    }
    // A few bytes past the cap so the cut can step back to a UTF-8 boundary.
    std::string content(max_bytes + 3, '\0');
    content.resize(std::fread(content.data(), 1, content.size(), stream.get()));
    if (std::ferror(stream.get()) != 0) {
      file.error = "read error";
      files.push_back(std::move(file));
      continue;
    }
    const auto size = std::filesystem::file_size(path, ec);
    file.size = ec ? content.size() : static_cast<std::size_t>(size);
    file.content = std::string(utf8_prefix(content, max_bytes));
    file.size = std::max(file.size, content.size());
    files.push_back(std::move(file));
  }
  return files;
}

} // namespace ralph::verify
