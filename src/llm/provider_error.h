#pragma once

#include "ralph/core/error.h"
#include "ralph/http/transport.h"

#include <nlohmann/json_fwd.hpp>

#include <string_view>

namespace ralph::llm {

// Turns a non-2xx response of any supported backend into an Error of kind `provider` whose
// message is one line: `openai: HTTP 401 invalid_api_key: Incorrect API key (request req_1)`.
// Understands OpenAI / Ollama-v1 `{"error":{message,type,param,code}}`, Anthropic
// `{"type":"error","error":{type,message},"request_id"}`, llama.cpp and vLLM integer codes, the
// older flat vLLM body, `{"error":"text"}` (vLLM 401, Ollama native) and HTML or empty bodies.
// Retryable as http::should_retry says, except insufficient quota and oversized requests.
// `secret` (the API key) is removed from every text before anything is cut or formatted.
Error status_error(std::string_view provider, const http::Response& response,
                   std::string_view secret);

// An error reported inside a 2xx body or stream: `payload` is either a value whose "error" member
// describes it (OpenAI `data: {"error":...}`, Anthropic `event: error`) or the error object itself
// (the old llama.cpp `error:` field). Retryable when the type says the server is overloaded or
// failed internally.
Error payload_error(std::string_view provider, const nlohmann::json& payload,
                    std::string_view secret);

// Replaces every occurrence of `secret` in the error's texts with "[REDACTED]", as the
// Redactor masks everything else.
void redact(Error& error, std::string_view secret);

// Prefixes the message with "provider: " unless it already starts so.
void add_provider_prefix(Error& error, std::string_view provider);

} // namespace ralph::llm
