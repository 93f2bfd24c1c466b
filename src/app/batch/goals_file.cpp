#include "ralph/app/batch/goals_file.h"

#include "ralph/core/json.h"
#include "ralph/core/setting_names.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view k_place_keys[] = {"id", "goal", "workspace", "repo", "ref"};

// A folder and branch name: letters, digits, '.', '_' and '-', not starting with '.' or '-'.
bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 100 || id.front() == '.' || id.front() == '-' ||
      id.find("..") != std::string_view::npos || id.ends_with(".lock")) {
    return false;
  }
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// A repository to clone rather than a folder: scp-like `host:path` or a URL.
bool is_remote(std::string_view repo) {
  return repo.find("://") != std::string_view::npos ||
         (repo.find(':') != std::string_view::npos && repo.find('/') > repo.find(':'));
}

// A JSON value as the text a flag would carry; nullopt when it can be none.
std::optional<std::string> value_text(const nlohmann::json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_boolean()) {
    return std::string(value.get<bool>() ? "true" : "false");
  }
  if (value.is_number()) {
    return value.dump();
  }
  if (value.is_array() && std::all_of(value.begin(), value.end(), [](const nlohmann::json& item) {
        return item.is_string();
      })) {
    return value.dump();
  }
  return std::nullopt;
}

// The goal's own keys, then those the settings table names for configuration keys.
std::vector<std::string> all_key_names() {
  std::vector<std::string> names(std::begin(k_place_keys), std::end(k_place_keys));
  for (std::string& name : ralph::goal_key_names()) {
    names.push_back(std::move(name));
  }
  return names;
}

// A path of the goals file, relative to the file's folder.
fs::path resolve(const fs::path& folder, const std::string& text) {
  const fs::path path(text);
  return (path.is_absolute() ? path : folder / path).lexically_normal();
}

// One line's goal, or what is wrong with it (each problem prefixed with `where`).
BatchGoal parse_goal(const nlohmann::json& object, const std::string& where, const fs::path& folder,
                     const Config& base, std::vector<std::string>& problems) {
  BatchGoal goal;
  const auto problem = [&](const std::string& text) {
    problems.push_back(fmt::format("{}: {}", where, text));
  };
  const auto string_of = [&](std::string_view key) -> std::optional<std::string> {
    const auto found = object.find(key);
    if (found == object.end()) {
      return std::nullopt;
    }
    if (!found->is_string()) {
      problem(fmt::format("'{}' must be a string", key));
      return std::nullopt;
    }
    return found->get<std::string>();
  };
  if (const auto id = string_of("id")) {
    goal.id = *id;
    if (!valid_id(goal.id)) {
      problem(fmt::format("id '{}': use letters, digits, '.', '_' and '-' (it names a folder and "
                          "a branch)",
                          goal.id));
    }
  } else if (!object.contains("id")) {
    problem("'id' is missing");
  }
  if (const auto text = string_of("goal")) {
    goal.goal = *text;
    if (trim(goal.goal).empty()) {
      problem("'goal' is empty; say what to do, in words");
    }
  } else if (!object.contains("goal")) {
    problem("'goal' is missing");
  }
  if (const auto workspace = string_of("workspace")) {
    goal.source = resolve(folder, *workspace);
    std::error_code ec;
    if (!fs::is_directory(goal.source, ec)) {
      problem(fmt::format("workspace {}: not a directory", goal.source.string()));
    }
  }
  if (const auto repo = string_of("repo")) {
    if (object.contains("workspace")) {
      problem("give 'workspace' or 'repo', not both");
    } else if (is_remote(*repo)) {
      goal.repo_url = *repo;
    } else {
      goal.source = resolve(folder, *repo);
      std::error_code ec;
      if (!fs::is_directory(goal.source / ".git", ec) && !fs::exists(goal.source / ".git", ec)) {
        problem(fmt::format("repo {}: not a git repository", goal.source.string()));
      }
    }
  }
  if (const auto ref = string_of("ref")) {
    goal.ref = *ref;
  }

  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    const nlohmann::json& value = item.value();
    if (std::find(std::begin(k_place_keys), std::end(k_place_keys), key) !=
        std::end(k_place_keys)) {
      continue;
    }
    // Goal keys are named as the `ralph run` flags are, in snake case (core/setting_names.h).
    std::string config_key;
    if (const SettingNames* known = find_goal_key(key)) {
      config_key = known->key;
    } else if (key.find('.') != std::string::npos) {
      config_key = key; // a configuration key as files name it; the key table checks it
    } else {
      const std::string near = closest_name(key, all_key_names());
      problem(near.empty() ? fmt::format("unknown key '{}' (man ralph; docs/manual/batch.md)", key)
                           : fmt::format("unknown key '{}'; did you mean '{}'?", key, near));
      continue;
    }
    const auto text = value_text(value);
    if (!text) {
      problem(fmt::format("'{}': {} is not a value it takes", key, first_line(value.dump(), 60)));
      continue;
    }
    auto setting = Setting::check({config_key, *text, where + ": '" + key + "'"});
    if (!setting) {
      const std::string& reason = setting.error();
      if (reason.starts_with("unknown key")) {
        // The key table's own message: it knows the closest key.
        Config scratch;
        const auto set = set_config_value(scratch, config_key, *text, where);
        problems.push_back(set ? where + ": " + reason : set.error().message);
        continue;
      }
      problem(fmt::format("'{}' {}: {}", key, first_line(*text, 60), reason));
      continue;
    }
    goal.settings.push_back(std::move(*setting));
  }
  goal.config = base;
  apply_settings(goal.config, goal.settings);
  return goal;
}

} // namespace

std::string batch_id_of(const fs::path& file) {
  std::uint64_t hash = 1469598103934665603ULL; // FNV-1a
  for (const char c : file.string()) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  std::string stem = file.stem().string().substr(0, 40);
  for (char& c : stem) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-';
    c = plain ? c : '-';
  }
  return fmt::format("{}-{:08x}", stem.empty() ? "goals" : stem, hash & 0xffffffffU);
}

std::vector<std::string> goal_price_problems(const std::vector<BatchGoal>& goals,
                                             const fs::path& path, const BudgetSettings& limits) {
  std::vector<std::string> problems;
  for (const BatchGoal& goal : goals) {
    Config config = goal.config;
    config.budget.max_cost_usd = std::max(config.budget.max_cost_usd, limits.max_cost_usd);
    if (auto priced = session::check_prices(config); !priced) {
      problems.push_back(
          fmt::format("{}:{}: {}", path.string(), goal.line, priced.error().message));
    }
  }
  return problems;
}

Result<BatchGoal> goal_from_spec(const std::string& spec_json, const std::string& where,
                                 const Config& base) {
  TRY_ASSIGN(const nlohmann::json object, parse_json(spec_json, "goal"));
  if (!object.is_object()) {
    return fail(ErrorKind::usage, fmt::format("{}: a goal is a JSON object", where));
  }
  std::vector<std::string> problems;
  BatchGoal goal = parse_goal(object, where, fs::current_path(), base, problems);
  if (!problems.empty()) {
    return fail(ErrorKind::usage, fmt::format("{}", fmt::join(problems, "; ")));
  }
  goal.spec_json = spec_json;
  return goal;
}

Result<GoalsFile> read_goals_file(const fs::path& path, const Config& base) {
  std::ifstream in(path);
  if (!in) {
    return fail(ErrorKind::usage, fmt::format("{}: cannot read the goals file", path.string()));
  }
  const fs::path folder = fs::absolute(path).parent_path();
  GoalsFile file;
  std::set<std::string> ids;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') {
      continue;
    }
    const std::string where = fmt::format("{}:{}", path.string(), number);
    auto parsed = parse_json(text, "the line");
    if (!parsed) {
      file.problems.push_back(fmt::format(
          "{}: not JSON ({}); a goal is a JSON object on one line, like {{\"id\": \"fix\", "
          "\"goal\": \"make the tests pass\"}}",
          where, parsed.error().message));
      continue;
    }
    if (!parsed->is_object()) {
      file.problems.push_back(fmt::format("{}: a goal is a JSON object", where));
      continue;
    }
    BatchGoal goal = parse_goal(*parsed, where, folder, base, file.problems);
    goal.line = number;
    goal.spec_json = parsed->dump();
    if (!goal.id.empty() && !ids.insert(goal.id).second) {
      const auto first = std::find_if(file.goals.begin(), file.goals.end(),
                                      [&](const BatchGoal& g) { return g.id == goal.id; });
      file.problems.push_back(fmt::format("{}: id '{}' is used already on line {}", where, goal.id,
                                          first == file.goals.end() ? 0 : first->line));
      continue;
    }
    file.goals.push_back(std::move(goal));
  }
  if (file.goals.empty() && file.problems.empty()) {
    file.problems.push_back(fmt::format("{}: no goals in the file", path.string()));
  }
  return file;
}

} // namespace ralph::app
