#pragma once

#include "ralph/core/error.h"
#include "ralph/core/redactor.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace ralph::verify {

// Keeps a command's whole output when it is too large for the session record: the bytes are held
// in memory up to `memory_limit`, and past it go, all of them from the first, to `file`, known
// secrets replaced line by line. Nothing is written for an output that fits.
class OutputSpill {
public:
  // `file` empty: never writes (the record keeps head and tail only).
  OutputSpill(std::filesystem::path file, std::size_t memory_limit, Redactor redactor);

  void append(std::string_view bytes);
  // Writes what is left; the file's path when the output went to one, empty when it fitted (or
  // when there was no file to write), an Error when the file could not be written.
  Result<std::filesystem::path> finish();

private:
  void write_lines(bool all);

  std::filesystem::path m_file;
  std::size_t m_memory_limit;
  Redactor m_redactor;
  std::string m_pending;
  std::ofstream m_out;
  bool m_spilled = false;
  bool m_failed = false;
  std::uint64_t m_total = 0;
};

} // namespace ralph::verify
