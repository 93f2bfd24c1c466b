// Configuration files: any text is either applied or refused with a config error (toml++ never
// reaches its unreachable points: UBSan would stop here), and what was applied survives the
// round trip through the recorded JSON.
#include "fuzz_support.h"

#include "ralph/core/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  Config config;
  const auto applied = apply_config_toml(config, fuzz::as_text(data, size), "fuzz.toml");
  if (!applied) {
    fuzz::check(applied.error().kind == ErrorKind::config, "a TOML error of another kind");
    return 0;
  }
  const std::string recorded = config_to_json(config);
  Config copy;
  const auto restored = apply_config_json(copy, recorded, "session");
  fuzz::check(restored.has_value(), "a recorded configuration does not load");
  fuzz::check(config_to_json(copy) == recorded, "a recorded configuration changed on loading");
  return 0;
}
