#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::llm {

// A forward-only reader over one JSON text for the streaming hot path: it validates as it goes
// and builds no DOM, so reading a stream chunk costs about as much as scanning it (nlohmann's
// DOM parse costs ~10x more per chunk). Callers walk the value recursively:
//
//   if (reader.enter_object()) {
//     std::string_view key;
//     while (reader.next_key(key)) {
//       if (key == "text") { reader.read_string(text); } else { reader.skip(); }
//     }
//   }
//   if (!reader.finish()) { /* malformed; reader.error_offset() says where */ }
//
// Every read consumes exactly one value. A value of another type than asked for is skipped
// (validated) and the read returns false; malformed text makes every later call fail. String
// views stay valid until the next read. Escapes are decoded; lone surrogates become U+FFFD.
// Nesting deeper than 64 is rejected, and so is a number too large for a double (1e999).
// Not thread-safe.
class JsonReader {
public:
  enum class Kind { object, array, string, number, literal, invalid };

  explicit JsonReader(std::string_view text) : m_text(text) {}

  // The kind of the next value, without consuming it.
  Kind peek();
  // Consumes '{' / '['. False when the next value is something else, which is then skipped:
  // the value is consumed either way, so never write `key == "x" && enter_object()` in an
  // else-if chain whose last branch skips.
  bool enter_object();
  bool enter_array();
  // The next key of the innermost object, or false once its '}' is consumed.
  bool next_key(std::string_view& key);
  // True when another element of the innermost array follows; false once its ']' is consumed.
  bool next_element();

  bool read_string(std::string_view& out);
  std::optional<std::int64_t> read_int(); // floats truncated; nullopt for other types
  void skip();

  // True when the text held exactly one well-formed value and everything was consumed.
  bool finish();
  bool failed() const { return m_failed; }
  std::size_t error_offset() const { return m_error_at; }

private:
  void skip_space();
  bool fail();
  bool expect(char c);
  bool scan_string(std::string_view& out);
  bool scan_number();
  bool scan_literal();
  bool push();
  bool pop(char close);

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::string m_scratch;     // decoded strings that had escapes
  std::uint64_t m_first = 0; // bit per open container: no member read yet
  int m_depth = 0;
  bool m_started = false; // a value began: an empty text is not JSON
  bool m_failed = false;
  std::size_t m_error_at = 0;
};

} // namespace ralph::llm
