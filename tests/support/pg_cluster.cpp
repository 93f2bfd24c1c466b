#include "support/pg_cluster.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace ralph::testing {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) {
    s.pop_back();
  }
  return s;
}

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

} // namespace

PgCluster& PgCluster::shared() {
  // One per test process, stopped by ctest's cleanup test, not here: other processes use it.
  static PgCluster cluster(RALPH_TEST_PG_DIR, false);
  return cluster;
}

PgCluster::PgCluster() : m_owned(true) {
  std::string pattern = (std::filesystem::temp_directory_path() / "ralph-pgc-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  m_dir = pattern;
  script("start");
}

PgCluster::PgCluster(std::filesystem::path dir, bool owned)
    : m_dir(std::move(dir)), m_owned(owned) {
  script("start");
}

PgCluster::~PgCluster() {
  if (m_owned) {
    script("stop");
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
  }
}

void PgCluster::script(std::string_view command) {
  const std::string line =
      "bash " + shell_quoted(std::string(RALPH_SOURCE_DIR) + "/scripts/pg-test-cluster.sh") + " " +
      std::string(command) + " " + shell_quoted(m_dir.string()) + " >/dev/null";
  const int status = std::system(line.c_str());
  if (command != "start") {
    if (status != 0) {
      throw std::runtime_error("pg-test-cluster.sh " + std::string(command) + " failed");
    }
    return;
  }
  m_url = read_all(m_dir / "url");
  m_skip = m_url.empty() ? read_all(m_dir / "skip") : std::string();
  if (m_url.empty() && m_skip.empty()) {
    m_skip = "scripts/pg-test-cluster.sh start failed";
  }
}

std::string PgCluster::url(std::string_view database) const {
  const auto slash = m_url.rfind('/');
  return m_url.substr(0, slash + 1) + std::string(database);
}

std::string PgCluster::fresh_database() {
  static std::atomic<int> counter{0};
  const std::string name =
      "t" + std::to_string(getpid()) + "_" + std::to_string(++counter) + "_" +
      std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000007);
  const std::string psql = std::filesystem::exists("/usr/bin/psql") ? "/usr/bin/psql" : "psql";
  const std::string line = psql + " -X -q -d " + shell_quoted(m_url) + " -c " +
                           shell_quoted("CREATE DATABASE " + name) + " >/dev/null";
  if (std::system(line.c_str()) != 0) {
    throw std::runtime_error("could not create database " + name + " on " + m_url);
  }
  return url(name);
}

void PgCluster::halt() {
  script("halt");
}

void PgCluster::resume() {
  script("resume");
}

} // namespace ralph::testing
