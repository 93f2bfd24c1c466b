#pragma once

// How a row of the key table is made: a key of each kind, reading and writing its field of the
// Config through one accessor, with what it does and the names that set it.

#include "config_keys.h"

#include "ralph/core/enum_names.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ralph::config_detail {

// Bounds several keys share: "no real limit" on a count, and a week of seconds.
inline constexpr double k_max_int = 1e9;
inline constexpr double k_week = 86400.0 * 7;

// Every key reads and writes its field through one accessor. The getters call it on a Config
// they only read: the const_cast never leads to a write.
template <typename T> using Access = T& (*)(Config&);

template <typename T> T& field(Access<T> access, const Config& config) {
  return access(const_cast<Config&>(config));
}

inline Key make_key(std::string_view path, ValueKind kind, double min = 0, double max = 0) {
  Key key;
  key.path = path;
  key.kind = kind;
  key.min = min;
  key.max = max;
  return key;
}

inline Key string_key(std::string_view path, Access<std::string> access) {
  Key key = make_key(path, ValueKind::string);
  key.set = [access](Config& c, const Value& v) { access(c) = as_string(v); };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

// A choice written as one of the enum's names.
template <typename E, std::size_t N>
Key enum_key(std::string_view path, const EnumName<E> (&names)[N],
             std::type_identity_t<Access<E>> access) {
  Key key = make_key(path, ValueKind::string);
  for (const EnumName<E>& entry : names) {
    key.choices.emplace_back(entry.name);
  }
  // `assign` has checked the name against `choices`.
  key.set = [access, &names](Config& c, const Value& v) {
    access(c) = value_of(names, as_string(v)).value_or(names[0].value);
  };
  key.get = [access, &names](const Config& c) -> std::optional<Value> {
    return std::string(name_of(names, field(access, c)));
  };
  return key;
}

// An integer in files; `T` in the Config (an int, a size, seconds, bytes written as MiB...),
// converted by `from_int` and `to_int`.
template <typename T, typename From, typename To>
Key integer_key(std::string_view path, double min, double max, Access<T> access, From from_int,
                To to_int) {
  Key key = make_key(path, ValueKind::integer, min, max);
  key.set = [access, from_int](Config& c, const Value& v) { access(c) = from_int(as_int(v)); };
  key.get = [access, to_int](const Config& c) -> std::optional<Value> {
    return static_cast<std::int64_t>(to_int(field(access, c)));
  };
  return key;
}

template <typename Int>
Key int_key(std::string_view path, double min, double max, Access<Int> access) {
  return integer_key(
      path, min, max, access, [](std::int64_t v) { return static_cast<Int>(v); },
      [](Int v) { return static_cast<std::int64_t>(v); });
}

inline Key size_key(std::string_view path, double min, double max, Access<std::size_t> access) {
  return int_key<std::size_t>(path, min, max, access);
}

// Seconds in files and records (fractions allowed: 0.5), or a duration as text ("1.5m").
inline Key seconds_key(std::string_view path, double min, double max, Access<Duration> access) {
  Key key = make_key(path, ValueKind::number, min, max);
  key.unit = Unit::seconds;
  key.set = [access](Config& c, const Value& v) {
    access(c) = Duration(std::llround(as_number(v) * 1000.0));
  };
  // Whole seconds stay integers, so records written before fractions were allowed read the same.
  key.get = [access](const Config& c) -> std::optional<Value> {
    const auto ms = field(access, c).count();
    if (ms % 1000 == 0) {
      return static_cast<std::int64_t>(ms / 1000);
    }
    return static_cast<double>(ms) / 1000.0;
  };
  return key;
}

inline Key with_unit(Key key, Unit unit) {
  key.unit = unit;
  return key;
}

// For a measured quantity whose 0 is not "no limit".
inline Key zero_means(Key key, std::string_view meaning) {
  key.zero = meaning;
  return key;
}

inline Key mebibytes_key(std::string_view path, double min, double max,
                         Access<std::size_t> access) {
  return integer_key(
      path, min, max, access, [](std::int64_t v) { return static_cast<std::size_t>(v) << 20U; },
      [](std::size_t bytes) { return static_cast<std::int64_t>(bytes >> 20U); });
}

inline Key bool_key(std::string_view path, Access<bool> access) {
  Key key = make_key(path, ValueKind::boolean);
  key.set = [access](Config& c, const Value& v) { access(c) = as_bool(v); };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

inline Key number_key(std::string_view path, double min, double max, Access<double> access) {
  Key key = make_key(path, ValueKind::number, min, max);
  key.set = [access](Config& c, const Value& v) { access(c) = as_number(v); };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

inline Key optional_number_key(std::string_view path, double min, double max,
                               Access<std::optional<double>> access) {
  Key key = make_key(path, ValueKind::number, min, max);
  key.set = [access](Config& c, const Value& v) { access(c) = as_number(v); };
  key.get = [access](const Config& c) -> std::optional<Value> {
    const auto& value = field(access, c);
    return value ? std::optional<Value>(*value) : std::nullopt;
  };
  return key;
}

inline Key list_key(std::string_view path, Access<std::vector<std::string>> access) {
  Key key = make_key(path, ValueKind::string_list);
  key.list = access;
  key.set = [access](Config& c, const Value& v) {
    access(c) = std::get<std::vector<std::string>>(v);
  };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

// A list of commands, files or globs: an empty item would name nothing (a script's unset
// variable), so it is refused rather than matching nothing or passing as a command that does
// nothing.
inline Key naming_list_key(std::string_view path, Access<std::vector<std::string>> access) {
  Key key = list_key(path, access);
  key.no_empty_items = true;
  return key;
}

// The sections of the table kept in files of their own: what checks an attempt
// (config_key_table_verify.cpp) and documents (config_key_table_documents.cpp).
std::vector<Key> verify_keys();
std::vector<Key> document_keys();

// The key with what it does and the names that set it.
inline Key named(Key key, SettingNames names) {
  key.names = std::move(names);
  return key;
}

// The rows of the sections, one after the other.
inline std::vector<Key> joined(std::initializer_list<std::vector<Key> (*)()> sections) {
  std::vector<Key> keys;
  for (std::vector<Key> (*section)() : sections) {
    for (Key& key : section()) {
      keys.push_back(std::move(key));
    }
  }
  return keys;
}

} // namespace ralph::config_detail
