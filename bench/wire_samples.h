#pragma once

// Realistic inputs for the benchmarks, in the exact wire formats of
// /work/shared/docs/llm-wire-formats.md: streamed answers cut into token-sized pieces, and
// conversations whose tool calls and results have the sizes an agent really sees.

#include "ralph/core/message.h"
#include "ralph/core/tool_spec.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::bench {

// A streamed answer: `text_chunks` token-sized content deltas, then one `write_file` tool call
// whose arguments arrive in `argument_chunks` pieces. `events` counts the SSE events.
struct SampleStream {
  std::string bytes;
  std::size_t events = 0;
  std::size_t text_chunks = 0;
};

// OpenAI Chat Completions chunks as api.openai.com sends them (id, object, created, model,
// system_fingerprint, obfuscation padding, usage null until the usage chunk), ending in [DONE].
SampleStream openai_stream(std::size_t text_chunks, std::size_t argument_chunks);

// Anthropic Messages events: message_start, a text block, a ping, a tool_use block with
// input_json_delta pieces, message_delta, message_stop.
SampleStream anthropic_stream(std::size_t text_chunks, std::size_t argument_chunks);

// `text` cut into pieces of `bytes` (the transport's reads).
std::vector<std::string_view> split_reads(std::string_view text, std::size_t bytes);

// A conversation of `size` messages: the user's goal, then assistant turns (a sentence and one
// tool call with ~150 bytes of arguments) each answered by a tool result of ~1.5 KB (a source
// file, a listing, compiler output), alternating.
std::vector<Message> conversation(std::size_t size);

// The specs of the six built-in tools, as the agent sends them.
std::vector<ToolSpec> builtin_specs();

} // namespace ralph::bench
