#pragma once

// Shared by the end-to-end tests: turns for the fake provider server and polling for facts other
// processes make true.

#include "fake_provider/fake_provider_server.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>

namespace ralph::testing {

inline FakeTurn tool_turn(std::string name, const nlohmann::json& arguments) {
  FakeTurn turn;
  turn.tool_calls.push_back({.name = std::move(name), .arguments = arguments.dump()});
  return turn;
}

inline FakeTurn text_turn(std::string text) {
  FakeTurn turn;
  turn.text = std::move(text);
  return turn;
}

// Polls `condition` until it holds or 30 s pass.
template <typename Condition> bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

} // namespace ralph::testing
