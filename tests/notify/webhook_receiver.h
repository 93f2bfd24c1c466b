#pragma once

#include "http/loopback_server.h"

#include <array>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string>
#include <vector>

namespace ralph::testing {

// HMAC-SHA256 in hex, computed with OpenSSL directly, not with ralph's code: what a receiver
// checks a signature with.
inline std::string openssl_hmac_hex(const std::string& key, const std::string& message) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest.data(),
       &size);
  std::string hex;
  constexpr const char* k_digits = "0123456789abcdef";
  for (unsigned int i = 0; i < size; ++i) {
    hex += k_digits[digest[i] >> 4U];
    hex += k_digits[digest[i] & 15U];
  }
  return hex;
}

// A real HTTP receiver of webhooks on 127.0.0.1: records every request and answers with the
// statuses it was given, in order (then 200). A `hold` status waits for the gate (release()).
class WebhookReceiver {
public:
  struct Received {
    std::string path;
    std::map<std::string, std::string> headers; // names lower-cased
    std::string body;
  };
  struct Answer {
    int status = 200;
    std::map<std::string, std::string> headers;
    bool hold = false; // wait for release() first
  };

  WebhookReceiver() {
    m_server.server().Post(".*", [this](const httplib::Request& request, httplib::Response& out) {
      Answer answer;
      {
        std::lock_guard lock(m_mutex);
        Received received{.path = request.path, .headers = {}, .body = request.body};
        for (const auto& [name, value] : request.headers) {
          std::string lower = name;
          for (char& c : lower) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          }
          received.headers[lower] = value;
        }
        m_received.push_back(std::move(received));
        if (!m_answers.empty()) {
          answer = m_answers.front();
          m_answers.pop_front();
        }
      }
      m_changed.notify_all();
      if (answer.hold) {
        m_server.gate().wait();
      }
      out.status = answer.status;
      for (const auto& [name, value] : answer.headers) {
        out.set_header(name, value);
      }
      out.set_content("{}", "application/json");
    });
    m_server.start();
  }

  void answer(Answer next) {
    std::lock_guard lock(m_mutex);
    m_answers.push_back(std::move(next));
  }
  std::string url(const std::string& path) const { return m_server.url(path); }
  void release() { m_server.release(); }

  std::vector<Received> received() {
    std::lock_guard lock(m_mutex);
    return m_received;
  }
  // Blocks until `count` requests came (true), or 30 s passed.
  bool wait_for(std::size_t count) {
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, std::chrono::seconds(30),
                              [&] { return m_received.size() >= count; });
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<Received> m_received;
  std::deque<Answer> m_answers;
  LoopbackServer m_server; // last: stopped first, before what its handler uses
};

} // namespace ralph::testing
