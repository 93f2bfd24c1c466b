#include "output_spill.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::verify {
namespace {

// A line longer than this is written without waiting for its end (a secret across the cut
// would not be replaced; outputs with such lines are rare and not the place secrets appear).
constexpr std::size_t k_max_pending = 1024 * 1024;

} // namespace

OutputSpill::OutputSpill(std::filesystem::path file, std::size_t memory_limit, Redactor redactor)
    : m_file(std::move(file)), m_memory_limit(memory_limit), m_redactor(std::move(redactor)) {
  // An earlier run's file must not pass for this run's output.
  std::error_code ignored;
  std::filesystem::remove(m_file, ignored);
}

void OutputSpill::append(std::string_view bytes) {
  if (m_file.empty() || m_failed) {
    return;
  }
  m_total += bytes.size();
  m_pending.append(bytes);
  if (!m_spilled && m_total <= m_memory_limit) {
    return;
  }
  if (!m_spilled) {
    m_spilled = true;
    std::error_code ec;
    std::filesystem::create_directories(m_file.parent_path(), ec);
    m_out.open(m_file, std::ios::binary | std::ios::trunc);
    if (!m_out) {
      m_failed = true;
      m_pending.clear();
      return;
    }
  }
  write_lines(m_pending.size() > k_max_pending);
}

void OutputSpill::write_lines(bool all) {
  const std::size_t end = all ? m_pending.size() : m_pending.rfind('\n') + 1;
  if (end == 0) {
    return;
  }
  const std::string_view ready = std::string_view(m_pending).substr(0, end);
  if (m_redactor.empty()) {
    m_out.write(ready.data(), static_cast<std::streamsize>(ready.size()));
  } else {
    const std::string redacted = m_redactor.redact(ready);
    m_out.write(redacted.data(), static_cast<std::streamsize>(redacted.size()));
  }
  m_pending.erase(0, end);
  if (!m_out) {
    m_failed = true;
  }
}

Result<std::filesystem::path> OutputSpill::finish() {
  if (!m_spilled) {
    return std::filesystem::path();
  }
  if (!m_failed) {
    write_lines(true);
    m_out.close();
  }
  if (m_failed || !m_out) {
    return fail(ErrorKind::io, fmt::format("cannot write the whole output to {}", m_file.string()));
  }
  return m_file;
}

} // namespace ralph::verify
