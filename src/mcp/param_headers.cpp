#include "param_headers.h"

#include <array>

namespace ralph::mcp {
namespace {

void visit(const Json& schema, std::vector<std::string>& path, std::vector<ParamHeader>& out) {
  const Json properties = schema.is_object() ? schema.value("properties", Json()) : Json();
  if (!properties.is_object()) {
    return;
  }
  for (auto it = properties.begin(); it != properties.end(); ++it) {
    const Json& property = it.value();
    if (!property.is_object()) {
      continue;
    }
    path.push_back(it.key());
    const Json header = property.value("x-mcp-header", Json());
    if (header.is_string() && !header.empty() && !header.get<std::string>().empty()) {
      out.push_back({header.get<std::string>(), path});
    }
    visit(property, path, out);
    path.pop_back();
  }
}

std::string base64(std::string_view bytes) {
  static constexpr std::array<char, 65> alphabet{
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"};
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16U) |
                   (static_cast<unsigned char>(bytes[i + 1]) << 8U) |
                   static_cast<unsigned char>(bytes[i + 2]);
    for (const unsigned shift : {18U, 12U, 6U, 0U}) {
      out += alphabet[(n >> shift) & 63U];
    }
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16U) |
                   (two ? static_cast<unsigned char>(bytes[i + 1]) << 8U : 0U);
    out += alphabet[(n >> 18U) & 63U];
    out += alphabet[(n >> 12U) & 63U];
    out += two ? alphabet[(n >> 6U) & 63U] : '=';
    out += '=';
  }
  return out;
}

} // namespace

std::vector<ParamHeader> param_headers(const Json& input_schema) {
  std::vector<ParamHeader> out;
  std::vector<std::string> path;
  visit(input_schema, path, out);
  return out;
}

http::Headers param_header_values(const std::vector<ParamHeader>& declarations,
                                  const Json& arguments) {
  http::Headers headers;
  for (const ParamHeader& declaration : declarations) {
    Json node = arguments;
    bool found = true;
    for (const std::string& key : declaration.path) {
      const auto it = node.is_object() ? node.find(key) : node.end();
      if (!node.is_object() || it == node.end()) {
        found = false;
        break;
      }
      node = Json(*it);
    }
    if (!found) {
      continue;
    }
    std::string value;
    if (node.is_string()) {
      value = node.get<std::string>();
    } else if (node.is_boolean()) {
      value = node.get<bool>() ? "true" : "false";
    } else if (node.is_number()) {
      value = node.dump();
    } else {
      continue;
    }
    headers.emplace_back("Mcp-Param-" + declaration.name, header_value(value));
  }
  return headers;
}

std::string header_value(std::string_view value) {
  bool plain = value.empty() || (value.front() != ' ' && value.back() != ' ' &&
                                 value.front() != '\t' && value.back() != '\t');
  for (const char c : value) {
    plain = plain && c >= 0x20 && c <= 0x7e;
  }
  if (plain && value.rfind("=?base64?", 0) != 0) {
    return std::string(value);
  }
  return "=?base64?" + base64(value) + "?=";
}

} // namespace ralph::mcp
