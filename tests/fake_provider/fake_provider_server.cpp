#include "fake_provider/fake_provider_server.h"

#include "fake_provider/fake_wire.h"
#include "http/loopback_server.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace ralph::testing {
namespace {

enum class Api { openai, responses, anthropic };

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string api_key(const RecordedRequest& request) {
  const auto key = request.headers.find("x-api-key");
  if (key != request.headers.end()) {
    return key->second;
  }
  const auto authorization = request.headers.find("authorization");
  if (authorization != request.headers.end() && authorization->second.rfind("Bearer ", 0) == 0) {
    return authorization->second.substr(7);
  }
  return {};
}

// The body as it goes on the wire: whole events, or raw slices of `chunk_size` bytes.
std::vector<std::string> slice(const std::vector<std::string>& writes, std::size_t chunk_size) {
  if (chunk_size == 0) {
    return writes;
  }
  std::string all;
  for (const std::string& write : writes) {
    all += write;
  }
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < all.size(); pos += chunk_size) {
    out.push_back(all.substr(pos, chunk_size));
  }
  return out;
}

} // namespace

struct FakeProviderServer::State {
  mutable std::mutex mutex;
  mutable std::condition_variable changed; // a request arrived, or the server is closing
  std::deque<FakeTurn> turns;
  // Shared so a handler can call it outside the lock while another thread replaces it.
  std::shared_ptr<const Responder> responder;
  std::vector<RecordedRequest> requests;
  std::size_t chunk_size = 0;
  OpenAiFlavor flavor = OpenAiFlavor::openai;
  int next_call_id = 1;
  bool closing = false;
  // Last: destroyed first, so no handler outlives the state it uses.
  LoopbackServer server;

  // Waits up to `delay` (forever when nullopt) or until the server closes. Never a plain sleep:
  // a test must not hang on a stalled answer.
  void stall(std::optional<std::chrono::milliseconds> delay) {
    std::unique_lock lock(mutex);
    if (delay) {
      changed.wait_for(lock, *delay, [this] { return closing; });
    } else {
      changed.wait(lock, [this] { return closing; });
    }
  }

  void handle(Api api, const httplib::Request& req, httplib::Response& res);
  void send(const WireAnswer& answer, std::size_t write_size, httplib::Response& res);
};

void FakeProviderServer::State::handle(Api api, const httplib::Request& req,
                                       httplib::Response& res) {
  RecordedRequest recorded;
  recorded.path = req.path;
  for (const auto& [name, value] : req.headers) {
    recorded.headers.emplace(lower(name), value);
  }
  recorded.body = req.body;

  WireRequest wire;
  wire.body_bytes = req.body.size();
  wire.api_key = api_key(recorded);
  std::optional<FakeTurn> turn;
  std::shared_ptr<const Responder> respond;
  const auto pop_turn = [&] {
    if (!turns.empty()) {
      turn = std::move(turns.front());
      turns.pop_front();
    }
  };
  std::size_t chunk;
  OpenAiFlavor openai_flavor;
  {
    std::lock_guard lock(mutex);
    requests.push_back(recorded);
    wire.number = static_cast<int>(requests.size());
    respond = responder;
    if (!respond) {
      pop_turn(); // in the same lock, so queued turns answer requests in their recorded order
    }
    chunk = chunk_size;
    openai_flavor = flavor;
  }
  changed.notify_all();
  if (respond) {
    // Outside the lock: a responder may take its time, and concurrent requests must not wait
    // for each other.
    turn = (*respond)(recorded);
    if (!turn) {
      std::lock_guard lock(mutex);
      pop_turn();
    }
  }

  const bool anthropic = api == Api::anthropic;
  if (!turn) {
    send(harness_error(anthropic, "fake provider: no turn queued for request #" +
                                      std::to_string(wire.number) + " (POST " + req.path + ")"),
         0, res);
    return;
  }
  const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (!body.is_object()) {
    send(harness_error(anthropic, "fake provider: the request body is not a JSON object"), 0, res);
    return;
  }
  wire.stream = body.value("stream", false);
  wire.model = body.value("model", "");
  const auto options = body.find("stream_options");
  wire.include_usage =
      options != body.end() && options->is_object() && options->value("include_usage", false);

  if (turn->first_byte_delay.count() > 0) {
    stall(turn->first_byte_delay);
  }
  int call_id;
  {
    std::lock_guard lock(mutex);
    call_id = next_call_id;
  }
  WireAnswer answer = anthropic               ? anthropic_answer(*turn, wire, call_id)
                      : api == Api::responses ? responses_answer(*turn, wire, call_id)
                                              : openai_answer(*turn, wire, openai_flavor, call_id);
  {
    std::lock_guard lock(mutex);
    next_call_id = std::max(next_call_id, call_id);
  }
  send(answer, chunk, res);
}

void FakeProviderServer::State::send(const WireAnswer& answer, std::size_t write_size,
                                     httplib::Response& res) {
  res.status = answer.status;
  for (const auto& [name, value] : answer.headers) {
    res.set_header(name, value);
  }
  if (!answer.chunked) {
    std::string body;
    for (const std::string& write : answer.writes) {
      body += write;
    }
    res.set_content(body, answer.content_type);
    return;
  }
  struct Stream {
    std::vector<std::string> writes;
    std::size_t next = 0;
    WireAnswer::Ending ending;
  };
  auto stream = std::make_shared<Stream>(
      Stream{.writes = slice(answer.writes, write_size), .ending = answer.ending});
  res.set_chunked_content_provider(
      answer.content_type, [this, stream](std::size_t, httplib::DataSink& sink) {
        if (stream->next < stream->writes.size()) {
          const std::string& write = stream->writes[stream->next++];
          return sink.write(write.data(), write.size());
        }
        switch (stream->ending) {
        case WireAnswer::Ending::complete:
          sink.done();
          return true;
        case WireAnswer::Ending::stall:
          stall(std::nullopt);
          return false;
        case WireAnswer::Ending::drop:
          break;
        }
        return false; // httplib closes the connection without the final empty chunk
      });
}

FakeProviderServer::FakeProviderServer(std::size_t threads) : m_state(std::make_unique<State>()) {
  State& state = *m_state;
  auto& server = state.server.server();
  if (threads > 0) {
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  }
  const auto route = [&state](Api api) {
    return [&state, api](const httplib::Request& req, httplib::Response& res) {
      state.handle(api, req, res);
    };
  };
  server.Post("/v1/chat/completions", route(Api::openai));
  server.Post("/chat/completions", route(Api::openai));
  server.Post("/v1/responses", route(Api::responses));
  server.Post("/responses", route(Api::responses));
  server.Post("/v1/messages", route(Api::anthropic));
  // Anything else is recorded and answered with an OpenAI-shaped 404, so a wrong URL is obvious.
  const auto unknown = [&state](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(state.mutex);
      state.requests.push_back(
          RecordedRequest{.method = req.method, .path = req.path, .body = req.body});
    }
    state.changed.notify_all();
    res.status = 404;
    res.set_content(R"({"error":{"message":"fake provider: no route for )" + req.method + " " +
                        req.path + R"(","type":"invalid_request_error","param":null,"code":null}})",
                    "application/json");
  };
  server.Post(".*", unknown);
  server.Get(".*", unknown); // httplib routes HEAD here too
  state.server.start();
}

FakeProviderServer::~FakeProviderServer() {
  {
    std::lock_guard lock(m_state->mutex);
    m_state->closing = true;
  }
  m_state->changed.notify_all();
  // m_state->server stops and joins its threads when m_state is destroyed.
}

std::string FakeProviderServer::base_url() const {
  return m_state->server.url("");
}

void FakeProviderServer::push(FakeTurn turn) {
  std::lock_guard lock(m_state->mutex);
  m_state->turns.push_back(std::move(turn));
}

void FakeProviderServer::set_responder(Responder responder) {
  auto shared = responder ? std::make_shared<const Responder>(std::move(responder)) : nullptr;
  std::lock_guard lock(m_state->mutex);
  m_state->responder = std::move(shared);
}

std::size_t FakeProviderServer::turns_left() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->turns.size();
}

std::vector<RecordedRequest> FakeProviderServer::requests() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->requests;
}

bool FakeProviderServer::wait_for_requests(std::size_t count,
                                           std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_state->mutex);
  return m_state->changed.wait_for(lock, timeout,
                                   [&] { return m_state->requests.size() >= count; });
}

void FakeProviderServer::set_chunk_size(std::size_t bytes) {
  std::lock_guard lock(m_state->mutex);
  m_state->chunk_size = bytes;
}

void FakeProviderServer::set_openai_flavor(OpenAiFlavor flavor) {
  std::lock_guard lock(m_state->mutex);
  m_state->flavor = flavor;
}

} // namespace ralph::testing
