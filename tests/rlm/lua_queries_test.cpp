// llm_query and llm_query_batched inside the Lua sandbox: answers, failures, usage, order,
// bounded concurrency and cancellation.

#include "ralph/rlm/sandbox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace ralph::rlm {
namespace {

using namespace std::chrono_literals;

const std::string k_document = "alpha beta gamma";

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

Result<SubAnswer> echo(const SubQuery& query) {
  return SubAnswer{"answer to " + query.query + " about [" + query.context + "]",
                   Usage{.input_tokens = 10, .output_tokens = 5, .cache_read_tokens = 1}};
}

TEST(LuaQueries, LlmQueryReturnsTheAnswerAndSumsUsage) {
  auto sandbox = make_lua_sandbox(k_document, echo);
  const ExecResult result = sandbox->execute(
      "print(llm_query('what', doc:slice(1, 5))) return llm_query('again')", CancelToken());
  EXPECT_FALSE(result.error) << result.output;
  EXPECT_EQ(result.output, "answer to what about [alpha]\nanswer to again about []\n");
  EXPECT_EQ(result.sub_queries, 2);
  EXPECT_EQ(result.usage.input_tokens, 20);
  EXPECT_EQ(result.usage.output_tokens, 10);
  EXPECT_EQ(result.usage.cache_read_tokens, 2);
  // Per execution, not accumulated.
  EXPECT_EQ(sandbox->execute("return 1", CancelToken()).sub_queries, 0);
}

TEST(LuaQueries, FailedLlmQueryIsNilAndAMessageAndShowsInTheOutput) {
  auto sandbox = make_lua_sandbox(k_document, [](const SubQuery&) -> Result<SubAnswer> {
    return fail(ErrorKind::provider, "sub-query budget spent");
  });
  const ExecResult result = sandbox->execute(
      "local answer, err = llm_query('q', 'c') return answer == nil, err", CancelToken());
  EXPECT_FALSE(result.error) << result.output;
  EXPECT_EQ(result.output,
            "[llm_query failed: sub-query budget spent]\ntrue\tsub-query budget spent\n");
  EXPECT_EQ(result.sub_queries, 1);
}

TEST(LuaQueries, ThrowingSubQueryFunctionIsAFailureNotACrash) {
  auto sandbox = make_lua_sandbox(
      k_document, [](const SubQuery&) -> Result<SubAnswer> { throw std::runtime_error("boom"); });
  const ExecResult single = sandbox->execute("return llm_query('q', 'c')", CancelToken());
  EXPECT_FALSE(single.error) << single.output;
  EXPECT_TRUE(contains(single.output, "boom")) << single.output;
  const ExecResult batch = sandbox->execute(
      "return table.concat(llm_query_batched({{query='a'}, {query='b'}}), '|')", CancelToken());
  EXPECT_EQ(batch.output, "error: the sub-query failed: boom|error: the sub-query failed: boom\n");
}

TEST(LuaQueries, BatchedAnswersComeBackInOrder) {
  auto sandbox = make_lua_sandbox(k_document, echo);
  const ExecResult result = sandbox->execute(R"(
    local items = {}
    for i = 1, 20 do items[i] = {query = 'q' .. i, context = 'c' .. i} end
    local answers = llm_query_batched(items)
    for i, a in ipairs(answers) do assert(a == 'answer to q' .. i .. ' about [c' .. i .. ']', a) end
    return #answers
  )",
                                             CancelToken());
  EXPECT_FALSE(result.error) << result.output;
  EXPECT_EQ(result.output, "20\n");
  EXPECT_EQ(result.sub_queries, 20);
  EXPECT_EQ(result.usage.input_tokens, 200);
}

TEST(LuaQueries, BatchedAcceptsParallelArraysAndPlainStrings) {
  auto sandbox = make_lua_sandbox(k_document, echo);
  EXPECT_EQ(
      sandbox
          ->execute("return table.concat(llm_query_batched({'a', 'b'}, {'x'}), '|')", CancelToken())
          .output,
      "answer to a about [x]|answer to b about []\n");
  EXPECT_EQ(sandbox
                ->execute("return table.concat(llm_query_batched({'a', {query = 'b'}}), '|')",
                          CancelToken())
                .output,
            "answer to a about []|answer to b about []\n");
  EXPECT_EQ(sandbox->execute("return #llm_query_batched({})", CancelToken()).output, "0\n");
}

TEST(LuaQueries, BatchedRejectsMalformedItems) {
  auto sandbox = make_lua_sandbox(k_document, echo);
  const ExecResult result =
      sandbox->execute("return llm_query_batched({{context = 'no query'}})", CancelToken());
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(contains(result.output, "item 1")) << result.output;
  EXPECT_EQ(result.sub_queries, 0);
  EXPECT_TRUE(sandbox->execute("return llm_query_batched('x')", CancelToken()).error);
  EXPECT_TRUE(sandbox->execute("return llm_query()", CancelToken()).error);
}

TEST(LuaQueries, BatchedFailuresBecomeErrorStrings) {
  auto sandbox = make_lua_sandbox(k_document, [](const SubQuery& query) -> Result<SubAnswer> {
    if (query.query == "bad") {
      return fail(ErrorKind::provider, "refused");
    }
    return SubAnswer{"ok", Usage{.input_tokens = 1, .output_tokens = 1}};
  });
  const ExecResult result = sandbox->execute(
      "return table.concat(llm_query_batched({'good', 'bad', 'good'}), '|')", CancelToken());
  EXPECT_EQ(result.output, "ok|error: refused|ok\n");
  EXPECT_EQ(result.sub_queries, 3);
  EXPECT_EQ(result.usage.input_tokens, 2);
}

// Counts calls in flight; the first calls wait until `target` are in flight at once (or a
// generous guard expires, which fails the test through the recorded maximum).
class ConcurrencyProbe {
public:
  explicit ConcurrencyProbe(int target) : m_target(target) {}

  Result<SubAnswer> operator()(const SubQuery& query) {
    {
      std::unique_lock lock(m_mutex);
      ++m_in_flight;
      m_max = std::max(m_max, m_in_flight);
      if (m_in_flight >= m_target) {
        m_reached = true;
        m_changed.notify_all();
      }
      m_changed.wait_for(lock, 10s, [&] { return m_reached; });
      --m_in_flight;
    }
    return SubAnswer{.text = query.query};
  }

  int max() {
    std::lock_guard lock(m_mutex);
    return m_max;
  }

private:
  int m_target;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  int m_in_flight = 0;
  int m_max = 0;
  bool m_reached = false;
};

std::string batch_of(int n) {
  return "local items = {} for i = 1, " + std::to_string(n) +
         " do items[i] = 'q' .. i end return #llm_query_batched(items)";
}

TEST(LuaQueries, BatchRunsUpToTheLimitAtOnceAndNeverMore) {
  auto probe = std::make_shared<ConcurrencyProbe>(3);
  auto sandbox = make_lua_sandbox(
      k_document, [probe](const SubQuery& query) { return (*probe)(query); }, {.concurrency = 3});
  const ExecResult result = sandbox->execute(batch_of(10), CancelToken());
  EXPECT_EQ(result.output, "10\n");
  EXPECT_EQ(probe->max(), 3);
}

TEST(LuaQueries, SmallBatchRunsAllAtOnce) {
  auto probe = std::make_shared<ConcurrencyProbe>(2);
  auto sandbox =
      make_lua_sandbox(k_document, [probe](const SubQuery& query) { return (*probe)(query); });
  EXPECT_EQ(sandbox->execute(batch_of(2), CancelToken()).output, "2\n");
  EXPECT_EQ(probe->max(), 2);
}

TEST(LuaQueries, DefaultLimitIsSix) {
  auto probe = std::make_shared<ConcurrencyProbe>(6);
  auto sandbox =
      make_lua_sandbox(k_document, [probe](const SubQuery& query) { return (*probe)(query); });
  EXPECT_EQ(sandbox->execute(batch_of(30), CancelToken()).output, "30\n");
  EXPECT_EQ(probe->max(), 6);
}

TEST(LuaQueries, CancellationStopsTheBatchBetweenCalls) {
  const CancelToken cancel;
  std::atomic<int> calls{0};
  auto sandbox = make_lua_sandbox(k_document,
                                  [&](const SubQuery&) -> Result<SubAnswer> {
                                    ++calls;
                                    cancel.cancel();
                                    return SubAnswer{"first", Usage{.input_tokens = 7}};
                                  },
                                  {.concurrency = 1});
  const ExecResult result = sandbox->execute(batch_of(5), cancel);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(result.sub_queries, 1);
  EXPECT_EQ(result.usage.input_tokens, 7);
  EXPECT_TRUE(result.error);
  EXPECT_FALSE(result.reset);
  EXPECT_TRUE(contains(result.output, "[execution cancelled]")) << result.output;
  EXPECT_TRUE(sandbox->execute("return llm_query('q')", cancel).error);
  EXPECT_EQ(calls.load(), 1) << "no call once cancelled";
}

TEST(LuaQueries, WaitingForAnswersDoesNotCountAgainstTheTimeLimit) {
  auto sandbox = make_lua_sandbox(k_document,
                                  [](const SubQuery&) -> Result<SubAnswer> {
                                    // A slow model, not a synchronisation: the call takes longer
                                    // than the time limit.
                                    std::this_thread::sleep_for(300ms);
                                    return SubAnswer{.text = "slow"};
                                  },
                                  {.time_limit = 100ms});
  const ExecResult result = sandbox->execute("return llm_query('q')", CancelToken());
  EXPECT_FALSE(result.timed_out) << result.output;
  EXPECT_EQ(result.output, "slow\n");
}

} // namespace
} // namespace ralph::rlm
