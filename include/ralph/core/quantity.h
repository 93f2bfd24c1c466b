#pragma once

// The one parser for durations, counts and amounts of money written by people: flags,
// configuration files and environment variables all read them here.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ralph {

// What the parsers below accept, for error messages ("expected a duration like 90s, 1.5m, 2h").
inline constexpr std::string_view k_duration_forms = "a duration like 90s, 1.5m, 2h";
inline constexpr std::string_view k_count_forms = "a count like 4096, 200k, 1.5k, 2M";
inline constexpr std::string_view k_usd_forms = "an amount in USD like 5, 0.50, $2";

// A duration: a number of seconds ("90", "1.5"), or numbers each with a unit, largest unit
// first ("500ms", "90s", "1.5m", "2h", "1d", "1h30m"). Units: ms, s, m, h, d (any case). No sign,
// no spaces inside; rounded to the millisecond. nullopt for anything else or past ~30,000 years.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// A whole non-negative count: digits ("200000"), or a number with k (thousand), M (million) or
// G (billion), any case ("200k", "1.5k", "2M"). nullopt when the result is not whole ("1.2345k"),
// has a sign, or does not fit in 63 bits.
std::optional<std::int64_t> parse_count(std::string_view text);

// The whole of `text` as an int: digits, with a leading '-' for a negative one ("12", "-1");
// nullopt for anything else (spaces, "1.5", "12abc") or a number past int.
std::optional<int> parse_int(std::string_view text);

// A non-negative amount of US dollars: "5", "0.50", "$2".
std::optional<double> parse_usd(std::string_view text);

} // namespace ralph
