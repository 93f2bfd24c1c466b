// A fake provider that fails a share of its answers at random, for bench/faults.sh: each request
// draws a fault (429, 500, 529, a malformed body or a dropped stream, equally likely) with
// probability RATE, else answers as a three-turn agent would (write a file, run it, answer).
//
// Usage: ralph_fault_server RATE [SEED]   prints its base URL, serves until stdin closes.
#include "fake_provider/fake_provider_server.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <random>
#include <string>

namespace {

using ralph::testing::FakeTurn;
using ralph::testing::Fault;

// The agent's next turn, from how many tool results the conversation already holds.
FakeTurn next_turn(const std::string& body) {
  const auto request = nlohmann::json::parse(body, nullptr, false);
  int results = 0;
  if (request.is_object() && request.contains("messages")) {
    for (const auto& message : request["messages"]) {
      results += message.value("role", "") == "tool" ? 1 : 0;
    }
  }
  FakeTurn turn;
  if (results == 0) {
    turn.tool_calls.push_back(
        {.name = "write_file",
         .arguments = R"({"path": "hello.sh", "content": "echo hello from the fault bench\n"})"});
  } else if (results == 1) {
    turn.tool_calls.push_back({.name = "shell", .arguments = R"({"command": "sh hello.sh"})"});
  } else {
    turn.text = "The script prints its greeting; done.";
  }
  return turn;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ralph_fault_server RATE [SEED]\n");
    return 2;
  }
  const double rate = std::strtod(argv[1], nullptr);
  std::mt19937 rng(argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 1U);
  std::mutex mutex;
  constexpr std::array<Fault, 5> k_faults = {Fault::http_429, Fault::http_500, Fault::http_529,
                                             Fault::malformed_json, Fault::drop_mid_stream};
  ralph::testing::FakeProviderServer server;
  server.set_responder([&](const ralph::testing::RecordedRequest& request) {
    FakeTurn turn = next_turn(request.body);
    const std::lock_guard lock(mutex);
    if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < rate) {
      turn.fault =
          k_faults[std::uniform_int_distribution<std::size_t>(0, k_faults.size() - 1)(rng)];
    }
    return std::optional<FakeTurn>(std::move(turn));
  });
  std::cout << server.base_url() << std::endl;
  // Serves until the script closes our stdin.
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}
