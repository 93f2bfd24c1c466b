// The judge's reply in any form: a verdict always comes back, consistent with itself (a pass
// has no category, a fail has one and feedback, an error is `malformed`).
#include "fuzz_support.h"

#include "ralph/verify/judge_verdict.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ralph::Outcome;
  const auto reply = ralph::verify::parse_judge_reply(ralph::fuzz::as_text(data, size));
  switch (reply.result) {
  case Outcome::pass:
    ralph::fuzz::check((reply.category.known() == ralph::verify::Category::none),
                       "a pass with a category");
    break;
  case Outcome::fail:
    ralph::fuzz::check(reply.category.known() != ralph::verify::Category::none,
                       "a fail without a category");
    ralph::fuzz::check(!reply.feedback.empty(), "a fail without feedback");
    break;
  default:
    ralph::fuzz::check(reply.category.known() == ralph::verify::Category::malformed,
                       "an error that is not malformed");
    break;
  }
  return 0;
}
