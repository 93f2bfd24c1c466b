#include "ralph/core/toml_query.h"

#include "toml_guard.h"

#include <fmt/format.h>
#include <toml++/toml.h>

namespace ralph {

Result<bool> toml_defines(std::string_view text, const std::string& source,
                          const std::vector<std::string>& path) {
  if (const auto hazard = config_detail::find_toml_hazard(text)) {
    return fail(ErrorKind::config,
                fmt::format("{}:{}:{}: {}", source, hazard->line, hazard->column, hazard->message));
  }
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return fail(ErrorKind::config, fmt::format("{}:{}:{}: TOML syntax error: {}", source,
                                               begin.line, begin.column, e.description()));
  }
  const toml::node* node = &table;
  for (const std::string& key : path) {
    const toml::table* within = node->as_table();
    node = within != nullptr ? within->get(key) : nullptr;
    if (node == nullptr) {
      return false;
    }
  }
  return true;
}

} // namespace ralph
