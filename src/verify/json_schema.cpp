#include "ralph/verify/json_schema.h"

#include "compiled_schema.h"
#include "draft7_metaschema.h"
#include "schema_keywords.h"
#include "schema_uri.h"

#include "ralph/core/json.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <vector>

namespace ralph::verify {
namespace {

using detail::CompiledSchema;
using nlohmann::json;

// A $ref met while walking, resolved once every $id of its document is known.
struct PendingRef {
  const json* owner = nullptr;
  std::string ref;
  std::string base; // the base URI it is resolved against
  std::string at;   // where it is, for messages
  int depth = 0;
};

// Walks the schema once to reject what cannot work, so validation never meets a malformed
// keyword: first every schema reachable by keywords (noting each $id), then each $ref, walking
// what it leads to. The first problem wins.
class Compiler {
public:
  Compiler(CompiledSchema& out, const SchemaDocuments& documents)
      : m_out(out), m_documents(documents), m_id_key(id_keyword(out.root())) {}

  const std::string& problem() const { return m_problem; }

  bool compile() {
    m_resources.emplace("", &m_out.root());
    if (!schema(m_out.root(), "", "", 0)) {
      return false;
    }
    while (!m_pending.empty()) {
      const PendingRef pending = std::move(m_pending.back());
      m_pending.pop_back();
      if (!resolve(pending)) {
        return false;
      }
    }
    return true;
  }

private:
  bool schema(const json& node, const std::string& base, const std::string& at, int depth) {
    if (depth > k_max_schema_depth) {
      return bad(at, "the schema is nested too deeply");
    }
    if (!node.is_boolean() && !node.is_object()) {
      return bad(at, "a schema must be an object or a boolean");
    }
    if (node.is_boolean() || !m_walked.insert(&node).second) {
      return true;
    }
    const auto ref = node.find("$ref");
    if (ref != node.end()) {
      // Draft 7: every keyword beside a $ref is ignored, $id included. Definitions beside it are
      // still walked, so that the $ids in them are known.
      if (!ref->is_string()) {
        return bad(pointer_child(at, "$ref"), "expected a reference such as \"#/definitions/x\"");
      }
      m_pending.push_back(
          {&node, ref->get<std::string>(), base, pointer_child(at, "$ref"), depth + 1});
      for (const char* key : {"definitions", "$defs"}) {
        const auto definitions = node.find(key);
        if (definitions != node.end() &&
            !keyword(key, *definitions, base, pointer_child(at, key), depth + 1)) {
          return false;
        }
      }
      return true;
    }
    std::string inner = base;
    if (const auto id = node.find(m_id_key); id != node.end()) {
      if (!id->is_string()) {
        return bad(pointer_child(at, std::string(m_id_key)), "expected a URI reference");
      }
      const auto [uri, fragment] = split_fragment(resolve_uri(base, id->get<std::string>()));
      m_resources.emplace(fragment.empty() ? uri : uri + '#' + fragment, &node);
      inner = uri;
    }
    for (const auto& [key, value] : node.items()) {
      if (!keyword(key, value, inner, pointer_child(at, key), depth + 1)) {
        return false;
      }
    }
    return true;
  }

  bool keyword(const std::string& key, const json& value, const std::string& base,
               const std::string& at, int depth) {
    switch (keyword_kind(key)) {
    case KeywordKind::schema:
      return schema(value, base, at, depth);
    case KeywordKind::schema_or_array:
      return value.is_array() ? schema_array(value, base, at, depth, true)
                              : schema(value, base, at, depth);
    case KeywordKind::schema_array:
      return schema_array(value, base, at, depth, false);
    case KeywordKind::schema_map:
      return schema_map(key, value, base, at, depth);
    case KeywordKind::dependencies:
      return dependencies(value, base, at, depth);
    case KeywordKind::pattern:
      return value.is_string() ? regex(value, value.get<std::string>(), at)
                               : bad(at, "expected a regular expression");
    case KeywordKind::other:
      break;
    }
    if (auto problem = keyword_problem(key, value)) {
      return bad(at, std::move(*problem));
    }
    return true;
  }

  bool schema_array(const json& value, const std::string& base, const std::string& at, int depth,
                    bool may_be_empty) {
    if (!value.is_array() || (!may_be_empty && value.empty())) {
      return bad(at, "expected a non-empty array of schemas");
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!schema(value[i], base, pointer_child(at, std::to_string(i)), depth)) {
        return false;
      }
    }
    return true;
  }

  bool schema_map(const std::string& key, const json& value, const std::string& base,
                  const std::string& at, int depth) {
    if (!value.is_object()) {
      return bad(at, "expected an object of schemas");
    }
    for (const auto& [name, sub] : value.items()) {
      const std::string sub_at = pointer_child(at, name);
      if (!schema(sub, base, sub_at, depth) ||
          (key == "patternProperties" && !regex(sub, name, sub_at))) {
        return false;
      }
    }
    return true;
  }

  bool dependencies(const json& value, const std::string& base, const std::string& at, int depth) {
    if (!value.is_object()) {
      return bad(at, "expected an object of schemas or arrays of property names");
    }
    for (const auto& [name, sub] : value.items()) {
      const std::string sub_at = pointer_child(at, name);
      if (sub.is_array()) {
        if (!std::all_of(sub.begin(), sub.end(), [](const json& n) { return n.is_string(); })) {
          return bad(sub_at, "expected an array of property names");
        }
      } else if (!schema(sub, base, sub_at, depth)) {
        return false;
      }
    }
    return true;
  }

  // ECMA-262 patterns as far as RE2 goes: RE2 refuses what it cannot run in linear time
  // (backreferences, lookaround), and the schema is refused with it.
  bool regex(const json& holder, const std::string& pattern, const std::string& at) {
    RE2::Options options;
    options.set_log_errors(false);
    auto compiled = std::make_unique<RE2>(pattern, options);
    if (!compiled->ok()) {
      return bad(at,
                 fmt::format("invalid regular expression `{}`: {}", pattern, compiled->error()));
    }
    m_out.patterns.emplace(&holder, std::move(compiled));
    return true;
  }

  bool resolve(const PendingRef& pending) {
    const std::string absolute = resolve_uri(pending.base, pending.ref);
    const auto [uri, fragment] = split_fragment(absolute);
    const json* document = resource(uri, pending);
    if (document == nullptr) {
      return false;
    }
    std::string base = uri;
    const json* target = nullptr;
    if (fragment.empty() || fragment.front() == '/') {
      const auto pointer = percent_decode(fragment);
      target = pointer ? follow_pointer(*document, *pointer, base) : nullptr;
    } else if (const auto anchor = m_resources.find(uri + '#' + fragment);
               anchor != m_resources.end()) {
      target = anchor->second;
    }
    if (target == nullptr) {
      return bad(pending.at, fmt::format("cannot resolve \"{}\": nothing is there", pending.ref));
    }
    m_out.refs.emplace(pending.owner, target);
    m_out.ref_targets.insert(target);
    return schema(*target, base, absolute, pending.depth);
  }

  // The resource at `uri` (no fragment) that `pending` refers to: one of this schema's, or a
  // document the caller gave or the meta-schema, walked on first use. nullptr, with the problem
  // set, when there is none or it is broken.
  const json* resource(const std::string& uri, const PendingRef& pending) {
    if (const auto known = m_resources.find(uri); known != m_resources.end()) {
      return known->second;
    }
    std::string_view text;
    if (const auto given = m_documents.find(uri); given != m_documents.end()) {
      text = given->second;
    } else if (uri == k_draft7_metaschema_uri) {
      text = draft7_metaschema();
    } else {
      bad(pending.at,
          fmt::format("cannot resolve \"{}\": ralph fetches nothing, so a reference must lead "
                      "inside this schema (\"#/definitions/name\", an $id) or to the draft-07 "
                      "meta-schema",
                      pending.ref));
      return nullptr;
    }
    auto parsed = parse_json(text, "the JSON schema document " + uri);
    if (!parsed) {
      bad(pending.at, parsed.error().message);
      return nullptr;
    }
    const json& document = m_out.documents.emplace_back(std::move(*parsed));
    m_resources.emplace(uri, &document);
    return schema(document, uri, uri + '#', 0) ? &document : nullptr;
  }

  // The node a decoded JSON pointer names below `start`, with `base` updated to the base URI the
  // node is in; nullptr when it leads nowhere.
  const json* follow_pointer(const json& start, std::string_view pointer, std::string& base) const {
    const json* node = &start;
    while (!pointer.empty()) {
      if (pointer.front() != '/') {
        return nullptr;
      }
      pointer.remove_prefix(1);
      const std::size_t end = std::min(pointer.find('/'), pointer.size());
      std::string token;
      for (std::size_t i = 0; i < end; ++i) {
        if (pointer[i] == '~' && i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
          token += pointer[++i] == '0' ? '~' : '/';
        } else {
          token += pointer[i];
        }
      }
      pointer.remove_prefix(end);
      // The $id of each schema passed through sets the base (the start's is already in `base`,
      // the target's is applied when it is walked).
      if (node != &start && node->is_object() && !node->contains("$ref")) {
        if (const auto id = node->find(m_id_key); id != node->end() && id->is_string()) {
          base = split_fragment(resolve_uri(base, id->get<std::string>())).first;
        }
      }
      node = child(*node, token);
      if (node == nullptr) {
        return nullptr;
      }
    }
    return node;
  }

  static const json* child(const json& node, const std::string& token) {
    if (node.is_object()) {
      const auto it = node.find(token);
      return it == node.end() ? nullptr : &*it;
    }
    const bool index = node.is_array() && !token.empty() && token.size() < 10 &&
                       token.find_first_not_of("0123456789") == std::string::npos;
    return index && std::stoul(token) < node.size() ? &node[std::stoul(token)] : nullptr;
  }

  bool bad(const std::string& at, std::string message) {
    m_problem = fmt::format("{}: {}", pointer_shown(at), message);
    return false;
  }

  CompiledSchema& m_out;
  const SchemaDocuments& m_documents;
  std::string_view m_id_key;                      // "$id", or draft 4's "id"
  std::map<std::string, const json*> m_resources; // by absolute URI, "uri#name" for plain names
  std::set<const json*> m_walked;
  std::vector<PendingRef> m_pending;
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

Result<JsonSchema> JsonSchema::compile(std::string_view schema_text,
                                       const SchemaDocuments& documents) {
  auto parsed = parse_json(schema_text, "JSON schema");
  if (!parsed) {
    return fail(ErrorKind::config, parsed.error().message);
  }
  auto compiled = std::make_shared<CompiledSchema>();
  compiled->documents.push_back(std::move(*parsed));
  Compiler compiler(*compiled, documents);
  if (!compiler.compile()) {
    return fail(ErrorKind::config, "JSON schema: " + compiler.problem());
  }
  return JsonSchema(std::move(compiled));
}

} // namespace ralph::verify
