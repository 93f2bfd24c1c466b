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

// Responses API (§2): reasoning summary, text, a function call split mid-escape, usage with
// cached tokens on the terminal event; a `sequence_number` gap and an unknown event type.
inline constexpr std::string_view k_responses_stream =
    R"SSE(event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[],"usage":null}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":2,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Check the "}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":3,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"weather."}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Check the weather."}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":5,"output_index":1,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Looking up caf\u00e9 "}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":9,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"weather \u2713"}

event: response.output_text.annotation.added
data: {"type":"response.output_text.annotation.added","sequence_number":10,"item_id":"msg_1","annotation":{}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":11,"output_index":1,"item":{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Looking up caf\u00e9 weather \u2713","annotations":[]}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":12,"output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_9","name":"get_weather","arguments":"","status":"in_progress"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":13,"item_id":"fc_1","output_index":2,"delta":"{\"city\":\"Os"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":14,"item_id":"fc_1","output_index":2,"delta":"lo \\\"N\\\"\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":15,"output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_9","name":"get_weather","arguments":"{\"city\":\"Oslo \\\"N\\\"\"}","status":"completed"}}

event: response.completed
data: {"type":"response.completed","sequence_number":16,"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Check the weather."}]},{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Looking up caf\u00e9 weather \u2713","annotations":[]}]},{"type":"function_call","id":"fc_1","call_id":"call_9","name":"get_weather","arguments":"{\"city\":\"Oslo \\\"N\\\"\"}","status":"completed"}],"usage":{"input_tokens":51,"input_tokens_details":{"cached_tokens":32},"output_tokens":17,"output_tokens_details":{"reasoning_tokens":4},"total_tokens":68}}}

)SSE";

// A gateway: CRLF lines, keep-alive comments, no `event:` lines, the `response.done` alias with
// an empty output (the items come from output_item.done), and a trailing `[DONE]`.
inline constexpr std::string_view k_responses_gateway =
    ": keep-alive\r\n\r\n"
    "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":"
    "\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"hi\"}]}}"
    "\r\n\r\n"
    ": ping\r\n\r\n"
    "data: {\"type\":\"response.done\",\"response\":{\"status\":\"completed\",\"output\":[],"
    "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\r\n\r\n"
    "data: [DONE]\r\n\r\n";

// Content, then the error event and the response.failed the API sends after it.
inline constexpr std::string_view k_responses_error =
    R"SSE(event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"delta":"partial"}

event: error
data: {"type":"error","sequence_number":2,"code":"server_error","message":"The server had an error","param":null}

event: response.failed
data: {"type":"response.failed","sequence_number":3,"response":{"status":"failed","error":{"code":"server_error","message":"The server had an error"},"output":[]}}

)SSE";

} // namespace ralph::llm::testing
