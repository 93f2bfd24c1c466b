#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace ralph::loop {

struct Fingerprint {
  std::uint64_t hash = 0;
  bool complete = true; // false when the walk stopped at the entry cap or on an error
};

// A cheap summary of the workspace's state: every entry's relative path, type, size and
// modification time (not contents), order-independent. `.git` and `.ralph` are skipped. Two
// equal complete fingerprints mean nothing visible to `stat` changed.
Fingerprint fingerprint_workspace(const std::filesystem::path& workspace,
                                  std::size_t max_entries = 100'000);

} // namespace ralph::loop
