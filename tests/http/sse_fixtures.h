#pragma once

// Complete streams copied from /work/shared/docs/llm-wire-formats.md (§1.4 and §3.5).

#include <string_view>

namespace ralph::testing {

// OpenAI Chat Completions: text, then two parallel tool calls whose arguments arrive in pieces.
inline constexpr std::string_view k_openai_stream =
    R"SSE(data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"Checking both"},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":" cities."},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Q1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Oslo\"}"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_Q2","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"Lima\"}"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":88,"completion_tokens":41,"total_tokens":129,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]

)SSE";

// Anthropic Messages: text, then a tool call whose input arrives in three fragments.
inline constexpr std::string_view k_anthropic_stream = R"SSE(event: message_start
data: {"type":"message_start","message":{"id":"msg_01AbC","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":412,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" that up."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01XyZ","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Os"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"lo\", \"unit\": \"c\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":58}}

event: message_stop
data: {"type":"message_stop"}

)SSE";

} // namespace ralph::testing
