#include "compiled_schema.h"
#include "schema_formats.h"

#include "ralph/core/text.h"
#include "ralph/verify/json_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

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

// Integers exactly; other numbers with a tolerance for binary fractions (0.0075 is a multiple of
// 0.0001 though 0.0075 / 0.0001 is not exactly 75 in doubles).
bool is_multiple(const json& value, const json& divisor) {
  if (value.is_number_integer() && divisor.is_number_integer()) {
    const auto magnitude = [](const json& n) {
      if (n.is_number_unsigned()) {
        return n.get<std::uint64_t>();
      }
      const std::int64_t signed_value = n.get<std::int64_t>();
      return signed_value < 0 ? 0 - static_cast<std::uint64_t>(signed_value)
                              : static_cast<std::uint64_t>(signed_value);
    };
    return magnitude(value) % magnitude(divisor) == 0;
  }
  const double quotient = value.get<double>() / divisor.get<double>();
  return std::isfinite(quotient) && std::abs(quotient - std::round(quotient)) < 1e-9;
}

using Pair = std::pair<const json*, const json*>; // a schema node and a value node

struct PairHash {
  std::size_t operator()(const Pair& pair) const {
    const std::hash<const json*> hash;
    return hash(pair.first) * 31 + hash(pair.second);
  }
};

// What one validate() call shares between the validators it nests. Value nodes have fixed
// addresses (and so fixed pointers) for the whole call, so a (schema, value) pair always has the
// same answer: each is worked out once, which keeps self-referencing schemas linear.
struct Evaluation {
  const CompiledSchema& compiled;
  // The first error of each pair checked for one error (nullopt: it conforms).
  std::unordered_map<Pair, std::optional<std::string>, PairHash> first_errors;
  std::unordered_set<Pair, PairHash> in_progress;
  std::map<const json*, json> names; // property names as values, by their member's value node
  std::size_t steps = 0;
  std::optional<std::string> undecidable; // set: the answer is this one error
};

class Validator {
public:
  Validator(Evaluation& evaluation, std::size_t max_errors)
      : m_eval(evaluation), m_max(std::max<std::size_t>(1, max_errors)) {}

  std::vector<std::string>& errors() { return m_errors; }

  void check(const json& schema, const json& value, const std::string& pointer, int depth) {
    if (full() || m_eval.undecidable) {
      return;
    }
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) {
        add(pointer, "no value is allowed here");
      }
      return;
    }
    if (depth > k_max_schema_depth) {
      return undecidable(pointer, "the value is nested too deeply for the schema to be checked");
    }
    if (++m_eval.steps > k_max_validation_steps) {
      return undecidable(pointer, fmt::format("checking stopped after {} steps: the schema is too "
                                              "costly for this value",
                                              k_max_validation_steps));
    }
    // Schemas form a tree, so only a $ref can bring the same (schema, value) pair round again:
    // results are remembered, and cycles caught, where references lead.
    if (m_eval.compiled.ref_targets.count(&schema) == 0) {
      evaluate(schema, value, pointer, depth);
    } else {
      check_remembered(schema, value, pointer, depth);
    }
  }

private:
  void check_remembered(const json& schema, const json& value, const std::string& pointer,
                        int depth) {
    const Pair key{&schema, &value};
    if (m_eval.in_progress.count(key) > 0) {
      return undecidable(pointer, "the schema refers back to itself without consuming any of the "
                                  "value, so it can never be decided");
    }
    if (single()) {
      if (const auto known = m_eval.first_errors.find(key); known != m_eval.first_errors.end()) {
        if (known->second) {
          m_errors.push_back(*known->second);
        }
        return;
      }
    } else if (!m_seen.insert(key).second) {
      return; // checked already: its errors are reported
    }
    m_eval.in_progress.insert(key);
    evaluate(schema, value, pointer, depth);
    m_eval.in_progress.erase(key);
    if (single() && !m_eval.undecidable) {
      m_eval.first_errors.emplace(key, m_errors.empty() ? std::nullopt
                                                        : std::optional(m_errors.front()));
    }
  }

  bool full() const { return m_errors.size() >= m_max; }
  bool single() const { return m_max == 1; }

  void add(const std::string& pointer, const std::string& message) {
    if (!full()) {
      m_errors.push_back(fmt::format("{}: {}", pointer_shown(pointer), message));
    }
  }

  void undecidable(const std::string& pointer, const std::string& message) {
    m_eval.undecidable = fmt::format("{}: {}", pointer_shown(pointer), message);
  }

  // The first error `schema` finds in `value`, or nullopt when it conforms.
  std::optional<std::string> first_error(const json& schema, const json& value,
                                         const std::string& pointer, int depth) const {
    Validator inner(m_eval, 1);
    inner.check(schema, value, pointer, depth + 1);
    if (inner.m_errors.empty()) {
      return std::nullopt;
    }
    return inner.m_errors.front();
  }

  void evaluate(const json& schema, const json& value, const std::string& pointer, int depth) {
    if (schema.empty()) {
      return; // {} allows anything; a common item schema, and a dozen lookups saved
    }
    // Draft 7: a schema with a $ref is that reference; keywords beside it are ignored.
    if (const auto ref = m_eval.compiled.refs.find(&schema); ref != m_eval.compiled.refs.end()) {
      check(*ref->second, value, pointer, depth + 1);
      return;
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

  bool type_matches(const json& schema, const json& value, const std::string& pointer) {
    const auto type = schema.find("type");
    if (type == schema.end()) {
      return true;
    }
    const auto matches = [&](const json& name) {
      return has_type(value, name.get_ref<const std::string&>());
    };
    if (type->is_string() ? matches(*type) : std::any_of(type->begin(), type->end(), matches)) {
      return true;
    }
    const auto names = type->is_string() ? std::vector{type->get<std::string>()}
                                         : type->get<std::vector<std::string>>();
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

  // The bounds `min_key` and `max_key` set on a `count` of `noun`s.
  void check_count(const json& schema, const char* min_key, const char* max_key, std::size_t count,
                   const char* noun, const std::string& pointer) {
    const auto min = schema.find(min_key);
    if (min != schema.end() && static_cast<double>(count) < min->get<double>()) {
      add(pointer, fmt::format("expected at least {} {}, found {}", min->dump(), noun, count));
    }
    const auto max = schema.find(max_key);
    if (max != schema.end() && static_cast<double>(count) > max->get<double>()) {
      add(pointer, fmt::format("expected at most {} {}, found {}", max->dump(), noun, count));
    }
  }

  void check_string(const json& schema, const json& value, const std::string& pointer) {
    const std::string& text = value.get_ref<const std::string&>();
    check_count(schema, "minLength", "maxLength", utf8_length(text), "characters", pointer);
    if (const auto format = schema.find("format"); format != schema.end()) {
      const std::string& name = format->get_ref<const std::string&>();
      if (!matches_format(name, text)) {
        add(pointer, fmt::format("expected a string of format {}, found {}", name, shown(value)));
      }
    }
    if (const auto pattern = schema.find("pattern"); pattern != schema.end()) {
      const RE2& regex = *m_eval.compiled.patterns.at(&*pattern);
      if (!RE2::PartialMatch(text, regex)) {
        add(pointer, fmt::format("expected a match for the pattern `{}`, found {}", regex.pattern(),
                                 shown(value)));
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
    if (const auto divisor = schema.find("multipleOf"); divisor != schema.end()) {
      if (!is_multiple(value, *divisor)) {
        add(pointer,
            fmt::format("expected a multiple of {}, found {}", divisor->dump(), value.dump()));
      }
    }
  }

  void check_array(const json& schema, const json& value, const std::string& pointer, int depth) {
    check_count(schema, "minItems", "maxItems", value.size(), "items", pointer);
    if (const auto unique = schema.find("uniqueItems");
        unique != schema.end() && unique->get<bool>()) {
      check_unique(value, pointer);
    }
    check_items(schema, value, pointer, depth);
    if (const auto contains = schema.find("contains"); contains != schema.end()) {
      std::optional<std::string> first;
      for (std::size_t i = 0; i < value.size(); ++i) {
        auto error =
            first_error(*contains, value[i], pointer_child(pointer, std::to_string(i)), depth);
        if (!error) {
          return;
        }
        first = first ? first : std::move(error);
      }
      add(pointer, first ? fmt::format("expected an item matching `contains`, found none (the "
                                       "first says: {})",
                                       *first)
                         : "expected an item matching `contains`, found an empty array");
    }
  }

  void check_items(const json& schema, const json& value, const std::string& pointer, int depth) {
    const auto items = schema.find("items");
    if (items == schema.end()) {
      return;
    }
    const auto additional = schema.find("additionalItems");
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string at = pointer_child(pointer, std::to_string(i));
      if (!items->is_array()) {
        check(*items, value[i], at, depth + 1);
      } else if (i < items->size()) {
        check((*items)[i], value[i], at, depth + 1);
      } else if (additional != schema.end()) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          add(at, "unexpected item (additionalItems is false)");
        } else {
          check(*additional, value[i], at, depth + 1);
        }
      }
    }
  }

  // Sorted rather than compared pairwise, so a long array costs n log n.
  void check_unique(const json& value, const std::string& pointer) {
    std::vector<std::size_t> order(value.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
    std::optional<std::pair<std::size_t, std::size_t>> duplicate;
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (value[order[i - 1]] == value[order[i]] &&
          (!duplicate || order[i - 1] < duplicate->first)) {
        duplicate = std::pair(order[i - 1], order[i]);
      }
    }
    if (duplicate) {
      add(pointer, fmt::format("expected unique items, but items {} and {} are equal",
                               duplicate->first, duplicate->second));
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
    check_count(schema, "minProperties", "maxProperties", value.size(), "properties", pointer);
    check_dependencies(schema, value, pointer, depth);
    check_members(schema, value, pointer, depth);
  }

  void check_dependencies(const json& schema, const json& value, const std::string& pointer,
                          int depth) {
    const auto dependencies = schema.find("dependencies");
    if (dependencies == schema.end()) {
      return;
    }
    for (const auto& [name, dependency] : dependencies->items()) {
      if (!value.contains(name)) {
        continue;
      }
      if (!dependency.is_array()) {
        check(dependency, value, pointer, depth + 1);
        continue;
      }
      for (const json& needed : dependency) {
        if (!value.contains(needed.get<std::string>())) {
          add(pointer, fmt::format("missing property {}, required when \"{}\" is present",
                                   needed.dump(), name));
        }
      }
    }
  }

  void check_members(const json& schema, const json& value, const std::string& pointer, int depth) {
    const auto properties = schema.find("properties");
    const auto patterns = schema.find("patternProperties");
    const auto additional = schema.find("additionalProperties");
    const auto names = schema.find("propertyNames");
    for (const auto& [key, member] : value.items()) {
      const std::string at = pointer_child(pointer, key);
      if (names != schema.end()) {
        const json& name = m_eval.names.try_emplace(&member, key).first->second;
        if (auto error = first_error(*names, name, at, depth)) {
          add(at, fmt::format("the property name breaks propertyNames ({})", *error));
        }
      }
      bool described = false;
      if (properties != schema.end() && properties->contains(key)) {
        described = true;
        check(properties->at(key), member, at, depth + 1);
      }
      if (patterns != schema.end()) {
        for (const auto& [source, sub] : patterns->items()) {
          if (RE2::PartialMatch(key, *m_eval.compiled.patterns.at(&sub))) {
            described = true;
            check(sub, member, at, depth + 1);
          }
        }
      }
      if (described || additional == schema.end()) {
        continue;
      }
      if (additional->is_boolean() && !additional->get<bool>()) {
        add(at, "unexpected property (additionalProperties is false)");
      } else {
        check(*additional, member, at, depth + 1);
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
      const bool any = std::string_view(key) == "anyOf";
      std::size_t matched = 0;
      std::optional<std::string> first;
      for (const json& sub : *choices) {
        auto error = first_error(sub, value, pointer, depth);
        if (!error) {
          ++matched;
        } else if (!first) {
          first = std::move(error);
        }
        if (any && matched > 0) {
          break;
        }
      }
      if (matched == 0) {
        add(pointer, fmt::format("matches none of the {} {} schemas (the first says: {})",
                                 choices->size(), key, first.value_or("?")));
      } else if (matched > 1) {
        add(pointer, fmt::format("matches {} of the oneOf schemas, expected exactly one", matched));
      }
    }
    if (const auto negated = schema.find("not"); negated != schema.end()) {
      if (!first_error(*negated, value, pointer, depth)) {
        add(pointer, "must not match the schema under `not`");
      }
    }
    if (const auto condition = schema.find("if"); condition != schema.end()) {
      const bool holds = !first_error(*condition, value, pointer, depth);
      const auto branch = schema.find(holds ? "then" : "else");
      if (branch != schema.end()) {
        check(*branch, value, pointer, depth + 1);
      }
    }
  }

  Evaluation& m_eval;
  std::size_t m_max;
  std::vector<std::string> m_errors;
  std::unordered_set<Pair, PairHash>
      m_seen; // pairs this validator checked (with more than one error wanted)
};

} // namespace

std::vector<std::string> JsonSchema::validate(const nlohmann::json& value,
                                              std::size_t max_errors) const {
  Evaluation evaluation{.compiled = *m_compiled};
  Validator validator(evaluation, max_errors);
  validator.check(m_compiled->root(), value, "", 0);
  if (evaluation.undecidable) {
    return {*evaluation.undecidable};
  }
  return std::move(validator.errors());
}

} // namespace ralph::verify
