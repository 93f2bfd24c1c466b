#include "ralph/session/record.h"

#include "ralph/core/host_name.h"
#include "ralph/core/json.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/loop/store_journal.h"
#include "ralph/store/open_session_store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace ralph::session {
namespace {

// Sessions hold whole conversations, tool output and verify logs: a `.ralph/` folder keeps
// itself out of git, all but the configuration a team may want to share (and the ignore file
// itself, or `git status` would show the folder after every first run). A file of the user's
// own is left alone; the one earlier versions wrote, which did not ignore itself, is replaced.
void keep_out_of_git(const std::filesystem::path& folder) {
  constexpr std::string_view k_written =
      "# Written by ralph: sessions hold whole conversations; keep them out of git.\n"
      "*\n!config.toml\n";
  constexpr std::string_view k_written_before =
      "# Written by ralph: sessions hold whole conversations; keep them out of git.\n"
      "*\n!.gitignore\n!config.toml\n";
  const std::filesystem::path path = folder / ".gitignore";
  if (folder.filename() != ".ralph") {
    return;
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str() != k_written_before) {
      return;
    }
  }
  std::ofstream out(path);
  out << k_written;
}

} // namespace

std::filesystem::path store_file(const Config& config, const std::filesystem::path& workspace) {
  std::filesystem::path file(config.store.url.empty() ? config.store.path : config.store.url);
  if (store::is_server_url(config.store.url)) {
    file = StoreSettings().path;
  }
  return file.is_absolute() ? file : workspace / file;
}

std::string store_location(const Config& config, const std::filesystem::path& workspace) {
  return store::is_server_url(config.store.url) ? config.store.url
                                                : store_file(config, workspace).string();
}

Result<std::unique_ptr<store::SessionStore>> open_store(const Config& config,
                                                        const std::filesystem::path& workspace) {
  if (!config.store.enabled) {
    return std::unique_ptr<store::SessionStore>();
  }
  const std::string location = store_location(config, workspace);
  TRY_ASSIGN(auto opened, store::open_session_store(location, config.store.retry));
  if (!store::is_server_url(location)) {
    keep_out_of_git(std::filesystem::path(location).parent_path());
  }
  return opened;
}

std::filesystem::path session_outputs_dir(const Config& config,
                                          const std::filesystem::path& workspace,
                                          const std::string& session_id) {
  return store_file(config, workspace).parent_path() / "outputs" / session_id;
}

store::SessionRow new_session_row(const std::string& id, const std::string& goal,
                                  const std::filesystem::path& workspace, const Config& config,
                                  const Redactor& redactor,
                                  const verify::ProtectedSnapshot& baseline,
                                  std::chrono::system_clock::time_point now) {
  store::SessionRow row;
  row.id = id;
  row.goal = redactor.redact(goal);
  row.workspace = workspace.string();
  row.model = config.model;
  row.created_at = iso8601_utc(now);
  row.updated_at = row.created_at;
  row.config_json = redactor.redact_json(config_to_json(config));
  row.baseline_json = nlohmann::json{{"protected", baseline.digests}}.dump();
  loop::ResumePoint start;
  start.conversation = {Message{.role = Role::user, .content = goal}};
  row.resume_json = redactor.redact_json(loop::resume_point_to_json(start));
  row.owner_pid = getpid();
  row.owner_host = host_name();
  return row;
}

Result<verify::ProtectedSnapshot> baseline_from_row(const store::SessionRow& row) {
  TRY_ASSIGN(const nlohmann::json parsed,
             parse_json(row.baseline_json, fmt::format("session {} baseline", row.id)));
  verify::ProtectedSnapshot snapshot;
  if (parsed.is_object() && parsed.contains("protected") && parsed["protected"].is_object()) {
    for (const auto& [path, digest] : parsed["protected"].items()) {
      if (digest.is_string()) {
        snapshot.digests.emplace(path, digest.get<std::string>());
      }
    }
  }
  return snapshot;
}

} // namespace ralph::session
