#pragma once

// Propagating a failed Result in one line. Both macros work in any function returning a
// Result<U> (or a tl::expected with the same error type), whatever U is:
//
//   TRY(store.update_session(row));                 // a Result<void>, or any Result ignored
//   TRY_ASSIGN(auto config, load_config(args));      // declares `config` as the value
//   TRY_ASSIGN(row.id, next_id());                   // assigns to an existing variable
//
// TRY_ASSIGN expands to more than one statement: use it where a statement may stand, inside
// braces (as every block in this code base is).

#include <tl/expected.hpp>

#include <utility>

#define RALPH_TRY_CONCAT_(a, b) a##b
#define RALPH_TRY_NAME_(line) RALPH_TRY_CONCAT_(ralph_try_result_, line)

#define TRY(expression)                                                                            \
  do {                                                                                             \
    auto&& ralph_try_result_ = (expression);                                                       \
    if (!ralph_try_result_) {                                                                      \
      return tl::unexpected(std::move(ralph_try_result_).error());                                 \
    }                                                                                              \
  } while (false)

#define TRY_ASSIGN(target, expression)                                                             \
  auto&& RALPH_TRY_NAME_(__LINE__) = (expression);                                                 \
  if (!RALPH_TRY_NAME_(__LINE__)) {                                                                \
    return tl::unexpected(std::move(RALPH_TRY_NAME_(__LINE__)).error());                           \
  }                                                                                                \
  /* `target` may be a declaration (`auto x`): it cannot be parenthesised. */                      \
  target = std::move(*RALPH_TRY_NAME_(__LINE__)) // NOLINT(bugprone-macro-parentheses)
