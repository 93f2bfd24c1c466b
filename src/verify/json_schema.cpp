#include "ralph/verify/json_schema.h"

#include "compiled_schema.h"

#include "ralph/core/json.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace ralph::verify {
namespace {

using detail::CompiledSchema;
using nlohmann::json;

bool is_type_name(const std::string& name) {
  static const std::set<std::string, std::less<>> names = {"null",   "boolean", "object", "array",
                                                           "number", "integer", "string"};
  return names.count(name) > 0;
}

// Walks the schema once to reject what cannot work, so validation never meets a malformed
// keyword. The first problem wins.
class Compiler {
public:
  explicit Compiler(CompiledSchema& out) : m_out(out) {}

  const std::string& problem() const { return m_problem; }

  bool schema(const json& node, const std::string& pointer, int depth = 0) {
    if (depth > k_max_schema_depth) {
      return bad(pointer, "the schema is nested too deeply");
    }
    if (node.is_boolean() || !m_visited.insert(&node).second) {
      return true;
    }
    if (!node.is_object()) {
      return bad(pointer, "a schema must be an object or a boolean");
    }
    for (const auto& [key, value] : node.items()) {
      if (!keyword(node, key, value, pointer_child(pointer, key), depth + 1)) {
        return false;
      }
    }
    return true;
  }

private:
  bool keyword(const json& owner, const std::string& key, const json& value, const std::string& at,
               int depth) {
    if (key == "type") {
      const bool ok = value.is_string() ? is_type_name(value.get<std::string>())
                                        : value.is_array() && !value.empty() &&
                                              std::all_of(value.begin(), value.end(), [](auto& t) {
                                                return t.is_string() &&
                                                       is_type_name(t.template get<std::string>());
                                              });
      return ok || bad(at, "expected a type name (null, boolean, object, array, number, integer, "
                           "string) or an array of them");
    }
    if (key == "properties" || key == "definitions" || key == "$defs") {
      if (!value.is_object()) {
        return bad(at, "expected an object of schemas");
      }
      for (const auto& [name, sub] : value.items()) {
        if (!schema(sub, pointer_child(at, name), depth)) {
          return false;
        }
      }
      return true;
    }
    if (key == "additionalProperties" || key == "not") {
      return schema(value, at, depth);
    }
    if (key == "items" && !value.is_array()) {
      return schema(value, at, depth);
    }
    if (key == "items" || key == "anyOf" || key == "oneOf" || key == "allOf") {
      if (!value.is_array() || (key != "items" && value.empty())) {
        return bad(at, "expected a non-empty array of schemas");
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!schema(value[i], pointer_child(at, std::to_string(i)), depth)) {
          return false;
        }
      }
      return true;
    }
    if (key == "required") {
      const bool ok = value.is_array() && std::all_of(value.begin(), value.end(),
                                                      [](auto& name) { return name.is_string(); });
      return ok || bad(at, "expected an array of property names");
    }
    if (key == "enum") {
      return value.is_array() || bad(at, "expected an array of values");
    }
    if (key == "minItems" || key == "maxItems" || key == "minLength" || key == "maxLength") {
      const bool ok = is_integral(value) && value.get<double>() >= 0;
      return ok || bad(at, "expected a non-negative integer");
    }
    if (key == "minimum" || key == "maximum") {
      return value.is_number() || bad(at, "expected a number");
    }
    if (key == "exclusiveMinimum" || key == "exclusiveMaximum") {
      return value.is_number() || value.is_boolean() || bad(at, "expected a number");
    }
    if (key == "uniqueItems") {
      return value.is_boolean() || bad(at, "expected true or false");
    }
    if (key == "pattern") {
      return pattern(owner, value, at);
    }
    if (key == "$ref") {
      return ref(owner, value, at, depth);
    }
    return true; // not understood: ignored, as the header says
  }

  bool pattern(const json& owner, const json& value, const std::string& at) {
    if (!value.is_string()) {
      return bad(at, "expected a regular expression");
    }
    RE2::Options options;
    options.set_log_errors(false);
    auto regex = std::make_unique<RE2>(value.get<std::string>(), options);
    if (!regex->ok()) {
      return bad(
          at, fmt::format("invalid regular expression `{}`: {}", regex->pattern(), regex->error()));
    }
    m_out.patterns.emplace(&owner, std::move(regex));
    return true;
  }

  bool ref(const json& owner, const json& value, const std::string& at, int depth) {
    if (!value.is_string()) {
      return bad(at, "expected a reference such as \"#/$defs/name\"");
    }
    const std::string& text = value.get_ref<const std::string&>();
    const json* target = resolve(text);
    if (target == nullptr) {
      return bad(at, fmt::format("cannot resolve \"{}\" (only references inside this schema, "
                                 "such as \"#/definitions/name\" or \"#/$defs/name\", work)",
                                 text));
    }
    m_out.refs.emplace(&owner, target);
    return schema(*target, text, depth);
  }

  // A local JSON pointer ("#", "#/$defs/a~1b", "#/items/0"); nullptr when it leads nowhere.
  const json* resolve(std::string_view ref) const {
    if (ref.empty() || ref.front() != '#') {
      return nullptr;
    }
    ref.remove_prefix(1);
    const json* node = &m_out.root;
    while (!ref.empty()) {
      if (ref.front() != '/') {
        return nullptr;
      }
      ref.remove_prefix(1);
      const std::size_t end = std::min(ref.find('/'), ref.size());
      std::string token;
      for (std::size_t i = 0; i < end; ++i) {
        if (ref[i] == '~' && i + 1 < end && (ref[i + 1] == '0' || ref[i + 1] == '1')) {
          token += ref[++i] == '0' ? '~' : '/';
        } else {
          token += ref[i];
        }
      }
      ref.remove_prefix(end);
      if (node->is_object()) {
        const auto it = node->find(token);
        if (it == node->end()) {
          return nullptr;
        }
        node = &*it;
      } else if (node->is_array() && !token.empty() &&
                 token.find_first_not_of("0123456789") == std::string::npos && token.size() < 10 &&
                 std::stoul(token) < node->size()) {
        node = &(*node)[std::stoul(token)];
      } else {
        return nullptr;
      }
    }
    return node;
  }

  bool bad(const std::string& at, std::string message) {
    m_problem = fmt::format("{}: {}", pointer_shown(at), message);
    return false;
  }

  CompiledSchema& m_out;
  std::set<const json*> m_visited;
  std::string m_problem;
};

} // namespace

std::string pointer_child(const std::string& pointer, std::string_view key) {
  std::string out = pointer + '/';
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string pointer_shown(const std::string& pointer) {
  return pointer.empty() ? "(root)" : pointer;
}

bool is_integral(const json& value) {
  if (value.is_number_integer()) {
    return true;
  }
  if (!value.is_number_float()) {
    return false;
  }
  const double number = value.get<double>();
  return std::isfinite(number) && std::floor(number) == number;
}

Result<JsonSchema> JsonSchema::compile(std::string_view schema_text) {
  auto parsed = parse_json(schema_text, "JSON schema");
  if (!parsed) {
    return fail(ErrorKind::config, parsed.error().message);
  }
  auto compiled = std::make_shared<CompiledSchema>();
  compiled->root = std::move(*parsed);
  Compiler compiler(*compiled);
  if (!compiler.schema(compiled->root, "")) {
    return fail(ErrorKind::config, "JSON schema: " + compiler.problem());
  }
  return JsonSchema(std::move(compiled));
}

} // namespace ralph::verify
