#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ralph::testing {

// A throwaway PostgreSQL server on 127.0.0.1 for tests, run by scripts/pg-test-cluster.sh.
// Tests share one per build folder (`shared()`), each in databases of its own
// (`fresh_database()`); ctest stops it after the last test (the `pg` fixture). A test that stops
// or restarts the server makes a private one, destroyed with the object.
class PgCluster {
public:
  // The shared server, started by the first test that asks.
  static PgCluster& shared();
  // A private server in a folder of its own.
  PgCluster();
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // Empty when the server runs; otherwise why it could not start.
  const std::string& skip_reason() const { return m_skip; }
  // The URL of `database` on the server.
  std::string url(std::string_view database = "postgres") const;
  // A new empty database with a name no other test uses; its URL.
  std::string fresh_database();

  // Stops the server (a fast shutdown: sessions are cut off) and starts it again on the same
  // port. Private servers only.
  void halt();
  void resume();

private:
  explicit PgCluster(std::filesystem::path dir, bool owned);
  void script(std::string_view command);

  std::filesystem::path m_dir;
  bool m_owned;
  std::string m_skip;
  std::string m_url;
};

} // namespace ralph::testing

// Skips the test, saying why, when `cluster` has no server; with RALPH_REQUIRE_POSTGRES=1 (CI)
// the test fails instead.
#define RALPH_REQUIRE_PG(cluster)                                                                  \
  do {                                                                                             \
    if (!(cluster).skip_reason().empty()) {                                                        \
      if (std::getenv("RALPH_REQUIRE_POSTGRES") != nullptr) {                                      \
        FAIL() << "PostgreSQL is required here: " << (cluster).skip_reason();                      \
      }                                                                                            \
      GTEST_SKIP() << "no PostgreSQL server: " << (cluster).skip_reason();                         \
    }                                                                                              \
  } while (false)
