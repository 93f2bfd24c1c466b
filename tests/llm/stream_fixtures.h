#pragma once

// Streams for the quirks in llm-wire-formats.md §1.4, §3.5 and §4, beyond the two complete
// examples in tests/http/sse_fixtures.h. JSON composed for the tests.

#include <string_view>

namespace ralph::llm::testing {

// Tool fragments for index 1 arrive before index 0 is finished; the first chunk is an Azure
// filter-results chunk with empty choices; obfuscation padding on a chunk; UTF-8 in arguments
// split mid-escape.
inline constexpr std::string_view k_openai_interleaved =
    R"SSE(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"","choices":[],"prompt_filter_results":[{"prompt_index":0}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"caf"}}]},"finish_reason":null}],"obfuscation":"xYz"}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"a.txt\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\u00e9 \\\"q\\\"\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

)SSE";

// Old Ollama /v1: whole calls in one chunk, index 0 reused for each call of the batch; reasoning
// in `reasoning`; no usage.
inline constexpr std::string_view k_ollama_reused_index =
    R"SSE(data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Two cities."},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_k1","index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_k2","index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Lima\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]}

data: [DONE]

)SSE";

// Old llama.cpp: `:` keep-alives, content null first, reasoning_content, usage and timings on the
// finish chunk, CRLF line endings, a multi-byte character.
inline constexpr std::string_view k_llama_cpp_stream =
    ":\r\n\r\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"role\":\"assistant\","
    "\"content\":null}}],\"created\":1,\"id\":\"chatcmpl-L\",\"model\":\"qwen.gguf\","
    "\"object\":\"chat.completion.chunk\"}\r\n\r\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"reasoning_content\":"
    "\"Think \xF0\x9F\xA4\x94\"}}],\"created\":1,\"id\":\"chatcmpl-L\",\"model\":\"qwen.gguf\","
    "\"object\":\"chat.completion.chunk\"}\r\n\r\n"
    ":\r\n\r\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"Caf\xC3\xA9"
    " ok\"}}],\"created\":1,\"id\":\"chatcmpl-L\",\"model\":\"qwen.gguf\","
    "\"object\":\"chat.completion.chunk\"}\r\n\r\n"
    "data: {\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"delta\":{}}],\"created\":1,"
    "\"id\":\"chatcmpl-L\",\"model\":\"qwen.gguf\",\"object\":\"chat.completion.chunk\","
    "\"usage\":{\"completion_tokens\":7,\"prompt_tokens\":30,\"total_tokens\":37,"
    "\"prompt_tokens_details\":{\"cached_tokens\":12}},\"timings\":{\"cache_n\":12,\"prompt_n\":18,"
    "\"prompt_ms\":40.1,\"predicted_n\":7,\"predicted_ms\":70.2}}\r\n\r\n"
    "data: [DONE]\r\n\r\n";

// Text, then `data: {"error":...}` after a 200, then [DONE].
inline constexpr std::string_view k_openai_mid_stream_error =
    R"SSE(data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Half an ans"},"finish_reason":null}]}

data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}

data: [DONE]

)SSE";

// Text, then the old llama.cpp `error:` field, then [DONE].
inline constexpr std::string_view k_llama_error_field =
    R"SSE(data: {"id":"c3","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}

error: {"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}

data: [DONE]

)SSE";

// An unknown finish_reason, and a stream ending after the finish chunk without [DONE].
inline constexpr std::string_view k_openai_unknown_finish_without_done =
    R"SSE(data: {"id":"c4","object":"chat.completion.chunk","created":1,"model":"deepseek","choices":[{"index":0,"delta":{"content":"Busy"},"finish_reason":null}]}

data: {"id":"c4","object":"chat.completion.chunk","created":1,"model":"deepseek","choices":[{"index":0,"delta":{},"finish_reason":"insufficient_system_resource"}]}

)SSE";

// Anthropic: thinking with signature, ping at every position, an unknown event type, an unknown
// delta type, text then tool_use then text, indices starting at 2, cumulative usage with cache
// fields, and odd whitespace in the JSON.
inline constexpr std::string_view k_anthropic_thinking_stream = R"SSE(event: ping
data: {"type": "ping"}

event: message_start
data: {"type":"message_start","message":{"id":"msg_T","type":"message","role":"assistant","model":"claude-t","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"User wants a file; "}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"write it."}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"EqQBfakeSig=="}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: brand_new_event
data: {"type":"brand_new_event","whatever":[1,2,3]}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Writing "}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"future_delta","x":1}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: content_block_start
data: {"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_W","name":"write_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a.txt\", \"content\": \"caf\u00e9 \\\"x"}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"\\\"\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":4}

event: content_block_start
data: {"type":"content_block_start","index":5,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"now."}}

event: content_block_stop
data: {"type":"content_block_stop","index":5}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":58 }}

event: ping
data: {"type": "ping"}

event: message_stop
data: {"type":"message_stop"}

event: ping
data: {"type": "ping"}

)SSE";

// Redacted thinking; a tool whose input deltas are all empty; a tool whose input never becomes
// valid JSON (fine-grained streaming); a refusal.
inline constexpr std::string_view k_anthropic_odd_tools = R"SSE(event: message_start
data: {"type":"message_start","message":{"id":"msg_O","type":"message","role":"assistant","model":"claude-o","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va=="}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_E","name":"list_dir","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_B","name":"shell","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"ls"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"input_tokens":6,"output_tokens":9}}

event: message_stop
data: {"type":"message_stop"}

)SSE";

// Content, then `event: error` (overloaded) and no message_stop.
inline constexpr std::string_view k_anthropic_overloaded = R"SSE(event: message_start
data: {"type":"message_start","message":{"id":"msg_X","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Partial"}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

)SSE";

} // namespace ralph::llm::testing
