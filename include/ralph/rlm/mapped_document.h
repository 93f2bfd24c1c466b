#pragma once

#include "ralph/core/error.h"

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace ralph::rlm {

// A document file mapped read-only into memory, so a 1 GB log costs address space, not a copy.
// The text is the file's bytes as they are (not checked or repaired as UTF-8). Move-only; the
// mapping lives as long as the object.
class MappedDocument {
public:
  // The mapped file, or an ErrorKind::io error naming the path and the reason. An empty file is
  // a valid empty document.
  static Result<MappedDocument> open(const std::filesystem::path& path);

  MappedDocument(MappedDocument&& other) noexcept;
  MappedDocument& operator=(MappedDocument&& other) noexcept;
  MappedDocument(const MappedDocument&) = delete;
  MappedDocument& operator=(const MappedDocument&) = delete;
  ~MappedDocument();

  std::string_view text() const { return {m_data, m_size}; }
  std::size_t size() const { return m_size; }
  const std::filesystem::path& path() const { return m_path; }

private:
  MappedDocument(std::filesystem::path path, const char* data, std::size_t size);

  std::filesystem::path m_path;
  const char* m_data = nullptr;
  std::size_t m_size = 0;
};

} // namespace ralph::rlm
