#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ralph {

// One entry of an enum's table of stable names: the names written in files, flags, JSON and
// events. Each enum has one table, so its names and its parser cannot drift apart.
template <typename E> struct EnumName {
  E value;
  const char* name;
};

// The name of `value`; the first entry's name when the table lacks it (a bug the enum's tests
// catch: every table lists every value).
template <typename E, std::size_t N>
constexpr const char* name_of(const EnumName<E> (&names)[N], E value) {
  for (const EnumName<E>& entry : names) {
    if (entry.value == value) {
      return entry.name;
    }
  }
  return names[0].name;
}

// The value named `name` (exactly), or nullopt.
template <typename E, std::size_t N>
constexpr std::optional<E> value_of(const EnumName<E> (&names)[N], std::string_view name) {
  for (const EnumName<E>& entry : names) {
    if (name == entry.name) {
      return entry.value;
    }
  }
  return std::nullopt;
}

} // namespace ralph
