// An external verifier's output (stdout, a NUL, stderr) read by the real ExecVerifier through a
// runner that prints it: a verdict always comes back, with valid UTF-8 feedback, a category
// exactly when it is not a pass, and a pass only from a parsed verdict.
#include "fuzz_support.h"

#include "ralph/core/text.h"
#include "ralph/verify/exec_verifier.h"

namespace {

using namespace ralph;

class PrintingRunner final : public tools::ProcessRunner {
public:
  PrintingRunner(std::string_view out, std::string_view err) : m_out(out), m_err(err) {}
  Result<tools::ProcessResult> run(const tools::ProcessSpec& /*spec*/,
                                   const CancelToken& /*cancel*/) override {
    tools::ProcessResult result;
    result.exit_code = 0;
    result.output = std::string(m_out);
    result.err_output = std::string(m_err);
    result.output_bytes = m_out.size();
    result.err_bytes = m_err.size();
    return result;
  }

private:
  std::string_view m_out;
  std::string_view m_err;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [out, err] = fuzz::split_once(fuzz::as_text(data, size), '\0');
  PrintingRunner runner(out, err);
  verify::ExecVerifier verifier("./check", VerifySettings{}, runner);
  const verify::Attempt attempt;
  const CancelToken cancel;
  const verify::Verdict verdict = verifier.verify(attempt, cancel);
  fuzz::check(is_valid_utf8(verdict.feedback), "feedback is not valid UTF-8");
  const bool categorised = verdict.category.known() != verify::Category::none;
  fuzz::check(categorised == (verdict.result != Outcome::pass), "category and result disagree");
  if (verdict.result == Outcome::pass) {
    fuzz::check(to_lower_ascii(out).find("pass") != std::string::npos,
                "a pass without a verdict saying so");
  }
  return 0;
}
