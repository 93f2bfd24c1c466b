#include "code_points.h"
#include "compiled_schema.h"

#include "ralph/core/text.h"
#include "ralph/verify/json_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace ralph::verify {
namespace {

using detail::CompiledSchema;
using nlohmann::json;

constexpr std::size_t k_shown_bytes = 80;

// A value as it appears in a message: compact JSON, cut short.
std::string shown(const json& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string_view kept = utf8_prefix(text, k_shown_bytes);
  return kept.size() < text.size() ? std::string(kept) + "..." : text;
}

bool has_type(const json& value, const std::string& type) {
  if (type == "integer") {
    return is_integral(value);
  }
  if (type == "number") {
    return value.is_number();
  }
  return type == value.type_name();
}

std::string with_article(const std::string& type) {
  if (type == "null") {
    return "null";
  }
  const bool vowel = type == "object" || type == "array" || type == "integer";
  return (vowel ? "an " : "a ") + type;
}

std::string found(const json& value) {
  if (value.is_number()) {
    return value.is_number_float() ? "a number" : "an integer";
  }
  return with_article(value.type_name());
}

class Validator {
public:
  Validator(const CompiledSchema& compiled, std::size_t max_errors)
      : m_compiled(compiled), m_max(std::max<std::size_t>(1, max_errors)) {}

  std::vector<std::string>& errors() { return m_errors; }

  void check(const json& schema, const json& value, const std::string& pointer, int depth) {
    if (full()) {
      return;
    }
    if (depth > k_max_schema_depth) {
      add(pointer, "the schema recurses too deeply here (a $ref cycle?)");
      return;
    }
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) {
        add(pointer, "no value is allowed here");
      }
      return;
    }
    if (const auto ref = m_compiled.refs.find(&schema); ref != m_compiled.refs.end()) {
      check(*ref->second, value, pointer, depth + 1);
    }
    if (!type_matches(schema, value, pointer)) {
      return; // the other keywords would only repeat the same mistake
    }
    check_values(schema, value, pointer);
    if (value.is_string()) {
      check_string(schema, value, pointer);
    } else if (value.is_number()) {
      check_number(schema, value, pointer);
    } else if (value.is_array()) {
      check_array(schema, value, pointer, depth);
    } else if (value.is_object()) {
      check_object(schema, value, pointer, depth);
    }
    check_combinators(schema, value, pointer, depth);
  }

private:
  bool full() const { return m_errors.size() >= m_max; }

  void add(const std::string& pointer, const std::string& message) {
    if (!full()) {
      m_errors.push_back(fmt::format("{}: {}", pointer_shown(pointer), message));
    }
  }

  // The first error `schema` finds in `value`, or nullopt when it conforms.
  std::optional<std::string> first_error(const json& schema, const json& value,
                                         const std::string& pointer, int depth) const {
    Validator inner(m_compiled, 1);
    inner.check(schema, value, pointer, depth + 1);
    if (inner.m_errors.empty()) {
      return std::nullopt;
    }
    return inner.m_errors.front();
  }

  bool type_matches(const json& schema, const json& value, const std::string& pointer) {
    const auto type = schema.find("type");
    if (type == schema.end()) {
      return true;
    }
    std::vector<std::string> names;
    if (type->is_string()) {
      names.push_back(type->get<std::string>());
    } else {
      names = type->get<std::vector<std::string>>();
    }
    for (const std::string& name : names) {
      if (has_type(value, name)) {
        return true;
      }
    }
    std::string expected;
    for (std::size_t i = 0; i < names.size(); ++i) {
      expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + with_article(names[i]);
    }
    add(pointer, fmt::format("expected {}, found {}", expected, found(value)));
    return false;
  }

  void check_values(const json& schema, const json& value, const std::string& pointer) {
    if (const auto options = schema.find("enum"); options != schema.end()) {
      if (std::find(options->begin(), options->end(), value) == options->end()) {
        add(pointer, fmt::format("expected one of {}, found {}", shown(*options), shown(value)));
      }
    }
    if (const auto constant = schema.find("const"); constant != schema.end()) {
      if (*constant != value) {
        add(pointer, fmt::format("expected {}, found {}", shown(*constant), shown(value)));
      }
    }
  }

  void check_string(const json& schema, const json& value, const std::string& pointer) {
    const std::string& text = value.get_ref<const std::string&>();
    const std::size_t length = count_code_points(text);
    if (const auto min = schema.find("minLength"); min != schema.end()) {
      if (static_cast<double>(length) < min->get<double>()) {
        add(pointer, fmt::format("expected at least {} characters, found {}", min->dump(), length));
      }
    }
    if (const auto max = schema.find("maxLength"); max != schema.end()) {
      if (static_cast<double>(length) > max->get<double>()) {
        add(pointer, fmt::format("expected at most {} characters, found {}", max->dump(), length));
      }
    }
    if (const auto regex = m_compiled.patterns.find(&schema); regex != m_compiled.patterns.end()) {
      if (!RE2::PartialMatch(text, *regex->second)) {
        add(pointer, fmt::format("expected a match for the pattern `{}`, found {}",
                                 regex->second->pattern(), shown(value)));
      }
    }
  }

  void check_number(const json& schema, const json& value, const std::string& pointer) {
    const double number = value.get<double>();
    const auto bound = [&](const char* key, const char* exclusive_key, bool lower) {
      const auto limit = schema.find(key);
      const auto exclusive = schema.find(exclusive_key);
      // Draft 4 spells an exclusive bound as `minimum` plus `exclusiveMinimum: true`.
      const bool draft4_exclusive =
          exclusive != schema.end() && exclusive->is_boolean() && exclusive->get<bool>();
      if (limit != schema.end()) {
        const double edge = limit->get<double>();
        const bool outside = lower ? (draft4_exclusive ? number <= edge : number < edge)
                                   : (draft4_exclusive ? number >= edge : number > edge);
        if (outside) {
          add(pointer, fmt::format("expected {} {}, found {}",
                                   lower ? (draft4_exclusive ? "more than" : "at least")
                                         : (draft4_exclusive ? "less than" : "at most"),
                                   limit->dump(), value.dump()));
        }
      }
      if (exclusive != schema.end() && exclusive->is_number()) {
        const double edge = exclusive->get<double>();
        if (lower ? number <= edge : number >= edge) {
          add(pointer, fmt::format("expected {} {}, found {}", lower ? "more than" : "less than",
                                   exclusive->dump(), value.dump()));
        }
      }
    };
    bound("minimum", "exclusiveMinimum", true);
    bound("maximum", "exclusiveMaximum", false);
  }

  void check_array(const json& schema, const json& value, const std::string& pointer, int depth) {
    if (const auto min = schema.find("minItems"); min != schema.end()) {
      if (static_cast<double>(value.size()) < min->get<double>()) {
        add(pointer,
            fmt::format("expected at least {} items, found {}", min->dump(), value.size()));
      }
    }
    if (const auto max = schema.find("maxItems"); max != schema.end()) {
      if (static_cast<double>(value.size()) > max->get<double>()) {
        add(pointer, fmt::format("expected at most {} items, found {}", max->dump(), value.size()));
      }
    }
    if (const auto unique = schema.find("uniqueItems");
        unique != schema.end() && unique->get<bool>()) {
      check_unique(value, pointer);
    }
    const auto items = schema.find("items");
    if (items == schema.end()) {
      return;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      const json* item_schema =
          items->is_array() ? (i < items->size() ? &(*items)[i] : nullptr) : &*items;
      if (item_schema != nullptr) {
        check(*item_schema, value[i], pointer_child(pointer, std::to_string(i)), depth + 1);
      }
    }
  }

  void check_unique(const json& value, const std::string& pointer) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      for (std::size_t j = i + 1; j < value.size(); ++j) {
        if (value[i] == value[j]) {
          add(pointer, fmt::format("expected unique items, but items {} and {} are equal", i, j));
          return;
        }
      }
    }
  }

  void check_object(const json& schema, const json& value, const std::string& pointer, int depth) {
    if (const auto required = schema.find("required"); required != schema.end()) {
      for (const json& name : *required) {
        if (!value.contains(name.get<std::string>())) {
          add(pointer, fmt::format("missing required property {}", name.dump()));
        }
      }
    }
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, member] : value.items()) {
      const std::string at = pointer_child(pointer, key);
      if (properties != schema.end() && properties->contains(key)) {
        check(properties->at(key), member, at, depth + 1);
      } else if (additional != schema.end()) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          add(at, "unexpected property (additionalProperties is false)");
        } else {
          check(*additional, member, at, depth + 1);
        }
      }
    }
  }

  void check_combinators(const json& schema, const json& value, const std::string& pointer,
                         int depth) {
    if (const auto all = schema.find("allOf"); all != schema.end()) {
      for (const json& sub : *all) {
        check(sub, value, pointer, depth + 1);
      }
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      const auto choices = schema.find(key);
      if (choices == schema.end()) {
        continue;
      }
      std::size_t matched = 0;
      std::optional<std::string> first;
      for (const json& sub : *choices) {
        auto error = first_error(sub, value, pointer, depth);
        if (!error) {
          ++matched;
        } else if (!first) {
          first = std::move(error);
        }
      }
      if (matched == 0) {
        add(pointer, fmt::format("matches none of the {} {} schemas (the first says: {})",
                                 choices->size(), key, *first));
      } else if (matched > 1 && std::string_view(key) == "oneOf") {
        add(pointer, fmt::format("matches {} of the oneOf schemas, expected exactly one", matched));
      }
    }
    if (const auto negated = schema.find("not"); negated != schema.end()) {
      if (!first_error(*negated, value, pointer, depth)) {
        add(pointer, "must not match the schema under `not`");
      }
    }
  }

  const CompiledSchema& m_compiled;
  std::size_t m_max;
  std::vector<std::string> m_errors;
};

} // namespace

std::vector<std::string> JsonSchema::validate(const nlohmann::json& value,
                                              std::size_t max_errors) const {
  Validator validator(*m_compiled, max_errors);
  validator.check(m_compiled->root, value, "", 0);
  return std::move(validator.errors());
}

} // namespace ralph::verify
