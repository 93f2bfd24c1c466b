#include "support/fake_clock.h"
#include "support/temp_dir.h"

#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::llm {
namespace {

using ::testing::HasSubstr;

TEST(ModelSpec, SplitsAtTheFirstSlash) {
  auto spec = parse_model_spec("ollama/qwen3:8b");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->provider, ProviderKind::ollama);
  EXPECT_EQ(spec->label(), "ollama/qwen3:8b");
  EXPECT_EQ(spec->model, "qwen3:8b");

  auto nested = parse_model_spec("openai-compat/org/model-7b");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->model, "org/model-7b");

  auto scripted = parse_model_spec("scripted/tests/data/script.json");
  ASSERT_TRUE(scripted);
  EXPECT_EQ(scripted->model, "tests/data/script.json");
  EXPECT_TRUE(parse_model_spec("anthropic/claude-sonnet-4-5"));
  EXPECT_TRUE(parse_model_spec("openai/gpt-4.1"));
}

TEST(ModelFamily, IsWhoMadeTheModelNotWhoServesIt) {
  const auto family = [](std::string_view spec) {
    return std::string(model_family(*parse_model_spec(spec)));
  };
  EXPECT_EQ(family("anthropic/claude-sonnet-4-5"), "anthropic");
  EXPECT_EQ(family("openai-compat/claude-3-5-sonnet"), "anthropic");
  EXPECT_EQ(family("openai-compat/anthropic/claude-opus-4"), "anthropic") << "OpenRouter";
  EXPECT_EQ(family("openai-compat/anthropic.claude-3-haiku-v1:0"), "anthropic") << "Bedrock";
  EXPECT_EQ(family("openai/gpt-4.1"), "openai");
  EXPECT_EQ(family("openai-compat/gpt-oss-20b"), "openai");
  EXPECT_EQ(family("openai/o3-mini"), "openai");
  EXPECT_EQ(family("ollama/qwen3:8b"), "qwen");
  EXPECT_EQ(family("ollama/llama3.1"), "meta");
  EXPECT_EQ(family("openai-compat/gemini-2.5-pro"), "google");
  EXPECT_EQ(family("anthropic/some-new-name"), "anthropic") << "the provider when the name says "
                                                               "nothing";
  EXPECT_EQ(family("openai-compat/my-model"), "");
  EXPECT_EQ(family("openai-compat/o3x-custom"), "") << "o3 is a whole name";
}

TEST(ModelSpec, UnknownProviderListsTheAcceptedOnes) {
  auto spec = parse_model_spec("gemini/pro");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().kind, ErrorKind::usage);
  EXPECT_THAT(spec.error().message, HasSubstr("unknown provider 'gemini'"));
  EXPECT_THAT(spec.error().message,
              HasSubstr("openai, openai-responses, anthropic, ollama, openai-compat, scripted"));
}

TEST(ModelSpec, MissingPartsAreUsageErrors) {
  for (const char* bad : {"gpt-4.1", "openai/", "/gpt-4.1", ""}) {
    auto spec = parse_model_spec(bad);
    ASSERT_FALSE(spec) << bad;
    EXPECT_EQ(spec.error().kind, ErrorKind::usage) << bad;
    EXPECT_THAT(spec.error().message, HasSubstr("PROVIDER/MODEL")) << bad;
  }
}

class MakeProvider : public ::testing::Test {
protected:
  Result<std::unique_ptr<Provider>> make(std::string spec, std::string key = "",
                                         std::string base_url = "") {
    ProviderConfig config;
    config.spec = *parse_model_spec(spec);
    config.api_key = std::move(key);
    config.base_url = std::move(base_url);
    return make_provider(config, transport, clock);
  }

  http::CurlTransport transport;
  ralph::testing::FakeClock clock;
};

TEST_F(MakeProvider, BuildsEachProvider) {
  EXPECT_EQ((*make("openai/gpt-4.1", "sk-x"))->name(), "openai");
  EXPECT_EQ((*make("anthropic/claude", "sk-ant"))->name(), "anthropic");
  EXPECT_EQ((*make("ollama/qwen3:8b"))->name(), "ollama");
  EXPECT_EQ((*make("openai-compat/m", "", "http://localhost:8080/v1"))->name(), "openai-compat");
}

TEST_F(MakeProvider, MissingKeyNamesTheVariable) {
  auto openai = make("openai/gpt-4.1");
  ASSERT_FALSE(openai);
  EXPECT_EQ(openai.error().kind, ErrorKind::config);
  EXPECT_THAT(openai.error().message, HasSubstr("OPENAI_API_KEY"));
  auto anthropic = make("anthropic/claude");
  ASSERT_FALSE(anthropic);
  EXPECT_THAT(anthropic.error().message, HasSubstr("ANTHROPIC_API_KEY"));
}

TEST_F(MakeProvider, CompatNeedsABaseUrl) {
  auto provider = make("openai-compat/m");
  ASSERT_FALSE(provider);
  EXPECT_EQ(provider.error().kind, ErrorKind::usage);
  EXPECT_THAT(provider.error().message, HasSubstr("needs a base URL"));
}

TEST_F(MakeProvider, ScriptedLoadsTheFile) {
  ralph::testing::TempDir dir;
  const auto path = dir.write("s.json", R"({"turns": [{"text": "hi"}]})");
  auto provider = make("scripted/" + path.string());
  ASSERT_TRUE(provider) << provider.error().message;
  EXPECT_EQ((*provider)->name(), "scripted");

  auto missing = make("scripted/" + (dir.path() / "missing.json").string());
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("missing.json"));
}

} // namespace
} // namespace ralph::llm
