#include "wire_samples.h"

#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph::bench {
namespace {

// English prose cut where a tokenizer would cut it: a word with its leading space.
constexpr std::string_view k_prose =
    "I looked at the parser and the failing test. The tokenizer treats a trailing backslash as "
    "an escape even at the end of the input, so the loop reads one byte past the buffer and the "
    "assertion fires. I will guard the escape branch, add a test for a lone backslash, and run "
    "the whole suite again to make sure nothing else depends on the old behaviour. ";

// A file an agent would write: ~1 KB of C++ with quotes, newlines and tabs to escape.
constexpr std::string_view k_source =
    "#include \"parser.h\"\n\n#include <string>\n\nnamespace demo {\n\n"
    "// Splits `line` at commas, honouring \"quoted\" fields and \\\\ escapes.\n"
    "std::vector<std::string> split_fields(std::string_view line) {\n"
    "\tstd::vector<std::string> fields(1);\n\tbool quoted = false;\n"
    "\tfor (std::size_t i = 0; i < line.size(); ++i) {\n\t\tconst char c = line[i];\n"
    "\t\tif (c == '\\\\' && i + 1 < line.size()) {\n\t\t\tfields.back() += line[++i];\n"
    "\t\t} else if (c == '\"') {\n\t\t\tquoted = !quoted;\n"
    "\t\t} else if (c == ',' && !quoted) {\n\t\t\tfields.emplace_back();\n"
    "\t\t} else {\n\t\t\tfields.back() += c;\n\t\t}\n\t}\n\treturn fields;\n}\n\n"
    "} // namespace demo\n";

std::vector<std::string> tokens(std::size_t count) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (out.size() < count) {
    const std::size_t next = k_prose.find(' ', pos + 1);
    const std::size_t end = next == std::string_view::npos ? k_prose.size() : next;
    out.emplace_back(k_prose.substr(pos, end - pos));
    pos = end >= k_prose.size() - 1 ? 0 : end;
  }
  return out;
}

std::string json_string(std::string_view text) {
  return nlohmann::json(text).dump();
}

std::string write_file_arguments() {
  return nlohmann::json{{"path", "src/parser.cpp"}, {"content", k_source}}.dump();
}

// Cuts `text` into `count` pieces of about equal size.
std::vector<std::string> pieces(std::string_view text, std::size_t count) {
  std::vector<std::string> out;
  const std::size_t size = (text.size() + count - 1) / count;
  for (std::size_t pos = 0; pos < text.size(); pos += size) {
    out.emplace_back(text.substr(pos, size));
  }
  return out;
}

} // namespace

SampleStream openai_stream(std::size_t text_chunks, std::size_t argument_chunks) {
  SampleStream stream;
  const auto chunk = [&](std::string_view choices, std::string_view usage = "null") {
    stream.bytes += fmt::format(
        "data: {{\"id\":\"chatcmpl-BXk2Qq7uVf9dA1pLmN3oR5sT\",\"object\":\"chat.completion.chunk\","
        "\"created\":1767225600,\"model\":\"gpt-4.1-2025-04-14\",\"service_tier\":\"default\","
        "\"system_fingerprint\":\"fp_b42c6e3f5a\",\"choices\":[{}],\"usage\":{},"
        "\"obfuscation\":\"q8Zr\"}}\n\n",
        choices, usage);
    ++stream.events;
  };
  const auto delta = [&](std::string_view fields) {
    chunk(fmt::format("{{\"index\":0,\"delta\":{{{}}},\"logprobs\":null,\"finish_reason\":null}}",
                      fields));
  };
  delta(R"("role":"assistant","content":"","refusal":null)");
  for (const std::string& token : tokens(text_chunks)) {
    delta(fmt::format("\"content\":{}", json_string(token)));
  }
  stream.text_chunks = text_chunks;
  delta(R"("tool_calls":[{"index":0,"id":"call_8Hq2Lm4Rt6Vx0Zb1","type":"function",)"
        R"("function":{"name":"write_file","arguments":""}}])");
  for (const std::string& piece : pieces(write_file_arguments(), argument_chunks)) {
    delta(fmt::format(R"("tool_calls":[{{"index":0,"function":{{"arguments":{}}}}}])",
                      json_string(piece)));
  }
  chunk(R"({"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"})");
  stream.bytes += "data: {\"id\":\"chatcmpl-BXk2Qq7uVf9dA1pLmN3oR5sT\",\"object\":"
                  "\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"gpt-4.1-2025-04-"
                  "14\",\"choices\":[],\"usage\":{\"prompt_tokens\":2412,\"completion_tokens\":"
                  "498,\"total_tokens\":2910,\"prompt_tokens_details\":{\"cached_tokens\":1920},"
                  "\"completion_tokens_details\":{\"reasoning_tokens\":0}}}\n\n";
  stream.bytes += "data: [DONE]\n\n";
  stream.events += 2;
  return stream;
}

SampleStream anthropic_stream(std::size_t text_chunks, std::size_t argument_chunks) {
  SampleStream stream;
  const auto event = [&](std::string_view name, std::string_view data) {
    stream.bytes += fmt::format("event: {}\ndata: {}\n\n", name, data);
    ++stream.events;
  };
  event("message_start",
        R"({"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":)"
        R"("message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],)"
        R"("stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2412,)"
        R"("cache_creation_input_tokens":0,"cache_read_input_tokens":1920,"output_tokens":2}}})");
  event("content_block_start",
        R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})");
  event("ping", R"({"type": "ping"})");
  for (const std::string& token : tokens(text_chunks)) {
    event("content_block_delta",
          fmt::format(R"({{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta",)"
                      R"("text":{}}}}})",
                      json_string(token)));
  }
  stream.text_chunks = text_chunks;
  event("content_block_stop", R"({"type":"content_block_stop","index":0})");
  event("content_block_start",
        R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use",)"
        R"("id":"toolu_01A09q90qw90lq917835lq9","name":"write_file","input":{}}})");
  event("content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":)"
                               R"("input_json_delta","partial_json":""}})");
  for (const std::string& piece : pieces(write_file_arguments(), argument_chunks)) {
    event("content_block_delta",
          fmt::format(R"({{"type":"content_block_delta","index":1,"delta":{{"type":)"
                      R"("input_json_delta","partial_json":{}}}}})",
                      json_string(piece)));
  }
  event("content_block_stop", R"({"type":"content_block_stop","index":1})");
  event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use",)"
                         R"("stop_sequence":null},"usage":{"output_tokens":498}})");
  event("message_stop", R"({"type":"message_stop"})");
  return stream;
}

std::vector<std::string_view> split_reads(std::string_view text, std::size_t bytes) {
  std::vector<std::string_view> reads;
  for (std::size_t pos = 0; pos < text.size(); pos += bytes) {
    reads.push_back(text.substr(pos, std::min(bytes, text.size() - pos)));
  }
  return reads;
}

std::vector<Message> conversation(std::size_t size) {
  std::vector<Message> messages;
  messages.reserve(size);
  messages.push_back({.role = Role::user,
                      .content = "The CSV parser crashes on a trailing backslash. Find the bug, "
                                 "fix it, add a regression test and make the test suite pass."});
  std::string listing;
  for (int i = 0; listing.size() < 1500; ++i) {
    listing += fmt::format("src/module_{:02}/parser_{}.cpp\n", i % 17, i);
  }
  const std::string source = std::string(k_source) + std::string(k_source);
  for (std::size_t i = 1; i < size; ++i) {
    const std::string id = fmt::format("call_{:08x}Lm4Rt6Vx", i);
    if (i % 2 == 1) {
      Message message{.role = Role::assistant,
                      .content = std::string(k_prose.substr(0, 120)),
                      .tool_calls = {{.id = id, .name = "read_file"}}};
      message.tool_calls[0].arguments = nlohmann::json{
          {"path", fmt::format("src/module_{:02}/parser_{}.cpp", i % 17, i)},
          {"offset", 1},
          {"limit", 200}}.dump();
      messages.push_back(std::move(message));
      continue;
    }
    const std::string& call_id = messages.back().tool_calls[0].id;
    messages.push_back({.role = Role::tool,
                        .content = i % 4 == 0 ? listing : source,
                        .tool_call_id = call_id,
                        .tool_name = "read_file"});
  }
  return messages;
}

std::vector<ToolSpec> builtin_specs() {
  tools::PosixProcessRunner runner;
  return tools::make_builtin_registry({}, runner).specs();
}

} // namespace ralph::bench
