#include "ralph/engine/io.h"
#include "ralph/http/curl_transport.h"

namespace ralph::engine {

std::unique_ptr<http::Transport> BlockingIo::make_transport() {
  return std::make_unique<http::CurlTransport>();
}

} // namespace ralph::engine
