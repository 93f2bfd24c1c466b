#include "ralph/store/trace_writer.h"

#include "atomic_file.h"
#include "file_lock.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <unistd.h>

namespace ralph::store {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view k_index_name = "session-index.json";
// Written next to each session's traces so the index can be rebuilt from the archive alone,
// whatever shape the caller gives its trace documents.
constexpr std::string_view k_session_record_name = "session.json";

std::string iter_file_name(int iteration) {
  return fmt::format("iter-{:02}.json", iteration);
}

// The iteration of an archive file name written by iter_file_name, or nullopt for anything else
// (temporaries, the session record, hand-made names).
std::optional<int> parse_iter_file_name(std::string_view name) {
  constexpr std::string_view prefix = "iter-";
  constexpr std::string_view suffix = ".json";
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  int iteration = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), iteration);
  if (ec != std::errc() || end != digits.data() + digits.size() || iteration < 0 ||
      iter_file_name(iteration) != name) {
    return std::nullopt;
  }
  return iteration;
}

// A session id becomes a folder name under DIR/sessions: it must name exactly one new folder.
bool is_safe_session_id(std::string_view id) {
  return !id.empty() && id != "." && id.find("..") == std::string_view::npos &&
         id.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

std::string trace_path(std::string_view id, int iteration) {
  return fmt::format("sessions/{}/{}", id, iter_file_name(iteration));
}

std::string to_text(const json& value) {
  // Replace rather than throw on invalid UTF-8 in a goal: the trace must still be written.
  return value.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string iso_time_of(fs::file_time_type time) {
  return iso8601_utc(std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      std::chrono::file_clock::to_sys(time)));
}

void sort_sessions(json& sessions) {
  std::sort(sessions.begin(), sessions.end(), [](const json& a, const json& b) {
    const auto& a_created = a["created_at"].get_ref<const std::string&>();
    const auto& b_created = b["created_at"].get_ref<const std::string&>();
    if (a_created != b_created) {
      return a_created < b_created;
    }
    return a["id"].get_ref<const std::string&>() < b["id"].get_ref<const std::string&>();
  });
}

// What is wrong with a parsed index, or empty when it has the shape this writer produces.
std::string index_problem(const json& index) {
  if (!index.is_object()) {
    return "not a JSON object";
  }
  const auto version = index.find("version");
  if (version == index.end() || !version->is_number_integer()) {
    return "\"version\" is missing or not an integer";
  }
  if (*version != 1) {
    return fmt::format("version {} is not supported", version->dump());
  }
  const auto sessions = index.find("sessions");
  if (sessions == index.end() || !sessions->is_array()) {
    return "\"sessions\" is missing or not a list";
  }
  std::set<std::string> ids;
  for (std::size_t i = 0; i < sessions->size(); ++i) {
    const json& session = (*sessions)[i];
    const auto is_string = [&](const char* key) {
      return session.contains(key) && session[key].is_string();
    };
    if (!session.is_object() || !is_string("id") || !is_string("goal") ||
        !is_string("created_at") || !is_string("updated_at") || !session.contains("iterations") ||
        !session["iterations"].is_array()) {
      return fmt::format("session #{} lacks id, goal, created_at, updated_at or iterations", i + 1);
    }
    const auto& id = session["id"].get_ref<const std::string&>();
    if (!is_safe_session_id(id) || !ids.insert(id).second) {
      return fmt::format("session id \"{}\" is unusable or listed twice", id);
    }
    for (const json& item : session["iterations"]) {
      if (!item.is_object() || !item.contains("iteration") ||
          !item["iteration"].is_number_integer() || !item.contains("path") ||
          !item["path"].is_string()) {
        return fmt::format("session \"{}\" has an iteration without iteration and path", id);
      }
    }
  }
  return {};
}

// {"goal", "created_at"} from the session record, or from the trace document itself when
// the record is missing (archives written by something else); "" for what neither has.
json session_identity(const fs::path& folder, int first_iteration) {
  for (const fs::path& source :
       {folder / k_session_record_name, folder / iter_file_name(first_iteration)}) {
    const auto text = read_file_if_exists(source);
    if (!text || !*text) {
      continue;
    }
    const auto parsed = parse_json(**text, source.string());
    if (!parsed || !parsed->is_object()) {
      continue;
    }
    const json& document = *parsed;
    json identity = {{"goal", ""}, {"created_at", ""}};
    for (const char* key : {"goal", "created_at"}) {
      if (document.contains(key) && document[key].is_string()) {
        identity[key] = document[key];
      }
    }
    return identity;
  }
  return {{"goal", ""}, {"created_at", ""}};
}

struct Rebuilt {
  json index;
  int traces = 0;
};

// The index as the archive DIR/sessions/<id>/iter-XX.json describes it. Times missing from the
// session records come from the files' modification times.
Result<Rebuilt> rebuild_index(const fs::path& dir) {
  Rebuilt rebuilt;
  json sessions = json::array();
  std::error_code ec;
  for (fs::directory_iterator it(dir / "sessions", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string id = it->path().filename().string();
    std::error_code entry_ec;
    if (!is_safe_session_id(id) || !it->is_directory(entry_ec)) {
      continue;
    }
    std::vector<int> iterations;
    std::optional<fs::file_time_type> oldest;
    std::optional<fs::file_time_type> newest;
    for (fs::directory_iterator file(it->path(), ec); !ec && file != end; file.increment(ec)) {
      const auto iteration = parse_iter_file_name(file->path().filename().string());
      const auto modified = file->last_write_time(entry_ec);
      if (!iteration || entry_ec) {
        continue;
      }
      iterations.push_back(*iteration);
      oldest = std::min(oldest.value_or(modified), modified);
      newest = std::max(newest.value_or(modified), modified);
    }
    if (ec) {
      break;
    }
    if (iterations.empty()) {
      continue;
    }
    std::sort(iterations.begin(), iterations.end());
    json session = session_identity(it->path(), iterations.front());
    session["id"] = id;
    if (session["created_at"] == "") {
      session["created_at"] = iso_time_of(*oldest);
    }
    session["updated_at"] = iso_time_of(*newest);
    session["iterations"] = json::array();
    for (const int iteration : iterations) {
      session["iterations"].push_back(
          {{"iteration", iteration}, {"path", trace_path(id, iteration)}});
    }
    rebuilt.traces += static_cast<int>(iterations.size());
    sessions.push_back(std::move(session));
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return fail(ErrorKind::io, fmt::format("cannot rebuild {} from {}: {}", k_index_name,
                                           (dir / "sessions").string(), ec.message()));
  }
  sort_sessions(sessions);
  rebuilt.index = {{"version", 1}, {"sessions", std::move(sessions)}};
  return rebuilt;
}

// Keeps the bad index as session-index.json.corrupt-<time>[-N] before it is replaced, and
// returns that name. A hard link keeps the exact bytes, even of a file we could not read.
Result<std::string> keep_corrupt_copy(const fs::path& dir,
                                      const std::optional<std::string>& content) {
  std::string stamp = iso8601_utc(std::chrono::system_clock::now());
  std::erase(stamp, ':');
  const fs::path index = dir / k_index_name;
  int error_number = 0;
  for (int n = 1; n < 1000; ++n) {
    const std::string name = n == 1 ? fmt::format("{}.corrupt-{}", k_index_name, stamp)
                                    : fmt::format("{}.corrupt-{}-{}", k_index_name, stamp, n);
    const fs::path copy = dir / name;
    if (::link(index.c_str(), copy.c_str()) == 0) {
      return name;
    }
    error_number = errno;
    if (error_number == EEXIST) {
      continue;
    }
    std::error_code ec;
    if (!content || fs::exists(copy, ec)) {
      break;
    }
    // No hard links on this file system: copy what we read (the lock keeps the name ours).
    TRY(write_file_atomically(copy, *content));
    return name;
  }
  return fail(ErrorKind::io, fmt::format("cannot keep a copy of the corrupt {} in {}: {}",
                                         k_index_name, dir.string(), std::strerror(error_number)));
}

void add_to_index(json& index, const TraceEntry& entry) {
  json& sessions = index["sessions"];
  auto session = std::find_if(sessions.begin(), sessions.end(),
                              [&](const json& s) { return s["id"] == entry.session_id; });
  if (session == sessions.end()) {
    sessions.push_back({{"id", entry.session_id}, {"iterations", json::array()}});
    session = sessions.end() - 1;
  }
  // The caller's goal and creation time are the session's: the latest write wins.
  (*session)["goal"] = entry.goal;
  (*session)["created_at"] = entry.created_at;
  (*session)["updated_at"] = iso8601_utc(std::chrono::system_clock::now());
  json& iterations = (*session)["iterations"];
  iterations.erase(std::remove_if(iterations.begin(), iterations.end(),
                                  [&](const json& i) { return i["iteration"] == entry.iteration; }),
                   iterations.end());
  iterations.push_back(
      {{"iteration", entry.iteration}, {"path", trace_path(entry.session_id, entry.iteration)}});
  std::sort(iterations.begin(), iterations.end(), [](const json& a, const json& b) {
    return a["iteration"].get<std::int64_t>() < b["iteration"].get<std::int64_t>();
  });
  sort_sessions(sessions);
}

// Reads the index (rebuilding it when missing or corrupt), adds the entry and writes it back.
// Runs under the lock, after the entry's archive file exists.
Result<std::vector<std::string>> update_index(const fs::path& dir, const TraceEntry& entry) {
  std::vector<std::string> warnings;
  const fs::path path = dir / k_index_name;
  const auto text = read_file_if_exists(path);
  std::string problem;
  json index;
  if (!text) {
    problem = text.error().message;
  } else if (*text && trim(**text).empty()) {
    problem = "the file is empty";
  } else if (*text) {
    auto parsed = parse_json(**text, k_index_name);
    problem = parsed ? index_problem(*parsed) : parsed.error().message;
    if (problem.empty()) {
      index = std::move(*parsed);
    }
  }
  if (!problem.empty() || (text && !*text)) {
    TRY_ASSIGN(Rebuilt rebuilt, rebuild_index(dir));
    index = std::move(rebuilt.index);
    if (!problem.empty()) {
      TRY_ASSIGN(const std::string copy, keep_corrupt_copy(dir, text ? *text : std::nullopt));
      if (!text) {
        // Replacing it would copy its permissions, which may be why it cannot be read.
        ::unlink(path.c_str());
      }
      warnings.push_back(fmt::format("{} was corrupt ({}); kept it as {} and rebuilt the index "
                                     "from {} archived trace(s)",
                                     k_index_name, problem, copy, rebuilt.traces));
    } else if (rebuilt.traces > 1) {
      warnings.push_back(fmt::format("{} was missing; rebuilt it from {} archived trace(s)",
                                     k_index_name, rebuilt.traces));
    }
  }
  add_to_index(index, entry);
  TRY(write_file_atomically(path, to_text(index)));
  return warnings;
}

// The session record changes only when the caller's goal or creation time does.
Result<void> write_session_record(const fs::path& folder, const TraceEntry& entry) {
  const std::string record =
      to_text({{"id", entry.session_id}, {"goal", entry.goal}, {"created_at", entry.created_at}});
  const fs::path path = folder / k_session_record_name;
  const auto existing = read_file_if_exists(path);
  if (existing && *existing && **existing == record) {
    return {};
  }
  return write_file_atomically(path, record);
}

} // namespace

TraceWriter::TraceWriter(std::filesystem::path dir) : m_dir(std::move(dir)) {}

Result<std::vector<std::string>> TraceWriter::write(const TraceEntry& entry) {
  if (!is_safe_session_id(entry.session_id)) {
    return fail(ErrorKind::usage,
                fmt::format("session id \"{}\" cannot be used as a folder name (it must be "
                            "non-empty, without '/', '\\', \"..\" or NUL)",
                            entry.session_id));
  }
  if (entry.iteration < 0) {
    return fail(ErrorKind::usage, fmt::format("trace iteration {} is negative", entry.iteration));
  }
  const fs::path folder = m_dir / "sessions" / entry.session_id;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("cannot create {}: {}", folder.string(), ec.message()));
  }
  TRY_ASSIGN(const FileLock lock, FileLock::acquire(m_dir / ".lock"));
  TRY(write_session_record(folder, entry));
  // The archive first: a rebuilt index must include this entry.
  const std::string name = iter_file_name(entry.iteration);
  TRY(write_file_atomically(folder / name, entry.json));
  TRY(write_file_atomically(m_dir / name, entry.json));
  return update_index(m_dir, entry);
}

} // namespace ralph::store
