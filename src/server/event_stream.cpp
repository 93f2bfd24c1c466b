#include "server/server_parts.h"

#include <sstream>

namespace ralph::server {
namespace {

constexpr std::chrono::milliseconds k_wait{250};
constexpr std::chrono::seconds k_keep_alive{15};

// With `stamped`, a comment line first that EventSource skips: when the server published the
// event, for a client measuring how long events take to reach it.
std::string frame(const BusEvent& event, bool stamped) {
  std::string out;
  if (stamped) {
    out = ": published " + std::to_string(event.published_us) + "\n";
  }
  out += "id: " + std::to_string(event.id) + "\nevent: " + event.type + "\ndata: ";
  out += event.data;
  out += "\n\n";
  return out;
}

// "sessions,session:ID" into its topics; empty when one is malformed.
std::set<std::string> topics_of(const std::string& text, std::string& bad) {
  std::set<std::string> topics;
  std::stringstream in(text);
  std::string topic;
  while (std::getline(in, topic, ',')) {
    const bool plain = topic == "sessions" || topic == "workers" || topic == "batches";
    const bool scoped = (topic.rfind("session:", 0) == 0 && topic.size() > 8) ||
                        (topic.rfind("batch:", 0) == 0 && topic.size() > 6);
    if (!plain && !scoped) {
      bad = topic;
      return {};
    }
    topics.insert(topic);
  }
  return topics;
}

// One browser tab's stream: what it missed, then its topics live, keep-alives when idle.
struct Stream {
  // Counted in `parts.streams` from the route's check to this stream's end: constructed in
  // place and never copied, so that no temporary's end counts a stream that is still open.
  Stream(ServerParts& owner, bool stamp) : parts(owner), stamped(stamp) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  ServerParts& parts;
  std::shared_ptr<Subscription> subscription;
  Replay replay;
  bool stamped = false; // ?published=1
  bool started = false;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();

  ~Stream() { --parts.streams; }

  bool next(StreamWriter& out) {
    if (!started) {
      started = true;
      std::string head = "retry: 2000\n\n";
      if (replay.resync) {
        head += "event: resync\ndata: {}\n\n";
      }
      for (const auto& event : replay.events) {
        head += frame(*event, stamped);
      }
      replay.events.clear();
      last_write = std::chrono::steady_clock::now();
      return out.write(head);
    }
    const Subscription::Batch batch = subscription->next(k_wait);
    if (batch.closed || batch.overflowed) {
      return false; // the browser reconnects with the last id it saw
    }
    const auto now = std::chrono::steady_clock::now();
    if (batch.events.empty()) {
      if (now - last_write < k_keep_alive) {
        return true;
      }
      last_write = now;
      return out.write(": keep-alive\n\n");
    }
    std::string text;
    for (const auto& event : batch.events) {
      text += frame(*event, stamped);
    }
    last_write = now;
    return out.write(text);
  }
};

} // namespace

void add_stream_route(HttpServer& server, ServerParts& parts) {
  server.route("GET", "/api/v1/stream", [&parts](const HttpRequest& request) {
    std::string bad;
    const std::set<std::string> topics = topics_of(request.query_value("topics"), bad);
    if (topics.empty()) {
      return error_response(400, "bad_request",
                            bad.empty() ? "topics: at least one topic"
                                        : "topics: unknown topic '" + bad + "'",
                            "topics");
    }
    std::string last = request.header("last-event-id");
    if (last.empty()) {
      last = request.query_value("last_event_id");
    }
    std::optional<std::uint64_t> last_id;
    if (!last.empty()) {
      char* end = nullptr;
      const unsigned long long value = std::strtoull(last.c_str(), &end, 10);
      if (*end != '\0') {
        return error_response(400, "bad_request", "Last-Event-ID: not an event id",
                              "Last-Event-ID");
      }
      last_id = value;
    }
    const std::string published = request.query_value("published");
    if (!published.empty() && published != "0" && published != "1") {
      return error_response(400, "bad_request", "published: 0 or 1", "published");
    }
    if (++parts.streams > parts.request.max_streams) {
      --parts.streams;
      HttpResponse busy = error_response(503, "too_many_streams",
                                         "too many live streams are open; try again later");
      busy.headers.emplace_back("Retry-After", "5");
      return busy;
    }
    auto stream = std::make_shared<Stream>(parts, published == "1");
    stream->subscription = parts.bus.subscribe(topics, last_id, stream->replay);
    HttpResponse response;
    response.content_type = "text/event-stream";
    response.headers = {{"Cache-Control", "no-store"}, {"X-Accel-Buffering", "no"}};
    response.stream = [stream](StreamWriter& out) { return stream->next(out); };
    return response;
  });
}

} // namespace ralph::server
