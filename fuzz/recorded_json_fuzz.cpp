// The JSON ralph records and reads back (configuration, conversation, resume point, verdict
// evidence, a chat's state, a batch's results line), as a damaged or hostile store or file may
// hold it: never a throw, and what loads survives a round trip.
#include "fuzz_support.h"

#include "ralph/app/batch/batch_results.h"
#include "ralph/app/chat/chat_state.h"
#include "ralph/core/config.h"
#include "ralph/core/json.h"
#include "ralph/core/message_json.h"
#include "ralph/loop/session_resume.h"
#include "ralph/loop/store_journal.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const std::string_view text = fuzz::as_text(data, size);

  Config config;
  if (apply_config_json(config, text, "session")) {
    const std::string recorded = config_to_json(config);
    Config copy;
    fuzz::check(apply_config_json(copy, recorded, "session").has_value(),
                "a recorded configuration does not load");
    fuzz::check(config_to_json(copy) == recorded, "a configuration changed on loading");
  }

  if (const auto messages = messages_from_json(text, "conversation")) {
    const std::string recorded = messages_to_json(*messages);
    const auto again = messages_from_json(recorded, "conversation");
    fuzz::check(again.has_value() && *again == *messages, "a conversation changed on loading");
  }

  (void)loop::resume_point_from_json(text);

  // A session whose every recorded field holds the text: resume reads them all back.
  store::SessionRecord record;
  record.session.id = "s";
  record.session.resume_json = text;
  record.attempts.push_back({.session_id = "s",
                             .iteration = 1,
                             .finished = true,
                             .start_json = std::string(text),
                             .messages_json = std::string(text)});
  record.verdicts.push_back(
      {.session_id = "s", .iteration = 1, .seq = 1, .evidence_json = std::string(text)});
  (void)loop::resume_from_record(record);

  (void)app::chat_state_from_json(text, "chat");

  if (const auto value = parse_json(text, "record")) {
    const auto again = parse_json(value->dump(), "record");
    fuzz::check(again.has_value() && *again == *value, "a value changed on printing");
    (void)app::goal_result_of(*value);
  }
  return 0;
}
