#include "ralph/core/message.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ralph {
namespace {

constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();

TEST(Usage, SumsSaturateAtTheInt64LimitInsteadOfOverflowing) {
  Usage total{.input_tokens = k_max - 5, .output_tokens = 7, .cache_read_tokens = k_max};
  total += Usage{.input_tokens = 10, .output_tokens = 3, .cache_read_tokens = 1};
  EXPECT_EQ(total.input_tokens, k_max);
  EXPECT_EQ(total.output_tokens, 10);
  EXPECT_EQ(total.cache_read_tokens, k_max);
  EXPECT_EQ((Usage{.input_tokens = k_max, .output_tokens = k_max}.total_tokens()), k_max);
}

TEST(Usage, NegativeCountsSaturateAtTheLowerLimit) {
  Usage total{.input_tokens = std::numeric_limits<std::int64_t>::min()};
  total += Usage{.input_tokens = -1};
  EXPECT_EQ(total.input_tokens, std::numeric_limits<std::int64_t>::min());
}

} // namespace
} // namespace ralph
