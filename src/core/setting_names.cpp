// Lookups over the names the key table gives each key (config_key_table*.cpp).
#include "ralph/core/setting_names.h"

#include "config_keys.h"

#include <cctype>

namespace ralph {

const std::vector<SettingNames>& setting_names() {
  static const std::vector<SettingNames> k_names = [] {
    std::vector<SettingNames> names;
    names.reserve(config_detail::keys().size());
    for (const config_detail::Key& key : config_detail::keys()) {
      names.push_back(key.names);
    }
    return names;
  }();
  return k_names;
}

const SettingNames* find_setting(std::string_view key) {
  for (const SettingNames& names : setting_names()) {
    if (names.key == key) {
      return &names;
    }
  }
  return nullptr;
}

std::string_view flag_name(const SettingFlag& flag) {
  return flag.names.substr(0, flag.names.find(','));
}

std::string_view flag_help(const SettingFlag& flag) {
  if (!flag.help.empty()) {
    return flag.help;
  }
  const SettingNames* names = find_setting(flag.key);
  return names == nullptr ? std::string_view() : names->help;
}

const SettingFlag* find_flag(std::string_view name, std::string_view key,
                             std::optional<FlagForm> form) {
  const SettingFlag* found = nullptr;
  for (const SettingNames& names : setting_names()) {
    if (!key.empty() && names.key != key) {
      continue;
    }
    for (const SettingFlag& flag : names.flags) {
      if (flag_name(flag) != name || (form && flag.form != *form)) {
        continue;
      }
      if (found != nullptr) {
        return nullptr; // the caller must say which it means
      }
      found = &flag;
    }
  }
  return found;
}

namespace {

// The key whose name of this kind (goal key, /budget name) is `name`; no key has an empty one.
const SettingNames* find_by(std::string_view SettingNames::*kind, std::string_view name) {
  for (const SettingNames& names : setting_names()) {
    if (!(names.*kind).empty() && names.*kind == name) {
      return &names;
    }
  }
  return nullptr;
}

// Every name of this kind, in the table's order.
std::vector<std::string> all_of(std::string_view SettingNames::*kind) {
  std::vector<std::string> out;
  for (const SettingNames& names : setting_names()) {
    if (!(names.*kind).empty()) {
      out.emplace_back(names.*kind);
    }
  }
  return out;
}

} // namespace

const SettingNames* find_goal_key(std::string_view goal_key) {
  return find_by(&SettingNames::goal_key, goal_key);
}

const SettingNames* find_budget_name(std::string_view name) {
  return find_by(&SettingNames::budget_name, name);
}

std::vector<std::string> goal_key_names() {
  return all_of(&SettingNames::goal_key);
}

std::vector<std::string> budget_names() {
  return all_of(&SettingNames::budget_name);
}

std::string env_variable(std::string_view key) {
  std::string name = "RALPH_";
  for (const char c : key) {
    name.push_back(c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return name;
}

} // namespace ralph
