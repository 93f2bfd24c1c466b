// libcurl wants curl_global_init before anything else, as `main` does it; the judge's HTTP tests
// use the real providers.
#include "ralph/http/curl_transport.h"

#include <gtest/gtest.h>

#include <memory>

namespace ralph::verify {
namespace {

class JudgeCurlEnvironment : public ::testing::Environment {
public:
  void SetUp() override { m_global = std::make_unique<http::CurlGlobal>(); }
  void TearDown() override { m_global.reset(); }

private:
  std::unique_ptr<http::CurlGlobal> m_global;
};

[[maybe_unused]] const auto* const k_judge_curl_environment =
    ::testing::AddGlobalTestEnvironment(new JudgeCurlEnvironment);

} // namespace
} // namespace ralph::verify
