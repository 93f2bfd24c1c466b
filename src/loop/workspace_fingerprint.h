#pragma once

#include <cstdint>
#include <filesystem>

namespace ralph::loop {

// A summary of the workspace's state as `stat` sees it: every entry's relative path, type,
// size, inode, modification and change times (not contents), order-independent. `.git` and
// `.ralph` at the top are skipped; symbolic links are not followed. The walk has no cap: any
// size is summarised whole (about 0.2 s of CPU per 100,000 files warm, see docs/performance.md), so
// two equal fingerprints mean nothing visible to `stat` changed. A directory that cannot be read
// counts as its own entry only, the same way on every walk.
struct Fingerprint {
  std::uint64_t hash = 0;
  std::uint64_t entries = 0;
  bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint_workspace(const std::filesystem::path& workspace);

} // namespace ralph::loop
